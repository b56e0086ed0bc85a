package report

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"sort"
	"strings"
)

// Graph is a network to lay out: its atoms and contexts, and the relations
// between them.
type Graph struct {
	Nodes []Node
	Edges []Edge
}

// Node is an atom or a context, drawn as a W×H box (atoms) or ellipse
// (contexts).
type Node struct {
	Context bool
	W, H    float64
}

// Edge is a relation from node From (a context) to node To.
type Edge struct{ From, To int }

// Placement is a laid-out graph in SVG user units (pixels), y downwards.
type Placement struct {
	W, H  float64
	Nodes []Point  // the centre of each node
	Edges []string // the SVG path of each edge, from its source to its target
}

// Point is a position.
type Point struct{ X, Y float64 }

// Layouter places the nodes and routes the edges of graphs. Two exist:
// Graphviz, which runs the dot program, and Builtin.
type Layouter interface {
	Layout(ctx context.Context, gs []Graph) ([]Placement, error)
	// Name says which layout was used, for the report.
	Name() string
}

// AutoLayout returns Graphviz when the dot program is on the PATH, else
// Builtin.
func AutoLayout() Layouter {
	if path, err := exec.LookPath("dot"); err == nil {
		return &Graphviz{Path: path}
	}
	return Builtin{}
}

// ParseLayout returns the layout called name: "auto" (AutoLayout),
// "graphviz" (or "dot") or "built-in" (or "builtin").
func ParseLayout(name string) (Layouter, error) {
	switch name {
	case "auto":
		return AutoLayout(), nil
	case "graphviz", "dot":
		return &Graphviz{}, nil
	case "built-in", "builtin":
		return Builtin{}, nil
	}
	return nil, fmt.Errorf("unknown layout %q (want auto, graphviz or built-in)", name)
}

// Both layouts draw the network in two columns, contexts on the left and
// atoms on the right, each context's relations running to the right;
// context–context relations (FR3) stay in the context column as thin arcs,
// so that they do not cross the column of atoms.

const (
	layoutMargin = 12.0
	layoutRowGap = 8.0   // between nodes of a column
	layoutColGap = 170.0 // between the columns
	arcRoom      = 90.0  // left of the context column, for context–context arcs
)

// Builtin is a layout written here: the longer column is set out in order
// of the nodes' barycentres (the mean position of their neighbours, a few
// sweeps of the usual crossing-reduction heuristic), and each node of the
// other column is put beside the mean of its neighbours, pushed down where
// it would overlap. Unrelated nodes go to the bottom. It is deterministic.
type Builtin struct{}

// Name reports "built-in".
func (Builtin) Name() string { return "built-in" }

// Layout lays out each graph.
func (Builtin) Layout(ctx context.Context, gs []Graph) ([]Placement, error) {
	out := make([]Placement, len(gs))
	for i, g := range gs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = builtinLayout(g)
	}
	return out, nil
}

