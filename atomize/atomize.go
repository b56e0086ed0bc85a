// Package atomize splits a response into atomic units (atoms) and revises
// them to stand alone.
package atomize

import (
	"context"

	"github.com/factreasoner/factreasoner-go/prompts"
)

// Atomizer splits a response into atoms: short sentences that each carry one
// piece of information, faithful to the response even where it is wrong.
// Identify says what it is, with what changes its atoms ("sentences",
// "llm:MODEL"): a run's output lines record it, so that a resumed run or
// a merge refuses atoms made another way.
type Atomizer interface {
	Atomize(ctx context.Context, response string) ([]string, error)
	Identify() string
}

// Questioned is an Atomizer that also reads the question a response
// answers (VeriScore's claim extraction has a prompt for each case).
type Questioned interface {
	Atomizer
	AtomizeAnswer(ctx context.Context, question, response string) ([]string, error)
}

// Reviser rewrites atoms so that each stands alone: pronouns, partial names
// and vague references are replaced with what they refer to in the response.
// It returns one revised atom per input atom, in order. Identify says what
// it is, as an Atomizer's does.
type Reviser interface {
	Revise(ctx context.Context, response string, atoms []string) ([]string, error)
	Identify() string
}

// Identify names an LLM stage: "llm:MODEL", and the prompt when it is
// another system's ("llm:MODEL (prompt factreasoner/atomizer)").
func identify(model string, prompt *prompts.Template) string {
	if prompt == nil {
		return "llm:" + model
	}
	return "llm:" + model + " (prompt " + prompt.Name + ")"
}
