package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli/remotenli/remotenlitest"
)

// TestScoreRemote: fr score --nli remote against a loopback server that
// runs the same model gives output lines byte-identical to --nli onnx's,
// but for nli_backend and model_name, over both protocols and at every
// graph version (FR3 adds context-context pairs, where the hypothesis is a
// passage).
func TestScoreRemote(t *testing.T) {
	ctx := context.Background()
	srv := remotenlitest.Start(t, tinyRoberta, "roberta-nli")
	for _, version := range []string{"1", "2", "3"} {
		local, errOut, err := run(t, ctx, "score", "--version", version, "--nli", "onnx", "--nli-model", tinyRoberta, exampleFile)
		if err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		for _, c := range []struct{ protocol, model, name string }{
			{"kserve", "roberta-nli", "kserve:roberta-nli@1;tokenizer=" + tinyRoberta},
			{"tei", "", "tei:roberta-nli@c0ffee00c0ff;tokenizer=" + tinyRoberta},
		} {
			args := []string{"score", "--version", version, "--nli", "remote", "--nli-protocol", c.protocol, "--nli-endpoint", srv.URL,
				"--nli-model", tinyRoberta, "--nli-concurrency", "3", "--nli-batch-size", "4"}
			if c.model != "" {
				args = append(args, "--nli-remote-model", c.model)
			}
			remote, errOut, err := run(t, ctx, append(args, exampleFile)...)
			if err != nil {
				t.Fatalf("FR%s %s: %v\n%s", version, c.protocol, err, errOut)
			}
			name, _ := json.Marshal(c.name)
			localName, _ := json.Marshal(tinyRoberta)
			want := strings.ReplaceAll(local, `"nli_backend":"onnx"`, `"nli_backend":"remote"`)
			want = strings.ReplaceAll(want, `"model_name":`+string(localName), `"model_name":`+string(name))
			runNLI, _ := json.Marshal("remote:" + c.name)
			want = strings.ReplaceAll(want, `"nli":"onnx:`+strings.Trim(string(localName), `"`)+`"`, `"nli":`+string(runNLI))
			if remote != want {
				t.Errorf("FR%s %s: output differs from --nli onnx's\nremote:\n%s\nonnx, renamed:\n%s", version, c.protocol, remote, want)
			}
			if !strings.Contains(errOut, "fr: remote nli "+c.protocol+" roberta-nli") || !strings.Contains(errOut, "in ") || strings.Contains(remote, "fr:") {
				t.Errorf("FR%s %s: summary not on stderr:\n%s", version, c.protocol, errOut)
			}
		}
	}
}

// TestScoreRemoteErrors: a server that is not there, not ready or without
// the model stops fr score before anything is written, saying so; a
// failure in the middle of a run is reported and leaves the lines already
// written in place.
func TestScoreRemoteErrors(t *testing.T) {
	ctx := context.Background()
	srv := remotenlitest.Start(t, tinyRoberta, "roberta-nli")
	base := []string{"score", "--nli", "remote", "--nli-model", tinyRoberta, "--llm-retries", "1", "--nli-endpoint", srv.URL}
	for _, c := range []struct {
		name  string
		args  []string
		setup func()
		want  string
	}{
		{"no endpoint", []string{"score", "--nli", "remote", "--nli-model", tinyRoberta, "--nli-remote-model", "x"}, nil, "--nli-endpoint"},
		{"unknown model", append(base, "--nli-remote-model", "roberta"), nil, `does not serve a model named "roberta"`},
		{"not ready", append(base, "--nli-remote-model", "roberta-nli"), func() { srv.SetReady(false) }, "not ready"},
		{"tei not ready", append(base, "--nli-protocol", "tei"), func() { srv.SetReady(false) }, "not ready"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv.Reset()
			if c.setup != nil {
				c.setup()
			}
			out, errOut, err := run(t, ctx, append(c.args, exampleFile)...)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nli remote") || out != "" {
				t.Errorf("%v; want an error saying %q and no output\nstdout: %s\nstderr: %s", err, c.want, out, errOut)
			}
		})
	}

	// The server fails after the first record: the first line stays in the
	// output file, and the rerun resumes after it.
	srv.Reset()
	var requests atomic.Int32
	srv.SetFault(func(r *http.Request, _ int) *remotenlitest.Fault {
		if r.Method != http.MethodPost {
			return nil
		}
		if requests.Add(1) > 1 {
			return &remotenlitest.Fault{Status: 500, Body: `{"error": "GPU fell off the bus"}`}
		}
		return nil
	})
	outFile := filepath.Join(t.TempDir(), "out.jsonl")
	// One record at a time, so that the first request is the first record's.
	args := append(base, "--nli-remote-model", "roberta-nli", "--nli-batch-size", "64", "--nli-batch-tokens", "100000", "--nli-concurrency", "1", "--jobs", "1", "--version", "1", "-o", outFile, exampleFile)
	_, errOut, err := run(t, ctx, args...)
	if err == nil || !strings.Contains(err.Error(), "GPU fell off the bus") || !strings.Contains(errOut, "retrying") {
		t.Fatalf("%v\n%s", err, errOut)
	}
	data, _ := os.ReadFile(outFile)
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Errorf("%d lines kept after the failure; want the first record's", n)
	}
	srv.Reset()
	if _, errOut, err := run(t, ctx, args...); err != nil {
		t.Fatalf("resume: %v\n%s", err, errOut)
	}
	data, _ = os.ReadFile(outFile)
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Errorf("%d lines after the resumed run; want 3", n)
	}
}
