package atomize

import (
	"context"
	"errors"
	"fmt"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm"
)

// Atoms splits a response with a and, when r is not nil, revises the
// pieces with r. It returns atoms with ids a0, a1, ... in order, Original
// holding the atomizer's text and Text the revised one (the same text
// without a reviser). A response with nothing in it to check gives
// ErrNoAtoms.
func Atoms(ctx context.Context, a Atomizer, r Reviser, response string) ([]instance.Atom, error) {
	return AtomsFor(ctx, a, r, "", response)
}

// AtomsFor is Atoms for a response to a question: an atomizer that reads
// the question (Questioned) is given it.
func AtomsFor(ctx context.Context, a Atomizer, r Reviser, question, response string) ([]instance.Atom, error) {
	var texts []string
	var err error
	if q, ok := a.(Questioned); ok {
		texts, err = q.AtomizeAnswer(ctx, question, response)
	} else {
		texts, err = a.Atomize(ctx, response)
	}
	if err != nil {
		return nil, stageError("atomizer", err)
	}
	if len(texts) == 0 {
		return nil, ErrNoAtoms
	}
	revised := texts
	if r != nil {
		if revised, err = r.Revise(ctx, response, texts); err != nil {
			return nil, stageError("reviser", err)
		}
		if len(revised) != len(texts) {
			return nil, fmt.Errorf("reviser: %d revised atoms for %d atoms", len(revised), len(texts))
		}
	}
	atoms := make([]instance.Atom, len(texts))
	for i := range texts {
		atoms[i] = instance.Atom{ID: fmt.Sprintf("a%d", i), Original: texts[i], Text: revised[i]}
	}
	return atoms, nil
}

// stageError names the stage in an error, unless it is an
// *llm.UnreadableAnswerError, which names it already.
func stageError(stage string, err error) error {
	var ue *llm.UnreadableAnswerError
	if errors.As(err, &ue) {
		return err
	}
	return fmt.Errorf("%s: %w", stage, err)
}
