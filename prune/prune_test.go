package prune_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/prune"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"Lanny Flaherty was born in 1942.", []string{"lanny", "flaherty", "was", "born", "in", "1942"}},
		{"lanny flaherty ( july 27, 1942 – february 18, 2024 )", []string{"lanny", "flaherty", "july", "27", "1942", "february", "18", "2024"}},
		{"Flaherty's role in \"Signs\"", []string{"flaherty", "s", "role", "in", "signs"}},
		{"Varèse Sarabande, ÉCOLE", []string{"varèse", "sarabande", "école"}},
	}
	for _, tc := range tests {
		if got := prune.Tokens(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPairsSmall: a hand-made record where each atom's best context is
// plain to see.
func TestPairsSmall(t *testing.T) {
	in := &instance.Instance{
		Output: "x",
		Atoms: []instance.Atom{
			{ID: "a0", Text: "Ada Lovelace was born in London.", Contexts: []string{"c0", "c1", "c2"}},
			{ID: "a1", Text: "Ada Lovelace wrote an algorithm for the Analytical Engine.", Contexts: []string{"c0", "c2"}},
		},
		Contexts: []instance.Context{
			{ID: "c0", Text: "the analytical engine was designed by charles babbage ."},
			{ID: "c1", Text: "ada lovelace was born in london , on 10 december 1815 ."},
			{ID: "c2", Text: "lovelace wrote the first algorithm for the analytical engine ."},
			{ID: "c3", Text: "london is the capital of england ."},
			{ID: "c4", Text: "paris is the capital of france ."},
			{ID: "c5", Text: "babbage was born in london in 1791 ."},
		},
	}
	names := func(ps []nli.Pair) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.PremiseID+">"+p.HypothesisID)
		}
		return out
	}
	tests := []struct {
		v      graph.Version
		k      int
		want   []string
		pruned int
	}{
		{graph.FR2, 1, []string{"c1>a0", "c2>a1"}, 10},
		// Second best: Babbage too was born in London; Ada Lovelace.
		{graph.FR2, 2, []string{"c1>a0", "c5>a0", "c1>a1", "c2>a1"}, 8},
		{graph.FR1, 1, []string{"c1>a0", "c2>a1"}, 3},
		{graph.FR2, 0, nil, 0}, // all
		// Context pairs: c0 and c2 share "analytical engine", c1 and c5
		// "born in london", c3 and c4 "is the capital of"; each context's
		// best partner is the other of its pair.
		{graph.FR3, 1, []string{"c1>a0", "c2>a1", "c0>c2", "c2>c0", "c1>c5", "c5>c1", "c3>c4", "c4>c3"}, 10 + 24},
	}
	for _, tc := range tests {
		n := graph.SelectNodes(in, tc.v)
		all := graph.Pairs(n)
		got, pruned := prune.Pairs(n, all, tc.k)
		want := tc.want
		if want == nil {
			want = names(all)
		}
		if !reflect.DeepEqual(names(got), want) || pruned != tc.pruned {
			t.Errorf("%s k=%d: kept %v (%d pruned), want %v (%d pruned)", tc.v, tc.k, names(got), pruned, want, tc.pruned)
		}
	}
}

// TestPairsFlaherty checks what pruning promises on the Flaherty record,
// for each version and several k, against BM25 scores computed here: each
// atom keeps exactly min(k, candidates) contexts, and none it drops
// outscores one it keeps; each context keeps at least k partners, a
// context pair is kept both ways or not at all; the kept pairs are a
// subsequence of the version's pairs.
func TestPairsFlaherty(t *testing.T) {
	ins, err := instance.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		t.Fatal(err)
	}
	in := ins[0]
	for _, v := range []graph.Version{graph.FR1, graph.FR2, graph.FR3} {
		n := graph.SelectNodes(in, v)
		docs := make([][]string, len(n.Contexts))
		idx := map[string]int{}
		for i, c := range n.Contexts {
			docs[i] = prune.Tokens(c.NLIText())
			idx[c.ID] = i
		}
		bm := retrieve.NewBM25Okapi(docs)
		text := map[string]string{}
		for _, a := range n.Atoms {
			text[a.ID] = a.Text
		}
		all := graph.Pairs(n)
		for _, k := range []int{1, 3, 5, 8} {
			t.Run(fmt.Sprintf("%s/k=%d", v, k), func(t *testing.T) {
				kept, pruned := prune.Pairs(n, all, k)
				if pruned != len(all)-len(kept) {
					t.Errorf("pruned %d, but %d of %d kept", pruned, len(kept), len(all))
				}
				isKept := map[[2]string]bool{}
				j := 0
				for _, p := range kept {
					for j < len(all) && all[j] != p {
						j++
					}
					if j == len(all) {
						t.Fatalf("kept pairs are not a subsequence of the version's pairs (at %s > %s)", p.PremiseID, p.HypothesisID)
					}
					isKept[[2]string{p.PremiseID, p.HypothesisID}] = true
				}
				type cand struct {
					ctx  string
					kept bool
				}
				byHyp := map[string][]cand{}
				var order []string
				for _, p := range all {
					if _, ok := byHyp[p.HypothesisID]; !ok {
						order = append(order, p.HypothesisID)
					}
					byHyp[p.HypothesisID] = append(byHyp[p.HypothesisID], cand{p.PremiseID, isKept[[2]string{p.PremiseID, p.HypothesisID}]})
				}
				for _, h := range order {
					cs := byHyp[h]
					if _, isCtx := idx[h]; isCtx {
						partners := 0
						for _, c := range cs {
							if c.kept != isKept[[2]string{h, c.ctx}] {
								t.Errorf("context pair %s, %s kept one way only", c.ctx, h)
							}
							if c.kept {
								partners++
							}
						}
						if partners < min(k, len(cs)) {
							t.Errorf("context %s keeps %d partners, want at least %d", h, partners, min(k, len(cs)))
						}
						continue
					}
					scores := bm.Scores(prune.Tokens(text[h]))
					nKept, minKept, maxDropped := 0, 1e300, -1e300
					for _, c := range cs {
						s := scores[idx[c.ctx]]
						if c.kept {
							nKept++
							minKept = min(minKept, s)
						} else {
							maxDropped = max(maxDropped, s)
						}
					}
					if nKept != min(k, len(cs)) {
						t.Errorf("atom %s keeps %d of %d contexts, want %d", h, nKept, len(cs), min(k, len(cs)))
					}
					if maxDropped > minKept {
						t.Errorf("atom %s drops a context scoring %v but keeps one scoring %v", h, maxDropped, minKept)
					}
				}
			})
		}
	}
}

