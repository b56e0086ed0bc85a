package atomize

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"plain", "He was born in 1950. He died in 2010! Was he famous? Yes.",
			[]string{"He was born in 1950.", "He died in 2010!", "Was he famous?", "Yes."}},
		{"titles", "Dr. Smith met Mr. Jones and Prof. Liu in St. Louis. They talked.",
			[]string{"Dr. Smith met Mr. Jones and Prof. Liu in St. Louis.", "They talked."}},
		{"initials", "John F. Kennedy admired J. R. R. Tolkien. Kennedy read his books.",
			[]string{"John F. Kennedy admired J. R. R. Tolkien.", "Kennedy read his books."}},
		{"initial at a sentence end", "She took vitamin C. It helped.",
			[]string{"She took vitamin C.", "It helped."}},
		{"dotted acronym inside and at the end", "He joined the U.S. Army in 1942. Later he moved to the U.S. He stayed there.",
			[]string{"He joined the U.S. Army in 1942.", "Later he moved to the U.S.", "He stayed there."}},
		{"degree", "She earned a Ph.D. in physics. Then she taught.",
			[]string{"She earned a Ph.D. in physics.", "Then she taught."}},
		{"decimals and money", "The film cost $3.5 million. It earned 12.7 times that.",
			[]string{"The film cost $3.5 million.", "It earned 12.7 times that."}},
		{"Latin abbreviations", "He played many instruments, e.g. Piano and violin. He also sang, i.e. He was a tenor.",
			[]string{"He played many instruments, e.g. Piano and violin.", "He also sang, i.e. He was a tenor."}},
		{"abbreviations before numbers", "He was born on Jan. 5, 1950 in No. 7 Elm Road (see p. 12). He grew up there.",
			[]string{"He was born on Jan. 5, 1950 in No. 7 Elm Road (see p. 12).", "He grew up there."}},
		{"company abbreviation mid sentence and at the end", "He founded Acme Inc. Records in 1970. He later sold Acme Inc. The buyer was Sony.",
			[]string{"He founded Acme Inc. Records in 1970.", "He later sold Acme Inc.", "The buyer was Sony."}},
		{"quotes after the period", `He said, "I will return." Then he left. She asked "Why?" and waited.`,
			[]string{`He said, "I will return."`, "Then he left.", `She asked "Why?" and waited.`}},
		{"curly quotes and brackets", "It was called “The Best.” It won (twice.) Critics agreed.",
			[]string{"It was called “The Best.”", "It won (twice.)", "Critics agreed."}},
		{"ellipsis", "He waited... and waited... Then he left.",
			[]string{"He waited... and waited...", "Then he left."}},
		{"no final period", "He was born in Tulsa. He was a pianist",
			[]string{"He was born in Tulsa.", "He was a pianist"}},
		{"urls and versions", "Visit example.com for v2.0 notes. Done.",
			[]string{"Visit example.com for v2.0 notes.", "Done."}},
		{"lists and headings", "## Early life\nHe was born in Tulsa.\n\n- Studied piano\n- Moved to Chicago. Taught there.\n1. First album\n2) Second album",
			[]string{"He was born in Tulsa.", "Studied piano", "Moved to Chicago.", "Taught there.", "First album", "Second album"}},
		{"wrapped line goes on in lower case", "He was born in\nTulsa in 1948 and\nmoved to Chicago.",
			[]string{"He was born in", "Tulsa in 1948 and moved to Chicago."}},
		{"punctuation only is no sentence", "... !", nil},
		{"empty", "  \n ", nil},
		{"unicode", "Émile Zola wrote Germinal. Ça marche.", []string{"Émile Zola wrote Germinal.", "Ça marche."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitSentences(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func ExampleSplitSentences() {
	for _, s := range SplitSentences("Dr. Ruth Adair was born in the U.S. in 1948. She studied at the Univ. of Chicago, i.e. In Illinois. She died on Jan. 3, 2011.") {
		fmt.Println(s)
	}
	// Output:
	// Dr. Ruth Adair was born in the U.S. in 1948.
	// She studied at the Univ. of Chicago, i.e. In Illinois.
	// She died on Jan. 3, 2011.
}

func TestSentencesAtoms(t *testing.T) {
	atoms, err := Atoms(context.Background(), Sentences{}, nil, "Ruth Adair was a pianist. She was born in Tulsa.")
	if err != nil {
		t.Fatal(err)
	}
	if len(atoms) != 2 || atoms[0].ID != "a0" || atoms[1].ID != "a1" || atoms[1].Text != "She was born in Tulsa." || atoms[1].Original != atoms[1].Text {
		t.Errorf("atoms %+v", atoms)
	}
	if _, err := Atoms(context.Background(), Sentences{}, nil, "…"); err != ErrNoAtoms {
		t.Errorf("err %v", err)
	}
}
