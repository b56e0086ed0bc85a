package evidence_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/evidence"
)

// Best finds where in a context an atom is spoken of, here in a passage
// about another actor (lower-cased, as FactReasoner's Wikipedia contexts
// are); the spans are byte offsets into the context, for highlighting.
func ExampleBest() {
	context := "aaron lohr ( born april 2, 1976 ) is an american actor. = = career = = " +
		"he performed as matt in bare : a pop opera in 2004. " +
		"he has appeared in several productions at the public theater. " +
		"lohr has since retired from acting."
	for _, s := range evidence.Best(context, "He has worked in productions at the Public Theater.") {
		fmt.Printf("%d–%d %q\n", s.Start, s.End, s.Text(context))
	}
	// Output:
	// 123–184 "he has appeared in several productions at the public theater."
}
