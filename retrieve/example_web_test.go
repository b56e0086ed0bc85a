package retrieve_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/retrieve"
)

func ExampleExcerpt() {
	page := strings.Join([]string{
		"The gardens were laid out in the formal style, with hedges and gravel walks.",
		"The family kept them for generations and opened them to visitors in 1850.",
		"Caroline Herschel discovered eight comets between 1786 and 1797.",
		"Visitors came in the spring to see the fountains and the roses.",
		"The house was sold in 1920 and became a school after the war.",
		"It is now a museum, open every day but Monday.",
	}, "\n")
	// The line that best matches the atom, grown by whole neighbouring
	// lines, one after and one before in turn, while the excerpt fits.
	fmt.Println(retrieve.Excerpt(page, "Caroline Herschel discovered comets.", 220))
	// Output:
	// The family kept them for generations and opened them to visitors in 1850. Caroline Herschel discovered eight comets between 1786 and 1797. Visitors came in the spring to see the fountains and the roses.
}

// staticSource answers every query with the same passages.
type staticSource []retrieve.Passage

func (s staticSource) Identify() string { return "static" }

func (s staticSource) Retrieve(_ context.Context, _, _ string, k int) ([]retrieve.Passage, error) {
	return s[:min(k, len(s))], nil
}

func ExampleMulti() {
	wiki := staticSource{{Title: "Ada Lovelace", Text: "Ada Lovelace was an English mathematician.", Link: "https://en.wikipedia.org/wiki/Ada_Lovelace"}}
	web := staticSource{
		{Title: "Ada Lovelace - Wikipedia", Snippet: "English mathematician and writer.", Link: "https://en.wikipedia.org/wiki/Ada_Lovelace"},
		{Title: "Ada Lovelace | Britannica", Snippet: "Born 10 December 1815, London.", Link: "https://www.britannica.com/biography/Ada-Lovelace"},
	}
	m := &retrieve.Multi{Sources: []retrieve.Member{
		{Name: "wikipedia", Retriever: wiki},
		{Name: "serper", Retriever: web, K: 5},
	}}
	ps, _ := m.Retrieve(context.Background(), "Ada Lovelace", "Ada Lovelace was born in 1815.", 3)
	for _, p := range ps {
		fmt.Printf("%s: %s\n", p.Source, p.Title)
	}
	// Output:
	// wikipedia: Ada Lovelace
	// serper: Ada Lovelace | Britannica
}
