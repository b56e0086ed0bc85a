package evidence_test

import (
	"testing"

	"github.com/factreasoner/factreasoner-go/evidence"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// BenchmarkFlaherty indexes each of the Flaherty record's 53 contexts (up
// to 4,000 characters) and finds the best sentences of each for every one
// of the 26 atoms: what fr inspect and fr report do for every relation of
// a record whose every pair is related.
func BenchmarkFlaherty(b *testing.B) {
	ins, err := instance.ReadFile(refdata.Path(b, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil {
		b.Fatal(err)
	}
	in := ins[0]
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			for _, c := range in.Contexts {
				evidence.NewIndex(c.Text)
			}
		}
	})
	b.Run("index+best", func(b *testing.B) {
		for b.Loop() {
			for _, c := range in.Contexts {
				x := evidence.NewIndex(c.Text)
				for _, a := range in.Atoms {
					x.Best(a.Text)
				}
			}
		}
	})
}
