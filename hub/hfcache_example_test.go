package hub_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/factreasoner/factreasoner-go/hub"
)

// Find a model that Hugging Face's own tools downloaded. Here the cache is
// written by hand, as huggingface_hub lays it out (snapshot files are
// links into blobs/); in use its directory comes from HFCacheDir
// ($HF_HUB_CACHE, else $HF_HOME/hub).
func ExampleHFCache_Find() {
	dir, err := os.MkdirTemp("", "hf-hub")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	const commit = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed"
	cache := hub.HFCache{Dir: dir}
	repo := cache.RepoDir("acme/nli")
	for i, name := range []string{"config.json", "tokenizer.json", "model.onnx", "README.md"} {
		blob := filepath.Join(repo, "blobs", fmt.Sprint("blob", i))
		link := filepath.Join(repo, "snapshots", commit, name)
		if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(blob, []byte("{}"), 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", "..", "blobs", filepath.Base(blob)), link); err != nil {
			log.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(repo, "refs"), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "refs", "main"), []byte(commit), 0o644); err != nil {
		log.Fatal(err)
	}

	m, err := cache.Find("acme/nli", hub.PullOptions{Revision: "main"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Commit[:12], m.ONNX, m.Files)
	// Output:
	// 5eed5eed5eed model.onnx [config.json model.onnx tokenizer.json]
}
