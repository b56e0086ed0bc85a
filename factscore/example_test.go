package factscore_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

func ExamplePrompt() {
	fmt.Println(factscore.Prompt("Ada Lovelace", "Ada Lovelace was born in 1815.", []retrieve.Passage{
		{Title: "Ada Lovelace", Text: "She was born on 10 December 1815 in London."}, // best
		{Title: "Ada Lovelace", Text: "Ada Lovelace was an English mathematician"},
	}))
	// Output:
	// Answer the question about Ada Lovelace based on the given context.
	//
	// Title: Ada Lovelace
	// Text: Ada Lovelace was an English mathematician
	//
	// Title: Ada Lovelace
	// Text: She was born on 10 December 1815 in London.
	//
	// Input: Ada Lovelace was born in 1815. True or False?
	// Output:
}

func ExampleParseAnswer() {
	for _, a := range []string{"True", "False.", "False. The statement is true.", "There is not enough information."} {
		fmt.Printf("%-35q %v\n", a, factscore.ParseAnswer(a))
	}
	// Output:
	// "True"                              true
	// "False."                            false
	// "False. The statement is true."     true
	// "There is not enough information."  false
}

func ExampleNewResult() {
	r := factscore.NewResult(4, 5, factscore.DefaultGamma) // 4 of 5 facts supported
	fmt.Printf("init %.2f, penalty exp(1 - 10/5) = %.4f, score %.4f\n", r.InitScore, r.Penalty, r.Score)
	// Output:
	// init 0.80, penalty exp(1 - 10/5) = 0.3679, score 0.2943
}
