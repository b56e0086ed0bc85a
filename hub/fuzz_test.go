package hub

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParseInfo: whatever a hub answers, ParseInfo does not panic, and a
// list it accepts names only files that stay inside the model's directory
// (their partial files too), with hexadecimal hashes; encoded again as the
// hub's API would, it reads back the same. The seed corpus is in
// testdata/fuzz/FuzzParseInfo: a real listing's shape and hostile ones.
func FuzzParseInfo(f *testing.F) {
	f.Add([]byte(listing(testCommit, `{"rfilename": "onnx/model.onnx", "size": 5, "lfs": {"sha256": "`+sha64+`", "size": 5}}`)))
	f.Fuzz(func(t *testing.T, body []byte) {
		info, err := ParseInfo(body)
		if err != nil {
			return
		}
		if info.SHA != "" && !validCommit(info.SHA) {
			t.Fatalf("commit %q accepted", info.SHA)
		}
		dir := filepath.Join(string(filepath.Separator)+"cache", "models", "acme", "nli")
		for _, f := range info.Files {
			if err := validFile(f); err != nil {
				t.Fatalf("accepted %+v: %v", f, err)
			}
			dest, err := inside(dir, f.Path)
			if err != nil {
				t.Fatalf("accepted %q: %v", f.Path, err)
			}
			for _, p := range []string{dest, partialName(dest, f)} {
				if rel, err := filepath.Rel(dir, p); err != nil || !filepath.IsLocal(rel) {
					t.Fatalf("%q (from %+v) is outside %s", p, f, dir)
				}
			}
		}
		again, err := ParseInfo(encodeInfo(info))
		if err != nil {
			t.Fatalf("re-encoded list refused: %v", err)
		}
		if !reflect.DeepEqual(info, again) {
			t.Fatalf("round trip:\n%+v\n%+v", info, again)
		}
	})
}

const sha64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// encodeInfo writes an Info as the hub's API lists it.
func encodeInfo(info *Info) []byte {
	type lfs struct {
		SHA256 string `json:"sha256"`
		Size   int64  `json:"size"`
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
		Size      *int64 `json:"size,omitempty"`
		BlobID    string `json:"blobId,omitempty"`
		LFS       *lfs   `json:"lfs,omitempty"`
	}
	sibs := []sibling{}
	for _, f := range info.Files {
		s := sibling{RFilename: f.Path, BlobID: f.BlobID}
		if f.Size >= 0 {
			size := f.Size
			s.Size = &size
		}
		if f.SHA256 != "" {
			s.LFS = &lfs{SHA256: f.SHA256, Size: f.Size}
		}
		sibs = append(sibs, s)
	}
	b, err := json.Marshal(map[string]any{"id": info.ID, "sha": info.SHA, "siblings": sibs})
	if err != nil {
		panic(err)
	}
	return b
}
