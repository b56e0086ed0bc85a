package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
)

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"One sentence", []string{"One sentence"}},
		{"She was born in 1867. She died in 1934.", []string{"She was born in 1867. ", "She died in 1934."}},
		{`He said "Go home." Then he left! Why? 42 came.`, []string{`He said "Go home." `, "Then he left! ", "Why? ", "42 came."}},
		{"John F. Kennedy met Dr. Smith in the U.S. Army. It rained.", []string{"John F. Kennedy met Dr. Smith in the U.S. Army. ", "It rained."}},
		{"Version 2.5 is out. it is lower case. Next.", []string{"Version 2.5 is out. it is lower case. ", "Next."}},
		{"Line one\n\nLine two.", []string{"Line one\n\n", "Line two."}},
	} {
		got := sentences(tc.text)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("sentences(%q) = %q, want %q", tc.text, got, tc.want)
		}
		if strings.Join(got, "") != tc.text {
			t.Errorf("sentences(%q) lose text: %q", tc.text, got)
		}
	}
}

// TestAlignAtoms places the atoms of the example's biographies by hand.
func TestAlignAtoms(t *testing.T) {
	for _, tc := range []struct {
		text  string
		atoms []string
		want  []int
	}{
		{
			"Ada Lovelace was an English mathematician. She is known for her work on Charles Babbage's Analytical Engine. " +
				"She was the daughter of the poet Lord Byron. She died in 1852 at the age of 36. She invented the first electronic computer.",
			[]string{"Ada Lovelace was an English mathematician.", "Ada Lovelace is known for her work on the Analytical Engine of Charles Babbage.",
				"Ada Lovelace was the daughter of the poet Lord Byron.", "Ada Lovelace died in 1852.", "Ada Lovelace died at the age of 36.",
				"Ada Lovelace invented the first electronic computer."},
			[]int{0, 1, 2, 3, 3, 4},
		},
		{
			"Marie Curie was a Polish-born physicist and chemist who conducted pioneering research on radioactivity. " +
				"She was the first woman to win a Nobel Prize, and she won Nobel Prizes in both physics and chemistry. " +
				"She was born in Warsaw in 1867 and died in 1936. Curie discovered the elements polonium and radium with her husband Pierre. " +
				"She later became a professor at the University of Oxford.",
			[]string{"Marie Curie was a physicist.", "Marie Curie was a chemist.", "Marie Curie was born in Poland.",
				"Marie Curie conducted pioneering research on radioactivity.", "Marie Curie was the first woman to win a Nobel Prize.",
				"Marie Curie won a Nobel Prize in physics.", "Marie Curie won a Nobel Prize in chemistry.", "Marie Curie was born in Warsaw.",
				"Marie Curie was born in 1867.", "Marie Curie died in 1936.", "Marie Curie discovered polonium.", "Marie Curie discovered radium.",
				"Marie Curie became a professor at the University of Oxford."},
			[]int{0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4},
		},
		{"No atoms here.", nil, []int{}},
	} {
		atoms := make([]instance.Atom, len(tc.atoms))
		for i, a := range tc.atoms {
			atoms[i] = instance.Atom{ID: "a", Text: a}
		}
		got := alignAtoms(sentences(tc.text), atoms)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%.30q: got %v, want %v", tc.text, got, tc.want)
		}
	}
	if got := alignAtoms(nil, []instance.Atom{{Text: "x"}}); !reflect.DeepEqual(got, []int{-1}) {
		t.Errorf("no sentences: %v", got)
	}
}

func TestExcerpt(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"one two three four", 9, "one two …"}, // the space after "two" is rune 7
		{"one two three four", 7, "one two …"}, // cut at the space that is rune 7
		{"ééééé éééé", 8, "ééééé …"},           // runes, not bytes
		{strings.Repeat("x", 100), 50, strings.Repeat("x", 50) + " …"},
	} {
		if got := excerpt(tc.s, tc.n); got != tc.want {
			t.Errorf("excerpt(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
