package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/graph"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/pipeline"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show why each atom came out true or false",
		ArgsUsage: "INPUT",
		Description: "For each atom: its id, P(true), predicted and gold label, its text, and the\n" +
			"relations that move it (context id, title or first words, type, probability),\n" +
			"strongest first.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "version", Value: "2", Usage: "FactReasoner graph version: 1, 2 or 3"},
			&cli.StringFlag{Name: "atom", Usage: "show only this atom"},
			&cli.IntFlag{Name: "line", Usage: "inspect only the record that starts on this input line"},
			&cli.StringFlag{Name: "dot", Usage: "write the network as Graphviz DOT to this file (the last record inspected)"},
		}, pipelineFlags()...),
		Action: runInspect,
	}
}

func runInspect(c *cli.Context) error {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	version, err := graph.ParseVersion(c.String("version"))
	if err != nil {
		return fmt.Errorf("--version: %w", err)
	}
	cfg, closeCfg, err := newConfig(c, input)
	if err != nil {
		return err
	}
	defer closeCfg()
	atom, line := c.String("atom"), c.Int("line")
	var last *pipeline.Assessment
	found := false
	w := bufio.NewWriter(c.App.Writer)
	defer w.Flush()
	_, err = forEachInstance(c, input, false, func(in *instance.Instance) error {
		if line > 0 && in.Line != line {
			return nil
		}
		a, err := cfg.Assess(c.Context, in, version)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", input, in.Line, err)
		}
		last = a
		n, err := writeInspection(w, a, atom)
		if n > 0 {
			found = true
		}
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case line > 0 && last == nil:
		return fmt.Errorf("%s: no record starts on line %d", input, line)
	case atom != "" && !found:
		return fmt.Errorf("%s: no atom %q", input, atom)
	}
	if path := c.String("dot"); path != "" && last != nil {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		p := make([]float64, len(last.Network.Variables))
		for i := range p {
			p[i] = last.Solution.Marginals[i][1]
		}
		if err := last.Network.WriteDOT(f, p); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

// writeInspection writes the explanation of one assessment and returns the
// number of atoms shown.
func writeInspection(w io.Writer, a *pipeline.Assessment, only string) (int, error) {
	in := a.Instance
	r := a.Solution.Report
	fmt.Fprintf(w, "== line %d · %s · %s · nli %s · solver %s/%s\n", in.Line, oneLine(in.Input, 80), a.Version, a.NLI, r.Solver, r.Method)
	s := a.Scores
	fmt.Fprintf(w, "   precision %.4f (%d of %d atoms true, %d false, %d undecided), F1@%g %.4f, E %.6f\n",
		s.Precision, s.NumTrueAtoms, s.NumAtoms, s.NumFalseAtoms, s.NumUniformAtoms, s.K, s.F1K, s.AvgEntropy)
	// Relations by target, strongest first.
	byTarget := make(map[string][]graph.Relation)
	for _, rel := range a.Relations {
		byTarget[rel.Target] = append(byTarget[rel.Target], rel)
	}
	// The model's full answer for a pair, when the backend gives one (onnx,
	// lexical): how sure it was of the other labels too.
	dist := make(map[[2]string][]float64)
	for i, p := range a.Pairs {
		if i < len(a.Results) && len(a.Results[i].Distribution) == 3 {
			dist[[2]string{p.PremiseID, p.HypothesisID}] = a.Results[i].Distribution
		}
	}
	ctxText := make(map[string]instance.Context)
	for _, c := range a.Nodes.Contexts {
		ctxText[c.ID] = c
	}
	atoms := append([]instance.Atom(nil), a.Nodes.Atoms...)
	sort.Slice(atoms, func(i, j int) bool { return atoms[i].ID < atoms[j].ID })
	shown := 0
	for _, at := range atoms {
		if only != "" && at.ID != only && a.Nodes.Resolve(only) != at.ID {
			continue
		}
		shown++
		p, _ := a.PTrue(at.ID)
		pred := "NS"
		if p > 1-p {
			pred = "S"
		}
		gold := at.Label
		if gold == "" {
			gold = "-"
		}
		fmt.Fprintf(w, "\n%s  P(true) = %.6f  predicted %s  gold %s\n    %s\n", at.ID, p, pred, gold, at.Text)
		rels := byTarget[at.ID]
		sort.SliceStable(rels, func(i, j int) bool {
			if rels[i].Probability != rels[j].Probability {
				return rels[i].Probability > rels[j].Probability
			}
			return rels[i].Source < rels[j].Source
		})
		if len(rels) == 0 {
			fmt.Fprintf(w, "    no relation: nothing moves it from its prior\n")
		}
		for _, rel := range rels {
			c := ctxText[rel.Source]
			pc, _ := a.PTrue(rel.Source)
			name := c.Title
			if name == "" {
				name = oneLine(c.NLIText(), 60)
			}
			fmt.Fprintf(w, "    %-13s %.6f  from %s %q (P(true) = %.6f)", rel.Type, rel.Probability, rel.Source, name, pc)
			if d, ok := dist[[2]string{rel.Source, rel.Target}]; ok {
				fmt.Fprintf(w, "  [entailment %.4f, neutral %.4f, contradiction %.4f]", d[nli.Entailment], d[nli.Neutral], d[nli.Contradiction])
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	return shown, nil
}

// oneLine shortens text to its first n characters on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
