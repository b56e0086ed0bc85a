package summarize

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

func newClient(t *testing.T, srv *llmtest.Server, cache string, reasks int) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "summarizer-1", Concurrency: 3, CachePath: cache, Reasks: reasks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func newLLM(t *testing.T, c *llm.Client, o Options) *LLM {
	t.Helper()
	s, err := NewLLM(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// askedPair is the atom (or question) and context a request asks about:
// its last user message that is not a reminder.
func askedPair(r llmtest.Request) (atom, context string) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == "user" && !strings.HasPrefix(m.Content, llmtest.ReminderPrefix) {
			atom, context, _ = strings.Cut(strings.TrimPrefix(m.Content, "ATOM: "), "\n\nCONTEXT: ")
			return atom, context
		}
	}
	return "", ""
}

// answer is what the fake model writes for a pair, with every token's log
// probability.
type answer struct {
	summary string
	lp      float64
}

// fakeModel answers each (atom, context) pair as answers says, keyed by
// the atom's text and the start of the context, in the n-th answer shape
// (llmtest.SummaryAnswer); every token has the answer's log probability.
// It records the pairs it was asked.
type fakeModel struct {
	answers map[[2]string]answer
	mu      sync.Mutex
	asked   map[[2]string]int
}

func (m *fakeModel) answer(n int, r llmtest.Request) llmtest.Reply {
	atom, ctx := askedPair(r)
	m.mu.Lock()
	m.asked[[2]string{atom, ctx}]++
	m.mu.Unlock()
	for k, a := range m.answers {
		if k[0] == atom && strings.HasPrefix(ctx, k[1]) {
			content := llmtest.SummaryAnswer(n, a.summary)
			return llmtest.Reply{Content: content, Tokens: llmtest.Tokenize(content, a.lp)}
		}
	}
	return llmtest.Reply{Status: 400, Body: `{"error": {"message": "unexpected pair"}}`}
}

const (
	physicist = "Marie Curie was a physicist."
	paris     = "Marie Curie was born in Paris."
	question  = "Tell me a bio of Marie Curie."
)

// curie is a record whose contexts exercise every rule of LLM.Record.
func curie() *instance.Instance {
	half := 0.5
	return &instance.Instance{
		Input:  question,
		Output: "Marie Curie was a physicist. She was born in Paris.",
		Atoms: []instance.Atom{
			{ID: "a0", Text: physicist, Contexts: []string{"c_a0_0", "c_a0_1", "shared", "c_a0_2"}},
			{ID: "a1", Text: paris, Contexts: []string{"c_a1_0", "c_a1_1", "shared"}},
		},
		Contexts: []instance.Context{
			{ID: "c_a0_0", Title: "Marie Curie", Text: "Marie Curie was a Polish physicist and chemist who won two Nobel Prizes."},
			{ID: "c_a0_1", Text: "The Eiffel Tower is a wrought-iron tower in Paris."},
			{ID: "c_a1_0", Snippet: "Born: Warsaw", Text: "Marie Curie was born in Warsaw in 1867.", Probability: &half},
			{ID: "c_a1_1", Text: "Maria Sklodowska, later Marie Curie, was born in Warsaw."},
			{ID: "shared", Text: "Marie Curie worked in Paris as a physicist."},
			{ID: "c_q_0", Text: "Marie Curie (1867-1934) was a Polish-French physicist."},
			{ID: "c_a1_2", Text: "Paris is the capital of France."},                                          // no atom lists it: its id names a1
			{ID: "loose", Text: "The Curie family lived in Paris."},                                          // retrieved for no atom: the question
			{ID: "c_a0_2", Text: "Marie Curie was a Polish physicist and chemist who won two Nobel Prizes."}, // c_a0_0's text: asked once
		},
		Relations: []instance.Relation{
			{Source: "c_a0_1", Target: "a0", Type: "entailment", Probability: 0.8},
			{Source: "c_a0_0", Target: "a0", Type: "entailment", Probability: 0.9},
		},
	}
}

