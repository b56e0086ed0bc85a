package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/instance"
)

// FActScoreFile runs FActScore on every record of a file, FactReasoner
// jsonl or FActScore's labeled format (told apart by DetectFormat), and
// calls emit with each record's result in input order. With gold the
// human labels decide instead of the verifier: S / (S + NS + IR) for the
// labeled format, S / (S + NS) for FactReasoner records (every atom must
// be labeled); the paper's human scores carry no length penalty, so a
// caller reproducing them passes gamma 0. In the labeled format a response
// responds unless it abstained (null annotations), as the paper's "%
// responding"; one without S or NS facts is reported with 0 facts and left
// out of the means. Invalid and failed records are handled as o says (see
// FileOptions); they are left out of the summary, which it returns with
// the counts.
func FActScoreFile(ctx context.Context, p *assess.Pipeline, input string, gamma int, gold bool, o FileOptions, emit func(factscore.Record) error) (factscore.Summary, ScoreStats, error) {
	agg := factscore.NewAggregate(gamma)
	var st ScoreStats
	tr := newTracker(o.Progress)
	ctx = tr.withPages(ctx)
	add := func(rec factscore.Record) error {
		agg.Add(rec.Result)
		st.Scored++
		tr.update(func(p *Progress) { p.Records, p.Line = st.Scored, rec.Line })
		return emit(rec)
	}
	skip := o.skip(&st.Invalid)
	format, err := instance.DetectFormat(input)
	if err != nil {
		return agg.Summary(), st, err
	}
	if format == instance.FActScoreLabeled {
		err = instance.ReadLabeled(input, func(line int, r *instance.LabeledRecord) error {
			if gold {
				return add(goldLabeled(line, r, gamma))
			}
			if r.Abstained() {
				return add(factscore.Record{Line: line, Topic: r.Topic, Input: r.Input, Decisions: []factscore.Decision{}})
			}
			in := r.Instance()
			in.Line = line
			if len(in.Atoms) == 0 { // every fact irrelevant: responded, no facts
				return add(factscore.Record{Line: line, Topic: r.Topic, Input: r.Input, Result: factscore.NewResult(0, 0, gamma), Decisions: []factscore.Decision{}})
			}
			rec, err := p.FActScoreOf(ctx, in, gamma)
			if err != nil {
				return o.fail(input, line, err, &st, skip)
			}
			return add(rec)
		})
		return agg.Summary(), st, err
	}
	err = instance.Scan(input, skip, func(in *instance.Instance) error {
		var rec factscore.Record
		var err error
		if gold {
			rec, err = goldInstance(in, gamma)
		} else {
			rec, err = p.FActScoreOf(ctx, in, gamma)
		}
		if err != nil {
			return o.fail(input, in.Line, err, &st, skip)
		}
		return add(rec)
	})
	return agg.Summary(), st, err
}

// goldLabeled is the human FActScore of a labeled record.
func goldLabeled(line int, r *instance.LabeledRecord, gamma int) factscore.Record {
	rec := factscore.Record{Line: line, Topic: r.Topic, Input: r.Input, Decisions: []factscore.Decision{}}
	if r.Abstained() {
		return rec
	}
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
	return rec
}

// goldInstance is the gold FActScore of a FactReasoner record.
func goldInstance(in *instance.Instance, gamma int) (factscore.Record, error) {
	s, n, err := factscore.GoldInstance(in)
	if err != nil {
		return factscore.Record{}, err
	}
	rec := factscore.Record{Line: in.Line, Topic: in.Topic, Input: in.Input, Result: factscore.NewResult(s, n, gamma), Decisions: []factscore.Decision{}}
	for _, a := range in.Atoms {
		rec.Decisions = append(rec.Decisions, factscore.Decision{ID: a.ID, Atom: a.Text, Supported: a.Label == instance.Supported, Label: a.Label})
	}
	return rec, nil
}

// FActScoreSummary is the summary of a FActScore run with the verifier
// that made its decisions ("gold" for human labels): the last line of fr
// factscore's output, and of fr veriscore's and fr factverify's, which
// name their assessor and, for VeriScore, give its score and K.
type FActScoreSummary struct {
	factscore.Summary
	Verifier string
	// Assessor is "veriscore" or "factverify"; "" for FActScore.
	Assessor string
	// VeriScore is the mean F1@K over the responding responses, K
	// VeriScore's (veriscore.Score); nil for the other assessors, and
	// without a responding response.
	VeriScore *float64
	K         *int
}

// MarshalJSON writes the summary's fields, then "verifier" and, when set,
// "assessor", "veriscore" and "k".
func (s FActScoreSummary) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(s.Summary)
	if err != nil {
		return nil, err
	}
	// Append to the summary's object, keeping its field order.
	b = b[:len(b)-1]
	add := func(name string, v any) {
		enc, _ := json.Marshal(v)
		b = append(append(append(b, ',', '"'), name...), append([]byte(`":`), enc...)...)
	}
	add("verifier", s.Verifier)
	if s.Assessor != "" {
		add("assessor", s.Assessor)
		if s.VeriScore != nil {
			add("veriscore", *s.VeriScore)
			add("k", *s.K)
		}
	}
	return append(b, '}'), nil
}

// WriteHeadline writes the result of the run in a line after prefix (fr
// factscore writes it on stderr): FActScore (and without its length
// penalty) and the share of responses that respond, as FActScore's paper
// reports them; for VeriScore's assessor VeriScore and its K, and the
// mean precision; for FactVerify's the mean precision. A run without
// responses writes nothing.
func (sum FActScoreSummary) WriteHeadline(w io.Writer, prefix string) {
	s := sum.Summary
	if s.Responses == 0 {
		return
	}
	var b strings.Builder
	switch {
	case sum.VeriScore != nil:
		fmt.Fprintf(&b, "VeriScore %.4f (F1@%d, K the median claim count)", *sum.VeriScore, *sum.K)
		if s.Scored > 0 {
			fmt.Fprintf(&b, ", mean precision %.4f", s.InitScore)
		}
	case sum.Assessor != "" && s.Scored == 0:
		b.WriteString("mean precision n/a (no responding response has atoms)")
	case sum.Assessor != "":
		fmt.Fprintf(&b, "mean precision %.4f", s.InitScore)
	case s.Scored == 0:
		b.WriteString("FActScore n/a (no responding response has facts)")
	default:
		fmt.Fprintf(&b, "FActScore %.4f", s.FActScore)
		if s.Gamma > 0 {
			fmt.Fprintf(&b, " (%.4f without the length penalty, γ = %d)", s.InitScore, s.Gamma)
		}
	}
	fmt.Fprintf(&b, ", %.1f%% responding (%d of %d)", 100*s.RespondRatio, s.Responded, s.Responses)
	if s.Responded > 0 {
		fmt.Fprintf(&b, ", %.1f facts per response", s.FactsPerResponse)
	}
	fmt.Fprintf(w, "%s: %s; verifier %s\n", prefix, b.String(), sum.Verifier)
}
