package graph

import (
	"bufio"
	"fmt"
	"io"
)

// WriteDOT writes the network in Graphviz DOT: atoms as boxes, contexts as
// ellipses, one edge per relation (green entailment, red contradiction, blue
// equivalence), labeled with its probability. pTrue, when not nil, holds
// P(true) per variable (indexed like Variables) and is shown in the labels.
func (g *Network) WriteDOT(w io.Writer, pTrue []float64) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph factreasoner {")
	fmt.Fprintln(bw, "  rankdir=LR;")
	for i, v := range g.Variables {
		shape := "box"
		if v.Kind == ContextVariable {
			shape = "ellipse"
		}
		label := v.Name
		if pTrue != nil {
			label = fmt.Sprintf("%s\\nP=%.3f", v.Name, pTrue[i])
		}
		fmt.Fprintf(bw, "  %q [shape=%s, label=%q];\n", v.Name, shape, label)
	}
	for _, f := range g.Factors {
		color := map[RelationType]string{Entailment: "darkgreen", Contradiction: "red", Equivalence: "blue"}[f.Type]
		attrs := fmt.Sprintf("color=%s, label=\"%.3f\"", color, f.Probability)
		if f.Type == Equivalence {
			attrs += ", dir=both"
		}
		fmt.Fprintf(bw, "  %q -> %q [%s];\n", f.Source, f.Target, attrs)
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}
