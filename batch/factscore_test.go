package batch

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

func TestFActScoreSummaryJSON(t *testing.T) {
	s := FActScoreSummary{Summary: factscore.Summary{FActScore: 0.5, InitScore: 0.75, RespondRatio: 1, FactsPerResponse: 4, Responses: 2, Responded: 2, Scored: 2, Gamma: 10}, Verifier: "nli lexical"}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"factscore":0.5,"init_score":0.75,"respond_ratio":1,"facts_per_response":4,"responses":2,"responded":2,"scored":2,"gamma":10,"verifier":"nli lexical"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// labeledResponding is FActScore's labeled format: a response with 2 S,
// 1 NS and 1 IR facts; one that abstained (null annotations); and one about
// the wrong person, every sentence irrelevant (no facts), which responded.
const labeledResponding = `{"input": "Bio of A", "output": "A was a true painter.", "topic": "A", "annotations": [` +
	`{"text": "s1", "is-relevant": true, "human-atomic-facts": [{"text": "A is true one.", "label": "S"}, {"text": "A is true two.", "label": "S"}, ` +
	`{"text": "A is false.", "label": "NS"}, {"text": "A is nice.", "label": "IR"}]}]}
{"input": "Bio of B", "output": "I don't know.", "topic": "B", "annotations": null}
{"input": "Bio of C", "output": "D was a singer.", "topic": "C", "annotations": [{"text": "D was a singer.", "is-relevant": false, "human-atomic-facts": null}]}
`

// wordVerifier supports a claim iff its text holds "true".
type wordVerifier struct{}

func (wordVerifier) Name() string { return "word" }
func (wordVerifier) Verify(_ context.Context, _ string, claims []factscore.Claim) ([]factscore.Decision, error) {
	ds := make([]factscore.Decision, len(claims))
	for i, c := range claims {
		ds[i] = factscore.Decision{ID: c.ID, Atom: c.Text, Supported: strings.Contains(c.Text, "true")}
	}
	return ds, nil
}

// oneRetriever returns one passage for any atom.
type oneRetriever struct{}

func (oneRetriever) Identify() string { return "one" }

func (oneRetriever) Retrieve(context.Context, string, string, int) ([]retrieve.Passage, error) {
	return []retrieve.Passage{{Title: "T", Text: "text"}}, nil
}

// TestFActScoreResponding: a response responds unless it abstained, as the
// paper's "% responding"; the wrong-person answer responds with 0 facts
// and stays out of the mean. By hand, γ = 0: gold 2/4 (IR counts), the
// verifier 2/3 (S and NS facts are the atoms); respond ratio 2/3; facts
// per response (4 + 0)/2 gold, (3 + 0)/2 verified.
func TestFActScoreResponding(t *testing.T) {
	path := filepath.Join(t.TempDir(), "labeled.jsonl")
	if err := os.WriteFile(path, []byte(labeledResponding), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &assess.Pipeline{Verifier: wordVerifier{}, Retriever: oneRetriever{}, TopK: 1}
	for _, tc := range []struct {
		gold         bool
		score, facts float64
	}{{true, 0.5, 2}, {false, 2.0 / 3, 1.5}} {
		var recs []factscore.Record
		s, _, err := FActScoreFile(context.Background(), p, path, 0, tc.gold, FileOptions{}, func(r factscore.Record) error {
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if s.Responses != 3 || s.Responded != 2 || s.Scored != 1 || s.RespondRatio != 2.0/3 ||
			math.Abs(s.FActScore-tc.score) > 1e-15 || s.FactsPerResponse != tc.facts {
			t.Errorf("gold %v: summary %+v, want 2 of 3 responding, 1 scored, factscore %v, facts per response %v", tc.gold, s, tc.score, tc.facts)
		}
		if len(recs) != 3 || recs[1].Responded || !recs[2].Responded || recs[2].Facts != 0 || recs[2].Scored() {
			t.Errorf("gold %v: records %+v", tc.gold, recs)
		}
	}
}
