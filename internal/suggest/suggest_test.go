package suggest

import "testing"

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"score", "score", 0}, {"scor", "score", 1}, {"kitten", "sitting", 3},
		{"modle", "model", 1}, {"ab", "ba", 1}, {"ca", "abc", 3}, {"γ", "y", 1},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

// TestDidYouMean: the nearest names within a typo's distance, those the
// typed name begins where none is near, at most three in order, quoted
// unless they are flags; nothing for a name near none.
func TestDidYouMean(t *testing.T) {
	commands := []string{"score", "compare", "inspect", "kb"}
	flags := []string{"--fetch-pages", "--fetch-budget", "--fetch-private", "--format", "--nli-model", "-o"}
	for _, tc := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"scor", commands, `: did you mean "score"?`},
		{"inpsect", commands, `: did you mean "inspect"?`},
		{"bogus", commands, ""},
		{"--nli-modle", flags, ": did you mean --nli-model?"},
		{"--fetch", flags, ": did you mean --fetch-budget, --fetch-pages or --fetch-private?"},
		{"--fromat", flags, ": did you mean --format?"},
		{"--zzz", flags, ""},
	} {
		if got := DidYouMean(tc.name, tc.candidates); got != tc.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
