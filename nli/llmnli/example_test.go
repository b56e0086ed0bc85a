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
	a := llmnli.ParseV2(answer, tokens)
	fmt.Printf("%v %.6f over %d tokens\n", a.Label, a.Probability, a.Tokens)

	// Without log probabilities the label is known but its probability is
	// not: the classifier reports an error rather than invent one.
	a = llmnli.ParseV2(answer, nil)
	fmt.Println(a.Label, a.Probability)
	// Output:
	// contradiction 0.818731 over 3 tokens
	// contradiction NaN
}
