package foreign_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/factreasoner/factreasoner-go/foreign"
	"github.com/factreasoner/factreasoner-go/score"
)

// A results object of FactReasoner, one per line as its evaluation
// scripts write them: its marginals give this project's measures; its own
// num_false_atoms (the undecided atom counted false) and avg_entropy
// (natural log) are kept under their names.
func ExampleRead() {
	dir, err := os.MkdirTemp("", "foreign-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "eval_factreasoner-v2_google_bio_llama3.jsonl")
	line := `{"factuality_score": 0.5, "num_atoms": 2, "num_false_atoms": 1, "avg_entropy": 0.2207,` +
		` "marginals": [{"variable": "a0", "probabilities": [0.1, 0.9]}, {"variable": "a1", "probabilities": [0.5, 0.5]}],` +
		` "references": {"a0": "S", "a1": "NS"}, "query": "Who was Ada Lovelace?", "model_name": "llama3"}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		log.Fatal(err)
	}

	run, err := foreign.Read(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	rec := run.Records[0]
	s := rec.Scores(score.K{Half: true})
	fmt.Println(run.Label())
	fmt.Printf("Pr %.2f: %d true, %d false, %d undecided; %d of %d labeled atoms right\n",
		s.Precision, s.NumTrueAtoms, s.NumFalseAtoms, s.NumUniformAtoms, s.Gold.TruePositive+s.Gold.TrueNegative, s.Gold.Labeled())
	for _, v := range rec.Recorded {
		fmt.Printf("its %s: %v\n", v.Name, *v.Value)
	}
	// Output:
	// FactReasoner (eval_factreasoner-v2_google_bio_llama3.jsonl)
	// Pr 0.50: 1 true, 0 false, 1 undecided; 2 of 2 labeled atoms right
	// its avg_entropy: 0.2207
	// its num_false_atoms: 1
}
