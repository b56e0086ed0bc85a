// Command recgen writes synthetic FactReasoner records, one JSON line each,
// for the throughput benchmarks of BENCHMARKS.md ("Records in parallel";
// see package internal/testgen/recgen and scripts/bench-jobs):
//
//	go run ./scripts/recgen -n 1000 > flaherty-1000.jsonl           # Flaherty-sized, with relations
//	go run ./scripts/recgen -n 200 -relations=false > lexical.jsonl # for an NLI backend
//
// The same flags give the same file.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/factreasoner/factreasoner-go/internal/testgen/recgen"
)

func main() {
	s := recgen.Flaherty
	n := flag.Int("n", 1000, "records")
	flag.IntVar(&s.Atoms, "atoms", s.Atoms, "atoms per record")
	flag.IntVar(&s.Contexts, "contexts", s.Contexts, "contexts per record")
	flag.IntVar(&s.Distinct, "distinct", s.Distinct, "distinct context texts per record")
	flag.BoolVar(&s.Relations, "relations", s.Relations, "state NLI relations in each record (for --nli given)")
	flag.IntVar(&s.Passage, "passage", 0, "characters of every passage (default: the Flaherty record's lengths, 457 to 4,000)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	err := recgen.Write(w, s, *seed, 0, *n)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "recgen:", err)
		os.Exit(1)
	}
}