func curieModel() *fakeModel {
	return &fakeModel{asked: map[[2]string]int{}, answers: map[[2]string]answer{
		{physicist, "Marie Curie was a Polish physicist"}:   {"Marie Curie was a Polish physicist and chemist.", -0.05},
		{physicist, "The Eiffel Tower"}:                     {"None", -0.01},
		{paris, "Snippet/Summary of Text:\n\nBorn: Warsaw"}: {"Marie Curie was born in Warsaw, not in Paris.", -0.2},
		{paris, "Maria Sklodowska"}:                         {"Marie Curie was born in Warsaw, not in Paris.", -0.2},
		{physicist, "Marie Curie worked in Paris"}:          {"Marie Curie was a physicist who worked in Paris.", -0.3},
		{paris, "Marie Curie worked in Paris"}:              {"The context does not mention where Marie Curie was born.", -0.4},
		{question, "Marie Curie (1867-1934)"}:               {"Marie Curie (1867-1934) was a Polish-French physicist.", -0.1},
		{paris, "Paris is the capital"}:                     {"The context does not provide any information about the atom.", -0.5},
		{question, "The Curie family"}:                      {"None", -0.02},
	}}
}

// TestRecord reproduces FactReasoner's summarizer semantics on a record,
// against the fake endpoint: contexts whose summaries say nothing about
// their atom (None, a statement that the context says nothing) are dropped
// and leave the atoms' lists; a context two atoms list stays for the one
// it speaks of; each kept context's prior is p_summary times its prior,
// 0.9 · p_summary by default, p_summary = exp(mean log probability of the
// summary's tokens), here exp of the log probability the fake model gave
// each token; the query context and the context no atom lists are
// summarized against the question; the summary is written into
// synthetic_summary; relations of dropped contexts go with them.
func TestRecord(t *testing.T) {
	m := curieModel()
	srv := llmtest.New(t, m.answer)
	s := newLLM(t, newClient(t, srv, "", 0), Options{})
	in := curie()
	before := *curie()
	out, rep, err := s.Record(context.Background(), in, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*in, before) {
		t.Error("the input record was modified")
	}
	want := []struct {
		id, summary string
		prior       float64
	}{
		{"c_a0_0", "Marie Curie was a Polish physicist and chemist.", 0.9 * math.Exp(-0.05)},
		{"c_a1_0", "Marie Curie was born in Warsaw, not in Paris.", 0.5 * math.Exp(-0.2)}, // its own prior, 0.5
		{"c_a1_1", "Marie Curie was born in Warsaw, not in Paris.", 0.9 * math.Exp(-0.2)},
		{"shared", "Marie Curie was a physicist who worked in Paris.", 0.9 * math.Exp(-0.3)},
		{"c_q_0", "Marie Curie (1867-1934) was a Polish-French physicist.", 0.9 * math.Exp(-0.1)},
		{"c_a0_2", "Marie Curie was a Polish physicist and chemist.", 0.9 * math.Exp(-0.05)},
	}
	if len(out.Contexts) != len(want) {
		t.Fatalf("%d contexts kept, want %d: %+v", len(out.Contexts), len(want), out.Contexts)
	}
	for i, w := range want {
		c := out.Contexts[i]
		if c.ID != w.id || c.SyntheticSummary != w.summary || c.Probability == nil || math.Abs(*c.Probability-w.prior) > 1e-12 {
			p := math.NaN()
			if c.Probability != nil {
				p = *c.Probability
			}
			t.Errorf("context %d: %s %q prior %v, want %s %q prior %v", i, c.ID, c.SyntheticSummary, p, w.id, w.summary, w.prior)
		}
	}
	if got := out.Contexts[1]; got.Text != before.Contexts[2].Text || got.Snippet != "Born: Warsaw" {
		t.Errorf("the kept context's text changed: %+v", got)
	}
	if a0, a1 := out.Atoms[0].Contexts, out.Atoms[1].Contexts; !reflect.DeepEqual(a0, []string{"c_a0_0", "shared", "c_a0_2"}) || !reflect.DeepEqual(a1, []string{"c_a1_0", "c_a1_1"}) {
		t.Errorf("atoms' contexts: a0 %v, a1 %v", a0, a1)
	}
	if len(out.Relations) != 1 || out.Relations[0].Source != "c_a0_0" {
		t.Errorf("relations %+v: want the one of c_a0_0 only", out.Relations)
	}
	wantRep := Report{Asked: 9, Kept: 6, Irrelevant: []string{"c_a0_1", "c_a1_2", "loose"}}
	if !reflect.DeepEqual(rep, wantRep) {
		t.Errorf("report %+v, want %+v", rep, wantRep)
	}
	// One request per distinct pair: c_a0_2 repeats c_a0_0's text for the
	// same atom; shared is asked about for each of its atoms; the query
	// context and the loose one about the question; the context's NLI text
	// (snippet and text) is what is summarized.
	if srv.Count() != 9 || len(m.asked) != 9 {
		t.Errorf("%d requests for %d pairs, want 9", srv.Count(), len(m.asked))
	}
	for _, k := range [][2]string{
		{physicist, "Marie Curie worked in Paris as a physicist."},
		{paris, "Marie Curie worked in Paris as a physicist."},
		{question, "Marie Curie (1867-1934) was a Polish-French physicist."},
		{question, "The Curie family lived in Paris."},
		{paris, "Snippet/Summary of Text:\n\nBorn: Warsaw\n\nText:\n\nMarie Curie was born in Warsaw in 1867."},
	} {
		if m.asked[k] != 1 {
			t.Errorf("asked %d times about %q", m.asked[k], k)
		}
	}
	for _, r := range srv.Requests() {
		if !r.Logprobs || r.Temperature == nil || *r.Temperature != 0 || r.MaxTokens != maxTokens || r.Messages[0].Role != "system" {
			t.Errorf("request %+v", r.Raw)
		}
	}
	st := s.Stats()
	if st.Answers != 9 || st.Relevant != 5 || st.None != 2 || st.Irrelevant != 2 || st.FromLogprobs != 5 || st.Fixed != 0 || st.Reasks != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestSummaryProbability: p_summary is exp(mean log probability) of the
// tokens that spell the summary: not those of a label before it, nor an
// end-of-turn token the server lists after the answer. By hand, the
// summary's six tokens have log probabilities −0.1, −0.2, −0.3, −0.1, −0.3
// and −0.2: p = exp(−0.2). (IBM's rule, every token but the last, would
// count "Summary" and ":" at −2 each: exp(−0.65).)
func TestSummaryProbability(t *testing.T) {
	toks := []llmtest.Token{
		{Text: "Summary", Logprob: llmtest.LP(-2)}, {Text: ":", Logprob: llmtest.LP(-2)},
		{Text: " Marie", Logprob: llmtest.LP(-0.1)}, {Text: " Curie", Logprob: llmtest.LP(-0.2)}, {Text: " was", Logprob: llmtest.LP(-0.3)},
		{Text: " a", Logprob: llmtest.LP(-0.1)}, {Text: " physicist", Logprob: llmtest.LP(-0.3)}, {Text: ".", Logprob: llmtest.LP(-0.2)},
		{Text: "<|eot_id|>", Logprob: llmtest.LP(-5)},
	}
	srv := llmtest.New(t, func(int, llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "Summary: Marie Curie was a physicist.", Tokens: toks}
	})
	s := newLLM(t, newClient(t, srv, "", 0), Options{})
	got, err := s.Summarize(context.Background(), []Pair{{ContextID: "c0", RefID: "atom a0", Context: "Marie Curie was a physicist.", Reference: physicist}})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Relevant || got[0].Text != "Marie Curie was a physicist." || math.Abs(got[0].Probability-math.Exp(-0.2)) > 1e-12 {
		t.Errorf("%+v, want p = %v", got[0], math.Exp(-0.2))
	}
}

