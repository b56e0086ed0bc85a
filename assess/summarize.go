package assess

import (
	"context"
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/graph"

	"github.com/factreasoner/factreasoner-go/instance"
	summarizer "github.com/factreasoner/factreasoner-go/summarize"
)

// The summarizer stage (docs/llm.md, package summarize) comes after retrieval
// and before the pairs: with Pipeline.Summarizer, an LLM summarizes each
// context with respect to its atom (the question, for query contexts),
// the contexts that say nothing about their atoms leave the record, and a
// kept context's prior is scaled by its summary's probability; with
// Pipeline.UseSummaries, the record's own synthetic_summary and probability
// are taken as they are, without a model. Either way NLI reads the
// summaries as premises (summarize.Premises), while the output line
// carries the contexts with their text, summary and prior, so that it can
// be scored again with UseSummaries and no model.

// Options.Summaries values.
const (
	SummariesOff   = ""      // NLI reads the contexts' text
	SummariesLLM   = "llm"   // the summarizer, over the LLM endpoint
	SummariesGiven = "given" // the records' own summaries
)

// SummaryReport says what the summarizer stage did to one record.
type SummaryReport struct {
	// Summarizer names where the summaries NLI read came from:
	// "llm:MODEL" (the summarizer's model) or SummariesGiven.
	Summarizer string
	// Irrelevant counts the contexts the summarizer dropped, having found
	// they say nothing about their atoms; 0 with given summaries.
	Irrelevant int
}

// summarized is a record after the summarizer stage.
type summarized struct {
	record   *instance.Instance // as written: texts, summaries and priors
	premises *instance.Instance // as NLI reads it: summaries as texts
	report   *SummaryReport     // nil when summaries are off
}

// attach makes the assessments of the record carry it as written.
func (s summarized) attach(as []*Assessment) {
	for _, a := range as {
		a.Instance, a.Summaries = s.record, s.report
	}
}

// summarize runs the summarizer stage on a prepared record.
func (p *Pipeline) summarize(ctx context.Context, in *instance.Instance) (summarized, error) {
	switch {
	case p.Summarizer != nil:
		if p.usesGiven(in) {
			return summarized{}, &instance.FieldError{Field: "relations",
				Msg: "the record states its own relations, which were computed on its contexts' texts, not on summaries: summarize records without relations"}
		}
		out, rep, err := p.Summarizer.Record(ctx, in, p.Graph.ContextPrior)
		if err != nil {
			return summarized{}, err
		}
		if n := len(rep.Unsummarized); n > 0 {
			p.warn(fmt.Sprintf("line %d: %d contexts (%s) were retrieved for no atom, and the record has no question to summarize them against: NLI reads their text", in.Line, n, idList(rep.Unsummarized)))
		}
		premises, _ := summarizer.Premises(out)
		return summarized{record: out, premises: premises,
			report: &SummaryReport{Summarizer: SummariesLLM + ":" + p.Summarizer.Name(), Irrelevant: len(rep.Irrelevant)}}, nil
	case p.UseSummaries:
		premises, missing := summarizer.Premises(in)
		if missing > 0 {
			p.warn(fmt.Sprintf("line %d: %d of %d contexts carry no synthetic_summary: NLI reads their text", in.Line, missing, len(in.Contexts)))
		}
		return summarized{record: in, premises: premises, report: &SummaryReport{Summarizer: SummariesGiven}}, nil
	}
	return summarized{record: in, premises: in}, nil
}

// NodesAhead are the nodes of the record in as version v will score it,
// when they are known before it is scored: for a record that brings its
// atoms and contexts (neither atomized nor retrieved for), and that the
// summarizer is not to read. Its counts and its contexts' own priors are
// then known without scoring it (package batch's resume checks them).
func (p *Pipeline) NodesAhead(in *instance.Instance, v graph.Version) (graph.Nodes, bool) {
	if p.Summarizer != nil || len(in.Atoms) == 0 || len(in.Contexts) == 0 {
		return graph.Nodes{}, false
	}
	if p.UseSummaries {
		in, _ = summarizer.Premises(in)
	}
	in, _ = graph.NearDuplicates(in, p.NearDuplicates)
	in, _ = in.WithoutEmptyContexts()
	return graph.SelectNodes(in, v), true
}

// summarizerName is what an output line's summarizer field says for this
// pipeline's records.
func (p *Pipeline) summarizerName() string {
	switch {
	case p.Summarizer != nil:
		return SummariesLLM + ":" + p.Summarizer.Name()
	case p.UseSummaries:
		return SummariesGiven
	}
	return ""
}

func (p *Pipeline) warn(msg string) {
	if p.Warn != nil {
		p.Warn(msg)
	}
}

// idList is ids for a message: the first few, then how many more.
func idList(ids []string) string {
	if len(ids) <= 5 {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:5], ", "), len(ids)-5)
}
