package sentence

import (
	"reflect"
	"strings"
	"testing"
)

// split cuts s at the offsets ends gives and trims the pieces.
func split(s string, ends func(string) []int) []string {
	var out []string
	start := 0
	for _, e := range append(ends(s), len(s)) {
		if p := strings.TrimSpace(s[start:e]); p != "" {
			out = append(out, p)
		}
		start = e
	}
	return out
}

func TestEnds(t *testing.T) {
	// Cased text (package atomize's tests hold the full set).
	tests := []struct {
		text string
		want []string
	}{
		{"He joined the U.S. Army in 1942. Later he moved to the U.S. He stayed there.",
			[]string{"He joined the U.S. Army in 1942.", "Later he moved to the U.S.", "He stayed there."}},
		{"It cost $3.5 million. it was cheap.", []string{"It cost $3.5 million. it was cheap."}},
		// "art" and "no" are words far more often than abbreviations:
		// they end sentences except before a number.
		{"It shows European art. Provenance is unknown. See Art. 12 of the law.",
			[]string{"It shows European art.", "Provenance is unknown.", "See Art. 12 of the law."}},
		{"He said no. Nobody asked again. It was No. 5 on the list.",
			[]string{"He said no.", "Nobody asked again.", "It was No. 5 on the list."}},
		// An initial before another is one of a run, even when the next
		// is a word that opens sentences.
		{"It was made in the U. S. A. He bought it. Plan B. It failed.",
			[]string{"It was made in the U. S. A.", "He bought it.", "Plan B.", "It failed."}},
		{"Copyright 2024 Playbill Inc. All Rights Reserved.",
			[]string{"Copyright 2024 Playbill Inc.", "All Rights Reserved."}},
	}
	for _, tt := range tests {
		if got := split(tt.text, Ends); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Ends(%q):\n got %q\nwant %q", tt.text, got, tt.want)
		}
	}
}

// TestCaselessEnds: lower-cased, tokenized Wikipedia text as in the
// Flaherty reference instance.
func TestCaselessEnds(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"plain", "lanny flaherty ( july 27, 1942 – february 18, 2024 ) was an american actor. = = life and career = = flaherty had roles in films. he also had a brief role.",
			[]string{"lanny flaherty ( july 27, 1942 – february 18, 2024 ) was an american actor.", "= = life and career = = flaherty had roles in films.", "he also had a brief role."}},
		{"initials", "directed by m. night shyamalan. it was a u. s. representative. the end.",
			[]string{"directed by m. night shyamalan.", "it was a u. s. representative.", "the end."}},
		{"initial at a sentence end before an opening", "she took vitamin c. it helped.",
			[]string{"she took vitamin c.", "it helped."}},
		{"abbreviation before a comma", "starring robert downey jr. , tommy lee jones. the film",
			[]string{"starring robert downey jr. , tommy lee jones.", "the film"}},
		{"title and number", "shelley duvall as mrs. jackson in no. 5 street. he left.",
			[]string{"shelley duvall as mrs. jackson in no. 5 street.", "he left."}},
		{"company before an opening and before a name", "he sold acme inc. the buyer was sony. he joined acme inc. records.",
			[]string{"he sold acme inc.", "the buyer was sony.", "he joined acme inc. records."}},
		{"decimals and digits after a sentence", "it cost 3.5 million. 1994 was a good year.",
			[]string{"it cost 3.5 million.", "1994 was a good year."}},
		{"a run of initials", "= = 1942 film releases = = u. s. a. unless stated = = = january = = =",
			[]string{"= = 1942 film releases = = u. s. a. unless stated = = = january = = ="}},
		{"art and no are words", "he studied modern art. critics praised him. he said no. it was no. 5 in the chart.",
			[]string{"he studied modern art.", "critics praised him.", "he said no.", "it was no. 5 in the chart."}},
		{"question and exclamation", "was it fair? no! he left.",
			[]string{"was it fair?", "no!", "he left."}},
	}
	for _, tt := range tests {
		if got := split(tt.text, CaselessEnds); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
