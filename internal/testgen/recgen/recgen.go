// Package recgen generates synthetic FactReasoner records of a chosen
// shape, for the throughput benchmarks of whole runs (BENCHMARKS.md,
// "Records in parallel"), where the reference data has one record of each
// kind and a benchmark wants a thousand.
//
// A record is shaped after the Flaherty biography of the reference data
// (26 atoms, 53 contexts of which 21 distinct texts, passages of 457 to
// 4,000 characters): its text is pseudo-English drawn from a vocabulary of
// its own with Zipf-like word frequencies, and each atom is a short
// sentence made of words of one of its contexts, so that lexical NLI and
// BM25 pruning see atoms that overlap some contexts more than others. With
// Relations the record states its NLI relations (entailments and
// contradictions from contexts to atoms and between contexts), for
// `--nli given`. The same shape, seed and index give the same record.
package recgen

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/factreasoner/factreasoner-go/instance"
)

// Shape is the size of the generated records.
type Shape struct {
	Atoms    int // atoms per record
	Contexts int // contexts per record; each atom lists about Contexts/Atoms of them
	Distinct int // distinct context texts among them (the others repeat one, as search results do)
	// Relations, when set, gives each record stated relations.
	Relations bool
	// Passage, when > 0, is the length (characters) of every passage,
	// instead of the Flaherty record's lengths.
	Passage int
}

// Flaherty is the shape of the Flaherty biography (26 atoms, 53 contexts,
// 21 distinct texts), with relations.
var Flaherty = Shape{Atoms: 26, Contexts: 53, Distinct: 21, Relations: true}

// passageLengths are the lengths (characters) of the Flaherty record's
// distinct passages; the generated passages cycle through them.
var passageLengths = []int{973, 4000, 1587, 4000, 457, 1823, 4000, 4000, 1402, 2562, 4000}

// Record returns record number index (from 0) of a file generated with
// seed.
func Record(s Shape, seed uint64, index int) (*instance.Instance, error) {
	if s.Atoms < 1 || s.Contexts < 1 || s.Distinct < 1 || s.Distinct > s.Contexts || s.Atoms > 1e5 || s.Contexts > 1e5 || s.Passage > 1e6 {
		return nil, fmt.Errorf("recgen: %d atoms, %d contexts, %d distinct: want at least one of each, at most 100,000, and no more distinct texts than contexts", s.Atoms, s.Contexts, s.Distinct)
	}
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(index)))}
	g.vocabulary(400)
	name := g.words[g.r.IntN(len(g.words))] + " " + g.words[g.r.IntN(len(g.words))]
	texts := make([]string, s.Distinct)
	for i := range texts {
		length := s.Passage
		if length <= 0 {
			length = passageLengths[(index+i)%len(passageLengths)]
		}
		texts[i] = g.passage(name, length)
	}
	in := &instance.Instance{
		Input: fmt.Sprintf("Question: Tell me a bio of %s.", name),
		Topic: name,
	}
	// Context j holds text j for the first Distinct contexts, then a
	// repeated one; atoms take the contexts in turn.
	in.Contexts = make([]instance.Context, s.Contexts)
	in.Atoms = make([]instance.Atom, s.Atoms)
	textOf := make([]int, s.Contexts)
	owned := make([][]int, s.Atoms) // each atom's contexts (indexes)
	for j := range in.Contexts {
		a, k := j%s.Atoms, j/s.Atoms
		textOf[j] = j
		if j >= s.Distinct {
			textOf[j] = g.r.IntN(s.Distinct)
		}
		in.Contexts[j] = instance.Context{ID: fmt.Sprintf("c_a%d_%d", a, k), Title: name, Text: texts[textOf[j]]}
		in.Atoms[a].Contexts = append(in.Atoms[a].Contexts, in.Contexts[j].ID)
		owned[a] = append(owned[a], j)
	}
	var response []string
	for i := range in.Atoms {
		a := &in.Atoms[i]
		a.ID = fmt.Sprintf("a%d", i)
		own := i % s.Contexts // an atom without contexts of its own (more atoms than contexts) borrows one
		if len(owned[i]) > 0 {
			own = owned[i][0]
		}
		a.Text = g.atom(name, texts[textOf[own]])
		a.Original = a.Text
		a.Label = "S"
		if g.r.IntN(5) == 0 {
			a.Label = "NS"
		}
		response = append(response, a.Text)
	}
	in.Output = strings.Join(response, " ")
	if s.Relations {
		in.Relations = g.relations(in, textOf, owned)
	}
	return in, nil
}

