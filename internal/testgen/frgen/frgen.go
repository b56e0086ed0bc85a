// Package frgen generates synthetic FR3-like Markov networks (atoms,
// contexts, NLI relations as docs/inference.md's pairwise factors) for benchmarks of
// the inference package at sizes the reference data does not reach.
//
// Three kinds, after the worst-case models of the reference data
// (merlin-vectors/fr3, where every atom is linked to every context and 10%
// of the context pairs are linked):
//
//   - Dense: every atom–context pair and 10% of the context pairs linked;
//     70% entailments, p uniform in [0.55, 0.99].
//   - Sparse: each atom–context pair linked with probability 3/C (about
//     three contexts per atom) and each context pair with 1/C; 70%
//     entailments.
//   - Contradictory: dense, but 70% contradictions with p in [0.8, 0.999]:
//     strongly frustrated, where loopy BP oscillates.
//
// Atoms have prior 0.5, contexts a prior uniform in [0.6, 0.93] (as in the
// reference models); the tables fold the target's prior in (use_priors =
// true): entailment [1−π, π, 1−p, p], contradiction [1−π, π, p, 1−p], with
// π = 0.5 for an atom target and 0.9 for a context target. Variables are
// numbered atoms first. The same kind, size and seed give the same model.
package frgen

import (
	"fmt"
	"math/rand/v2"

	"github.com/factreasoner/factreasoner-go/inference"
)

// Kind is a family of generated models.
type Kind string

// The kinds of models (see the package comment).
const (
	Dense         Kind = "dense"
	Sparse        Kind = "sparse"
	Contradictory Kind = "contradictory"
)

// Kinds lists every kind.
var Kinds = []Kind{Sparse, Dense, Contradictory}

// Generate returns a model of the kind with atoms atoms and contexts
// contexts, from seed.
func Generate(kind Kind, atoms, contexts int, seed uint64) (*inference.Model, error) {
	if atoms < 0 || contexts < 0 || atoms+contexts == 0 {
		return nil, fmt.Errorf("frgen: %d atoms and %d contexts", atoms, contexts)
	}
	var atomContext, contextPair, contradiction, pLow, pHigh float64
	switch kind {
	case Dense:
		atomContext, contextPair, contradiction, pLow, pHigh = 1, 0.1, 0.3, 0.55, 0.99
	case Sparse:
		atomContext, contextPair, contradiction, pLow, pHigh = min(1, 3/float64(max(contexts, 1))), 1/float64(max(contexts, 1)), 0.3, 0.55, 0.99
	case Contradictory:
		atomContext, contextPair, contradiction, pLow, pHigh = 1, 0.1, 0.7, 0.8, 0.999
	default:
		return nil, fmt.Errorf("frgen: unknown kind %q (want sparse, dense or contradictory)", kind)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(atoms)<<32|uint64(contexts)))
	n := atoms + contexts
	m := &inference.Model{Cards: make([]int, n)}
	for v := range n {
		m.Cards[v] = 2
		p := 0.5
		if v >= atoms {
			p = 0.6 + 0.33*rng.Float64()
		}
		m.Factors = append(m.Factors, inference.Factor{Scope: []int{v}, Table: []float64{1 - p, p}})
	}
	relate := func(source, target int, prior float64) {
		p := pLow + (pHigh-pLow)*rng.Float64()
		t := []float64{1 - prior, prior, 1 - p, p}
		if rng.Float64() < contradiction {
			t[2], t[3] = p, 1-p
		}
		m.Factors = append(m.Factors, inference.Factor{Scope: []int{source, target}, Table: t})
	}
	for c := atoms; c < n; c++ {
		for a := range atoms {
			if atomContext == 1 || rng.Float64() < atomContext {
				relate(c, a, 0.5)
			}
		}
	}
	for c := atoms; c < n; c++ {
		for d := c + 1; d < n; d++ {
			if rng.Float64() < contextPair {
				relate(c, d, 0.9)
			}
		}
	}
	return m, nil
}