// TestFixedProbability: a relevant summary whose answer came without log
// probabilities gets the fixed probability (0.9 by default, or as set);
// with a negative setting it is an error naming the model. A None answer
// needs none.
func TestFixedProbability(t *testing.T) {
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		if _, ctx := askedPair(r); strings.Contains(ctx, "Eiffel") {
			return llmtest.Reply{Content: "None", NoLogprobs: true}
		}
		return llmtest.Reply{Content: "Marie Curie was a physicist.", NoLogprobs: true}
	})
	pairs := []Pair{{ContextID: "c0", RefID: "atom a0", Context: "Marie Curie was a physicist.", Reference: physicist},
		{ContextID: "c1", RefID: "atom a0", Context: "The Eiffel Tower is in Paris.", Reference: physicist}}
	for _, tc := range []struct {
		fixed, want float64
	}{{0, DefaultFixedProbability}, {0.7, 0.7}, {1, 1}} {
		s := newLLM(t, newClient(t, srv, "", 0), Options{Method: llm.Fixed, FixedProbability: tc.fixed})
		got, err := s.Summarize(context.Background(), pairs)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Probability != tc.want || got[1].Relevant || s.Stats().Fixed != 1 {
			t.Errorf("fixed %v: %+v, stats %+v", tc.fixed, got, s.Stats())
		}
	}
	s := newLLM(t, newClient(t, srv, "", 0), Options{Method: llm.Logprobs})
	if _, err := s.Summarize(context.Background(), pairs); err == nil || !strings.Contains(err.Error(), "summarizer-1") || !strings.Contains(err.Error(), "requires them") {
		t.Errorf("want an error naming the model, got %v", err)
	}
	for _, bad := range []float64{1.5, math.NaN()} {
		if _, err := NewLLM(newClient(t, srv, "", 0), Options{Method: llm.Fixed, FixedProbability: bad}); err == nil {
			t.Errorf("fixed probability %v accepted", bad)
		}
	}
}

