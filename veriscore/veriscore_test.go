package veriscore

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/factscore"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/testgen/answercorpus"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/prompts"
)

// TestSnippets: VeriScore's windows, by hand from its scanner code: up to
// three sentences before and one after; a paragraph's first sentence
// leads when it has more than five; paragraphs apart without a question,
// the whole response with one. The spaces are those of its f-strings,
// which strip the whole, not the empty parts inside.
func TestSnippets(t *testing.T) {
	resp := "S1 one. S2 two. S3 three. S4 four. S5 five. S6 six.\nP2 one. P2 two."
	got := Snippets("", resp)
	want := []Snippet{
		{"S1 one.  <SOS>S1 one.<EOS> S2 two.", "S1 one."}, // two spaces: Python's f-string around an empty context1
		{"S1 one. S1 one. <SOS>S2 two.<EOS> S3 three.", "S2 two."},
		{"S1 one. S1 one. S2 two. <SOS>S3 three.<EOS> S4 four.", "S3 three."},
		{"S1 one. S1 one. S2 two. S3 three. <SOS>S4 four.<EOS> S5 five.", "S4 four."},
		{"S1 one. S2 two. S3 three. S4 four. <SOS>S5 five.<EOS> S6 six.", "S5 five."},
		{"S1 one. S3 three. S4 four. S5 five. <SOS>S6 six.<EOS>", "S6 six."},
		{"<SOS>P2 one.<EOS> P2 two.", "P2 one."},
		{"P2 one. <SOS>P2 two.<EOS>", "P2 two."},
	}
	if !slices.Equal(got, want) {
		t.Errorf("without a question:\n%q\nwant\n%q", got, want)
	}
	got = Snippets("Who?", "A one. B two.\nC three.")
	want = []Snippet{
		{"Question: Who?\nResponse:  <SOS>A one.<EOS> B two.", "A one."}, // the same
		{"Question: Who?\nResponse: A one. <SOS>B two.<EOS> C three.", "B two."},
		{"Question: Who?\nResponse: A one. B two. <SOS>C three.<EOS>", "C three."},
	}
	if !slices.Equal(got, want) {
		t.Errorf("with a question:\n%q\nwant\n%q", got, want)
	}
}

// TestReadClaimsCorpus runs testdata/llm-answers/veriscore-claims.
func TestReadClaimsCorpus(t *testing.T) { answercorpus.Check(t, "veriscore-claims", ReadClaims) }

// TestReadVerdictCorpus runs testdata/llm-answers/veriscore.
func TestReadVerdictCorpus(t *testing.T) {
	answercorpus.Check(t, "veriscore", verdictList(ReadVerdict))
}

// verdictList reads a verdict as a list of one, for answercorpus.Check.
func verdictList(read func(string) (string, error)) func(string) ([]string, error) {
	return func(answer string) ([]string, error) {
		v, err := read(answer)
		return []string{v}, err
	}
}

// TestScore: VeriScore's K (the upper middle of an even count, as its
// code indexes the sorted list) and F1@K, by hand.
func TestScore(t *testing.T) {
	for _, tc := range []struct {
		claims []int
		k      int
	}{{nil, 0}, {[]int{7}, 7}, {[]int{4, 10}, 10}, {[]int{9, 3, 5}, 5}, {[]int{1, 8, 2, 6}, 6}} {
		if got := K(tc.claims); got != tc.k {
			t.Errorf("K(%v) = %d, want %d", tc.claims, got, tc.k)
		}
	}
	// K = 6 over claims {4, 10, 6, 0}: responses with 3 of 4 (P 0.75, R
	// 0.5, F1 0.6), 8 of 10 (P 0.8, R 1, F1 8/9), 6 of 6 (F1 1) and none.
	k, vs := Score([]int{3, 8, 6, 0}, []int{4, 10, 6, 0})
	want := (0.6 + 8.0/9 + 1 + 0) / 4
	if k != 6 || math.Abs(vs-want) > 1e-12 {
		t.Errorf("Score: K %d, VeriScore %v; want 6, %v", k, vs, want)
	}
}

