package report_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/report"
)

// denseFR3 is a worst case for readability: 26 atoms, 21 contexts, 60
// context–atom and 40 context–context relations, some nodes unrelated.
func denseFR3() report.Graph {
	rng := rand.New(rand.NewPCG(1, 2))
	var g report.Graph
	for i := range 26 {
		g.Nodes = append(g.Nodes, report.Node{W: float64(7*len("a"+strconv.Itoa(i)) + 16), H: 18})
	}
	for range 21 {
		g.Nodes = append(g.Nodes, report.Node{Context: true, W: 65, H: 18})
	}
	seen := make(map[report.Edge]bool)
	for len(g.Edges) < 100 {
		e := report.Edge{From: 26 + rng.IntN(21), To: rng.IntN(20)} // atoms 20..25 stay unrelated
		if len(g.Edges) >= 60 {
			e.To = 26 + rng.IntN(21)
		}
		if e.From == e.To || seen[e] || seen[report.Edge{From: e.To, To: e.From}] {
			continue
		}
		seen[e] = true
		g.Edges = append(g.Edges, e)
	}
	return g
}

func layoutGraphs() map[string]report.Graph {
	return map[string]report.Graph{
		"empty":     {},
		"one atom":  {Nodes: []report.Node{{W: 30, H: 18}}},
		"no edges":  {Nodes: []report.Node{{W: 30, H: 18}, {Context: true, W: 60, H: 18}}},
		"dense FR3": denseFR3(),
		"FR1-like": {Nodes: []report.Node{{W: 30, H: 18}, {W: 30, H: 18}, {Context: true, W: 60, H: 18}, {Context: true, W: 60, H: 18}, {Context: true, W: 60, H: 18}},
			Edges: []report.Edge{{From: 2, To: 1}, {From: 3, To: 0}, {From: 4, To: 0}}},
	}
}

var pathPoint = regexp.MustCompile(`-?[0-9.]+ -?[0-9.]+`)

// checkPlacement checks what makes a layout readable and drawable: every
// node inside the drawing and clear of the others, contexts left of atoms,
// each edge running from its source's border to its target's.
func checkPlacement(t *testing.T, name string, g report.Graph, p report.Placement) {
	t.Helper()
	if len(p.Nodes) != len(g.Nodes) || len(p.Edges) != len(g.Edges) {
		t.Fatalf("%s: %d nodes and %d edges placed, want %d and %d", name, len(p.Nodes), len(p.Edges), len(g.Nodes), len(g.Edges))
	}
	box := func(i int) (x0, y0, x1, y1 float64) {
		n, c := g.Nodes[i], p.Nodes[i]
		return c.X - n.W/2, c.Y - n.H/2, c.X + n.W/2, c.Y + n.H/2
	}
	ctxRight, atomLeft := -1e9, 1e9
	for i, n := range g.Nodes {
		x0, y0, x1, y1 := box(i)
		if x0 < -0.5 || y0 < -0.5 || x1 > p.W+0.5 || y1 > p.H+0.5 {
			t.Errorf("%s: node %d at (%.1f,%.1f)–(%.1f,%.1f) outside the %.1f×%.1f drawing", name, i, x0, y0, x1, y1, p.W, p.H)
		}
		if n.Context {
			ctxRight = max(ctxRight, x1)
		} else {
			atomLeft = min(atomLeft, x0)
		}
		for j := range i {
			a0, b0, a1, b1 := box(j)
			if x0 < a1-0.5 && a0 < x1-0.5 && y0 < b1-0.5 && b0 < y1-0.5 {
				t.Errorf("%s: nodes %d and %d overlap", name, i, j)
			}
		}
	}
	if ctxRight > atomLeft {
		t.Errorf("%s: contexts reach x = %.1f, atoms start at %.1f: not two columns", name, ctxRight, atomLeft)
	}
	near := func(pt string, i int) bool {
		f := strings.Fields(pt)
		x, _ := strconv.ParseFloat(f[0], 64)
		y, _ := strconv.ParseFloat(f[1], 64)
		x0, y0, x1, y1 := box(i)
		const tol = 4
		inside := x >= x0-tol && x <= x1+tol && y >= y0-tol && y <= y1+tol
		return inside
	}
	for k, e := range g.Edges {
		pts := pathPoint.FindAllString(p.Edges[k], -1)
		if !strings.HasPrefix(p.Edges[k], "M") || len(pts) < 2 {
			t.Errorf("%s: edge %d path %q", name, k, p.Edges[k])
			continue
		}
		if !near(pts[0], e.From) || !near(pts[len(pts)-1], e.To) {
			t.Errorf("%s: edge %d (%d → %d) runs from %s to %s, not from node to node", name, k, e.From, e.To, pts[0], pts[len(pts)-1])
		}
	}
}

