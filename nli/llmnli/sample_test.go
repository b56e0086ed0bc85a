package llmnli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/nli"
)

// scripted is a model without log probabilities whose k-th sample of a
// pair is script[hypothesis][k] (sample k: the k-th answer of a request
// for n, or the request with seed 1 + k); at temperature 0 it answers the
// script's first label. It honours n or not.
func scripted(script map[string][]string, honoursN bool) func(int, llmtest.Request) llmtest.Reply {
	return func(_ int, r llmtest.Request) llmtest.Reply {
		hyp := pairOf(r)[strings.Index(pairOf(r), "HYPOTHESIS: ")+len("HYPOTHESIS: "):]
		labels := script[hyp]
		if *r.Temperature == 0 {
			return llmtest.Reply{Content: labels[0], NoLogprobs: true}
		}
		if r.N > 1 && honoursN {
			var rs []llmtest.Reply
			for k := range r.N {
				rs = append(rs, llmtest.Reply{Content: labels[k]})
			}
			return llmtest.Reply{Choices: rs}
		}
		if r.N > 1 {
			return llmtest.Reply{Content: labels[0]} // n not honoured: one answer
		}
		return llmtest.Reply{Content: labels[*r.Seed-1]} // the client's seed is 0
	}
}

var samplingScript = map[string][]string{
	"Five of five.":  {"entailment", "entailment", "entailment", "entailment", "entailment"},
	"Three of five.": {"entailment", "neutral", "entailment", "contradiction", "entailment"},
	"A tie.":         {"entailment", "contradiction", "neutral", "contradiction", "entailment"},
	"Four against.":  {"neutral", "contradiction", "contradiction", "contradiction", "contradiction"},
}

// TestClassifySampled: against an endpoint that returns no log
// probabilities, the default method samples each pair 5 times and gives
// the majority label the corrected share of the samples that give it (a
// pair entailed in 5 of 5 samples above one entailed in 3 of 5; a tie is
// neutral), says so once on its log, and a rerun from the cache asks
// nothing; the sample method never asks at temperature 0; the identity
// says the method and the number of samples.
func TestClassifySampled(t *testing.T) {
	ps := []nli.Pair{
		{PremiseID: "c0", HypothesisID: "a0", Premise: "P.", Hypothesis: "Five of five."},
		{PremiseID: "c0", HypothesisID: "a1", Premise: "P.", Hypothesis: "Three of five."},
		{PremiseID: "c0", HypothesisID: "a2", Premise: "P.", Hypothesis: "A tie."},
		{PremiseID: "c0", HypothesisID: "a3", Premise: "P.", Hypothesis: "Four against."},
	}
	want := []nli.Result{
		{Label: nli.Entailment, Probability: 5.25 / 5.5},
		{Label: nli.Entailment, Probability: 3.25 / 5.5},
		{Label: nli.Neutral, Probability: 2.25 / 5.5},
		{Label: nli.Contradiction, Probability: 4.25 / 5.5},
	}
	for _, c := range []struct {
		name     string
		method   llm.Method
		honoursN bool
		requests int // the first run's
		identity string
	}{
		{"auto, n honoured", llm.Auto, true, 4 + 4, "judge-1 (nli prompt v1, log probabilities else 5 samples at temperature 1)"},
		// The first pair's request for 5 answers teaches the client that
		// the server gives one; the others ask 5 times each from then on
		// (the pairs asked at once, up to 4, may all ask for n first).
		{"auto, n ignored", llm.Auto, false, 4 + 1 + 4*5, ""},
		{"sample", llm.Sample, true, 4, "judge-1 (nli prompt v1, 5 samples at temperature 1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(t, scripted(samplingScript, c.honoursN))
			cache := filepath.Join(t.TempDir(), "llm.sqlite")
			for run := range 2 {
				var log bytes.Buffer
				cl := newClassifier(t, srv, Options{Method: c.method, Log: &log}, cache)
				before := srv.Count()
				got, err := cl.Classify(context.Background(), ps)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if got[i].Label != want[i].Label || got[i].Probability != want[i].Probability {
						t.Errorf("run %d pair %d: %+v; want %+v", run, i, got[i], want[i])
					}
				}
				if got[0].Probability <= got[1].Probability {
					t.Errorf("5 of 5 samples give %v, not more than 3 of 5's %v", got[0].Probability, got[1].Probability)
				}
				n := srv.Count() - before
				switch {
				case run == 1 && n != 0:
					t.Errorf("the rerun from the cache sent %d requests", n)
				case run == 0 && c.honoursN && n != c.requests:
					t.Errorf("%d requests; want %d", n, c.requests)
				case run == 0 && !c.honoursN && (n < c.requests || n > c.requests+3):
					t.Errorf("%d requests; want %d, or up to 3 more", n, c.requests)
				}
				s := cl.Stats()
				if s.Sampled != 4 || s.Samples != 20 || s.FromLogprobs != 0 || s.Fixed != 0 || s.Answers != 4 || s.Entailment != 2 || s.Neutral != 1 || s.Contradiction != 1 {
					t.Errorf("stats %+v", s)
				}
				told := strings.Count(log.String(), "answers without log probabilities")
				if c.method == llm.Auto && told != 1 || c.method == llm.Sample && told != 0 {
					t.Errorf("log %q", log.String())
				}
				if c.identity != "" && cl.Identity().Model != c.identity {
					t.Errorf("identity %q; want %q", cl.Identity().Model, c.identity)
				}
			}
			if c.method == llm.Sample {
				for _, r := range srv.Requests() {
					if *r.Temperature != llm.SampleTemperature || r.Logprobs {
						t.Errorf("a sample request at temperature %v, logprobs %v", *r.Temperature, r.Logprobs)
					}
				}
			}
		})
	}
}

