package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/hub/hubtest"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/nlimodel"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
)

var (
	tinyRoberta = filepath.Join("..", "..", "testdata", "nli", "tiny-roberta")
	exampleFile = filepath.Join("..", "..", "testdata", "example.jsonl")
)

// scoreLines parses fr score's output.
func scoreLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line is not JSON: %v", err)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestScoreONNX: fr score --nli onnx on the shipped example runs end to
// end, records backend and model, and gives the marginals that the same
// model's answers give when passed in as relations (premise = context,
// hypothesis = atom, FR1 pairing each atom with its own contexts).
func TestScoreONNX(t *testing.T) {
	ctx := context.Background()
	out, errOut, err := run(t, ctx, "score", "--version", "1", "--nli", "onnx", "--nli-model", tinyRoberta, exampleFile)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	lines := scoreLines(t, out)
	if len(lines) != 3 {
		t.Fatalf("%d output lines", len(lines))
	}
	for _, l := range lines {
		if l["nli_backend"] != "onnx" || l["model_name"] != tinyRoberta {
			t.Errorf("backend %v, model %v", l["nli_backend"], l["model_name"])
		}
	}
	if !strings.Contains(errOut, "fr: onnx nli "+tinyRoberta+": ") || strings.Contains(out, "fr:") {
		t.Errorf("summary not on stderr only:\n%s", errOut)
	}
	again, _, err := run(t, ctx, "score", "--version", "1", "--nli", "onnx", "--nli-model", tinyRoberta, exampleFile)
	if err != nil || again != out {
		t.Errorf("second run differs (%v)", err)
	}

	// fr inspect shows the model's whole distribution for each relation.
	insp, errOut, err := run(t, ctx, "inspect", "--nli", "onnx", "--nli-model", tinyRoberta, "--line", "1", exampleFile)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(insp, "nli onnx:"+tinyRoberta) || !regexp.MustCompile(`from c_a\d+_\d+ .*\[entailment 0\.\d{4}, neutral 0\.\d{4}, contradiction 0\.\d{4}\]`).MatchString(insp) {
		t.Errorf("inspect does not show the distribution:\n%s", insp)
	}

	// The model's own answers, as relations.
	model, err := onnxnli.Load(tinyRoberta, onnxnli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	ins, err := instance.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	var given strings.Builder
	for _, in := range ins {
		text := map[string]string{}
		for _, c := range in.Contexts {
			text[c.ID] = c.NLIText()
		}
		type relation struct {
			Source      string  `json:"source"`
			Target      string  `json:"target"`
			Type        string  `json:"type"`
			Probability float64 `json:"probability"`
		}
		var rels []relation
		for _, a := range in.Atoms {
			for _, cid := range a.Contexts {
				res, err := model.Classify(ctx, []nli.Pair{{Premise: text[cid], Hypothesis: a.Text}})
				if err != nil {
					t.Fatal(err)
				}
				rels = append(rels, relation{cid, a.ID, res[0].Label.String(), res[0].Probability})
			}
		}
		raw := map[string]any{}
		data, _ := json.Marshal(in)
		json.Unmarshal(data, &raw)
		raw["relations"] = rels
		line, _ := json.Marshal(raw)
		given.Write(line)
		given.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "given.jsonl")
	os.WriteFile(path, []byte(given.String()), 0o644)
	gout, errOut, err := run(t, ctx, "score", "--version", "1", "--nli", "given", path)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	glines := scoreLines(t, gout)
	for i := range lines {
		a, _ := json.Marshal(lines[i]["marginals"])
		b, _ := json.Marshal(glines[i]["marginals"])
		if string(a) != string(b) {
			t.Errorf("record %d: marginals with --nli onnx\n%s\ndiffer from the model's answers given as relations\n%s", i, a, b)
		}
	}
}

// TestModelsPull: fr models pull from a hub on loopback, resuming a cut
// download; the pulled model is then used by repository id, listed, and
// taken by --nli auto when it is the default model.
func TestModelsPull(t *testing.T) {
	lib, err := onnxnli.FindLibrary("")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(onnxnli.LibraryEnvVar, lib)
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	h := hubtest.New(t)
	t.Setenv("HF_ENDPOINT", h.URL)
	t.Setenv("HF_TOKEN", "")
	const commit = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	h.AddDir(t, "acme/tiny-roberta", commit, tinyRoberta)
	h.CutAfter["model.onnx"] = []int{50000}
	ctx := context.Background()

	out, errOut, err := run(t, ctx, "models", "pull", "acme/tiny-roberta")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	dir := strings.TrimSpace(out)
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Fatalf("pull printed %q: %v", out, err)
	}
	if !contains(h.Requests(), "/cdn/acme/tiny-roberta/model.onnx bytes=50000-") {
		t.Errorf("cut download not resumed with a range request: %q", h.Requests())
	}
	if _, err := os.Stat(filepath.Join(dir, "reference.json")); err == nil {
		t.Error("pulled a file the model does not need")
	}
	out, _, err = run(t, ctx, "models", "list")
	if err != nil || !strings.Contains(out, "acme/tiny-roberta") || !strings.Contains(out, "c0ffee00c0ff") {
		t.Errorf("list: %v\n%s", err, out)
	}

	out, errOut, err = run(t, ctx, "score", "--nli", "onnx", "--nli-model", "acme/tiny-roberta", exampleFile)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	lines := scoreLines(t, out)
	if len(lines) != 3 || lines[0]["model_name"] != "acme/tiny-roberta@c0ffee00c0ff" {
		t.Errorf("%d lines, model %v", len(lines), lines[0]["model_name"])
	}
	if _, _, err := run(t, ctx, "score", "--nli", "onnx", "--nli-model", "acme/not-pulled", exampleFile); err == nil || !strings.Contains(err.Error(), "fr models pull acme/not-pulled") {
		t.Errorf("model not pulled: %v", err)
	}

	// --nli auto: an error for the records without relations until the
	// default model is there, then onnx for them.
	mixed := filepath.Join("..", "..", "testdata", "report", "example-input.jsonl") // two records without relations
	_, errOut, err = run(t, ctx, "score", mixed)
	if err == nil || !strings.Contains(err.Error(), "fr models pull "+nlimodel.Default) {
		t.Errorf("auto without a model: %v\n%s", err, errOut)
	}
	h.AddDir(t, nlimodel.Default, commit, tinyRoberta)
	if _, errOut, err := run(t, ctx, "models", "pull", nlimodel.Default); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	out, errOut, err = run(t, ctx, "score", mixed)
	if err != nil || strings.Contains(errOut, "lexical") {
		t.Fatalf("auto with the default model: %v\n%s", err, errOut)
	}
	backends := map[any]int{}
	for _, l := range scoreLines(t, out) {
		backends[l["nli_backend"]]++
	}
	if backends["onnx"] != 2 || backends["given"] != 1 {
		t.Errorf("auto used %v; want onnx for the two records without relations, given for the third", backends)
	}

	// A checksum mismatch is an error, and nothing is left behind.
	h.BadHash["model.onnx"] = true
	h.AddDir(t, "acme/corrupt", commit, tinyRoberta)
	if _, _, err := run(t, ctx, "models", "pull", "acme/corrupt"); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("checksum mismatch: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
