package report

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Graphviz lays graphs out with Graphviz's dot program: contexts in one
// rank and atoms in the next, dot ordering each rank to reduce crossings
// and routing the edges as splines. All graphs go to one dot process.
type Graphviz struct {
	// Path is the dot program; empty means "dot" on the PATH.
	Path    string
	version string
}

// Name reports "graphviz" and dot's version once Layout has run.
func (g *Graphviz) Name() string {
	if g.version == "" {
		return "graphviz"
	}
	return "graphviz " + g.version
}

func (g *Graphviz) program() string {
	if g.Path == "" {
		return "dot"
	}
	return g.Path
}

// Layout runs dot once on all the graphs.
func (g *Graphviz) Layout(ctx context.Context, gs []Graph) ([]Placement, error) {
	if g.version == "" {
		out, err := exec.CommandContext(ctx, g.program(), "-V").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("graphviz: %s -V: %w", g.program(), err)
		}
		// "dot - graphviz version 2.43.0 (0)"
		f := strings.Fields(string(out))
		for i, w := range f {
			if w == "version" && i+1 < len(f) {
				g.version = f[i+1]
			}
		}
		if g.version == "" {
			g.version = "(unknown version)"
		}
	}
	if len(gs) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for k, gr := range gs {
		writeLayoutDOT(&in, k, gr)
	}
	cmd := exec.CommandContext(ctx, g.program(), "-Tplain")
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return nil, fmt.Errorf("graphviz: %s -Tplain failed: %w: %s", g.program(), err, msg)
	}
	return parsePlain(&stdout, gs)
}

// writeLayoutDOT writes graph k for layout: nodes are named n0, n1, … so
// that no id needs quoting, and have the fixed sizes they are drawn with.
func writeLayoutDOT(w *bytes.Buffer, k int, g Graph) {
	fmt.Fprintf(w, "digraph g%d {\ngraph [rankdir=LR, nodesep=0.11, ranksep=%s, splines=true];\n", k, inch(layoutColGap))
	w.WriteString("node [fixedsize=true, label=\"\"];\nedge [arrowhead=none];\n")
	var atoms, ctxs []string
	for i, n := range g.Nodes {
		shape := "box"
		if n.Context {
			shape = "ellipse"
			ctxs = append(ctxs, "n"+strconv.Itoa(i))
		} else {
			atoms = append(atoms, "n"+strconv.Itoa(i))
		}
		fmt.Fprintf(w, "n%d [shape=%s, width=%s, height=%s];\n", i, shape, inch(n.W), inch(n.H))
	}
	if len(ctxs) > 0 {
		fmt.Fprintf(w, "{rank=same; %s}\n", strings.Join(ctxs, " "))
	}
	if len(atoms) > 0 {
		fmt.Fprintf(w, "{rank=same; %s}\n", strings.Join(atoms, " "))
	}
	if len(ctxs) > 0 && len(atoms) > 0 {
		// Keeps the two columns apart when no relation links them.
		fmt.Fprintf(w, "%s -> %s [style=invis, weight=0];\n", ctxs[0], atoms[0])
	}
	for _, e := range g.Edges {
		attr := ""
		if g.Nodes[e.From].Context && g.Nodes[e.To].Context {
			attr = " [constraint=false]"
		}
		fmt.Fprintf(w, "n%d -> n%d%s;\n", e.From, e.To, attr)
	}
	w.WriteString("}\n")
}

// inch converts pixels (1/72 in) to inches.
func inch(px float64) string { return strconv.FormatFloat(px/72, 'f', 4, 64) }

