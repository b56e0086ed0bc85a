package foreign_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/score"
)

// FuzzRead: whatever a run file holds, Read does not panic; a malformed
// record is an *instance.Error naming the file; a run it reads has records
// with atoms, each with a P(true) in [0, 1] or a decision, that score.
func FuzzRead(f *testing.F) {
	f.Add([]byte(frFile))
	f.Add([]byte(`{"factuality_score": 1, "predictions": " a0: S a1: NS", "references": {"a0": "S", "a1": null}}`))
	f.Add([]byte(`{"line": 1, "num_facts": 1, "num_supported": 1, "responded": true, "decisions": [{"id": "a0", "supported": true}]}` + "\n" + `{"verifier": "x", "factscore": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "run.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		kind, _ := foreign.Detect(path)
		run, err := foreign.Read(path, nil)
		if err != nil {
			var e *instance.Error
			if kind != 0 && errors.As(err, &e) && e.File != path {
				t.Errorf("error %v names file %q", err, e.File)
			}
			return
		}
		for _, rec := range run.Records {
			if len(rec.Atoms) == 0 {
				t.Fatalf("a record without atoms: %+v", rec)
			}
			for _, a := range rec.Atoms {
				p, ok := rec.PTrue[a.ID]
				_, d := rec.Supported[a.ID]
				if ok == d || ok && !(p >= 0 && p <= 1) {
					t.Fatalf("atom %s: P(true) %v (%v), decision %v", a.ID, p, ok, d)
				}
			}
			rec.Scores(score.K{Half: true})
		}
	})
}
