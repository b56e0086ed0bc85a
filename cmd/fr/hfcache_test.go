package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/hub"
	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
)

// copyToHFCache lays a model directory out in a Hugging Face cache as
// huggingface_hub does: blobs/<sha256> with the content, and
// snapshots/COMMIT/<name> relative links to them; refs/main names COMMIT.
func copyToHFCache(t *testing.T, cacheDir, repo, commit, src string, names ...string) string {
	t.Helper()
	repoDir := hub.HFCache{Dir: cacheDir}.RepoDir(repo)
	snap := filepath.Join(repoDir, "snapshots", commit)
	for _, d := range []string{filepath.Join(repoDir, "blobs"), filepath.Join(repoDir, "refs"), snap} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		blob := hex.EncodeToString(sum[:])
		if err := os.WriteFile(filepath.Join(repoDir, "blobs", blob), data, 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", "..", "blobs", blob), filepath.Join(snap, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repoDir, "refs", "main"), []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestHFCacheOffline: with HF_HUB_OFFLINE=1 and a model that only Hugging
// Face's own tools downloaded (into $HF_HOME/hub), fr models pull points at
// it without a request or a copy, and fr score --nli-model REPO_ID runs it
// from there, with the same results as the model's directory, saying on
// stderr where it was found. A model in neither place is an error that
// names both.
func TestHFCacheOffline(t *testing.T) {
	lib, err := onnxnli.FindLibrary("")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(onnxnli.LibraryEnvVar, lib)
	store := t.TempDir()
	t.Setenv("FACTREASONER_CACHE", store)
	home := t.TempDir()
	t.Setenv(hub.EnvHome, home)
	t.Setenv(hub.EnvHubCache, "")
	t.Setenv(hub.EnvOffline, "1")
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:1") // nothing listens: a request would fail
	const commit = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	snap := copyToHFCache(t, filepath.Join(home, "hub"), "acme/tiny-roberta", commit, tinyRoberta, "model.onnx", "config.json", "tokenizer.json")
	ctx := context.Background()

	out, errOut, err := run(t, ctx, "models", "pull", "acme/tiny-roberta")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if strings.TrimSpace(out) != snap || !strings.Contains(errOut, "Hugging Face cache") {
		t.Errorf("offline pull: stdout %q (want %s), stderr %q", out, snap, errOut)
	}
	if _, err := os.Stat(filepath.Join(store, "models")); err == nil {
		t.Error("offline pull copied the model into the store")
	}

	out, errOut, err = run(t, ctx, "score", "--nli", "onnx", "--nli-model", "acme/tiny-roberta", exampleFile)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "fr: nli model acme/tiny-roberta@c0ffee00c0ff from the Hugging Face cache "+snap) {
		t.Errorf("stderr does not say where the model was found:\n%s", errOut)
	}
	fromCache := scoreLines(t, out)
	out, errOut, err = run(t, ctx, "score", "--nli", "onnx", "--nli-model", tinyRoberta, exampleFile)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	fromDir := scoreLines(t, out)
	if len(fromCache) != 3 || len(fromDir) != 3 {
		t.Fatalf("%d and %d lines", len(fromCache), len(fromDir))
	}
	for i := range fromCache {
		if fromCache[i]["model_name"] != "acme/tiny-roberta@c0ffee00c0ff" {
			t.Errorf("line %d: model %v", i, fromCache[i]["model_name"])
		}
		for _, k := range []string{"marginals", "factuality_score", "relations"} {
			a, _ := json.Marshal(fromCache[i][k])
			b, _ := json.Marshal(fromDir[i][k])
			if string(a) != string(b) || string(a) == "null" {
				t.Errorf("line %d: %s %s from the Hugging Face cache, %s from the directory", i, k, a, b)
			}
		}
	}

	// The snapshot without tokenizer.json is not a model.
	if err := os.Remove(filepath.Join(snap, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, ctx, "score", "--nli", "onnx", "--nli-model", "acme/tiny-roberta", exampleFile)
	if err == nil || !strings.Contains(err.Error(), "lacks tokenizer.json") {
		t.Errorf("partial snapshot: %v", err)
	}
	_, _, err = run(t, ctx, "models", "pull", "acme/tiny-roberta")
	if err == nil || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") || !strings.Contains(err.Error(), "lacks tokenizer.json") {
		t.Errorf("offline pull of a partial snapshot: %v", err)
	}
}
