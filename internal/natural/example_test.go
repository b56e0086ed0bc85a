package natural_test

import (
	"fmt"

	"github.com/factreasoner/factreasoner-go/internal/natural"
)

func ExampleSort() {
	ids := []string{"a10", "a2", "c_a10_0", "a1", "c_a2_0"}
	natural.Sort(ids)
	fmt.Println(ids)
	// Output: [a1 a2 a10 c_a2_0 c_a10_0]
}
