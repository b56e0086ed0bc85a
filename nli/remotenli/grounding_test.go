package remotenli_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
)

// TestGroundingSameAsONNX: a grounding classifier (two labels under both
// label-name styles, or one logit) behind the KServe fake and the TEI fake
// gives exactly the answers of the local onnx backend, for either relation
// of "not supported"; and the identity says which kind of model answered.
func TestGroundingSameAsONNX(t *testing.T) {
	minicheck := modelDir("tiny-minicheck")
	for _, c := range []struct {
		name, dir string
		positive  string
		kind      string
	}{
		{"minicheck", minicheck, "LABEL_1", "2-label classifier, supported=LABEL_1"},
		{"minicheck-named", nlitest.Relabeled(t, minicheck, map[string]string{"0": "not_supported", "1": "supported"}), "", "2-label classifier, supported=supported"},
		{"score", modelDir("tiny-score"), "", "1-score classifier"},
	} {
		pairs := testPairs(t, "tiny-minicheck")
		srv := remotenlitest.Start(t, c.dir, "nli-"+c.name)
		for _, unsupported := range []nli.Label{nli.Neutral, nli.Contradiction} {
			m, err := onnxnli.Load(c.dir, onnxnli.Options{PositiveLabel: c.positive, Unsupported: unsupported})
			if err != nil {
				t.Fatal(err)
			}
			want, err := m.Classify(context.Background(), pairs)
			m.Close()
			if err != nil {
				t.Fatal(err)
			}
			labels := map[nli.Label]int{}
			for _, r := range want {
				labels[r.Label]++
			}
			if labels[nli.Entailment] == 0 || labels[unsupported] == 0 {
				t.Fatalf("%s: the local answers are %v: the test wants both", c.name, labels)
			}
			for _, protocol := range []string{remotenli.KServe, remotenli.TEI} {
				t.Run(fmt.Sprintf("%s/%s/%s", c.name, unsupported, protocol), func(t *testing.T) {
					o := fast(protocol, srv.URL, srv.Name)
					o.Timeout, o.BatchSize, o.Concurrency = 2*time.Minute, 4, 2
					o.PositiveLabel, o.Unsupported = c.positive, unsupported
					cl, err := remotenli.Open(context.Background(), c.dir, o)
					if err != nil {
						t.Fatal(err)
					}
					defer cl.Close()
					got, err := cl.Classify(context.Background(), pairs)
					if err != nil {
						t.Fatal(err)
					}
					for i := range pairs {
						if got[i].Label != want[i].Label || got[i].Probability != want[i].Probability || !slices.Equal(got[i].Distribution, want[i].Distribution) {
							t.Errorf("pair %d: remote %v %v, onnx %v %v", i, got[i].Label, got[i].Distribution, want[i].Label, want[i].Distribution)
						}
					}
					if id := cl.Identity().Model; !strings.Contains(id, "("+c.kind) {
						t.Errorf("identity %q does not say %q", id, c.kind)
					}
				})
			}
		}
	}
}

// TestGroundingMismatch: a server whose model has other labels than the
// local config.json's, or another number of outputs, is refused at Open.
func TestGroundingMismatch(t *testing.T) {
	srv := remotenlitest.Start(t, modelDir("tiny-score"), "score")
	// The local directory says two labels; the server's model gives one.
	dir := nlitest.Relabeled(t, modelDir("tiny-minicheck"), map[string]string{"0": "not_supported", "1": "supported"})
	for _, protocol := range []string{remotenli.KServe, remotenli.TEI} {
		_, err := remotenli.Open(context.Background(), dir, fast(protocol, srv.URL, srv.Name))
		if !errors.Is(err, crossenc.ErrNotMNLI) || !strings.Contains(err.Error(), "2") {
			t.Errorf("%s: error %v", protocol, err)
		}
	}
}