// parsePlain reads dot's plain output for the graphs gs, in order.
func parsePlain(r *bytes.Buffer, gs []Graph) ([]Placement, error) {
	out := make([]Placement, 0, len(gs))
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	var (
		cur     *Placement
		g       Graph
		height  float64
		pending map[[2]int][]int // (from, to) → indices of the graph's edges, in order
		seen    []bool
		lineNo  int
	)
	bad := func(msg string) error { return fmt.Errorf("graphviz: plain output line %d: %s", lineNo, msg) }
	for sc.Scan() {
		lineNo++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "graph":
			if cur != nil || len(out) == len(gs) {
				return nil, bad("unexpected graph")
			}
			if len(f) < 4 {
				return nil, bad("short graph line")
			}
			g = gs[len(out)]
			w, err1 := strconv.ParseFloat(f[2], 64)
			h, err2 := strconv.ParseFloat(f[3], 64)
			if err := errors.Join(err1, err2); err != nil {
				return nil, bad(err.Error())
			}
			height = h
			cur = &Placement{W: w * 72, H: h * 72, Nodes: make([]Point, len(g.Nodes)), Edges: make([]string, len(g.Edges))}
			pending = make(map[[2]int][]int)
			for i, e := range g.Edges {
				k := [2]int{e.From, e.To}
				pending[k] = append(pending[k], i)
			}
			seen = make([]bool, len(g.Nodes))
		case "node":
			if cur == nil || len(f) < 4 {
				return nil, bad("unexpected node")
			}
			i, err := nodeIndex(f[1], len(g.Nodes))
			if err != nil {
				return nil, bad(err.Error())
			}
			x, err1 := strconv.ParseFloat(f[2], 64)
			y, err2 := strconv.ParseFloat(f[3], 64)
			if err := errors.Join(err1, err2); err != nil {
				return nil, bad(err.Error())
			}
			cur.Nodes[i] = Point{x * 72, (height - y) * 72}
			seen[i] = true
		case "edge":
			if cur == nil || len(f) < 4 {
				return nil, bad("unexpected edge")
			}
			from, err1 := nodeIndex(f[1], len(g.Nodes))
			to, err2 := nodeIndex(f[2], len(g.Nodes))
			n, err3 := strconv.Atoi(f[3])
			if err := errors.Join(err1, err2, err3); err != nil {
				return nil, bad(err.Error())
			}
			if n < 2 || len(f) < 4+2*n {
				return nil, bad("short edge")
			}
			q := pending[[2]int{from, to}]
			if len(q) == 0 {
				continue // the invisible edge that keeps the columns apart
			}
			pending[[2]int{from, to}] = q[1:]
			pts := make([]Point, n)
			for j := range pts {
				x, err1 := strconv.ParseFloat(f[4+2*j], 64)
				y, err2 := strconv.ParseFloat(f[5+2*j], 64)
				if err := errors.Join(err1, err2); err != nil {
					return nil, bad(err.Error())
				}
				pts[j] = Point{x * 72, (height - y) * 72}
			}
			cur.Edges[q[0]] = splinePath(pts, cur.Nodes[from])
		case "stop":
			if cur == nil {
				return nil, bad("unexpected stop")
			}
			for i, ok := range seen {
				if !ok {
					return nil, bad(fmt.Sprintf("graph %d: node %d not placed", len(out), i))
				}
			}
			for k, q := range pending {
				if len(q) > 0 {
					return nil, bad(fmt.Sprintf("graph %d: edge n%d -> n%d not routed", len(out), k[0], k[1]))
				}
			}
			out = append(out, *cur)
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("graphviz: reading plain output: %w", err)
	}
	if len(out) != len(gs) || cur != nil {
		return nil, fmt.Errorf("graphviz: laid out %d of %d graphs", len(out), len(gs))
	}
	return out, nil
}

func nodeIndex(name string, n int) (int, error) {
	i, err := strconv.Atoi(strings.TrimPrefix(name, "n"))
	if err != nil || !strings.HasPrefix(name, "n") || i < 0 || i >= n {
		return 0, fmt.Errorf("unknown node %q", name)
	}
	return i, nil
}

// splinePath turns dot's B-spline control points (1 + 3k of them) into an
// SVG path that starts at the end nearer the source node.
func splinePath(pts []Point, src Point) string {
	d0 := sq(pts[0].X-src.X) + sq(pts[0].Y-src.Y)
	d1 := sq(pts[len(pts)-1].X-src.X) + sq(pts[len(pts)-1].Y-src.Y)
	if d1 < d0 {
		for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
			pts[i], pts[j] = pts[j], pts[i]
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "M%s %s", num(pts[0].X), num(pts[0].Y))
	for i := 1; i+2 < len(pts); i += 3 {
		fmt.Fprintf(&b, "C%s %s %s %s %s %s", num(pts[i].X), num(pts[i].Y), num(pts[i+1].X), num(pts[i+1].Y), num(pts[i+2].X), num(pts[i+2].Y))
	}
	if (len(pts)-1)%3 != 0 { // not a whole number of Bézier segments: draw the rest straight
		fmt.Fprintf(&b, "L%s %s", num(pts[len(pts)-1].X), num(pts[len(pts)-1].Y))
	}
	return b.String()
}

func sq(x float64) float64 { return x * x }
