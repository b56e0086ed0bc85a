package llmnli

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/nli"
)

// labelDist is a fake model's distribution over the labels of one pair,
// indexed by nli.Label.
type labelDist [3]float64

// benchDists are the label distributions of the sampling measure, drawn
// from a mixture that looks like what LLM judges give NLI pairs: 60% of
// the pairs near-certain (the top label at 0.95 to 1; IBM's recorded run
// has a median of 0.9997), 25% fairly sure (0.7 to 0.95), 15% unsure (0.4
// to 0.7); the top label is any of the three, the rest of the mass split
// at random between the other two.
func benchDists(n int) []labelDist {
	rng := rand.New(rand.NewPCG(29, 5))
	out := make([]labelDist, n)
	for i := range out {
		var top float64
		switch u := rng.Float64(); {
		case u < 0.6:
			top = 0.95 + 0.05*rng.Float64()
		case u < 0.85:
			top = 0.7 + 0.25*rng.Float64()
		default:
			top = 0.4 + 0.3*rng.Float64()
		}
		l := rng.IntN(3)
		r := rng.Float64()
		out[i][l] = top
		out[i][(l+1)%3] = (1 - top) * r
		out[i][(l+2)%3] = (1 - top) * (1 - r)
	}
	return out
}

func argmax(d labelDist) nli.Label {
	best := nli.Label(0)
	for l := range d {
		if d[l] > d[best] {
			best = nli.Label(l)
		}
	}
	return best
}

// distModel is a fake endpoint that answers pair "#i" from dists[i]: at
// temperature 0 its most likely label, every token with that label's log
// probability (so the logprob method reads exactly its probability); above
// 0, each answer a draw from the distribution, fixed by the pair, the
// request's seed and the answer's index. It honours n.
func distModel(dists []labelDist) func(int, llmtest.Request) llmtest.Reply {
	return func(_ int, r llmtest.Request) llmtest.Reply {
		i, err := strconv.Atoi(r.Last()[strings.LastIndex(r.Last(), "#")+1:])
		if err != nil {
			return llmtest.Reply{Status: 400}
		}
		d := dists[i]
		if *r.Temperature == 0 {
			l := argmax(d)
			return llmtest.Reply{Content: l.String(), Tokens: llmtest.Tokenize(l.String(), math.Log(d[l]))}
		}
		draw := func(k int) llmtest.Reply {
			u := rand.New(rand.NewPCG(uint64(i), uint64(*r.Seed)<<16|uint64(k))).Float64()
			l := 0
			for acc := d[0]; u >= acc && l < 2; acc += d[l] {
				l++
			}
			return llmtest.Reply{Content: nli.Label(l).String()}
		}
		if r.N > 1 {
			var rs []llmtest.Reply
			for k := range r.N {
				rs = append(rs, draw(k))
			}
			return llmtest.Reply{Choices: rs}
		}
		return draw(0)
	}
}

// TestSampledAgainstLogprobs measures how far the probabilities of the
// sample method are from the logprob method's, on a fake endpoint whose
// samples follow its log probabilities, for 3, 5 and 10 samples and four
// small-sample corrections of the share k/n (go test -v prints the table
// of BENCHMARKS.md, "Sampled probabilities"). It checks what the default
// rests on: the correction llm.SampleShare uses is the nearest of the four
// for 5 and 10 samples, and more samples bring it nearer.
func TestSampledAgainstLogprobs(t *testing.T) {
	const pairsN = 600
	dists := benchDists(pairsN)
	srv := llmtest.New(t, distModel(dists))
	var ps []nli.Pair
	for i := range pairsN {
		ps = append(ps, nli.Pair{PremiseID: "c", HypothesisID: fmt.Sprint("a", i), Premise: "P.", Hypothesis: fmt.Sprint("#", i)})
	}
	classify := func(o Options) []nli.Result {
		c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "judge-1", Seed: 42, Concurrency: 8})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cl, err := New(c, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cl.Classify(context.Background(), ps)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	lp := classify(Options{Method: llm.Logprobs})
	for i, r := range lp {
		if d := dists[i]; r.Label != argmax(d) || math.Abs(r.Probability-d[r.Label]) > 1e-9 {
			t.Fatalf("pair %d: logprobs give %v %v; the model's distribution is %v", i, r.Label, r.Probability, d)
		}
	}
	corrections := []struct {
		name  string
		share func(k, n float64) float64
	}{
		{"k/n", func(k, n float64) float64 { return k / n }},
		{"(k+¼)/(n+½), the default", func(k, n float64) float64 { return (k + 0.25) / (n + 0.5) }},
		{"(k+½)/(n+1)", func(k, n float64) float64 { return (k + 0.5) / (n + 1) }},
		{"(k+1)/(n+2)", func(k, n float64) float64 { return (k + 1) / (n + 2) }},
	}
	t.Logf("| samples | same label as logprobs | %s | %s | %s | %s |", corrections[0].name, corrections[1].name, corrections[2].name, corrections[3].name)
	t.Logf("|---|---|---|---|---|---|")
	last := math.Inf(1)
	for _, n := range []int{3, 5, 10} {
		res := classify(Options{Method: llm.Sample, Samples: n})
		same := 0
		mae := make([]float64, len(corrections))
		for i, r := range res {
			// k from the default share the classifier gave.
			k := math.Round(r.Probability*(float64(n)+0.5) - 0.25)
			if llm.SampleShare(int(k), n) != r.Probability {
				t.Fatalf("pair %d: probability %v is no share of %d samples", i, r.Probability, n)
			}
			if r.Label == lp[i].Label {
				same++
			}
			for c, corr := range corrections {
				mae[c] += math.Abs(corr.share(k, float64(n))-lp[i].Probability) / pairsN
			}
		}
		t.Logf("| %d | %.1f%% | %.3f | %.3f | %.3f | %.3f |", n, 100*float64(same)/pairsN, mae[0], mae[1], mae[2], mae[3])
		if n >= 5 {
			for c := range corrections {
				if mae[c] < mae[1] {
					t.Errorf("%d samples: %s is nearer (%.4f) than the default (%.4f)", n, corrections[c].name, mae[c], mae[1])
				}
			}
		}
		if mae[1] >= last {
			t.Errorf("%d samples are no nearer (%.4f) than fewer (%.4f)", n, mae[1], last)
		}
		last = mae[1]
	}
}
