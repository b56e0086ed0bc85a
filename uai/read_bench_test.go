package uai

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/testgen/frgen"
)

// BenchmarkRead reads the dense 500x1500 generated model (2,000 variables,
// 864,587 factors, 55 MB: what go run ./scripts/frgen -kind dense -size
// 500x1500 writes) from a file, as fr uai solve does; MB/s is the file's
// size over the time. Reading splits the tables across cores, so compare
// one core with two (BENCHMARKS.md, issue 24):
//
//	go test ./uai -run '^$' -bench Read -benchmem -cpu 1,2 -count 3
func BenchmarkRead(b *testing.B) { benchmarkRead(b, false) }

// BenchmarkReadAfterGC is BenchmarkRead with a garbage collection between
// reads, outside the time: each read finds the heap collected, and no
// collection of the reads before runs beside it. On a machine whose page
// faults are slow, BenchmarkRead's times depend on how much of the heap
// the runtime gave back to the system between reads; this one varies
// less.
func BenchmarkReadAfterGC(b *testing.B) { benchmarkRead(b, true) }

func benchmarkRead(b *testing.B, gc bool) {
	m, err := frgen.Generate(frgen.Dense, 500, 1500, 1)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "dense_500x1500.uai")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := Write(w, m); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ResetTimer()
	for b.Loop() {
		if gc {
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
		}
		n, err := ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(n.Model.Factors) != len(m.Factors) {
			b.Fatalf("%d factors read, want %d", len(n.Model.Factors), len(m.Factors))
		}
	}
}
