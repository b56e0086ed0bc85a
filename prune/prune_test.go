package prune_test

import (
	"encoding/json"
	"fmt"
	"github.com/factreasoner/factreasoner-go/bm25"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/prune"
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

// TestSelectSmall: a hand-made record where each atom's best other
// context is plain to see. The atoms' own contexts (listed, or named for
// them, or the question's) are always asked.
func TestSelectSmall(t *testing.T) {
	in := &instance.Instance{
		Output: "x",
		Atoms: []instance.Atom{
			{ID: "a0", Text: "Ada Lovelace was born in London.", Contexts: []string{"c0"}},
			{ID: "a1", Text: "Ada Lovelace wrote an algorithm for the Analytical Engine."},
		},
		Contexts: []instance.Context{
			{ID: "c0", Text: "the analytical engine was designed by charles babbage ."},
			{ID: "c1", Text: "ada lovelace was born in london , on 10 december 1815 ."},
			{ID: "c_a1_0", Text: "paris is the capital of france ."}, // named for a1
			{ID: "c3", Text: "london is the capital of england ."},
			{ID: "c4", Text: "lovelace wrote the first algorithm for the analytical engine ."},
			{ID: "c5", Text: "babbage was born in london in 1791 ."},
		},
	}
	names := func(s prune.Selection) []string {
		var out []string
		for i, p := range s.Pairs {
			mark := ">"
			if s.Own[i] {
				mark = "=" // own
			}
			out = append(out, p.PremiseID+mark+p.HypothesisID)
		}
		return out
	}
	withQuery := *in
	withQuery.Contexts = append(append([]instance.Context(nil), in.Contexts...), instance.Context{ID: "c_q_0", Text: "ada lovelace ( 1815 – 1852 ) ."})
	tests := []struct {
		name   string
		in     *instance.Instance
		v      graph.Version
		k      int
		want   []string
		pruned int
	}{
		{"own only", in, graph.FR2, 0, []string{"c0=a0", "c_a1_0=a1"}, 10},
		{"one other", in, graph.FR2, 1, []string{"c0=a0", "c1>a0", "c_a1_0=a1", "c4>a1"}, 8},
		// Second best for a0: Babbage too was born in London; for a1: Ada
		// Lovelace.
		{"two others", in, graph.FR2, 2, []string{"c0=a0", "c1>a0", "c5>a0", "c1>a1", "c_a1_0=a1", "c4>a1"}, 6},
		{"all", in, graph.FR2, prune.All, []string{"c0=a0", "c1>a0", "c_a1_0>a0", "c3>a0", "c4>a0", "c5>a0", "c0>a1", "c1>a1", "c_a1_0=a1", "c3>a1", "c4>a1", "c5>a1"}, 0},
		{"FR1 asks the own pairs", in, graph.FR1, 1, []string{"c0=a0", "c_a1_0=a1"}, 0},
		{"the question's contexts are every atom's own", &withQuery, graph.FR2, 0, []string{"c0=a0", "c_q_0=a0", "c_a1_0=a1", "c_q_0=a1"}, 10},
		{"FR1 with the question's contexts", &withQuery, graph.FR1, 0, []string{"c0=a0", "c_q_0=a0", "c_a1_0=a1", "c_q_0=a1"}, 0},
		// Context pairs: c0 and c4 share "analytical engine", c1 and c5
		// "born in london", c_a1_0 and c3 "is the capital of"; each
		// context's best partner is the other of its pair. No atom has
		// two own contexts: no own context pair.
		{"FR3", in, graph.FR3, 1, []string{"c0=a0", "c1>a0", "c_a1_0=a1", "c4>a1", "c0>c4", "c4>c0", "c1>c5", "c5>c1", "c3>c_a1_0", "c_a1_0>c3"}, 8 + 24},
		// With the question's context, c_q_0 is an own partner of c0 and
		// c_a1_0 (both atoms' own); c_q_0's best other is c1 (ada
		// lovelace, 1815).
		{"FR3, own context pairs", &withQuery, graph.FR3, 0, []string{"c0=a0", "c_q_0=a0", "c_a1_0=a1", "c_q_0=a1", "c0=c_q_0", "c_q_0=c0", "c_a1_0=c_q_0", "c_q_0=c_a1_0"}, 10 + 42 - 4},
	}
	for _, tc := range tests {
		n := graph.SelectNodes(tc.in, tc.v)
		s := prune.Select(n, tc.k)
		if got := names(s); !reflect.DeepEqual(got, tc.want) || s.Pruned != tc.pruned {
			t.Errorf("%s: kept %v (%d pruned)\nwant %v (%d pruned)", tc.name, got, s.Pruned, tc.want, tc.pruned)
		}
		if e := prune.Estimate(n, tc.k); e < len(s.Pairs) {
			t.Errorf("%s: estimate %d, below the %d pairs", tc.name, e, len(s.Pairs))
		}
	}
}

// TestSelectFlaherty checks what pruning promises on the Flaherty record,
// for each version and several k, against BM25 scores computed here: each
// atom keeps its own contexts and exactly min(k, others) other contexts,
// and none it drops outscores one it keeps; each context keeps its own
// partners and at least min(k, others) others, a context pair is kept
// both ways or not at all; the kept pairs are a subsequence of the
// version's pairs.
func TestSelectFlaherty(t *testing.T) {
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
		bm := bm25.NewOkapi(docs)
		text := map[string]string{}
		own := map[[2]string]bool{} // (context, atom) and (context, context)
		for i, a := range n.Atoms {
			text[a.ID] = a.Text
			for _, c := range n.Own()[i] {
				own[[2]string{n.Contexts[c].ID, a.ID}] = true
				for _, d := range n.Own()[i] {
					if c != d {
						own[[2]string{n.Contexts[c].ID, n.Contexts[d].ID}] = true
					}
				}
			}
		}
		all := graph.Pairs(n)
		for _, k := range []int{0, 1, 3, 5, 8} {
			t.Run(fmt.Sprintf("%s/k=%d", v, k), func(t *testing.T) {
				s := prune.Select(n, k)
				if v == graph.FR1 {
					if !reflect.DeepEqual(s.Pairs, all) || s.Pruned != 0 {
						t.Errorf("FR1: %d pairs, %d pruned; want its %d own pairs", len(s.Pairs), s.Pruned, len(all))
					}
					return
				}
				if s.Pruned != len(all)-len(s.Pairs) || prune.Estimate(n, k) < len(s.Pairs) {
					t.Errorf("pruned %d, but %d of %d kept (estimate %d)", s.Pruned, len(s.Pairs), len(all), prune.Estimate(n, k))
				}
				isKept := map[[2]string]bool{}
				j := 0
				for i, p := range s.Pairs {
					for j < len(all) && all[j] != p {
						j++
					}
					if j == len(all) {
						t.Fatalf("kept pairs are not a subsequence of the version's pairs (at %s > %s)", p.PremiseID, p.HypothesisID)
					}
					key := [2]string{p.PremiseID, p.HypothesisID}
					isKept[key] = true
					if s.Own[i] != own[key] {
						t.Errorf("pair %v marked own %v", key, s.Own[i])
					}
				}
				type cand struct {
					ctx       string
					kept, own bool
				}
				byHyp := map[string][]cand{}
				var order []string
				for _, p := range all {
					if _, ok := byHyp[p.HypothesisID]; !ok {
						order = append(order, p.HypothesisID)
					}
					key := [2]string{p.PremiseID, p.HypothesisID}
					byHyp[p.HypothesisID] = append(byHyp[p.HypothesisID], cand{p.PremiseID, isKept[key], own[key]})
				}
				for _, h := range order {
					others, keptOthers := 0, 0
					minKept, maxDropped := 1e300, -1e300
					var scores []float64
					if _, isCtx := idx[h]; !isCtx {
						scores = bm.Scores(prune.Tokens(text[h]))
					}
					for _, c := range byHyp[h] {
						if c.own && !c.kept {
							t.Errorf("own pair %s > %s not asked", c.ctx, h)
						}
						if c.own {
							continue
						}
						others++
						if _, isCtx := idx[h]; isCtx {
							if c.kept != isKept[[2]string{h, c.ctx}] {
								t.Errorf("context pair %s, %s kept one way only", c.ctx, h)
							}
						}
						if c.kept {
							keptOthers++
						}
						if scores != nil {
							if c.kept {
								minKept = min(minKept, scores[idx[c.ctx]])
							} else {
								maxDropped = max(maxDropped, scores[idx[c.ctx]])
							}
						}
					}
					if _, isCtx := idx[h]; isCtx {
						if keptOthers < min(k, others) {
							t.Errorf("context %s keeps %d other partners, want at least %d", h, keptOthers, min(k, others))
						}
						continue
					}
					if keptOthers != min(k, others) {
						t.Errorf("atom %s keeps %d of %d other contexts, want %d", h, keptOthers, others, min(k, others))
					}
					if maxDropped > minKept {
						t.Errorf("atom %s drops a context scoring %v but keeps one scoring %v", h, maxDropped, minKept)
					}
				}
			})
		}
	}
}

