package graph

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
)

// dotNetwork is a small FR3 network: two atoms, three contexts (one title
// with a quote and a backslash), relations of every type, one between
// contexts.
func dotNetwork(t *testing.T) *Network {
	t.Helper()
	in := &instance.Instance{
		Output: "x",
		Atoms: []instance.Atom{
			{ID: "a0", Text: "Ada Lovelace was an English mathematician."},
			{ID: "a1", Text: "Ada Lovelace invented the first electronic computer, which she called the \"Engine\"."},
		},
		Contexts: []instance.Context{
			{ID: "c_a0_0", Title: "Ada Lovelace", Text: "Augusta Ada King was an English mathematician."},
			{ID: "c_a1_0", Title: `ENIAC "the first" C:\computers`, Text: "ENIAC was built in 1945."},
			{ID: "c_a1_1", Text: "Ada wrote notes on the Analytical Engine."},
		},
	}
	rels := []Relation{
		{Source: "c_a0_0", Target: "a0", Type: Entailment, Probability: 0.98},
		{Source: "c_a1_0", Target: "a1", Type: Contradiction, Probability: 0.86},
		{Source: "c_a1_1", Target: "c_a0_0", Type: Equivalence, Probability: 0.7},
	}
	g, err := Build(SelectNodes(in, FR3), rels, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// dotStatement matches a node or edge statement: its quoted ids and
// attribute list.
var (
	dotNode = regexp.MustCompile(`(?m)^\s*("(?:[^"\\]|\\.)*") \[(.*)\];$`)
	dotEdge = regexp.MustCompile(`(?m)^\s*("(?:[^"\\]|\\.)*") -> ("(?:[^"\\]|\\.)*") \[(.*)\];$`)
	dotAttr = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|[^,\s]+)`)
)

// unquoteDOT reads a DOT string as Graphviz does: \" and \\ are the
// characters, \n is a line break (returned as lines).
func unquoteDOT(t *testing.T, s string) []string {
	t.Helper()
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return []string{s}
	}
	var lines []string
	var cur strings.Builder
	body := s[1 : len(s)-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			cur.WriteByte(c)
			continue
		}
		i++
		if i == len(body) {
			t.Fatalf("DOT string %s ends in a lone backslash", s)
		}
		switch body[i] {
		case 'n':
			lines = append(lines, cur.String())
			cur.Reset()
		case '"', '\\':
			cur.WriteByte(body[i])
		default:
			t.Fatalf("DOT string %s holds the escape \\%c, which Graphviz would not show as written", s, body[i])
		}
	}
	return append(lines, cur.String())
}

func attrs(t *testing.T, list string) map[string][]string {
	m := make(map[string][]string)
	for _, a := range dotAttr.FindAllStringSubmatch(list, -1) {
		m[a[1]] = unquoteDOT(t, a[2])
	}
	return m
}

func TestWriteDOT(t *testing.T) {
	g := dotNetwork(t)
	// P(true) by variable: a0 true, a1 false, c_a0_0 undecided (it shows
	// the dashed border), the others 0.9.
	p := map[string]float64{"a0": 0.97, "a1": 0.12, "c_a0_0": 0.5000004, "c_a1_0": 0.9, "c_a1_1": 0.9}
	pTrue := make([]float64, len(g.Variables))
	for i, v := range g.Variables {
		pTrue[i] = p[v.Name]
	}
	var b bytes.Buffer
	if err := g.WriteDOT(&b, pTrue); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, `\\n`) {
		t.Errorf("a label holds an escaped backslash before n, shown by Graphviz as a literal \\n:\n%s", out)
	}
	nodes := make(map[string]map[string][]string)
	for _, m := range dotNode.FindAllStringSubmatch(out, -1) {
		nodes[unquoteDOT(t, m[1])[0]] = attrs(t, m[2])
	}
	for _, tc := range []struct {
		id, shape, fill, style string
		label                  []string
	}{
		// 0.97: 0.88 of the way from 0.75 (145,191,219) to 1 (69,117,180).
		{"a0", "box", "#4e7eb9", "rounded,filled", []string{"a0  P=0.970", "Ada Lovelace was an English", "mathematician."}},
		// 0.12: 0.48 of the way from 0 (215,48,39) to 0.25 (252,141,89).
		{"a1", "box", "#e95d3f", "rounded,filled", []string{"a1  P=0.120", "Ada Lovelace invented the", "first electronic computer,…"}},
		{"c_a0_0", "ellipse", "#f7f7f7", "filled,dashed", []string{"c_a0_0  P=0.500 ?", "Ada Lovelace"}},
		{"c_a1_0", "ellipse", "#6393c4", "filled", []string{"c_a1_0  P=0.900", `ENIAC "the first"`, `C:\computers`}},
		{"c_a1_1", "ellipse", "#6393c4", "filled", []string{"c_a1_1  P=0.900", "Ada wrote notes on the", "Analytical Engine."}},
	} {
		n, ok := nodes[tc.id]
		if !ok {
			t.Errorf("no node %s in\n%s", tc.id, out)
			continue
		}
		if got := strings.Join(n["label"], "|"); got != strings.Join(tc.label, "|") {
			t.Errorf("%s: label lines %q, want %q", tc.id, n["label"], tc.label)
		}
		if n["shape"][0] != tc.shape || n["fillcolor"][0] != tc.fill || n["style"][0] != tc.style {
			t.Errorf("%s: shape %s fill %s style %s, want %s %s %s", tc.id, n["shape"], n["fillcolor"], n["style"], tc.shape, tc.fill, tc.style)
		}
	}
	edges := make(map[string]map[string][]string)
	for _, m := range dotEdge.FindAllStringSubmatch(out, -1) {
		edges[unquoteDOT(t, m[1])[0]+"->"+unquoteDOT(t, m[2])[0]] = attrs(t, m[3])
	}
	for _, tc := range []struct {
		edge, color, label string
		thin, both         bool
	}{
		{"c_a0_0->a0", "#1b9e77", "0.98", false, false},
		{"c_a1_0->a1", "#d95f02", "0.86", false, false},
		{"c_a1_1->c_a0_0", "#7570b3", "", true, true},
	} {
		e, ok := edges[tc.edge]
		if !ok {
			t.Errorf("no edge %s", tc.edge)
			continue
		}
		if e["color"][0] != tc.color {
			t.Errorf("%s: colour %s, want %s", tc.edge, e["color"], tc.color)
		}
		if got := strings.Join(e["label"], ""); got != tc.label {
			t.Errorf("%s: label %q, want %q", tc.edge, got, tc.label)
		}
		// Context–context edges are thin and do not pull the context
		// column apart.
		if thin := e["constraint"] != nil && e["constraint"][0] == "false" && e["penwidth"][0] == "0.6"; thin != tc.thin {
			t.Errorf("%s: thin context–context edge %v, want %v (%v)", tc.edge, thin, tc.thin, e)
		}
		if both := e["dir"] != nil && e["dir"][0] == "both"; both != tc.both {
			t.Errorf("%s: both ways %v, want %v", tc.edge, both, tc.both)
		}
	}
	// Contexts and atoms each keep to their own column.
	for _, kind := range []string{"contexts", "atoms"} {
		if !regexp.MustCompile(`subgraph ` + kind + ` \{\n\s*rank=same;`).MatchString(out) {
			t.Errorf("no rank=same subgraph of the %s", kind)
		}
	}
	for _, want := range []string{"entailment", "contradiction", "equivalence", "P(true)", "undecided"} {
		if !strings.Contains(out[strings.Index(out, "label=<"):], want) {
			t.Errorf("the legend does not mention %s", want)
		}
	}
}

// TestPTrueColor checks the colour scale at its stops and that it is
// monotone from red to blue.
func TestPTrueColor(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want string
	}{{-1, "#d73027"}, {0, "#d73027"}, {0.25, "#fc8d59"}, {0.5, "#f7f7f7"}, {0.75, "#91bfdb"}, {1, "#4575b4"}, {2, "#4575b4"}} {
		if got := PTrueColor(tc.p); got != tc.want {
			t.Errorf("PTrueColor(%v) = %s, want %s", tc.p, got, tc.want)
		}
	}
}

func TestWriteDOTWithoutProbabilities(t *testing.T) {
	g := dotNetwork(t)
	var b bytes.Buffer
	if err := g.WriteDOT(&b, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "P=") || strings.Contains(b.String(), "undecided") {
		t.Errorf("without probabilities the graph shows some:\n%s", b.String())
	}
	if err := g.WriteDOT(&b, []float64{0.5}); err == nil {
		t.Error("a probability list of the wrong length was accepted")
	}
}

// TestWriteDOTGraphviz renders the DOT with Graphviz: no warning, and each
// label line comes out as its own line of text, with no literal \n.
func TestWriteDOTGraphviz(t *testing.T) {
	if os.Getenv("FACTREASONER_GRAPHVIZ_TESTS") == "off" {
		t.Skip("FACTREASONER_GRAPHVIZ_TESTS=off")
	}
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Fatal("no dot on the PATH: install Debian's graphviz package (scripts/test does), or set FACTREASONER_GRAPHVIZ_TESTS=off")
	}
	g := dotNetwork(t)
	pTrue := make([]float64, len(g.Variables))
	for i := range pTrue {
		pTrue[i] = 0.9
	}
	var in bytes.Buffer
	if err := g.WriteDOT(&in, pTrue); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = &in
	var svg, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &svg, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("dot: %v: %s", err, stderr.String())
	}
	texts := regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg.String(), -1)
	var all []string
	for _, m := range texts {
		all = append(all, m[1])
		if strings.Contains(m[1], `\n`) {
			t.Errorf("Graphviz shows a literal \\n: %q", m[1])
		}
	}
	joined := strings.Join(all, "|")
	for _, want := range []string{"mathematician.", "Ada Lovelace", "C:\\computers", "0.98"} {
		if !strings.Contains(joined, want) {
			t.Errorf("Graphviz's drawing lacks the text %q; its texts: %q", want, all)
		}
	}
}
