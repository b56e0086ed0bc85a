package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/nlitest"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
)

var tinyMiniCheck = filepath.Join("..", "..", "testdata", "nli", "tiny-minicheck")

// TestScoreGrounding: fr score with a grounding classifier (MiniCheck's two
// labels, named with --nli-positive-label or read from config.json's
// names) makes each supported pair an entailment with the model's
// P(supported) and leaves the others neutral, or makes them contradictions
// with 1 − P under --nli-unsupported contradiction; the model behind a
// KServe fake and a TEI fake gives the same lines. The relations are
// checked against the model's own answers, pair by pair.
func TestScoreGrounding(t *testing.T) {
	ctx := context.Background()
	named := nlitest.Relabeled(t, tinyMiniCheck, map[string]string{"0": "not_supported", "1": "supported"})
	srv := remotenlitest.Start(t, tinyMiniCheck, "minicheck")
	ins, err := instance.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, unsupported := range []string{"neutral", "contradiction"} {
		unsup, _ := nli.ParseUnsupported(unsupported)
		model, err := onnxnli.Load(tinyMiniCheck, onnxnli.Options{PositiveLabel: "LABEL_1", Unsupported: unsup})
		if err != nil {
			t.Fatal(err)
		}
		// The relations FR1 should have: each atom with its own contexts.
		want := map[[3]string]nli.Result{}
		for rec, in := range ins {
			text := map[string]string{}
			for _, c := range in.Contexts {
				text[c.ID] = c.NLIText()
			}
			for _, a := range in.Atoms {
				for _, cid := range a.Contexts {
					res, err := model.Classify(ctx, []nli.Pair{{Premise: text[cid], Hypothesis: a.Text}})
					if err != nil {
						t.Fatal(err)
					}
					if res[0].Label != nli.Neutral {
						want[[3]string{fmt.Sprint(rec), cid, a.ID}] = res[0]
					}
				}
			}
		}
		model.Close()
		base := []string{"score", "--version", "1", "--nli-unsupported", unsupported}
		local, errOut, err := run(t, ctx, append(base, "--nli", "onnx", "--nli-model", tinyMiniCheck, "--nli-positive-label", "LABEL_1", exampleFile)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		kinds := map[string]int{}
		for rec, l := range scoreLines(t, local) {
			name := tinyMiniCheck + " (2-label classifier, supported=LABEL_1"
			if unsupported == "contradiction" {
				name += ", not supported=contradiction"
			}
			if l["model_name"] != name+")" {
				t.Errorf("model_name %v; want it to say the kind of model", l["model_name"])
			}
			rels, _ := json.Marshal(l["relations"])
			var got []struct {
				Source, Target, Type string
				Probability          float64
			}
			json.Unmarshal(rels, &got)
			for _, r := range got {
				kinds[r.Type]++
				key := [3]string{fmt.Sprint(rec), r.Source, r.Target}
				w, ok := want[key]
				if !ok || w.Label.String() != r.Type || math.Abs(w.Probability-r.Probability) > 1e-12 {
					t.Errorf("relation %s → %s %s %v; the model says %v %v", r.Source, r.Target, r.Type, r.Probability, w.Label, w.Probability)
				}
				delete(want, key)
			}
		}
		if len(want) > 0 {
			t.Errorf("relations missing from the output: %v", want)
		}
		if kinds["entailment"] == 0 || (unsupported == "contradiction") != (kinds["contradiction"] > 0) || kinds["neutral"] > 0 {
			t.Errorf("relation types %v with --nli-unsupported %s", kinds, unsupported)
		}

		// The other label-name style, and the servers: the same lines but
		// for the names of the backend and model.
		for _, c := range []struct {
			name, model string
			args        []string
		}{
			{"labels in config.json", named + " (2-label classifier, supported=supported", []string{"--nli", "onnx", "--nli-model", named}},
			{"kserve", "kserve:minicheck@1;tokenizer=" + tinyMiniCheck + " (2-label classifier, supported=LABEL_1",
				[]string{"--nli", "remote", "--nli-model", tinyMiniCheck, "--nli-positive-label", "LABEL_1", "--nli-endpoint", srv.URL, "--nli-remote-model", "minicheck"}},
			{"tei", "tei:minicheck@c0ffee00c0ff;tokenizer=" + tinyMiniCheck + " (2-label classifier, supported=LABEL_1",
				[]string{"--nli", "remote", "--nli-protocol", "tei", "--nli-model", tinyMiniCheck, "--nli-positive-label", "LABEL_1", "--nli-endpoint", srv.URL}},
		} {
			out, errOut, err := run(t, ctx, append(append(base, c.args...), exampleFile)...)
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.name, err, errOut)
			}
			got, want := scoreLines(t, out), scoreLines(t, local)
			if len(got) != len(want) {
				t.Fatalf("%s: %d lines, onnx %d", c.name, len(got), len(want))
			}
			for i := range got {
				if m, _ := got[i]["model_name"].(string); !strings.HasPrefix(m, c.model) {
					t.Errorf("%s: model_name %q; want %q…", c.name, m, c.model)
				}
				for _, l := range []map[string]any{got[i], want[i]} {
					delete(l, "model_name")
					delete(l, "nli_backend")
					delete(l, "run")
				}
				a, _ := json.Marshal(got[i])
				b, _ := json.Marshal(want[i])
				if string(a) != string(b) {
					t.Errorf("%s (%s), line %d: differs from --nli onnx's but for the names", c.name, unsupported, i+1)
				}
			}
		}
	}

	// Without the supported label named, MiniCheck's export is refused,
	// saying which flag names it.
	_, _, err = run(t, ctx, "score", "--nli", "onnx", "--nli-model", tinyMiniCheck, exampleFile)
	if err == nil || !strings.Contains(err.Error(), "LABEL_0, LABEL_1 do not say which means supported") || !strings.Contains(err.Error(), "(--nli-positive-label)") {
		t.Errorf("error %v", err)
	}
	_, _, err = run(t, ctx, "score", "--nli", "onnx", "--nli-model", tinyMiniCheck, "--nli-unsupported", "maybe", exampleFile)
	if err == nil || !strings.Contains(err.Error(), "--nli-unsupported") {
		t.Errorf("error %v", err)
	}
}