func ExampleSelect() {
	in := &instance.Instance{
		Output: "Ada Lovelace was born in London. She wrote the first algorithm.",
		Atoms: []instance.Atom{
			{ID: "a0", Text: "Ada Lovelace was born in London.", Contexts: []string{"c_a0_0"}},
			{ID: "a1", Text: "Ada Lovelace wrote the first algorithm.", Contexts: []string{"c_a1_0"}},
		},
		Contexts: []instance.Context{
			{ID: "c_a0_0", Text: "Charles Babbage designed the Analytical Engine."},
			{ID: "c_a1_0", Text: "Ada Lovelace was born in London in 1815."},
			{ID: "c2", Text: "Lovelace wrote the first algorithm for the engine."},
		},
	}
	n := graph.SelectNodes(in, graph.FR2)
	s := prune.Select(n, 1) // own contexts, and one other per atom
	for i, p := range s.Pairs {
		fmt.Println(p.PremiseID, "→", p.HypothesisID, "own:", s.Own[i])
	}
	fmt.Println(s.Pruned, "pairs pruned")
	// Output:
	// c_a0_0 → a0 own: true
	// c_a1_0 → a0 own: false
	// c_a1_0 → a1 own: true
	// c2 → a1 own: false
	// 2 pairs pruned
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
				bm := bm25.NewOkapi(docs)
				text := map[string]string{}
				for _, a := range n.Atoms {
					text[a.ID] = a.Text
				}
				worst, sum = 0, 0
				for _, r := range g.Relations {
					order := bm25.TopK(bm.Scores(tk.tok(text[r.Target])), len(n.Contexts))
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