// TestUnreadable: an answer that holds no summary is asked again with the
// reminder, and the answer to it is read; one that stays unreadable is an
// *llm.UnreadableAnswerError naming the stage, the context and the atom,
// and is not cached: a rerun from the cache sends only its requests. A
// summary cut off at the token limit is unreadable too.
func TestUnreadable(t *testing.T) {
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		atom, _ := askedPair(r)
		switch {
		case strings.Contains(atom, "Paris") && !llmtest.IsReask(r):
			return llmtest.Reply{Content: llmtest.UnreadableSummary}
		case strings.Contains(atom, "Paris"):
			return llmtest.Reply{Content: "Marie Curie was born in Warsaw."}
		case strings.Contains(atom, "Zed"):
			return llmtest.Reply{Content: "<think>\nThe context is about"}
		case strings.Contains(atom, "long"):
			return llmtest.Reply{Content: "Marie Curie was born in Warsaw, and", FinishReason: "length"}
		}
		return llmtest.Reply{Content: "Marie Curie was a physicist."}
	})
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	c := newClient(t, srv, cache, 2)
	s := newLLM(t, c, Options{})
	pairs := []Pair{{ContextID: "c0", RefID: "atom a0", Context: "Marie Curie was a physicist.", Reference: physicist},
		{ContextID: "c1", RefID: "atom a1", Context: "Marie Curie was born in Warsaw.", Reference: paris}}
	got, err := s.Summarize(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if got[1].Text != "Marie Curie was born in Warsaw." || s.Stats().Reasks != 1 || srv.Count() != 3 {
		t.Errorf("%+v; stats %+v; %d requests", got, s.Stats(), srv.Count())
	}
	// The requests run two at a time: the re-ask need not be the last.
	var reasks []llmtest.Request
	for _, r := range srv.Requests() {
		if llmtest.IsReask(r) {
			reasks = append(reasks, r)
		}
	}
	if len(reasks) != 1 {
		t.Fatalf("%d re-asks, want 1", len(reasks))
	}
	if m, n := reasks[0].Messages, len(reasks[0].Messages); m[n-2].Content != llmtest.UnreadableSummary || m[n-1].Content != reminder {
		t.Errorf("the re-ask does not go on with the refused answer and the reminder: %+v", m[n-2:])
	}

	for _, tc := range []struct{ atom, why string }{{"Zed was a poet.", "reasoning"}, {"A long atom.", "cut off"}} {
		before := srv.Count()
		_, err = s.Summarize(context.Background(), []Pair{{ContextID: "c_z_0", RefID: "atom a3", Context: "Zed wrote novels.", Reference: tc.atom}})
		var ue *llm.UnreadableAnswerError
		if !errors.As(err, &ue) || ue.Stage != "summarizer" || ue.Item != "context c_z_0 → atom a3" || ue.Attempts != 3 || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: want an unreadable answer about context c_z_0 → atom a3 after 3 attempts (%s), got %v", tc.atom, tc.why, err)
		}
		if srv.Count()-before != 3 {
			t.Errorf("%s: %d requests, want 3", tc.atom, srv.Count()-before)
		}
	}
	if st := s.Stats(); st.Unreadable != 2 || st.Reasks != 5 {
		t.Errorf("stats %+v", st)
	}

	// The rerun: what was read comes from the cache, the unreadable answer
	// is asked for again.
	before := srv.Count()
	if _, err := newLLM(t, c, Options{}).Summarize(context.Background(), pairs); err != nil || srv.Count() != before {
		t.Errorf("rerun of the readable pairs: %v, %d requests", err, srv.Count()-before)
	}
	if _, err := newLLM(t, c, Options{}).Summarize(context.Background(), []Pair{{ContextID: "c_z_0", RefID: "atom a3", Context: "Zed wrote novels.", Reference: "Zed was a poet."}}); err == nil || srv.Count() == before {
		t.Errorf("the unreadable answer was cached: %v", err)
	}
}

