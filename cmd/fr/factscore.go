package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

func factscoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "factscore",
		Usage:     "classic FActScore: the share of supported atoms, with a length penalty",
		ArgsUsage: "INPUT",
		Description: "INPUT is FactReasoner jsonl, or FActScore's labeled format (records with \"annotations\";\n" +
			"detected automatically, its atoms are the human atomic facts labeled S or NS).\n\n" +
			"Each atom is checked against its contexts (the record's, or for a record without any,\n" +
			"--k passages retrieved from --db or --source wikipedia) by the verifier:\n" +
			"  llm  FActScore's prompt (\"... True or False?\") and its answer-parsing rule\n" +
			"  nli  supported iff some context entails the atom with probability above --threshold\n" +
			"An atom with no context at all is not supported. A response's FActScore is\n" +
			"supported / facts, times exp(1 − γ/facts) when facts < γ (--gamma; 0 disables).\n" +
			"--gold computes the same from human labels instead: S / (S + NS + IR) for the labeled\n" +
			"format, S / (S + NS) for FactReasoner jsonl; abstained responses do not respond.\n\n" +
			"Writes one JSON line per record (its decisions and score) and, as the last line of\n" +
			"stdout, the summary: factscore, init_score (no length penalty), respond_ratio,\n" +
			"facts_per_response, responses, responded, gamma, verifier.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "verifier", Value: "llm", Usage: "llm (FActScore's prompt to an OpenAI-compatible endpoint, see --llm-*) or nli (see --nli)"},
			&cli.IntFlag{Name: "gamma", Value: factscore.DefaultGamma, Usage: "length-penalty γ (0: none)"},
			&cli.BoolFlag{Name: "gold", Usage: "score the human labels instead of verifying"},
			&cli.IntFlag{Name: "k", Value: 5, Usage: "passages retrieved per atom (FActScore: 5)"},
			&cli.Float64Flag{Name: "threshold", Value: factscore.DefaultThreshold, Usage: "nli verifier: entailment probability a context must exceed"},
		}, append(nliFlags(), retrieverFlags()...)...),
		Action: runFActScore,
	}
}

// factscoreRecord is one output line.
type factscoreRecord struct {
	Line  int    `json:"line"`
	Topic string `json:"topic,omitempty"`
	Input string `json:"input,omitempty"`
	factscore.Result
	Decisions []factscore.Decision `json:"decisions"`
}

// factscoreSummary is the last output line.
type factscoreSummary struct {
	factscore.Summary
	Verifier string
}

func (s factscoreSummary) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(s.Summary)
	if err != nil {
		return nil, err
	}
	v, _ := json.Marshal(s.Verifier)
	// Append "verifier" to the summary's object, keeping its field order.
	return append(append(append(b[:len(b)-1], `,"verifier":`...), v...), '}'), nil
}

func runFActScore(c *cli.Context) error {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	gamma := c.Int("gamma")
	if gamma < 0 {
		return fmt.Errorf("--gamma %d: want 0 or more", gamma)
	}
	labeled, err := isLabeledFormat(input)
	if err != nil {
		return err
	}
	agg := factscore.NewAggregate(gamma)
	w := jsonl.NewWriter(c.App.Writer)
	prog := newProgress(c.App.ErrWriter, "fr factscore")
	n := 0
	emit := func(rec factscoreRecord) error {
		agg.Add(rec.Result)
		if rec.Decisions == nil {
			rec.Decisions = []factscore.Decision{}
		}
		n++
		prog.update(n, rec.Line)
		return w.Write(rec)
	}
	name := "gold"
	if c.Bool("gold") {
		err = goldFActScore(input, labeled, gamma, emit)
	} else {
		verifier, vname, release, verr := newVerifier(c)
		if verr != nil {
			return verr
		}
		defer release()
		r, rerr := newRetriever(c)
		if rerr != nil {
			return rerr
		}
		if r != nil {
			defer closeRetriever(r)
		}
		name = vname
		err = verifyFActScore(c, input, labeled, gamma, verifier, r, emit)
	}
	s := agg.Summary()
	prog.finish(fmt.Sprintf("%d records, %d responded", s.Responses, s.Responded))
	if err != nil {
		return err
	}
	return w.Write(factscoreSummary{Summary: s, Verifier: name})
}

// isLabeledFormat reports whether a file is in FActScore's labeled format:
// its first record has an "annotations" field.
func isLabeledFormat(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var rec map[string]json.RawMessage
			if json.Unmarshal(t, &rec) != nil {
				return false, nil // not jsonl: a pretty-printed FactReasoner file
			}
			_, ok := rec["annotations"]
			return ok, nil
		}
		if err == io.EOF {
			return false, nil // empty: the FactReasoner reader reports it
		}
		if err != nil {
			return false, err
		}
	}
}

