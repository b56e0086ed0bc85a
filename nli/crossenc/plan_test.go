package crossenc

import (
	"slices"
	"testing"

	"github.com/factreasoner/factreasoner-go/hftokenizer"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// TestOnlyFirst: with the real roberta-base tokenizer, a premise too long
// for the window is cut, the hypothesis never is: only_first truncation,
// here into chunks that together cover the premise, each laid out as
// <s> chunk </s></s> hypothesis </s>.
func TestOnlyFirst(t *testing.T) {
	tok, err := hftokenizer.Load(refdata.Path(t, "tokenizers", "roberta-base", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	premise := "Lanny Flaherty is an American actor. He was born in Pensacola, Florida. He appeared in many films."
	p, _ := tok.Encode(premise)
	h, _ := tok.Encode("Lanny Flaherty is an actor.")
	plan := planPair(premise, p, "Lanny Flaherty is an actor.", h, 20, tok.Specials())
	if len(plan.Hypotheses) != 1 || plan.Hypotheses[0] != (Span{0, h.Len()}) || len(plan.Chunks) < 2 {
		t.Fatalf("plan %+v", plan)
	}
	var covered []int
	for _, c := range plan.Chunks {
		ids := tok.Pair(p, c.Start, c.End, h, 0, h.Len()).IDs
		if len(ids) > 20 {
			t.Errorf("sequence of %d tokens", len(ids))
		}
		want := append(append(append([]int{0}, p.IDs[c.Start:c.End]...), 2, 2), append(h.IDs, 2)...)
		if !slices.Equal(ids, want) {
			t.Errorf("chunk %v: %v, want <s> chunk </s></s> hypothesis </s> = %v", c, ids, want)
		}
		covered = append(covered, p.IDs[c.Start:c.End]...)
	}
	if !slices.Equal(covered, p.IDs) {
		t.Errorf("chunks do not cover the premise")
	}
}

// TestChunkPremise checks the chunking rule on token offsets built by hand.
func TestChunkPremise(t *testing.T) {
	// words returns one token per whitespace-separated word of text, with
	// offsets that exclude the space (as trimmed offsets do).
	words := func(text string) [][2]int {
		var offs [][2]int
		start := -1
		for i := 0; i <= len(text); i++ {
			if i == len(text) || text[i] == ' ' {
				if start >= 0 {
					offs = append(offs, [2]int{start, i})
					start = -1
				}
			} else if start < 0 {
				start = i
			}
		}
		return offs
	}
	for _, c := range []struct {
		name   string
		text   string
		budget int
		want   []Span
	}{
		{"fits", "a b c.", 3, []Span{{0, 3}}},
		{"sentences", "a b. c d. e f.", 4, []Span{{0, 4}, {4, 6}}},
		{"sentence before the limit", "a b. c d e.", 3, []Span{{0, 2}, {2, 5}}},
		{"closing quote", `a "b." c d`, 3, []Span{{0, 2}, {2, 4}}},
		{"no boundary: words", "a b c d e", 2, []Span{{0, 2}, {2, 4}, {4, 5}}},
		{"last sentence in window", "a. b. c. d e f g", 4, []Span{{0, 3}, {3, 7}}},
		{"not a boundary without space", "a.b c.d e f", 2, []Span{{0, 2}, {2, 4}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := chunkTokens(c.text, words(c.text), c.budget)
			if !slices.Equal(got, c.want) {
				t.Errorf("%v, want %v", got, c.want)
			}
		})
	}
	// Offsets that include the leading space give the same cuts.
	text := "a b. c d. e f."
	trimmed := words(text)
	untrimmed := slices.Clone(trimmed)
	for i := 1; i < len(untrimmed); i++ {
		untrimmed[i][0]--
	}
	if a, b := chunkTokens(text, trimmed, 4), chunkTokens(text, untrimmed, 4); !slices.Equal(a, b) {
		t.Errorf("trimmed offsets %v, untrimmed %v", a, b)
	}
}