// TestRecordCached: a rerun of the same record is answered from the cache,
// without a request, and gives the same record.
func TestRecordCached(t *testing.T) {
	m := curieModel()
	srv := llmtest.New(t, m.answer)
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	first, _, err := newLLM(t, newClient(t, srv, cache, 0), Options{}).Record(context.Background(), curie(), 0.9)
	if err != nil {
		t.Fatal(err)
	}
	n := srv.Count()
	c := newClient(t, srv, cache, 0)
	again, _, err := newLLM(t, c, Options{}).Record(context.Background(), curie(), 0.9)
	if err != nil || srv.Count() != n || !reflect.DeepEqual(first, again) {
		t.Errorf("rerun: %v, %d requests, same %v", err, srv.Count()-n, reflect.DeepEqual(first, again))
	}
	if u := c.Usage(); u.CacheHits != 9 {
		t.Errorf("usage %v", u)
	}
}

// TestRecordRefuses: a record already summarized (its priors would be
// scaled twice) and a context probability that is not one are refused,
// naming the field, before anything is asked.
func TestRecordRefuses(t *testing.T) {
	srv := llmtest.New(t, curieModel().answer)
	s := newLLM(t, newClient(t, srv, "", 0), Options{})
	summarized := curie()
	summarized.Contexts[3].SyntheticSummary = "Marie Curie was born in Warsaw."
	bad := curie()
	two := 2.0
	bad.Contexts[1].Probability = &two
	for _, tc := range []struct {
		in    *instance.Instance
		field string
	}{{summarized, "contexts[3].synthetic_summary"}, {bad, "contexts[1].probability"}} {
		_, _, err := s.Record(context.Background(), tc.in, 0.9)
		var fe *instance.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("want a FieldError at %s, got %v", tc.field, err)
		}
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests sent", srv.Count())
	}
}

// TestPremises: NLI reads a summarized context's summary; its prior, id
// and title stay; a context without a summary keeps its text, and is
// counted.
func TestPremises(t *testing.T) {
	p := 0.81
	in := &instance.Instance{Contexts: []instance.Context{
		{ID: "c0", Title: "T", Text: "long text", Snippet: "snip", SyntheticSummary: "short", Probability: &p},
		{ID: "c1", Text: "plain"},
	}}
	out, missing := Premises(in)
	if missing != 1 || out.Contexts[0].NLIText() != "short" || out.Contexts[0].Title != "T" || *out.Contexts[0].Probability != 0.81 ||
		out.Contexts[1].NLIText() != "plain" || in.Contexts[0].Text != "long text" {
		t.Errorf("%+v, missing %d", out.Contexts, missing)
	}
}