// forEachLabeled calls fn for each record of a file in FActScore's labeled
// format.
func forEachLabeled(path string, fn func(line int, r *instance.LabeledRecord) error) error {
	return jsonl.ReadLines(path, func(line int, raw []byte) error {
		rec, err := instance.ParseLabeled(raw)
		if err != nil {
			var fe *instance.FieldError
			if errors.As(err, &fe) {
				return fmt.Errorf("%s:%d: %s: %s", path, line, fe.Field, fe.Msg)
			}
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		return fn(line, rec)
	})
}

func goldFActScore(input string, labeled bool, gamma int, emit func(factscoreRecord) error) error {
	if labeled {
		return forEachLabeled(input, func(line int, r *instance.LabeledRecord) error {
			rec := factscoreRecord{Line: line, Topic: r.Topic, Input: r.Input}
			for _, a := range r.Annotations {
				for _, f := range a.HumanAtomicFacts {
					rec.Decisions = append(rec.Decisions, factscore.Decision{
						ID: fmt.Sprintf("f%d", len(rec.Decisions)), Atom: f.Text,
						Supported: f.Label == instance.Supported, Label: f.Label,
					})
				}
			}
			s, n := factscore.GoldLabeled(r)
			rec.Result = factscore.NewResult(s, n, gamma)
			return emit(rec)
		})
	}
	f, err := os.Open(input)
	if err != nil {
		return err
	}
	defer f.Close()
	rd := instance.NewReader(f, input)
	for {
		in, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		s, n, err := factscore.GoldInstance(in)
		if err != nil {
			var fe *instance.FieldError
			if errors.As(err, &fe) {
				return fmt.Errorf("%s:%d: %s: %s", input, in.Line, fe.Field, fe.Msg)
			}
			return err
		}
		rec := factscoreRecord{Line: in.Line, Topic: in.Topic, Input: in.Input, Result: factscore.NewResult(s, n, gamma)}
		for _, a := range in.Atoms {
			rec.Decisions = append(rec.Decisions, factscore.Decision{ID: a.ID, Atom: a.Text, Supported: a.Label == instance.Supported, Label: a.Label})
		}
		if err := emit(rec); err != nil {
			return err
		}
	}
}

func verifyFActScore(c *cli.Context, input string, labeled bool, gamma int,
	verifier func(*instance.Instance) (factscore.Verifier, error), r retrieve.Retriever, emit func(factscoreRecord) error) error {
	k := c.Int("k")
	if k < 1 {
		return fmt.Errorf("--k %d: want at least 1", k)
	}
	score := func(in *instance.Instance) error {
		rec := factscoreRecord{Line: in.Line, Topic: in.Topic, Input: in.Input}
		if len(in.Atoms) == 0 {
			return emit(rec) // did not respond
		}
		// As fr score: a record with no contexts at all is retrieved for;
		// one with contexts is taken as it is (an atom without any is not
		// supported).
		if len(in.Contexts) == 0 {
			if r == nil {
				return fmt.Errorf("%s:%d: the record has no contexts and no knowledge source is configured (give --db KB.db or --source wikipedia)", input, in.Line)
			}
			if _, _, err := fillContexts(c, r, in, k); err != nil {
				return fmt.Errorf("%s:%d: %w", input, in.Line, err)
			}
		}
		v, err := verifier(in)
		if err != nil {
			return err
		}
		res, ds, err := factscore.Score(c.Context, v, in, gamma)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", input, in.Line, err)
		}
		rec.Result, rec.Decisions = res, ds
		return emit(rec)
	}
	if labeled {
		return forEachLabeled(input, func(line int, lr *instance.LabeledRecord) error {
			if lr.Abstained() {
				return emit(factscoreRecord{Line: line, Topic: lr.Topic, Input: lr.Input})
			}
			in := lr.Instance()
			in.Line = line
			return score(in)
		})
	}
	_, err := forEachInstance(c, input, false, score)
	return err
}

// newVerifier returns a function giving the verifier for a record (the nli
// verifier's "given" backend depends on the record's relations), and the
// verifier's name for the summary.
func newVerifier(c *cli.Context) (verifier func(*instance.Instance) (factscore.Verifier, error), name string, release func() error, err error) {
	switch v := c.String("verifier"); v {
	case "llm":
		client, err := llmClient(c)
		if err != nil {
			return nil, "", nil, errors.Join(err, closeLLM(c))
		}
		lv := &factscore.LLMVerifier{Generator: client, Model: client.Model()}
		return func(*instance.Instance) (factscore.Verifier, error) { return lv, nil }, lv.Name(), func() error { return finishLLM(c) }, nil
	case "nli":
		th := c.Float64("threshold")
		if th < 0 || th >= 1 {
			return nil, "", nil, fmt.Errorf("--threshold %v: want a probability in [0, 1)", th)
		}
		cl, mode, release, err := newClassifier(c)
		if err != nil {
			return nil, "", nil, err
		}
		choice := pipeline.Config{Classifier: cl, Given: mode}
		return func(in *instance.Instance) (factscore.Verifier, error) {
			cl, err := choice.ClassifierFor(in)
			if err != nil {
				return nil, err
			}
			return &factscore.NLIVerifier{Classifier: cl, Threshold: th}, nil
		}, "nli:" + c.String("nli"), release, nil
	default:
		return nil, "", nil, fmt.Errorf("--verifier: %q is not llm or nli", v)
	}
}
