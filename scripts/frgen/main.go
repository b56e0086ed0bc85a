// Command frgen writes synthetic FR3-like models in the UAI format, for the
// inference benchmarks of BENCHMARKS.md (see package internal/testgen/frgen):
//
//	go run ./scripts/frgen -o /tmp/frgen                  # every kind at 100x300, 200x600, 500x1500
//	go run ./scripts/frgen -o /tmp/frgen -kind dense -size 20x40 -seed 7
//
// Files are named KIND_AxC.uai.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/testgen/frgen"
	"github.com/factreasoner/factreasoner-go/uai"
)

func main() {
	out := flag.String("o", ".", "output directory")
	kind := flag.String("kind", "", "sparse, dense or contradictory (default: all three)")
	size := flag.String("size", "", "ATOMSxCONTEXTS (default: 100x300, 200x600 and 500x1500)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	kinds := frgen.Kinds
	if *kind != "" {
		kinds = []frgen.Kind{frgen.Kind(*kind)}
	}
	sizes := []string{"100x300", "200x600", "500x1500"}
	if *size != "" {
		sizes = []string{*size}
	}
	if err := run(*out, kinds, sizes, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "frgen:", err)
		os.Exit(1)
	}
}

func run(dir string, kinds []frgen.Kind, sizes []string, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, k := range kinds {
		for _, s := range sizes {
			var a, c int
			if n, err := fmt.Sscanf(strings.Replace(s, "x", " ", 1), "%d %d", &a, &c); n != 2 || err != nil {
				return fmt.Errorf("-size %q: want ATOMSxCONTEXTS, such as 100x300", s)
			}
			m, err := frgen.Generate(k, a, c, seed)
			if err != nil {
				return err
			}
			path := filepath.Join(dir, fmt.Sprintf("%s_%s.uai", k, s))
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(f)
			err = uai.Write(w, m)
			if err == nil {
				err = w.Flush()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			fmt.Fprintf(os.Stderr, "%s: %d variables, %d factors\n", path, len(m.Cards), len(m.Factors))
		}
	}
	return nil
}