// TestClassifyAutoWithLogprobs: where the endpoint returns log
// probabilities, the default method takes them, as before, and samples
// nothing.
func TestClassifyAutoWithLogprobs(t *testing.T) {
	srv := llmtest.New(t, judge(V1, false, false))
	cl := newClassifier(t, srv, Options{}, "")
	if _, err := cl.Classify(context.Background(), pairs); err != nil {
		t.Fatal(err)
	}
	if s := cl.Stats(); s.FromLogprobs != 4 || s.Sampled != 0 || s.Samples != 0 {
		t.Errorf("stats %+v", s)
	}
	for _, r := range srv.Requests() {
		if *r.Temperature != 0 {
			t.Errorf("a request at temperature %v", *r.Temperature)
		}
	}
}

// TestMethodOptions: a fixed probability is for the fixed method only; the
// number of samples is bounded.
func TestMethodOptions(t *testing.T) {
	c, err := llm.New(llm.Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{
		{FixedProbability: 0.8},
		{Method: llm.Sample, FixedProbability: 0.8},
		{Method: llm.Sample, Samples: -1},
		{Method: llm.Auto, Samples: llm.MaxSamples + 1},
		{Method: llm.Method(9)},
	} {
		if _, err := New(c, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestMajority(t *testing.T) {
	for _, c := range []struct {
		counts [3]int // neutral, entailment, contradiction
		label  nli.Label
		top    int
	}{
		{[3]int{0, 5, 0}, nli.Entailment, 5},
		{[3]int{1, 3, 1}, nli.Entailment, 3},
		{[3]int{1, 2, 2}, nli.Neutral, 2},
		{[3]int{2, 2, 1}, nli.Neutral, 2},
		{[3]int{3, 0, 2}, nli.Neutral, 3},
		{[3]int{0, 1, 4}, nli.Contradiction, 4},
	} {
		if l, top := Majority(c.counts); l != c.label || top != c.top {
			t.Errorf("Majority(%v) = %v, %d; want %v, %d", c.counts, l, top, c.label, c.top)
		}
	}
}
