package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
)

// TestScoreCascade: fr score --nli lexical,llm asks the lexical backend
// about every pair and the LLM about exactly the pairs whose lexical
// answer is below --nli-cascade-below (computed here by the lexical
// backend itself over every atom–context pair of FR2 with all pairs);
// each output line counts the pairs each backend answered, the run's
// summary on stderr says the totals, and the run's identity names both
// backends and the threshold.
func TestScoreCascade(t *testing.T) {
	var mu sync.Mutex
	asked := map[[2]string]int{}
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		premise, hypothesis, _ := strings.Cut(strings.TrimPrefix(r.Last(), "PREMISE: "), "\nHYPOTHESIS: ")
		mu.Lock()
		asked[[2]string{premise, hypothesis}]++
		mu.Unlock()
		return llmtest.Reply{Content: "contradiction"}
	})
	ins, err := instance.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	for _, below := range []float64{0.8, 0.6} {
		// The pairs of each record, and those lexical is unsure of.
		lex := lexical.New()
		unsure := map[[2]string]bool{}
		perRecord := make([][2]int, len(ins))
		for rec, in := range ins {
			seen := map[[2]string]bool{}
			for _, c := range in.Contexts {
				for _, a := range in.Atoms {
					k := [2]string{c.NLIText(), a.Text}
					if seen[k] {
						continue
					}
					seen[k] = true
					res, err := lex.Classify(context.Background(), []nli.Pair{{Premise: k[0], Hypothesis: k[1]}})
					if err != nil {
						t.Fatal(err)
					}
					if res[0].Probability < below {
						unsure[k] = true
						perRecord[rec][1]++
					} else {
						perRecord[rec][0]++
					}
				}
			}
		}
		mu.Lock()
		clear(asked)
		mu.Unlock()
		out, stderr, err := run(t, context.Background(), "score", "--nli", "lexical,llm", "--nli-cascade-below", fmt.Sprint(below),
			"--pairs-per-atom", "all", "--llm-model", "m", "--llm-base-url", srv.BaseURL(), "--llm-cache", "off", exampleFile)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		if len(asked) != len(unsure) || len(unsure) == 0 {
			t.Errorf("below %v: the LLM was asked about %d pairs; lexical is unsure of %d", below, len(asked), len(unsure))
		}
		for k, n := range asked {
			if !unsure[k] || n != 1 {
				t.Errorf("below %v: the LLM was asked %d times about a pair lexical is sure of (%v): %.50q", below, n, unsure[k], k[1])
			}
		}
		total := [2]int{}
		for rec, l := range scoreLines(t, out) {
			by, _ := json.Marshal(l["nli_pairs_by"])
			want := fmt.Sprintf(`{"lexical":%d,"llm":%d}`, perRecord[rec][0], perRecord[rec][1])
			if perRecord[rec][1] == 0 {
				want = fmt.Sprintf(`{"lexical":%d}`, perRecord[rec][0])
			}
			if string(by) != want {
				t.Errorf("below %v, record %d: nli_pairs_by %s; want %s", below, rec+1, by, want)
			}
			run, _ := l["run"].(map[string]any)
			if l["nli_backend"] != "cascade" || run["nli"] != fmt.Sprintf("cascade:lexical:coverage-v1 then llm:m (nli prompt v1, log probabilities else 5 samples at temperature 1) below %g", below) {
				t.Errorf("backend %v, run.nli %v", l["nli_backend"], run["nli"])
			}
			total[0] += perRecord[rec][0]
			total[1] += perRecord[rec][1]
		}
		summary := fmt.Sprintf("fr: nli cascade: %d pairs: %d answered by lexical, %d (", total[0]+total[1], total[0], total[1])
		if !strings.Contains(stderr, summary) || !strings.Contains(stderr, fmt.Sprintf("below %g sent to llm, which changed", below)) {
			t.Errorf("stderr lacks %q:\n%s", summary, stderr)
		}
	}
	for _, c := range []struct{ nli, want string }{
		{"lexical,lexical", "not the first again"},
		{"given,llm", "given in the cascade"},
		{"lexical,llm,onnx", "two backends"},
		{"lexical,bert", `unknown backend "bert"`},
	} {
		_, _, err := run(t, context.Background(), "score", "--nli", c.nli, "--llm-model", "m", "--llm-base-url", srv.BaseURL(), exampleFile)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--nli") {
			t.Errorf("--nli %s: error %v; want one saying %q", c.nli, err, c.want)
		}
	}
}