// TestClaimExtractor: each sentence goes out with VeriScore's system
// message and its prompt (the question-and-answer one for a response to
// a question), filled with the sentence's snippet; the claims come back
// deduplicated in order; an empty answer is asked again.
func TestClaimExtractor(t *testing.T) {
	sys, _ := prompts.Load("veriscore/claims-system")
	var mu = make(chan struct{}, 1)
	seen := map[string]int{}
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		if r.Messages[0].Role != "system" || r.Messages[0].Content != sys.Text() {
			return llmtest.Reply{Status: 400, Body: `{"error": {"message": "no VeriScore system message"}}`}
		}
		q := r.Messages[1].Content
		mu <- struct{}{}
		seen[q]++
		first := seen[q] == 1
		<-mu
		switch {
		case strings.Contains(q, "Sentence to be focused on: She won two Nobel Prizes."):
			if first && !llmtest.IsReask(r) {
				return llmtest.Reply{Content: ""} // unreadable: asked again
			}
			return llmtest.Reply{Content: "- Marie Curie won two Nobel Prizes.\n- Marie Curie was a physicist."}
		case strings.Contains(q, "Sentence to be focused on: Marie Curie was a physicist."):
			return llmtest.Reply{Content: "- Marie Curie was a physicist."}
		case strings.Contains(q, "Sentence to be focused on: I hope this helps."):
			return llmtest.Reply{Content: "No verifiable claim."}
		}
		return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected"}}`}
	})
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m", Reasks: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	e, err := NewClaimExtractor(client)
	if err != nil {
		t.Fatal(err)
	}
	const resp = "Marie Curie was a physicist. She won two Nobel Prizes. I hope this helps."
	got, err := e.AtomizeAnswer(context.Background(), "Who was Marie Curie?", resp)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Marie Curie was a physicist.", "Marie Curie won two Nobel Prizes."}; !slices.Equal(got, want) {
		t.Errorf("claims %q, want %q", got, want)
	}
	qa, _ := prompts.Load("veriscore/claims-qa")
	sn := Snippets("Who was Marie Curie?", resp)[1]
	wantText, _ := qa.Fill(map[string]string{"snippet": sn.Snippet, "sentence": sn.Sentence})
	found := false
	for _, r := range srv.Requests() {
		found = found || r.Messages[1].Content == wantText
	}
	if !found {
		t.Error("the question-and-answer prompt was not sent as VeriScore fills it")
	}
	if st := e.Stats(); st.Sentences != 3 || st.NoClaim != 1 || st.Claims != 2 || st.Reasks != 1 {
		t.Errorf("stats %+v", st)
	}
	// Without a question: the other prompt.
	if _, err := e.Atomize(context.Background(), "Marie Curie was a physicist."); err != nil {
		t.Fatal(err)
	}
	plain, _ := prompts.Load("veriscore/claims")
	wantText, _ = plain.Fill(map[string]string{"snippet": "<SOS>Marie Curie was a physicist.<EOS>", "sentence": "Marie Curie was a physicist."})
	if reqs := srv.Requests(); reqs[len(reqs)-1].Messages[1].Content != wantText {
		t.Error("the plain prompt was not sent as VeriScore fills it")
	}
}

// TestVerifier: each claim is asked with FactReasoner's VeriScore prompt
// filled with its knowledge (the contexts, snippet as Summary), a claim
// without evidence too; the verdicts are read, S counting as supported.
func TestVerifier(t *testing.T) {
	srv := llmtest.New(t, func(n int, r llmtest.Request) llmtest.Reply {
		q := r.Last()
		switch {
		case strings.Contains(q, "STATEMENT:\nMarie Curie was born in Paris."):
			return llmtest.Reply{Content: "The knowledge says Warsaw.\n4. Final Answer: [Contradicted]"}
		case strings.Contains(q, "STATEMENT:\nMarie Curie was a physicist."):
			return llmtest.Reply{Content: "Final Answer: [Supported]"}
		}
		return llmtest.Reply{Content: "Nothing to go on. [Unverifiable]"}
	})
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	v, err := NewVerifier(client)
	if err != nil {
		t.Fatal(err)
	}
	ev := []instance.Context{{ID: "c0", Title: "Marie Curie", Text: "Marie Curie was a Polish physicist born in Warsaw.", Snippet: "Polish physicist"}}
	claims := []factscore.Claim{
		{ID: "a0", Text: "Marie Curie was a physicist.", Evidence: ev},
		{ID: "a1", Text: "Marie Curie was born in Paris.", Evidence: ev},
		{ID: "a2", Text: "Marie Curie liked tea."},
	}
	ds, err := v.Verify(context.Background(), "Marie Curie", claims)
	if err != nil {
		t.Fatal(err)
	}
	var verdicts []string
	for _, d := range ds {
		verdicts = append(verdicts, d.Verdict)
	}
	if !slices.Equal(verdicts, []string{"S", "C", "U"}) || !ds[0].Supported || ds[1].Supported || !ds[2].NoEvidence {
		t.Errorf("decisions %+v", ds)
	}
	tmpl, _ := prompts.Load("factreasoner/veriscore-verify")
	want, _ := tmpl.Fill(map[string]string{"atom_text": "Marie Curie was a physicist.",
		"knowledge_text": "Title: Marie Curie\nSummary: Polish physicist\nText: Marie Curie was a Polish physicist born in Warsaw.\n\n"})
	found := false
	for _, r := range srv.Requests() {
		found = found || len(r.Messages) == 1 && r.Last() == want
	}
	if !found || v.Name() != "veriscore:m" {
		t.Errorf("the prompt was not sent as FactReasoner fills it (name %s)", v.Name())
	}
}