// TestRelevant: IBM's rule, beside the corpus (irrelevant.txtar).
func TestRelevant(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"", false},
		{"None", false},
		{"Ruth Adair was born in 1948.", true},
		{"The context does not mention Zeus.", false},
		{"The context does not mention Zeus, but Artemis is the goddess of the hunt.", true},
		{"THE CONTEXT DOES NOT PROVIDE INFORMATION ABOUT THE ATOM, sadly.", false},
		{"It is generally known that bridges are made of steel.", false},
		{"The atom statement cannot be verified.", false},
	} {
		if got := Relevant(tc.s); got != tc.want {
			t.Errorf("Relevant(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestSampledProbability: against an endpoint without log probabilities,
// the default method keeps the temperature-0 answer's summary and takes
// p_summary from 5 samples: the corrected share of them that are relevant
// summaries (5 of 5 above 3 of 5); it says so once on its log; a rerun
// from the cache asks nothing; the sample method samples even where the
// answer has log probabilities. The name says the method.
func TestSampledProbability(t *testing.T) {
	// Sample k of a pair is the request with seed 1 + k (the server
	// ignores n); "Warsaw" is relevant in samples 0, 2 and 4 only.
	srv := llmtest.New(t, func(_ int, r llmtest.Request) llmtest.Reply {
		atom, _ := askedPair(r)
		text := "Marie Curie was a physicist."
		if strings.Contains(atom, "Paris") {
			text = "Marie Curie was born in Warsaw."
			if *r.Temperature > 0 && r.N == 0 && (*r.Seed-1)%2 == 1 {
				text = "None"
			}
		}
		return llmtest.Reply{Content: text, NoLogprobs: *r.Temperature == 0}
	})
	pairs := []Pair{{ContextID: "c0", RefID: "atom a0", Context: "Marie Curie was a physicist.", Reference: physicist},
		{ContextID: "c1", RefID: "atom a1", Context: "Marie Curie was born in Warsaw.", Reference: paris}}
	cache := filepath.Join(t.TempDir(), "llm.sqlite")
	for run := range 2 {
		var log strings.Builder
		s := newLLM(t, newClient(t, srv, cache, 0), Options{Log: &log})
		before := srv.Count()
		got, err := s.Summarize(context.Background(), pairs)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Text != "Marie Curie was a physicist." || got[0].Probability != 5.25/5.5 || got[1].Text != "Marie Curie was born in Warsaw." || got[1].Probability != 3.25/5.5 {
			t.Errorf("run %d: %+v", run, got)
		}
		if n := srv.Count() - before; run == 1 && n != 0 {
			t.Errorf("the rerun sent %d requests", n)
		}
		if st := s.Stats(); st.Sampled != 2 || st.Samples != 10 || st.Relevant != 2 || strings.Count(log.String(), "without log probabilities") != 1 {
			t.Errorf("run %d: stats %+v, log %q", run, st, log.String())
		}
		if s.Name() != "summarizer-1 (log probabilities else 5 samples at temperature 1)" {
			t.Errorf("name %q", s.Name())
		}
	}
	s := newLLM(t, newClient(t, srv, cache, 0), Options{Method: llm.Sample, Samples: 3})
	if got, err := s.Summarize(context.Background(), pairs[1:]); err != nil || got[0].Probability != 2.25/3.5 {
		t.Errorf("sample 3: %+v, %v", got, err)
	}
	if s.Name() != "summarizer-1 (3 samples at temperature 1)" {
		t.Errorf("name %q", s.Name())
	}
	if _, err := NewLLM(newClient(t, srv, "", 0), Options{FixedProbability: 0.8}); err == nil {
		t.Error("a fixed probability accepted without the fixed method")
	}
}
