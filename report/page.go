package report

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/endpoint"
)

// The page's data: what the script of the HTML file renders, as JSON.
// Field names are short because a report of 1,000 responses holds many.

type pageData struct {
	Title     string         `json:"title"`
	Runs      []pageRun      `json:"runs"`
	PageSize  int            `json:"page"`
	Layout    string         `json:"layout"`
	Responses []pageResponse `json:"responses"`
}

type pageRun struct {
	Name      string `json:"name"`
	File      string `json:"file"`
	Relations bool   `json:"relations"` // every result records its relations
	// Other marks another system's run (Run.Other), Decided one that
	// decides each atom without a P(true) (Run.Decided).
	Other   bool `json:"other,omitempty"`
	Decided bool `json:"decided,omitempty"`
}

type pageResponse struct {
	Line      int           `json:"line"`
	Input     string        `json:"input"`
	Topic     string        `json:"topic,omitempty"`
	Sentences []string      `json:"s"`
	Atoms     []pageAtom    `json:"a"`
	Contexts  []pageContext `json:"c"`
	Texts     []string      `json:"tx"` // context excerpts, each distinct one once
	Results   []*pageResult `json:"r"`  // per run; null where the run lacks the record
}

// pageAtom is [id, text, gold label, sentence index].
type pageAtom [4]any

// pageContext is [id, title, index into Texts, link].
type pageContext [4]any

type pageResult struct {
	// Abstained: the response declined to answer; nothing else is set.
	Abstained bool    `json:"ab,omitempty"`
	Pr        prob    `json:"pr"`
	F1K       prob    `json:"f1"`
	K         float64 `json:"k"`
	E         *prob   `json:"e"` // avg_entropy; null in a run that decides without a P(true)
	GoldPr    *prob   `json:"gold,omitempty"`
	// P is P(true) of each node: the atoms, then the contexts, in record
	// order; null for a node merged into another (see Alias), and for one
	// the run has no P(true) of.
	P []*prob `json:"p"`
	// D is the decision on each atom ("S" or "NS") of a run that decides
	// without a P(true); absent otherwise.
	D []string `json:"d,omitempty"`
	// Own are the values another system's file records under its own
	// names: [name, value or null].
	Own [][2]any `json:"own,omitempty"`
	// Err is the error bar of each node's P(true) (null where exact), for
	// a network not solved exactly; absent otherwise.
	Err   []*prob     `json:"err,omitempty"`
	Alias map[int]int `json:"al,omitempty"` // node → the node it was merged into
	Rel   [][4]any    `json:"rel"`          // [source node, target node, type, probability]
	Why   [][]int     `json:"w"`            // per relation, what it rests on (why.relation)
	Known bool        `json:"known"`        // the relations are recorded
	Graph *pageGraph  `json:"g"`
}

type pageGraph struct {
	W     prob      `json:"w"`
	H     prob      `json:"h"`
	Index []int     `json:"i"` // the nodes drawn: those with a relation
	Nodes [][3]prob `json:"n"` // per node drawn: x, y, width
	Edges []string  `json:"e"` // per relation
}

// Relation type codes of pageResult.Rel.
var relationCode = map[string]int{instance.TypeEntailment: 0, instance.TypeContradiction: 1, instance.TypeEquivalence: 2}

// prob is a number written with at most 6 decimals, the precision of
// P(true) in the report and of the uniform rule, so 0.5 stays 0.5.
type prob float64

func (p prob) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, round6(float64(p)), 'f', -1, 64), nil
}

func ptr(p float64) *prob { q := prob(p); return &q }

// nodeHeight and nodeWidth size a node for its id label.
const nodeHeight = 18

func nodeWidth(id string) float64 { return float64(7*utf8.RuneCountInString(id) + 16) }

