package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/factreasoner/factreasoner-go/factscore"
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
