package hub_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/factreasoner/factreasoner-go/hub"
	"github.com/factreasoner/factreasoner-go/hub/hubtest"
)

// Pull a model into a store. Here the hub is a fake one on loopback; in use
// the client comes from NewClientFromEnv ($HF_ENDPOINT, $HF_TOKEN).
func ExampleStore_Pull() {
	h, stop := hubtest.Start()
	defer stop()
	h.Repos["acme/nli"] = &hubtest.Repo{
		Commit: "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed",
		Files: map[string][]byte{
			"config.json":     []byte(`{"model_type": "roberta"}`),
			"tokenizer.json":  []byte(`{}`),
			"onnx/model.onnx": []byte("graph"),
			"README.md":       []byte("not needed"),
		},
		LFS: map[string]bool{"onnx/model.onnx": true},
	}
	dir, err := os.MkdirTemp("", "models")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store := hub.Store{Dir: dir}
	m, err := store.Pull(context.Background(), &hub.Client{Endpoint: h.URL}, "acme/nli", hub.PullOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Repo, m.Commit[:12], m.ONNX)
	for _, f := range m.Files {
		fmt.Println(f.Path, f.Size, f.SHA256[:12])
	}
	// Output:
	// acme/nli 5eed5eed5eed onnx/model.onnx
	// config.json 25 b4a4a658bf2d
	// tokenizer.json 2 44136fa355b3
	// onnx/model.onnx 5 eef93e1d1448
}