// Write writes records from..from+n-1 of a file generated with seed, one
// JSON line each.
func Write(w io.Writer, s Shape, seed uint64, from, n int) error {
	for i := from; i < from+n; i++ {
		in, err := Record(s, seed, i)
		if err != nil {
			return err
		}
		line, err := json.Marshal(in)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// gen draws a record's text.
type gen struct {
	r     *rand.Rand
	words []string
	zipf  *rand.Zipf
}

var syllables = strings.Fields("ka lo mi ren tas vo pel dri sun ar e o ith mar bel cor tin gra hal ve nu pra stel om li dur ban sa fel qui ros")

// vocabulary makes the record's n words, the first the most frequent.
func (g *gen) vocabulary(n int) {
	seen := make(map[string]bool, n)
	for len(g.words) < n {
		var b strings.Builder
		for range 1 + g.r.IntN(3) {
			b.WriteString(syllables[g.r.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			g.words = append(g.words, w)
		}
	}
	g.zipf = rand.NewZipf(g.r, 1.1, 2, uint64(n-1))
}

func (g *gen) word() string { return g.words[g.zipf.Uint64()] }

// sentence is 6 to 19 words, the first the record's name now and then.
func (g *gen) sentence(name string) string {
	n := 6 + g.r.IntN(14)
	ws := make([]string, 0, n+1)
	if g.r.IntN(4) == 0 {
		ws = append(ws, name)
	}
	for len(ws) < n {
		ws = append(ws, g.word())
	}
	return strings.Join(ws, " ") + "."
}

// passage is sentences up to about length characters.
func (g *gen) passage(name string, length int) string {
	var b strings.Builder
	for b.Len() < length {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.sentence(name))
	}
	return b.String()[:length]
}

// atom is a short sentence about name in words of the passage.
func (g *gen) atom(name, passage string) string {
	ws := strings.Fields(strings.ReplaceAll(passage, ".", ""))
	n := 3 + g.r.IntN(5)
	out := []string{name, "is"}
	for range n {
		out = append(out, ws[g.r.IntN(len(ws))])
	}
	return strings.Join(out, " ") + "."
}

// relations states about half the atoms entailed by one of their contexts,
// one in ten contradicted by one, and a few context pairs related: about
// the Flaherty record's 15 relations, and some more for FR3. Relations
// name the first context of each text.
func (g *gen) relations(in *instance.Instance, textOf []int, owned [][]int) []instance.Relation {
	first := make(map[int]string)
	for j, t := range textOf {
		if _, ok := first[t]; !ok {
			first[t] = in.Contexts[j].ID
		}
	}
	p := func() float64 { return 0.6 + 0.399*g.r.Float64() }
	var rs []instance.Relation
	for i, a := range in.Atoms {
		if len(owned[i]) == 0 {
			continue
		}
		c := first[textOf[owned[i][g.r.IntN(len(owned[i]))]]]
		switch v := g.r.IntN(10); {
		case v < 5:
			rs = append(rs, instance.Relation{Source: c, Target: a.ID, Type: instance.TypeEntailment, Probability: p()})
		case v == 5:
			rs = append(rs, instance.Relation{Source: c, Target: a.ID, Type: instance.TypeContradiction, Probability: p()})
		}
	}
	if n := len(first); n > 1 {
		for range max(1, n/4) {
			s, t := g.r.IntN(n), g.r.IntN(n)
			if s == t {
				continue
			}
			typ := instance.TypeEntailment
			if g.r.IntN(3) == 0 {
				typ = instance.TypeContradiction
			}
			rs = append(rs, instance.Relation{Source: first[s], Target: first[t], Type: typ, Probability: p()})
		}
	}
	return rs
}
