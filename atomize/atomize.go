// Package atomize splits a response into atomic units (atoms) and revises
// them to stand alone.
package atomize

import "context"

// Atomizer splits a response into atoms: short sentences that each carry one
// piece of information, faithful to the response even where it is wrong.
type Atomizer interface {
	Atomize(ctx context.Context, response string) ([]string, error)
}

// Questioned is an Atomizer that also reads the question a response
// answers (VeriScore's claim extraction has a prompt for each case).
type Questioned interface {
	Atomizer
	AtomizeAnswer(ctx context.Context, question, response string) ([]string, error)
}

// Reviser rewrites atoms so that each stands alone: pronouns, partial names
// and vague references are replaced with what they refer to in the response.
// It returns one revised atom per input atom, in order.
type Reviser interface {
	Revise(ctx context.Context, response string, atoms []string) ([]string, error)
}
