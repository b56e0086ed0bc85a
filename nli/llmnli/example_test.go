package llmnli_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/nli/llmnli"
)

// A v2 answer: reasoning, then the label in brackets. The probability is
// exp of the mean log probability of the tokens that spell the label,
// here exp((−0.2 − 0.1 − 0.3)/3) = exp(−0.2); the bracket tokens and the
// reasoning do not count.
func ExampleParseV2() {
	tok := func(s string, lp float64) llm.Token { return llm.Token{Text: s, Bytes: []byte(s), Logprob: lp} }
	answer := "The dates differ.\n[contradiction]"
	tokens := []llm.Token{
		tok("The", -0.5), tok(" dates", -1.2), tok(" differ", -0.7), tok(".\n", -0.1),
		tok("[", -0.01), tok("contr", -0.2), tok("ad", -0.1), tok("iction", -0.3), tok("]", -0.01),
	}
	a, _ := llmnli.ParseV2(answer, tokens)
	fmt.Printf("%v %.6f over %d tokens\n", a.Label, a.Probability, a.Tokens)

	// Without log probabilities the label is known but its probability is
	// not: the classifier gives it Options.FixedProbability instead.
	a, _ = llmnli.ParseV2(answer, nil)
	fmt.Println(a.Label, a.Probability)

	// An answer that names no label is an error, never neutral.
	_, err := llmnli.ParseV2("Hard to say.", nil)
	fmt.Println(err)
	// Output:
	// contradiction 0.818731 over 3 tokens
	// contradiction NaN
	// the answer names no label (entailment, contradiction or neutral)
}

// ReadLabel reads the shapes models write besides the one asked for.
func ExampleReadLabel() {
	for _, answer := range []string{
		"Answer: contradiction",
		"The dates match.\n\n**[Entailment]**",
		"[entailment] … [1]",
		"Neutral. The premise is about something else, not an entailment.",
		"<think>Maybe entailment?</think>\nneutral",
	} {
		r, err := llmnli.ReadLabel(answer)
		fmt.Printf("%-14v %q %v\n", r.Label, answer[r.Start:r.End], err)
	}
	// Output:
	// contradiction  "contradiction" <nil>
	// entailment     "Entailment" <nil>
	// entailment     "entailment" <nil>
	// neutral        "Neutral" <nil>
	// neutral        "neutral" <nil>
}
