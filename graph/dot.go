package graph

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// WriteDOT writes the network in Graphviz DOT, for `dot -Tsvg`: contexts
// (ellipses) in one column and atoms (boxes) in the next, each labelled
// with its id, P(true) and a short text; one edge per relation, coloured by
// type (entailment green, contradiction orange, equivalence purple, both
// ways) and labelled with its probability; context–context relations (FR3)
// are thin and unlabelled and stay within the context column, so that a
// dense network stays readable. A legend below explains the colours.
//
// pTrue, when not nil, holds P(true) per variable (indexed like
// Variables): nodes are filled on a colour scale from red (false) through
// light grey (0.5) to blue (true), and undecided atoms (P(true) 0.5 at 6
// decimals) have a dashed border.
func (g *Network) WriteDOT(w io.Writer, pTrue []float64) error {
	if pTrue != nil && len(pTrue) != len(g.Variables) {
		return fmt.Errorf("graph: %d probabilities for %d variables", len(pTrue), len(g.Variables))
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph factreasoner {")
	fmt.Fprintln(bw, `  graph [rankdir=LR, ranksep=1.4, nodesep=0.12, fontname="Helvetica", labelloc=b, labeljust=l];`)
	fmt.Fprintln(bw, `  node [fontname="Helvetica", fontsize=10, style=filled, fillcolor=white, color="#4a4a4a", margin="0.06,0.03"];`)
	fmt.Fprintln(bw, `  edge [fontname="Helvetica", fontsize=8, fontcolor="#555555", arrowsize=0.7];`)
	for _, kind := range []Kind{ContextVariable, AtomVariable} {
		fmt.Fprintf(bw, "  subgraph %ss {\n    rank=same;\n", kind)
		for i, v := range g.Variables {
			if v.Kind != kind {
				continue
			}
			fmt.Fprintf(bw, "    %s [%s];\n", dotQuote(v.Name), nodeAttrs(v, i, pTrue))
		}
		fmt.Fprintln(bw, "  }")
	}
	for _, f := range g.Factors {
		attrs := []string{"color=" + dotQuote(relationColor[f.Type])}
		tip := fmt.Sprintf("%s → %s: %s %.6f", f.Source, f.Target, f.Type, f.Probability)
		if i, ok := g.Index(f.Target); ok && g.Variables[i].Kind == ContextVariable {
			attrs = append(attrs, "penwidth=0.6", "arrowsize=0.5", "constraint=false")
		} else {
			attrs = append(attrs, fmt.Sprintf("penwidth=%.2f", 0.8+1.6*f.Probability), "label="+dotQuote(fmt.Sprintf("%.2f", f.Probability)))
		}
		if f.Type == Equivalence {
			attrs = append(attrs, "dir=both")
		}
		attrs = append(attrs, "tooltip="+dotQuote(tip))
		fmt.Fprintf(bw, "  %s -> %s [%s];\n", dotQuote(f.Source), dotQuote(f.Target), strings.Join(attrs, ", "))
	}
	fmt.Fprintf(bw, "  label=<%s>;\n", legend(pTrue != nil))
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// relationColor colours edges by type (ColorBrewer Dark2, which reads in
// colour-blind vision too).
var relationColor = map[RelationType]string{Entailment: "#1b9e77", Contradiction: "#d95f02", Equivalence: "#7570b3"}

func nodeAttrs(v Variable, i int, pTrue []float64) string {
	shape, style, width := "ellipse", "filled", 24
	if v.Kind == AtomVariable {
		shape, style, width = "box", "rounded,filled", 30
	}
	lines := []string{v.Name}
	attrs := []string{}
	if pTrue != nil {
		p := pTrue[i]
		lines[0] += fmt.Sprintf("  P=%.3f", p)
		attrs = append(attrs, "fillcolor="+dotQuote(PTrueColor(p)), "fontcolor="+dotQuote(inkColor(p)))
		if math.Round(p*1e6) == 5e5 {
			style += ",dashed"
			lines[0] += " ?"
		}
	}
	lines = append(lines, wrap(v.Text, width, 2)...)
	attrs = append([]string{"shape=" + shape, "style=" + dotQuote(style), "label=" + dotQuote(lines...)}, attrs...)
	if v.Text != "" {
		attrs = append(attrs, "tooltip="+dotQuote(v.Text))
	}
	return strings.Join(attrs, ", ")
}

// legend is an HTML-like label: the colour scale and the relation types.
func legend(colours bool) string {
	var b strings.Builder
	b.WriteString(`<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2"><TR><TD ALIGN="LEFT"><FONT POINT-SIZE="9">`)
	b.WriteString(`atoms: boxes · contexts: ellipses`)
	for _, t := range []RelationType{Entailment, Contradiction, Equivalence} {
		fmt.Fprintf(&b, ` · <FONT COLOR="%s">━━▶ %s</FONT>`, relationColor[t], t)
	}
	b.WriteString(`</FONT></TD>`)
	if colours {
		b.WriteString(`<TD><FONT POINT-SIZE="9">  P(true):</FONT></TD>`)
		for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
			fmt.Fprintf(&b, `<TD BGCOLOR="%s" BORDER="1"><FONT POINT-SIZE="9" COLOR="%s">%.2g</FONT></TD>`, PTrueColor(p), inkColor(p), p)
		}
		b.WriteString(`<TD><FONT POINT-SIZE="9"> dashed, ?: undecided (0.5)</FONT></TD>`)
	}
	b.WriteString(`</TR></TABLE>`)
	return b.String()
}

// colourStops: P(true) from red (false) through light grey to blue (true),
// after ColorBrewer's RdYlBu.
var colourStops = []struct {
	p       float64
	r, g, b float64
}{{0, 215, 48, 39}, {0.25, 252, 141, 89}, {0.4, 254, 224, 144}, {0.5, 247, 247, 247}, {0.6, 224, 243, 248}, {0.75, 145, 191, 219}, {1, 69, 117, 180}}

// PTrueColor is the colour of P(true) p as #rrggbb: red for false, light
// grey for 0.5, blue for true.
func PTrueColor(p float64) string {
	p = min(max(p, 0), 1)
	for i := 1; i < len(colourStops); i++ {
		a, b := colourStops[i-1], colourStops[i]
		if p <= b.p {
			t := (p - a.p) / (b.p - a.p)
			mix := func(x, y float64) int { return int(math.Round(x + t*(y-x))) }
			return fmt.Sprintf("#%02x%02x%02x", mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b))
		}
	}
	return "#4575b4"
}

// inkColor is a text colour that reads on PTrueColor(p).
func inkColor(p float64) string {
	if p < 0.15 || p > 0.85 {
		return "#ffffff"
	}
	return "#111111"
}

// wrap breaks s into at most n lines of about width characters, the last
// one cut with an ellipsis when s is longer.
func wrap(s string, width, n int) []string {
	words := strings.Fields(s)
	var lines []string
	cur := ""
	for i, w := range words {
		if cur != "" && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width {
			lines = append(lines, cur)
			cur = ""
			if len(lines) == n {
				last := []rune(lines[n-1])
				if len(last) > width-1 {
					last = last[:width-1]
				}
				lines[n-1] = strings.TrimRight(string(last), " ") + "…"
				return lines
			}
		}
		if cur != "" {
			cur += " "
		}
		cur += w
		if i == len(words)-1 {
			lines = append(lines, cur)
		}
	}
	for i, l := range lines { // a single word longer than the width
		if r := []rune(l); len(r) > width+8 {
			lines[i] = string(r[:width]) + "…"
		}
	}
	return lines
}

// dotQuote writes lines as one DOT string, the lines joined by DOT's line
// break \n. Quotes and backslashes in the text are escaped, so that a
// backslash in an atom's text is shown, not read as an escape.
func dotQuote(lines ...string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, l := range lines {
		if i > 0 {
			b.WriteString(`\n`)
		}
		for _, r := range l {
			switch r {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case '\n', '\r', '\t':
				b.WriteByte(' ')
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