func ExamplePairs() {
	in := &instance.Instance{
		Output: "Ada Lovelace was born in London. She wrote the first algorithm.",
		Atoms: []instance.Atom{
			{ID: "a0", Text: "Ada Lovelace was born in London."},
			{ID: "a1", Text: "Ada Lovelace wrote the first algorithm."},
		},
		Contexts: []instance.Context{
			{ID: "c0", Text: "Charles Babbage designed the Analytical Engine."},
			{ID: "c1", Text: "Ada Lovelace was born in London in 1815."},
			{ID: "c2", Text: "Lovelace wrote the first algorithm for the engine."},
		},
	}
	n := graph.SelectNodes(in, graph.FR2)
	kept, pruned := prune.Pairs(n, graph.Pairs(n), 1)
	for _, p := range kept {
		fmt.Println(p.PremiseID, "→", p.HypothesisID)
	}
	fmt.Println(pruned, "pairs pruned")
	// Output:
	// c1 → a0
	// c2 → a1
	// 4 pairs pruned
}

// BenchmarkTokenizationGolden measures how BM25 ranks the recorded
// evidence under four ways of cutting texts into words: for each of the 15
// non-neutral relations of IBM's recorded Flaherty FR2 run, the rank
// (from 0) of its context among the 21 for its atom, the atom's words as
// the query. The worst rank + 1 is the least K that keeps every recorded
// relation. whitespace is FActScore's retrieval query (Python's split(),
// case kept); words is Tokens. Run with -benchtime 1x.
func BenchmarkTokenizationGolden(b *testing.B) {
	ins, err := instance.ReadFile(refdata.Path(b, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(refdata.Path(b, "factreasoner", "flaherty_fr2_golden.json"))
	if err != nil {
		b.Fatal(err)
	}
	var g struct{ Relations []instance.Relation }
	if err := json.Unmarshal(data, &g); err != nil {
		b.Fatal(err)
	}
	stop := map[string]bool{}
	for _, w := range strings.Fields("a an the and or of in on at to for with by from as is was were be been are it its he she his her they them their this that these those which who whom also has have had not but") {
		stop[w] = true
	}
	tokenizers := []struct {
		name string
		tok  func(string) []string
	}{
		{"whitespace", strings.Fields},
		{"lower-whitespace", func(s string) []string { return strings.Fields(strings.ToLower(s)) }},
		{"words", prune.Tokens},
		{"words-without-stopwords", func(s string) []string {
			var out []string
			for _, w := range prune.Tokens(s) {
				if !stop[w] {
					out = append(out, w)
				}
			}
			return out
		}},
	}
	n := graph.SelectNodes(ins[0], graph.FR2)
	for _, tk := range tokenizers {
		b.Run(tk.name, func(b *testing.B) {
			var worst, sum int
			for b.Loop() {
				docs := make([][]string, len(n.Contexts))
				idx := map[string]int{}
				for i, c := range n.Contexts {
					docs[i] = tk.tok(c.NLIText())
					idx[c.ID] = i
				}
				bm := retrieve.NewBM25Okapi(docs)
				text := map[string]string{}
				for _, a := range n.Atoms {
					text[a.ID] = a.Text
				}
				worst, sum = 0, 0
				for _, r := range g.Relations {
					order := retrieve.TopK(bm.Scores(tk.tok(text[r.Target])), len(n.Contexts))
					for rank, j := range order {
						if j == idx[r.Source] {
							worst, sum = max(worst, rank), sum+rank
						}
					}
				}
			}
			b.ReportMetric(float64(worst), "worst-rank")
			b.ReportMetric(float64(sum), "sum-of-ranks")
		})
	}
}