// excerpt cuts s to n runes at a word boundary where one is near (a space
// among the 40 runes before the cut). It walks the string rather than
// converting it, as it runs on every context of every response.
func excerpt(s string, n int) string {
	end := 0 // the byte offset of rune n
	for k := 0; k < n; k++ {
		if end >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	if end >= len(s) {
		return s
	}
	cut := end
	for i, k := end, 0; k < 40 && i > 0; k++ {
		if s[i] == ' ' {
			cut = i
			break
		}
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[:cut] + " …"
}

// page builds the page's data; the layout of each network is added by
// WriteHTML.
func (rep *Report) page(names []string) (*pageData, []Graph, []*pageGraph) {
	d := &pageData{Title: rep.Options.Title, PageSize: rep.Options.PageSize}
	for i, run := range rep.Runs {
		d.Runs = append(d.Runs, pageRun{Name: names[i], File: run.Path, Relations: run.Relations, Other: run.Other != nil, Decided: run.Decided})
	}
	var graphs []Graph
	var slots []*pageGraph
	for _, line := range rep.Lines {
		// The record as the first run that has it records it, and that
		// knows the response (fr factscore's output does not).
		var base *Result
		for _, run := range rep.Runs {
			if r, ok := run.Result(line); ok && (base == nil || base.NoOutput && !r.NoOutput) {
				base = r
			}
		}
		pr := pageResponse{Line: line, Input: base.Input, Topic: base.Topic, Atoms: []pageAtom{}, Contexts: []pageContext{}, Texts: []string{}}
		pr.Sentences = sentences(base.Output)
		if pr.Sentences == nil {
			pr.Sentences = []string{} // an empty response (its atoms given): [], not null
		}
		align := alignAtoms(pr.Sentences, base.Atoms)
		node := make(map[string]int, len(base.Atoms)+len(base.Contexts))
		for i, a := range base.Atoms {
			pr.Atoms = append(pr.Atoms, pageAtom{a.ID, a.Text, a.Label, align[i]})
			node[a.ID] = i
		}
		// The contexts of every run: runs of the same record agree on the
		// contexts they share (New checks), but one may have more.
		contexts := slices.Clone(base.Contexts)
		seen := make(map[string]bool, len(contexts))
		for _, c := range contexts {
			seen[c.ID] = true
		}
		for _, run := range rep.Runs {
			if res, ok := run.Result(line); ok {
				for _, c := range res.Contexts {
					if !seen[c.ID] {
						seen[c.ID] = true
						contexts = append(contexts, c)
					}
				}
			}
		}
		textIndex := make(map[string]int)
		addText := func(t string) int {
			k, ok := textIndex[t]
			if !ok {
				k = len(pr.Texts)
				textIndex[t] = k
				pr.Texts = append(pr.Texts, t)
			}
			return k
		}
		w := newWhy(rep.Options.ExcerptRunes, addText)
		for _, a := range base.Atoms {
			w.texts[a.ID] = a.Text
		}
		for i, c := range contexts {
			t := shownText(c)
			k := addText(excerpt(t, rep.Options.ExcerptRunes))
			w.texts[c.ID], w.heads[c.ID] = t, k
			link := c.Link
			if !endpoint.WebLink(link) {
				link = "" // javascript:, data: and the like are not links to follow
			}
			pr.Contexts = append(pr.Contexts, pageContext{c.ID, c.Title, k, link})
			node[c.ID] = len(base.Atoms) + i
		}
		for _, run := range rep.Runs {
			res, ok := run.Result(line)
			if !ok {
				pr.Results = append(pr.Results, nil)
				continue
			}
			if res.Abstained {
				pr.Results = append(pr.Results, &pageResult{Abstained: true, P: []*prob{}, Rel: [][4]any{}, Why: [][]int{}})
				continue
			}
			x := &pageResult{Pr: prob(res.Scores.Precision), F1K: prob(res.Scores.F1K), K: res.Scores.K,
				Known: res.RelationsKnown, Rel: [][4]any{}, Why: [][]int{}}
			if !run.Decided {
				x.E = ptr(res.Scores.AvgEntropy)
			}
			for _, v := range res.Recorded {
				var val any // null
				if v.Value != nil {
					val = prob(*v.Value)
				}
				x.Own = append(x.Own, [2]any{v.Name, val})
			}
			if g := res.Scores.Gold; g != nil {
				x.GoldPr = ptr(g.FactualityScore)
			}
			n := len(base.Atoms) + len(contexts)
			x.P = make([]*prob, n)
			if run.Decided {
				x.D = make([]string, len(base.Atoms))
				for i, a := range base.Atoms {
					if s, ok := res.Supported[a.ID]; ok {
						x.D[i] = instance.NotSupported
						if s {
							x.D[i] = instance.Supported
						}
					}
				}
			}
			ids := make([]string, n)
			for id, i := range node {
				ids[i] = id
				if p, ok := res.PTrue[id]; ok {
					x.P[i] = ptr(p)
					if e, ok := res.Errors[id]; ok {
						if x.Err == nil {
							x.Err = make([]*prob, n)
						}
						x.Err[i] = ptr(e)
					}
				} else if kept, ok := res.Alias[id]; ok {
					if x.Alias == nil {
						x.Alias = make(map[int]int)
					}
					x.Alias[i] = node[kept]
				}
			}
			// The network: the variables with a relation, in node order,
			// and the relations. The page lists the other variables apart:
			// in a network they would only take room.
			related := make([]bool, n)
			for _, rel := range res.Relations {
				related[node[rel.Source]], related[node[rel.Target]] = true, true
			}
			var g Graph
			x.Graph = &pageGraph{Index: []int{}}
			gi := make(map[int]int)
			for i := range n {
				if x.P[i] == nil || !related[i] {
					continue
				}
				gi[i] = len(g.Nodes)
				g.Nodes = append(g.Nodes, Node{Context: i >= len(base.Atoms), W: nodeWidth(ids[i]), H: nodeHeight})
				x.Graph.Index = append(x.Graph.Index, i)
			}
			for _, rel := range res.Relations {
				s, t := node[rel.Source], node[rel.Target]
				x.Rel = append(x.Rel, [4]any{s, t, relationCode[rel.Type], prob(rel.Probability)})
				x.Why = append(x.Why, w.relation(rel.Source, rel.Target))
				g.Edges = append(g.Edges, Edge{From: gi[s], To: gi[t]})
			}
			graphs = append(graphs, g)
			slots = append(slots, x.Graph)
			pr.Results = append(pr.Results, x)
		}
		d.Responses = append(d.Responses, pr)
	}
	return d, graphs, slots
}

// place fills a page graph from its layout.
func (pg *pageGraph) place(g Graph, p Placement) {
	pg.W, pg.H = prob(round1(p.W)), prob(round1(p.H))
	pg.Nodes = make([][3]prob, len(g.Nodes))
	for i, n := range g.Nodes {
		pg.Nodes[i] = [3]prob{prob(round1(p.Nodes[i].X)), prob(round1(p.Nodes[i].Y)), prob(n.W)}
	}
	pg.Edges = p.Edges
	if pg.Edges == nil {
		pg.Edges = []string{}
	}
}

func round1(v float64) float64 {
	s, _ := strconv.ParseFloat(num(v), 64)
	return s
}