// crossings counts the pairs of context–atom edges that cross, from the
// nodes' vertical order.
func crossings(g report.Graph, y func(int) float64) int {
	var es []report.Edge
	for _, e := range g.Edges {
		if !g.Nodes[e.To].Context {
			es = append(es, e)
		}
	}
	n := 0
	for i := range es {
		for j := range i {
			a, b := es[i], es[j]
			if (y(a.From)-y(b.From))*(y(a.To)-y(b.To)) < 0 {
				n++
			}
		}
	}
	return n
}

func testLayouter(t *testing.T, l report.Layouter) {
	graphs := layoutGraphs()
	var names []string
	var gs []report.Graph
	for name, g := range graphs {
		names = append(names, name)
		gs = append(gs, g)
	}
	ps, err := l.Layout(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		checkPlacement(t, names[i], gs[i], p)
	}
	again, err := l.Layout(context.Background(), gs)
	if err != nil || !reflect.DeepEqual(ps, again) {
		t.Errorf("a second layout differs (%v)", err)
	}
	// Fewer crossings than the nodes in file order.
	for i, name := range names {
		if name != "dense FR3" {
			continue
		}
		g := gs[i]
		got := crossings(g, func(k int) float64 { return ps[i].Nodes[k].Y })
		naive := crossings(g, func(k int) float64 { return float64(k) })
		t.Logf("%s: %d crossings, %d in file order", l.Name(), got, naive)
		if got >= naive {
			t.Errorf("%s: %d crossings, no fewer than the %d of file order", l.Name(), got, naive)
		}
	}
}

func TestBuiltinLayout(t *testing.T) { testLayouter(t, report.Builtin{}) }

func TestGraphvizLayout(t *testing.T) {
	g := &report.Graphviz{Path: findDot(t)}
	testLayouter(t, g)
	if !regexp.MustCompile(`^graphviz [0-9]+\.[0-9]+`).MatchString(g.Name()) {
		t.Errorf("name %q", g.Name())
	}
}

// TestGraphvizFailure: dot failing, or saying too little, is an error that
// says so, never a drawing without a layout.
func TestGraphvizFailure(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nif [ \"$1\" = -V ]; then echo 'dot - graphviz version 9.9.9 (0)' >&2; exit 0; fi\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gs := []report.Graph{denseFR3()}
	for _, tc := range []struct{ name, body, want string }{
		{"fails", "cat >/dev/null; echo 'Error: <stdin>: syntax error in line 1' >&2; exit 1\n", "Error: <stdin>: syntax error in line 1"},
		{"silent", "cat >/dev/null; exit 0\n", "laid out 0 of 1 graphs"},
		{"garbled", "cat >/dev/null; echo 'graph 1 2 3'; echo 'node n999 1 1 1 1'; echo stop\n", `unknown node "n999"`},
	} {
		_, err := (&report.Graphviz{Path: script(tc.name, tc.body)}).Layout(context.Background(), gs)
		if err == nil || !strings.Contains(err.Error(), "graphviz") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming graphviz and %q", tc.name, err, tc.want)
		}
	}
	if _, err := (&report.Graphviz{Path: filepath.Join(dir, "none")}).Layout(context.Background(), gs); err == nil {
		t.Error("a missing dot program gave no error")
	}
}

func TestParseLayout(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"graphviz", "graphviz"}, {"dot", "graphviz"}, {"built-in", "built-in"}, {"builtin", "built-in"},
	} {
		l, err := report.ParseLayout(c.name)
		if err != nil {
			t.Fatalf("ParseLayout(%q): %v", c.name, err)
		}
		if got := l.Name(); !strings.HasPrefix(got, c.want) {
			t.Errorf("ParseLayout(%q) is %s, want %s", c.name, got, c.want)
		}
	}
	if l, err := report.ParseLayout("auto"); err != nil || l == nil {
		t.Errorf("ParseLayout(auto) = %v, %v", l, err)
	}
	if l, err := report.ParseLayout("neato"); err == nil {
		t.Errorf("ParseLayout(neato) = %v, want an error", l)
	}
}
