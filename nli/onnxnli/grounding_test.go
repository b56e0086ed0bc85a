package onnxnli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
)

// groundingReference is reference.json of a grounding classifier of
// testdata/nli: each chunk's logits from the numpy forward pass, and the
// pair's best P(supported) and the relation it makes.
type groundingReference struct {
	Labels   []string `json:"labels"`
	Positive int      `json:"positive"`
	Pairs    []struct {
		Premise    string `json:"premise"`
		Hypothesis string `json:"hypothesis"`
		Chunks     []struct {
			Logits []float64 `json:"logits"`
		} `json:"chunks"`
		PSupported  float64 `json:"p_supported"`
		Label       string  `json:"label"` // entailment or unsupported
		Probability float64 `json:"probability"`
	} `json:"pairs"`
}

func readGroundingReference(t *testing.T, name string) *groundingReference {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testModelDir(name), "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref groundingReference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return &ref
}

// TestGroundingAgainstNumpy runs the grounding classifiers of testdata/nli
// (a RoBERTa with MiniCheck's two labels, a BERT with one logit) and
// checks every pair's relation against the reference's independent
// computation: supported pairs are entailments with P(supported), the
// others neutral, or contradictions with 1 − P when asked. The 2-label
// model answers the same under both label-name styles: LABEL_0/LABEL_1
// with the supported label named, and not_supported/supported read from
// config.json.
func TestGroundingAgainstNumpy(t *testing.T) {
	minicheck := testModelDir("tiny-minicheck")
	for _, c := range []struct {
		name, dir, ref string
		opts           Options
		kind           string
	}{
		{"LABEL_1 named", minicheck, "tiny-minicheck", Options{PositiveLabel: "LABEL_1"}, "2-label classifier, supported=LABEL_1"},
		{"labels say it", nlitest.Relabeled(t, minicheck, map[string]string{"0": "not_supported", "1": "supported"}), "tiny-minicheck", Options{}, "2-label classifier, supported=supported"},
		{"one logit", testModelDir("tiny-score"), "tiny-score", Options{}, "1-score classifier"},
	} {
		ref := readGroundingReference(t, c.ref)
		for _, unsupported := range []nli.Label{nli.Neutral, nli.Contradiction} {
			t.Run(c.name+"/"+unsupported.String(), func(t *testing.T) {
				opts := c.opts
				opts.Unsupported = unsupported
				opts.BatchSize = 3
				m, err := Load(c.dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				if got := m.Head().String(); got != c.kind {
					t.Errorf("head %q; want %q", got, c.kind)
				}
				if id := m.Identity().Model; !strings.HasSuffix(id, "("+c.kind+map[nli.Label]string{nli.Neutral: "", nli.Contradiction: ", not supported=contradiction"}[unsupported]+")") {
					t.Errorf("identity %q does not say the kind of model and the relation of not supported", id)
				}
				var pairs []nli.Pair
				var seqs []crossenc.Sequence
				labels, chunked := map[nli.Label]int{}, 0
				for _, p := range ref.Pairs {
					pairs = append(pairs, nli.Pair{Premise: p.Premise, Hypothesis: p.Hypothesis})
					e, err := m.Encode(p.Premise, p.Hypothesis)
					if err != nil {
						t.Fatal(err)
					}
					if len(e.Sequences) != len(p.Chunks) {
						t.Fatalf("%d chunks; reference %d", len(e.Sequences), len(p.Chunks))
					}
					if len(p.Chunks) > 1 {
						chunked++
					}
					seqs = append(seqs, e.Sequences...)
				}
				logits, err := m.Logits(context.Background(), seqs)
				if err != nil {
					t.Fatal(err)
				}
				k := 0
				for i, p := range ref.Pairs {
					for j, ch := range p.Chunks {
						if len(logits[k]) != len(ref.Labels) {
							t.Fatalf("%d logits a sequence; want %d", len(logits[k]), len(ref.Labels))
						}
						for l, want := range ch.Logits {
							if d := math.Abs(float64(logits[k][l]) - want); d > 1e-4 {
								t.Errorf("pair %d chunk %d logit %d: %.6f, numpy %.6f", i, j, l, logits[k][l], want)
							}
						}
						k++
					}
				}
				res, err := m.Classify(context.Background(), pairs)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range ref.Pairs {
					want := nli.Entailment
					if p.Label != "entailment" {
						want = unsupported
					}
					labels[want]++
					if res[i].Label != want || math.Abs(res[i].Probability-p.Probability) > 1e-5 {
						t.Errorf("pair %d: %v %.6f; reference %v %.6f (P(supported) %.6f)", i, res[i].Label, res[i].Probability, want, p.Probability, p.PSupported)
					}
					if math.Abs(res[i].Distribution[nli.Entailment]-p.PSupported) > 1e-5 {
						t.Errorf("pair %d: distribution %v; P(supported) %.6f", i, res[i].Distribution, p.PSupported)
					}
				}
				if labels[nli.Entailment] == 0 || labels[unsupported] == 0 || chunked < 2 {
					t.Fatalf("the reference has %v and %d chunked pairs: it tests too little", labels, chunked)
				}
			})
		}
	}
}

// TestGroundingRefused checks that a 2-label model whose labels do not
// say which means supported is refused at load, saying what to name.
func TestGroundingRefused(t *testing.T) {
	_, err := Load(testModelDir("tiny-minicheck"), Options{})
	if err == nil || !strings.Contains(err.Error(), "LABEL_0, LABEL_1 do not say which means supported") || !strings.Contains(err.Error(), "PositiveLabel") {
		t.Errorf("error %v", err)
	}
	_, err = Load(testModelDir("tiny-roberta"), Options{PositiveLabel: "ENTAILMENT"})
	if err == nil || !strings.Contains(err.Error(), "for 2-label classifiers") {
		t.Errorf("error %v", err)
	}
}