func builtinLayout(g Graph) Placement {
	var atoms, ctxs []int
	maxW := [2]float64{40, 40} // widest atom, widest context
	for i, n := range g.Nodes {
		if n.Context {
			ctxs = append(ctxs, i)
			maxW[1] = max(maxW[1], n.W)
		} else {
			atoms = append(atoms, i)
			maxW[0] = max(maxW[0], n.W)
		}
	}
	adj := make([][]int, len(g.Nodes)) // neighbours across the columns
	ccArcs := false
	for _, e := range g.Edges {
		if g.Nodes[e.From].Context != g.Nodes[e.To].Context {
			adj[e.From] = append(adj[e.From], e.To)
			adj[e.To] = append(adj[e.To], e.From)
		} else {
			ccArcs = true
		}
	}
	left := layoutMargin
	if ccArcs {
		left += arcRoom
	}
	x := make([]float64, len(g.Nodes))
	for _, i := range ctxs {
		x[i] = left + maxW[1]/2
	}
	for _, i := range atoms {
		x[i] = left + maxW[1] + layoutColGap + maxW[0]/2
	}
	// The longer column is ordered; the shorter follows it.
	long, short := atoms, ctxs
	if len(ctxs) > len(atoms) {
		long, short = ctxs, atoms
	}
	pos := make([]float64, len(g.Nodes)) // rank within a column during the sweeps
	for k, i := range long {
		pos[i] = float64(k)
	}
	for k, i := range short {
		pos[i] = float64(k)
	}
	order := func(col []int) {
		bary := make(map[int]float64, len(col))
		for _, i := range col {
			if len(adj[i]) == 0 {
				bary[i] = math.Inf(1) // unrelated: last
				continue
			}
			var s float64
			for _, j := range adj[i] {
				s += pos[j]
			}
			bary[i] = s / float64(len(adj[i]))
		}
		sort.SliceStable(col, func(a, b int) bool { return bary[col[a]] < bary[col[b]] })
		for k, i := range col {
			pos[i] = float64(k)
		}
	}
	long = append([]int(nil), long...)
	short = append([]int(nil), short...)
	for range 4 {
		order(short)
		order(long)
	}
	order(short)
	y := make([]float64, len(g.Nodes))
	cur := layoutMargin
	for _, i := range long {
		y[i] = cur + g.Nodes[i].H/2
		cur += g.Nodes[i].H + layoutRowGap
	}
	bottom := cur
	// The shorter column beside its neighbours, in barycentre order.
	want := make(map[int]float64, len(short))
	for _, i := range short {
		if len(adj[i]) == 0 {
			want[i] = math.Inf(1)
			continue
		}
		var s float64
		for _, j := range adj[i] {
			s += y[j]
		}
		want[i] = s / float64(len(adj[i]))
	}
	sort.SliceStable(short, func(a, b int) bool { return want[short[a]] < want[short[b]] })
	cur = layoutMargin
	for _, i := range short {
		h := g.Nodes[i].H
		top := cur
		if w := want[i] - h/2; !math.IsInf(w, 1) && w > top {
			top = w
		}
		y[i] = top + h/2
		cur = top + h + layoutRowGap
	}
	bottom = max(bottom, cur)
	p := Placement{
		W:     left + maxW[1] + layoutColGap + maxW[0] + layoutMargin,
		H:     bottom - layoutRowGap + layoutMargin,
		Nodes: make([]Point, len(g.Nodes)),
	}
	if len(g.Nodes) == 0 {
		p.H = 2 * layoutMargin
	}
	for i := range g.Nodes {
		p.Nodes[i] = Point{x[i], y[i]}
	}
	for _, e := range g.Edges {
		a, b := g.Nodes[e.From], g.Nodes[e.To]
		pa, pb := p.Nodes[e.From], p.Nodes[e.To]
		if a.Context && b.Context {
			// An arc left of the context column.
			x0 := pa.X - a.W/2
			x1 := pb.X - b.W/2
			bulge := min(arcRoom-6, 14+math.Abs(pb.Y-pa.Y)/3)
			p.Edges = append(p.Edges, fmt.Sprintf("M%s %sC%s %s %s %s %s %s",
				num(x0), num(pa.Y), num(x0-bulge), num(pa.Y), num(x1-bulge), num(pb.Y), num(x1), num(pb.Y)))
			continue
		}
		// A horizontal S-curve from the right side of one node to the
		// left side of the other (whichever column each is in).
		x0, x1 := pa.X+a.W/2, pb.X-b.W/2
		if pa.X > pb.X {
			x0, x1 = pa.X-a.W/2, pb.X+b.W/2
		}
		mid := (x0 + x1) / 2
		p.Edges = append(p.Edges, fmt.Sprintf("M%s %sC%s %s %s %s %s %s",
			num(x0), num(pa.Y), num(mid), num(pa.Y), num(mid), num(pb.Y), num(x1), num(pb.Y)))
	}
	return p
}

// num formats a coordinate with at most one decimal.
func num(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}
