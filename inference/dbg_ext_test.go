package inference_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/frgen"
)

func TestDbgGen(t *testing.T) {
	spec := os.Getenv("GEN")
	if spec == "" {
		t.Skip()
	}
	f := strings.Split(spec, ":") // kind:A:C:alg
	a, _ := strconv.Atoi(f[1])
	c, _ := strconv.Atoi(f[2])
	m, _ := frgen.Generate(frgen.Kind(f[0]), a, c, 1)
	var o inference.Options
	if len(f) > 4 {
		d, _ := inference.ParseDamping(f[4])
		o.BP.Damping = d
		o.BP.MaxIterations, _ = strconv.Atoi(f[5])
	}
	s, err := inference.New(f[3], o)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := s.Solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(time.Since(start), r.Report.Summary())
}
