package report_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/report"
)

func TestWritePlots(t *testing.T) {
	rep := exampleReport(t)
	dir := filepath.Join(t.TempDir(), "plots")
	paths, err := rep.WritePlots(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	want := []string{"p-true.svg", "p-true.png", "reliability.svg", "reliability.png", "pr-vs-gold.svg", "pr-vs-gold.png"}
	if !slices.Equal(names, want) {
		t.Fatalf("wrote %v, want %v", names, want)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(p) {
		case ".png":
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if b := img.Bounds(); b.Dx() != 900 || b.Dy() != 900 {
				t.Errorf("%s: %v, want 900×900 (4.5 in at 200 dpi)", p, b)
			}
		case ".svg":
			if err := xml.Unmarshal(data, new(struct{})); err != nil {
				t.Errorf("%s is not XML: %v", p, err)
			}
			// Every run is in the legend, with its numbers.
			for _, name := range rep.Names() {
				if !strings.Contains(string(data), strings.ReplaceAll(name, "·", "&#183;")) && !strings.Contains(string(data), name) {
					t.Errorf("%s: no legend entry for %s", p, name)
				}
			}
		}
	}
	rel, _ := os.ReadFile(filepath.Join(dir, "reliability.svg"))
	if !strings.Contains(string(rel), "ECE 0.") {
		t.Error("the reliability diagram does not give the ECE")
	}
	// Existing files are kept unless overwrite is asked for.
	before, _ := os.ReadFile(paths[0])
	os.WriteFile(paths[0], []byte("mine"), 0o644)
	if _, err := rep.WritePlots(dir, false); !errors.Is(err, os.ErrExist) {
		t.Errorf("writing over existing plots: %v, want os.ErrExist", err)
	}
	if got, _ := os.ReadFile(paths[0]); string(got) != "mine" {
		t.Error("an existing file was replaced")
	}
	if _, err := rep.WritePlots(dir, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(paths[0]); !bytes.Equal(got, before) {
		t.Error("overwrite did not replace the file, or the plot is not deterministic")
	}
}

// TestPlotsWithoutGold: without gold labels only the distribution of
// P(true) is drawn.
func TestPlotsWithoutGold(t *testing.T) {
	run := readExampleRuns(t)[1]
	for _, res := range run.Results {
		res.Scores.Gold = nil
		for i := range res.Atoms {
			res.Atoms[i].Label = ""
		}
	}
	rep, err := report.New([]*report.Run{run}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range rep.Plots() {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"p-true"}) {
		t.Errorf("plots %v", names)
	}
}
