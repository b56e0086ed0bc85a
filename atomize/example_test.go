package atomize_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/atomize"
)

// ParseAtoms reads the shapes models write: here Llama 3's numbered list
// between a preamble and an offer, and IBM's atomic_units object.
func ExampleParseAtoms() {
	for _, answer := range []string{
		"Here are the atomic facts:\n\n1. Ruth Adair was born in Tulsa.\n2. Ruth Adair was a pianist.\n\nLet me know if you need anything else!",
		"```json\n{\"atomic_units\": [{\"id\": 1, \"text\": \"Ruth Adair was born in Tulsa.\"}, {\"id\": 2, \"text\": \"Ruth Adair was a pianist.\"}]}\n```",
		"Ruth Adair was born in Tulsa. She was a pianist.",
	} {
		atoms, err := atomize.ParseAtoms(answer)
		fmt.Printf("%q %v\n", atoms, err)
	}
	// Output:
	// ["Ruth Adair was born in Tulsa." "Ruth Adair was a pianist."] <nil>
	// ["Ruth Adair was born in Tulsa." "Ruth Adair was a pianist."] <nil>
	// [] line 1 holds 2 sentences, where an answer without list markers must give one fact per line: "Ruth Adair was born in Tulsa. She was a pianist."
}

// ParseRevised takes the atom from a preamble's next line, or from IBM's
// JSON, and refuses an answer that does not say which line is the atom.
func ExampleParseRevised() {
	for _, answer := range []string{
		"Sure! Here is the revised atom:\n\n\"Ruth Adair moved to Chicago.\"\n\nLet me know if you need anything else!",
		"```json\n{\"revised_unit\": \"Ruth Adair moved to Chicago.\", \"rationale\": \"'She' is Ruth Adair.\"}\n```",
		"Ruth Adair moved.\nRuth Adair moved to Chicago.",
	} {
		atom, err := atomize.ParseRevised(answer)
		fmt.Printf("%q %v\n", atom, err)
	}
	// Output:
	// "Ruth Adair moved to Chicago." <nil>
	// "Ruth Adair moved to Chicago." <nil>
	// "" the answer has 2 lines that could each be the revised atom, and none is labeled ("Revised atom:")
}
