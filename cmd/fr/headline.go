package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/factreasoner/factreasoner-go/batch"
)

// writeFActScoreHeadline writes the result of an fr factscore run on
// stderr: FActScore (and without its length penalty) and the share of
// responses that respond, as FActScore's paper reports them; for fr
// veriscore VeriScore and its K, and the mean precision; for fr
// factverify the mean precision.
func writeFActScoreHeadline(w io.Writer, prefix string, sum batch.FActScoreSummary) {
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
