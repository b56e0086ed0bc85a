package querybuild_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/querybuild"
)

func ExampleParseQueries() {
	qs, err := querybuild.ParseQueries("Sure! Here are the search queries:\n\n```json\n[\"Lanny Flaherty birth year\", \"Lanny Flaherty born 1942\"]\n```")
	fmt.Println(qs, err)
	_, err = querybuild.ParseQueries("I'm sorry, I cannot help with that.")
	fmt.Println(err)
	// Output:
	// [Lanny Flaherty birth year Lanny Flaherty born 1942] <nil>
	// the answer declines to write queries
}
