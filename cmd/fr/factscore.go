package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/progress"
	"github.com/factreasoner/factreasoner-go/veriscore"
)

func factscoreCommand() *cli.Command {
	return assessorCommand(assessorSpec{
		name:  "factscore",
		usage: "classic FActScore: the share of supported atoms, with a length penalty",
		description: "INPUT is FactReasoner jsonl, or FActScore's labeled format (records with \"annotations\";\n" +
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
		gamma: factscore.DefaultGamma, gold: true,
	})
}

// assessorSpec is what sets fr factscore, fr veriscore and fr factverify
// apart: one pipeline (batch.FActScoreFile) with other defaults (the
// verifier's and the atomizer's: runsOf) and another summary.
type assessorSpec struct {
	name, usage, description string
	gamma                    int    // the default of --gamma
	gold                     bool   // offers --gold
	assessor                 string // the summary's assessor; "" for FActScore
}

func assessorCommand(a assessorSpec) *cli.Command {
	flags := []cli.Flag{
		&cli.IntFlag{Name: "gamma", Value: a.gamma, Category: catFActScore, Usage: "length-penalty γ (0: none)"},
		&cli.BoolFlag{Name: "skip-invalid", Category: catIO, Usage: "report invalid records and failed records on stderr, count them and go on"},
	}
	if a.gold {
		flags[0] = &cli.IntFlag{Name: "gamma", Value: a.gamma, DefaultText: "10, or 0 with --gold", Category: catFActScore, Usage: "length-penalty γ (0: none)"}
		flags = append(flags, &cli.BoolFlag{Name: "gold", Category: catFActScore, Usage: "score the human labels instead of verifying"})
	}
	return &cli.Command{
		Name:        a.name,
		Usage:       a.usage,
		ArgsUsage:   "INPUT",
		Description: a.description,
		Flags:       append(append(flags, outputFlags()...), runsOf(a.name).flags()...),
		Action:      func(c *cli.Context) error { return runAssessor(c, a) },
	}
}

func runAssessor(c *cli.Context, a assessorSpec) (err error) {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	gamma := c.Int("gamma")
	if gamma < 0 {
		return usagef("--gamma %d: want 0 or more", gamma)
	}
	gold := a.gold && c.Bool("gold")
	if gold && !c.IsSet("gamma") {
		gamma = 0 // human scores carry no length penalty
	}
	r := runsOf(a.name)
	o := assemble.Options{NLI: assemble.NLIOptions{Backend: "given"}} // --gold: nothing to open
	if !gold {
		if o, err = r.options(c); err != nil {
			return err
		}
	} else if err := r.noParts(c, "does not apply to --gold, which scores the human labels and runs no part", nil); err != nil {
		return err
	}
	p, err := assemble.Open(c.Context, o)
	if err != nil {
		return err
	}
	atOnce := false
	defer func() { closeRun(c, p, atOnce) }()
	out, closeOut, err := openOutput(c, input)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut(err)) }()
	w := jsonl.NewWriter(out)
	prog := progress.New(c.App.ErrWriter, "fr "+a.name)
	var supported, claims []int // of the responding responses, for VeriScore
	s, st, err := batch.FActScoreFile(c.Context, p.Pipeline, input, gamma, gold, fileOptions(c, prog), func(rec factscore.Record) error {
		if rec.Responded {
			supported, claims = append(supported, rec.Supported), append(claims, rec.Facts)
		}
		return w.Write(rec)
	})
	err = withFormatHint(err, input, batch.FormatInput, batch.FormatScored, batch.FormatLabeled)
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
	sum := batch.FActScoreSummary{Summary: s, Verifier: name, Assessor: a.assessor}
	if a.assessor == assemble.BaselineVeriScore && len(claims) > 0 {
		k, vs := veriscore.Score(supported, claims)
		sum.VeriScore, sum.K = &vs, &k
	}
	if err := w.Write(sum); err != nil {
		return err
	}
	sum.WriteHeadline(c.App.ErrWriter, "fr "+a.name)
	return failedError(st)
}

func veriscoreCommand() *cli.Command {
	return assessorCommand(assessorSpec{
		name:  "veriscore",
		usage: "VeriScore, as FactReasoner's baseline: verifiable claims checked by an LLM, F1@K over the responses",
		description: "INPUT is FactReasoner jsonl. A record without atoms is a raw response: one that declines to answer\n" +
			"(--abstention) does not respond; the others are split into claims by VeriScore's extraction\n" +
			"(--atomizer veriscore, the default: each sentence in its context, verifiable claims only;\n" +
			"its question-and-answer prompt when the record has an input). A record with atoms keeps them.\n\n" +
			"Each claim is checked by the LLM with FactReasoner's VeriScore prompt (--verifier veriscore)\n" +
			"against its contexts (the record's, or --k passages retrieved), and read as [Supported],\n" +
			"[Contradicted] or [Unverifiable]; a claim is supported when the verdict is Supported.\n\n" +
			"Writes one JSON line per record, as fr factscore does (score: the share of supported claims,\n" +
			"no length penalty), its decisions with their verdict (S, C or U), and last the summary with\n" +
			"assessor \"veriscore\", k (the median claim count, VeriScore's) and veriscore: the mean over the\n" +
			"responding responses of F1@K, a response without verifiable claims counting 0." +
			examples(
				"# Raw responses against web search, as FactReasoner's VeriScore baseline.",
				"fr veriscore --llm-model MODEL --source serper -o vs.jsonl responses.jsonl",
				"# Records that carry their atoms and contexts: only the verification asks the model.",
				"fr veriscore --llm-model MODEL -o vs.jsonl atoms-and-contexts.jsonl",
			),
		assessor: assemble.BaselineVeriScore,
	})
}

func factverifyCommand() *cli.Command {
	return assessorCommand(assessorSpec{
		name:  "factverify",
		usage: "FactVerify, FactReasoner's SAFE baseline: each atom judged by an LLM against search results",
		description: "INPUT is FactReasoner jsonl. A record without atoms is a raw response: one that declines to answer\n" +
			"(--abstention) does not respond; the others are split into atoms by --atomizer (llm, the default:\n" +
			"FactReasoner's atomizer, then its reviser; --prompts factreasoner sends its prompts, as its\n" +
			"baseline does). A record with atoms keeps them.\n\n" +
			"Each atom is checked by the LLM with FactReasoner's FactVerify prompt (--verifier factverify:\n" +
			"VeriScore's three-label demonstrations) against its contexts as search results (title, snippet,\n" +
			"link; the record's, or --k retrieved), and read as ###Supported###, ###Contradicted### or\n" +
			"###Inconclusive###; an atom is supported when the verdict is Supported.\n\n" +
			"Writes one JSON line per record, as fr factscore does (score: the share of supported atoms, no\n" +
			"length penalty, FactReasoner's factuality_score), its decisions with their verdict (S, C or U),\n" +
			"and last the summary with assessor \"factverify\"." +
			examples(
				"# Raw responses with Google results through Serper, as FactReasoner's baseline.",
				"fr factverify --llm-model MODEL --source serper -o fv.jsonl responses.jsonl",
			),
		assessor: assemble.BaselineFactVerify,
	})
}
