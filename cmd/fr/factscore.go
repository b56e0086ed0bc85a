package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/pipeline"
	"github.com/factreasoner/factreasoner-go/progress"
)

func factscoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "factscore",
		Usage:     "classic FActScore: the share of supported atoms, with a length penalty",
		ArgsUsage: "INPUT",
		Description: "INPUT is FactReasoner jsonl, or FActScore's labeled format (records with \"annotations\";\n" +
			"detected automatically, its atoms are the human atomic facts labeled S or NS).\n\n" +
			"A record without atoms is a raw response: one that declines to answer (--abstention)\n" +
			"does not respond; the others are split into atoms by --atomizer (and --revise), as in\n" +
			"fr score; contexts the record has are evidence for each of its atoms.\n\n" +
			"Each atom is checked against its contexts (the record's, or for a record without any,\n" +
			"--k passages retrieved from --db or --source wikipedia) by the verifier:\n" +
			"  llm  FActScore's prompt (\"... True or False?\") and its answer-parsing rule\n" +
			"  nli  supported iff some context entails the atom with probability above --threshold\n" +
			"An atom with no context at all is not supported. A response's FActScore is\n" +
			"supported / facts, times exp(1 − γ/facts) when facts < γ (--gamma, default 10; 0 disables).\n" +
			"--gold computes the same from human labels instead: S / (S + NS + IR) for the labeled\n" +
			"format, S / (S + NS) for FactReasoner jsonl, with γ = 0 unless --gamma is given (the\n" +
			"paper's human scores carry no length penalty).\n\n" +
			"A response responds unless it abstained (the labeled format's null annotations;\n" +
			"FactReasoner records always respond), as the paper's \"% responding\". A responding\n" +
			"response with no facts (every sentence irrelevant, or a record without atoms) is\n" +
			"reported with 0 facts and left out of the mean scores.\n\n" +
			"Writes one JSON line per record (its decisions and score) and, as the last line of\n" +
			"stdout, the summary: factscore, init_score (no length penalty), respond_ratio,\n" +
			"facts_per_response, responses, responded, scored (responding with facts: the means'\n" +
			"count), gamma, verifier." +
			examples(
				"# FActScore of the human labels of FActScore's labeled file (no model needed).",
				"fr factscore --gold -o human.jsonl ChatGPT.jsonl",
				"# Verify each atom with an LLM against passages of a knowledge base, as FActScore does.",
				"fr factscore --db enwiki.db --llm-model MODEL -o fs.jsonl responses.jsonl",
			),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "verifier", Value: "llm", Category: catFActScore, Usage: "how each atom is checked: " + tableNames(pipeline.Verifiers(), func(v pipeline.Verifier) string { return v.Name })},
			&cli.IntFlag{Name: "gamma", Value: factscore.DefaultGamma, DefaultText: "10, or 0 with --gold", Category: catFActScore, Usage: "length-penalty γ (0: none)"},
			&cli.BoolFlag{Name: "gold", Category: catFActScore, Usage: "score the human labels instead of verifying"},
			&cli.BoolFlag{Name: "skip-invalid", Category: catIO, Usage: "report invalid records and failed records on stderr, count them and go on"},
			&cli.IntFlag{Name: "k", Value: 5, Category: catRetrieval, Usage: "passages retrieved per atom (FActScore: 5)"},
			&cli.Float64Flag{Name: "threshold", Value: factscore.DefaultThreshold, Category: catFActScore, Usage: "nli verifier: entailment probability a context must exceed"},
			&cli.StringFlag{Name: "abstention", Value: string(factscore.AbstentionGeneric), Category: catFActScore, Usage: "rule for raw responses that decline to answer: generic, perplexity_ai or none"},
		}, append(outputFlags(), append(nliFlags(), retrieverFlags()...)...)...),
		Action: runFActScore,
	}
}

func runFActScore(c *cli.Context) (err error) {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	gamma := c.Int("gamma")
	if gamma < 0 {
		return usagef("--gamma %d: want 0 or more", gamma)
	}
	gold := c.Bool("gold")
	if gold && !c.IsSet("gamma") {
		gamma = 0 // human scores carry no length penalty
	}
	o := nliOptions(c)
	if !gold {
		if o.Retrieval, err = retrievalOptions(c, "k"); err != nil {
			return err
		}
		o.Caches.Retrieval = c.String("retrieval-cache")
		o.FActScore = pipeline.FActScoreOptions{Verifier: c.String("verifier"), Threshold: c.Float64("threshold"),
			Abstention: factscore.Abstention(c.String("abstention"))}
	} else {
		o = pipeline.Options{NLI: pipeline.NLIOptions{Backend: "given"}} // nothing to open
	}
	p, err := pipeline.Open(c.Context, o)
	if err != nil {
		return err
	}
	atOnce := false
	defer func() { closeRun(c, p, atOnce) }()
	out, closeOut, err := openOutput(c, input)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut()) }()
	w := jsonl.NewWriter(out)
	prog := progress.New(c.App.ErrWriter, "fr factscore")
	s, st, err := p.FActScoreFile(c.Context, input, gamma, gold, fileOptions(c, prog), func(rec pipeline.FActScoreRecord) error {
		return w.Write(rec)
	})
	err = withFormatHint(err, input, formatFactReasoner, formatScored, formatLabeled)
	atOnce = endedAtOnce(err, st.Scored)
	finishRun(prog, fmt.Sprintf("%d records, %d responded, %d of them with facts (in the mean); %s", s.Responses, s.Responded, s.Scored, skippedSummary(st)), err, atOnce)
	if err != nil {
		return err
	}
	name := "gold"
	if !gold {
		name = p.VerifierName()
	}
	// The summary covers the records written; failed ones make the run
	// fail after it.
	if err := w.Write(pipeline.FActScoreSummary{Summary: s, Verifier: name}); err != nil {
		return err
	}
	writeFActScoreHeadline(c.App.ErrWriter, "fr factscore", s, name)
	return failedError(st)
}
