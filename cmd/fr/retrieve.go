package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/batch"
	"github.com/factreasoner/factreasoner-go/progress"
)

func retrieveCommand() *cli.Command {
	return &cli.Command{
		Name:      "retrieve",
		Usage:     "find contexts for the atoms of each record",
		ArgsUsage: "INPUT",
		Description: "For every atom that lists no contexts, retrieves up to --k passages from the knowledge\n" +
			"sources and adds them as contexts c_<atom>_<rank> (rank 0 = best). Writes FactReasoner jsonl,\n" +
			"one record per input record in input order, to stdout or -o OUT.\n\n" +
			"Sources (--source, several at once as db,wikipedia,serper, merged in that order without\n" +
			"duplicates): db, a knowledge base --db KB.db in FActScore's format (the record's topic is\n" +
			"looked up by exact title, its passages ranked by BM25 for topic + \" \" + atom, as FActScore);\n" +
			"wikipedia, the live Wikipedia API (a search for the atom, then the top pages' plain text, cut\n" +
			"to 4000 characters, as FactReasoner); serper, Google results through the Serper API\n" +
			"($SERPER_API_KEY; title, link and snippet, as FactReasoner's web retrieval); searxng, a\n" +
			"SearXNG instance's JSON API (--searxng-url). --fetch-pages adds the main text of each web\n" +
			"result's page, cut to 4000 characters around the passage that best matches the atom." +
			examples(
				"# Passages of a local knowledge base (fr kb build makes one).",
				"fr retrieve --db kb.db -o contexts.jsonl atoms.jsonl",
				"# Three Wikipedia passages per atom.",
				"fr retrieve --source wikipedia --k 3 -o contexts.jsonl atoms.jsonl",
			),
		Flags:  append(runsOf("retrieve").flags(), outputFlags()...),
		Action: runRetrieve,
	}
}

func runRetrieve(c *cli.Context) (err error) {
	input, err := inputArg(c)
	if err != nil {
		return err
	}
	o, err := runsOf("retrieve").options(c)
	if err != nil {
		return err
	}
	o.NLI.Backend = "given" // no NLI: nothing to open
	if err := notAnInput("-o", c.String("output"), input); err != nil {
		return err // before the retriever's caches are opened
	}
	p, err := assemble.Open(c.Context, o)
	if err != nil {
		return err
	}
	atOnce := false
	defer func() { closeRun(c, p, atOnce) }()
	if p.Retriever == nil {
		return usagef("retrieve: no knowledge source (give --db KB.db, or --source wikipedia, serper or searxng)")
	}
	out, closeOut, err := openOutput(c, input)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeOut(err)) }()
	prog := progress.New(c.App.ErrWriter, "fr retrieve")
	st, err := batch.RetrieveFile(c.Context, p.Pipeline, input, out, batch.FileOptions{Progress: showProgress(prog)})
	err = withFormatHint(err, input, batch.FormatInput, batch.FormatScored)
	msg := fmt.Sprintf("%d records, contexts retrieved for %d atoms", st.Records, st.Atoms)
	if st.NoAtoms > 0 {
		msg += fmt.Sprintf("; %d records without atoms passed through (atomize them first)", st.NoAtoms)
	}
	if st.MissingTopics > 0 {
		msg += fmt.Sprintf("; %d records' topics not found, left without contexts", st.MissingTopics)
	}
	atOnce = endedAtOnce(err, st.Atoms)
	finishRun(prog, msg, nil, atOnce)
	return err
}
