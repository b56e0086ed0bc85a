package factscore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// TestPrompt compares prompts with those printed by FActScore's own prompt
// code (factscorer.py, _get_score) run in Python on the same inputs.
func TestPrompt(t *testing.T) {
	tests := []struct {
		topic, atom string
		passages    []retrieve.Passage
		want        string
	}{
		{
			"Lanny Flaherty", " Lanny Flaherty was born on July 27, 1942. ",
			[]retrieve.Passage{
				{Title: "Lanny Flaherty", Text: "<s>lanny flaherty ( july 27, 1942 ) was an american actor.</s>"},
				{Title: "Lanny Flaherty", Text: "flaherty was a graduate of pontotoc high school"},
			},
			"Answer the question about Lanny Flaherty based on the given context.\n\nTitle: Lanny Flaherty\nText: flaherty was a graduate of pontotoc high school\n\nTitle: Lanny Flaherty\nText: lanny flaherty ( july 27, 1942 ) was an american actor.\n\nInput: Lanny Flaherty was born on July 27, 1942. True or False?\nOutput:",
		},
		{
			"Ada", "Ada wrote code",
			[]retrieve.Passage{{Title: "Ada Lovelace", Text: "She wrote the first algorithm!  \n"}},
			"Answer the question about Ada based on the given context.\n\nTitle: Ada Lovelace\nText: She wrote the first algorithm!\n\nInput: Ada wrote code True or False?\nOutput:",
		},
		{
			// No passages: FActScore's code adds its period after the blank lines.
			"Ada", "Ada wrote code", nil,
			"Answer the question about Ada based on the given context.\n\n.\n\nInput: Ada wrote code True or False?\nOutput:",
		},
		{
			// "…" is not ASCII punctuation: a period follows.
			"Ada", "x", []retrieve.Passage{{Title: "T", Text: "ends with an ellipsis…"}},
			"Answer the question about Ada based on the given context.\n\nTitle: T\nText: ends with an ellipsis….\n\nInput: x True or False?\nOutput:",
		},
	}
	for i, tt := range tests {
		if got := Prompt(tt.topic, tt.atom, tt.passages); got != tt.want {
			t.Errorf("case %d:\n got %q\nwant %q", i, got, tt.want)
		}
	}
}

// TestParseAnswer: expected values follow docs/scores.md. They are what FActScore's
// Python parsing code gives for each answer (checked by running it), except
// for the answers holding both words whose first and last occurrences
// disagree: "True or False? True", "True\nFalse\nTrue" and
// "False\nTrue\nFalse". FActScore compares the first occurrences and reads
// them the other way (not supported, not supported, supported); docs/scores.md and
// ParseAnswer take the last.
func TestParseAnswer(t *testing.T) {
	tests := []struct {
		answer string
		want   bool
	}{
		// One word.
		{"True", true}, {"TRUE.", true}, {"true", true}, {"It is untrue.", true},
		{"False", false}, {"FALSE", false}, {"  false ", false},
		// Both words: the last "true" must come after the last "false"
		// (FActScore's code compares the first ones: the echo and the
		// "True False True" cases are where the two rules differ).
		{"True. It is not false.", false},
		{"False. The statement is not true.", true},
		{"False, true", true},
		{"True or False? True", true},
		{"True or False? False", false},
		{"True\nFalse\nTrue", true},
		{"False\nTrue\nFalse", false},
		{"truefalse", false}, {"falsetrue", true},
		// Neither word: the negative keywords, as whole words after ASCII
		// punctuation is removed, in any case.
		{"Yes", true}, {"yes, definitely", true}, {"", true}, {"N/A", true},
		{"Not enough information", false}, {"The answer is unknown.", false},
		{"I cannot say", false}, {"not.", false}, {"information!", false},
		{"The context does not say", false},
		{"Notable, yes", true}, {"Informational", true},
		{"cannot\x1cbe", false},       // Python splits on U+001C
		{"Unknown\u00a0thing", false}, // and on no-break space
		{"It's \"TRUE\" — certainly", true},
	}
	for _, tt := range tests {
		if got := ParseAnswer(tt.answer); got != tt.want {
			t.Errorf("ParseAnswer(%q) = %v, want %v", tt.answer, got, tt.want)
		}
	}
}

func TestPenalty(t *testing.T) {
	tests := []struct {
		facts, gamma int
		want         float64
	}{
		{10, 10, 1}, {11, 10, 1}, {100, 10, 1},
		{5, 10, math.Exp(-1)},       // exp(1 − 10/5)
		{1, 10, math.Exp(-9)},       // exp(1 − 10)
		{8, 10, math.Exp(1 - 1.25)}, // exp(1 − 10/8)
		{3, 0, 1}, {1, 0, 1},        // γ = 0: no penalty
	}
	for _, tt := range tests {
		if got := Penalty(tt.facts, tt.gamma); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("Penalty(%d, %d) = %v, want %v", tt.facts, tt.gamma, got, tt.want)
		}
	}
}

func TestAggregate(t *testing.T) {
	a := NewAggregate(10)
	a.Add(NewResult(4, 5, 10))   // init 0.8, penalty e^-1
	a.Add(NewResult(15, 20, 10)) // init 0.75, penalty 1
	a.Add(NewResult(0, 0, 10))   // responded, no facts: out of the means
	a.Add(Result{})              // abstained
	s := a.Summary()
	if s.Responses != 4 || s.Responded != 3 || s.Scored != 2 {
		t.Fatalf("%+v", s)
	}
	check := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("factscore", s.FActScore, (0.8*math.Exp(-1)+0.75)/2)
	check("init_score", s.InitScore, (0.8+0.75)/2)
	check("respond_ratio", s.RespondRatio, 3.0/4)
	// Over the responding responses, the one without facts included.
	check("facts_per_response", s.FactsPerResponse, 25.0/3)
	// γ = 0: the score is the initial score.
	a0 := NewAggregate(0)
	a0.Add(NewResult(4, 5, 0))
	if s := a0.Summary(); s.FActScore != 0.8 || s.InitScore != 0.8 {
		t.Errorf("γ=0: %+v", s)
	}
	// JSON: FActScore's names; null means over no response.
	b, _ := json.Marshal(NewAggregate(10).Summary())
	if string(b) != `{"factscore":null,"init_score":null,"respond_ratio":null,"facts_per_response":null,"responses":0,"responded":0,"scored":0,"gamma":10}` {
		t.Errorf("empty summary: %s", b)
	}
	none := NewAggregate(10)
	none.Add(Result{})
	b, _ = json.Marshal(none.Summary())
	if string(b) != `{"factscore":null,"init_score":null,"respond_ratio":0,"facts_per_response":null,"responses":1,"responded":0,"scored":0,"gamma":10}` {
		t.Errorf("no responders: %s", b)
	}
	// An answer about the wrong person, every sentence irrelevant: it
	// responded, with 0 facts, and there is no mean score.
	wrong := NewAggregate(0)
	wrong.Add(NewResult(0, 0, 0))
	b, _ = json.Marshal(wrong.Summary())
	if string(b) != `{"factscore":null,"init_score":null,"respond_ratio":1,"facts_per_response":0,"responses":1,"responded":1,"scored":0,"gamma":0}` {
		t.Errorf("responding without facts: %s", b)
	}
	if r := NewResult(0, 0, 10); !r.Responded || r.Scored() || r.Score != 0 || r.Penalty != 0 {
		t.Errorf("no facts: %+v", r)
	}
}

// TestGoldChatGPT reproduces the human FActScore of FActScore's labeled
// ChatGPT biographies: 58.3, 157 of 183 responses answered.
func TestGoldChatGPT(t *testing.T) {
	f, err := os.Open(refdata.Path(t, "factscore-labeled", "ChatGPT.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	a := NewAggregate(DefaultGamma)
	for sc.Scan() {
		rec, err := instance.ParseLabeled(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		s, n := GoldLabeled(rec)
		if rec.Abstained() != (n == 0) {
			t.Errorf("topic %s: abstained %v with %d facts", rec.Topic, rec.Abstained(), n)
		}
		if rec.Abstained() {
			a.Add(Result{})
			continue
		}
		a.Add(NewResult(s, n, DefaultGamma))
	}
	s := a.Summary()
	if s.Responses != 183 || s.Responded != 157 || s.Scored != 157 {
		t.Errorf("responded %d (%d scored) of %d, want 157 (157) of 183", s.Responded, s.Scored, s.Responses)
	}
	if math.Round(s.FActScore*1000) != 583 || math.Abs(s.FActScore-0.5829906177462483) > 1e-12 {
		t.Errorf("factscore %.16f, want 0.583 (0.5829906177462483)", s.FActScore)
	}
	// Every answered response has at least 14 facts, so γ = 10 changes
	// nothing here.
	if s.InitScore != s.FActScore {
		t.Errorf("init_score %v != factscore %v", s.InitScore, s.FActScore)
	}
}

func TestGoldInstance(t *testing.T) {
	in := &instance.Instance{Atoms: []instance.Atom{{ID: "a0", Label: "S"}, {ID: "a1", Label: "NS"}, {ID: "a2", Label: "S"}}}
	if s, n, err := GoldInstance(in); s != 2 || n != 3 || err != nil {
		t.Errorf("got %d/%d, %v", s, n, err)
	}
	in.Atoms[1].Label = ""
	_, _, err := GoldInstance(in)
	var fe *instance.FieldError
	if !errors.As(err, &fe) || fe.Field != "atoms[1].label" {
		t.Errorf("unlabeled atom: %v", err)
	}
}

// fakeGenerator answers from a map keyed by the atom in the prompt and
// records the prompts.
type fakeGenerator struct {
	answers map[string]string
	prompts []string
}

func (g *fakeGenerator) Generate(ctx context.Context, prompt string) (string, error) {
	g.prompts = append(g.prompts, prompt)
	for atom, a := range g.answers {
		if strings.Contains(prompt, "Input: "+atom+" True or False?") {
			return a, nil
		}
	}
	return "", errors.New("unexpected prompt")
}

func testRecord() *instance.Instance {
	return &instance.Instance{
		Output: "x", Topic: "Ada Lovelace",
		Atoms: []instance.Atom{
			{ID: "a0", Text: "Ada was born in 1815.", Label: "S", Contexts: []string{"c_a0_0", "c_a0_1"}},
			{ID: "a1", Text: "Ada was born in Paris.", Label: "NS", Contexts: []string{"c_a1_0"}},
			{ID: "a2", Text: "Ada liked cats.", Label: "NS"},
		},
		Contexts: []instance.Context{
			{ID: "c_a0_0", Title: "Ada Lovelace", Text: "She was born in 1815."},
			{ID: "c_a0_1", Title: "Ada Lovelace", Text: "She was born in London."},
			{ID: "c_a1_0", Title: "Ada Lovelace", Snippet: "Born in London"},
		},
	}
}

func TestLLMVerifier(t *testing.T) {
	g := &fakeGenerator{answers: map[string]string{
		"Ada was born in 1815.":  "True",
		"Ada was born in Paris.": "False. She was born in London.",
	}}
	v := &LLMVerifier{Generator: g, Model: "fake"}
	res, ds, err := Score(context.Background(), v, testRecord(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if !ds[0].Supported || ds[1].Supported || ds[2].Supported || !ds[2].NoEvidence || ds[0].Label != "S" {
		t.Errorf("decisions %+v", ds)
	}
	if len(g.prompts) != 2 {
		t.Fatalf("%d prompts, want 2 (no prompt without evidence)", len(g.prompts))
	}
	// The best passage comes last; a context without text shows its snippet.
	want0 := Prompt("Ada Lovelace", "Ada was born in 1815.", []retrieve.Passage{
		{Title: "Ada Lovelace", Text: "She was born in 1815."}, {Title: "Ada Lovelace", Text: "She was born in London."}})
	if g.prompts[0] != want0 || !strings.HasSuffix(strings.Split(g.prompts[0], "\n\nInput")[0], "She was born in 1815.") {
		t.Errorf("prompt:\n%s", g.prompts[0])
	}
	if !strings.Contains(g.prompts[1], "Text: Born in London.") {
		t.Errorf("snippet prompt:\n%s", g.prompts[1])
	}
	wantRes := NewResult(1, 3, 10)
	if res != wantRes {
		t.Errorf("result %+v, want %+v", res, wantRes)
	}
	if math.Abs(res.Score-math.Exp(1-10.0/3)/3) > 1e-15 {
		t.Errorf("score %v", res.Score)
	}
	noTopic := testRecord()
	noTopic.Topic = ""
	if _, _, err := Score(context.Background(), v, noTopic, 10); err == nil {
		t.Error("no topic: no error")
	}
	// A record without atoms responded with no facts.
	if r, ds, err := Score(context.Background(), v, &instance.Instance{Output: "x"}, 10); !r.Responded || r.Scored() || ds != nil || err != nil {
		t.Errorf("no atoms: %+v %v %v", r, ds, err)
	}
}

// fakeNLI entails pairs whose premise contains the hypothesis's key words.
type fakeNLI struct {
	dist  bool
	pairs []nli.Pair
}

func (f *fakeNLI) Identity() nli.Identity { return nli.Identity{Backend: "fake"} }
func (f *fakeNLI) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	f.pairs = append(f.pairs, pairs...)
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		switch {
		case strings.Contains(p.Premise, "1815"):
			out[i] = nli.Result{Label: nli.Entailment, Probability: 0.9}
			if f.dist {
				out[i].Distribution = []float64{0.05, 0.9, 0.05}
			}
		case strings.Contains(p.Premise, "London"):
			out[i] = nli.Result{Label: nli.Contradiction, Probability: 0.6}
			if f.dist {
				out[i].Distribution = []float64{0.0, 0.4, 0.6}
			}
		default:
			out[i] = nli.Result{Label: nli.Neutral, Probability: 1}
		}
	}
	return out, nil
}

func TestNLIVerifier(t *testing.T) {
	for _, dist := range []bool{false, true} {
		cl := &fakeNLI{dist: dist}
		v := &NLIVerifier{Classifier: cl, Threshold: DefaultThreshold}
		_, ds, err := Score(context.Background(), v, testRecord(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(cl.pairs) != 3 || cl.pairs[0].PremiseID != "c_a0_0" || cl.pairs[0].HypothesisID != "a0" {
			t.Fatalf("pairs %+v", cl.pairs)
		}
		if !ds[0].Supported || *ds[0].Entailment != 0.9 || ds[0].Context != "c_a0_0" {
			t.Errorf("a0: %+v", ds[0])
		}
		wantA1 := 0.0
		if dist {
			wantA1 = 0.4 // the distribution's entailment entry
		}
		if ds[1].Supported || *ds[1].Entailment != wantA1 {
			t.Errorf("dist %v: a1: %+v", dist, ds[1])
		}
		if ds[2].Supported || !ds[2].NoEvidence {
			t.Errorf("a2: %+v", ds[2])
		}
		// The threshold is strict and adjustable.
		v.Threshold = 0.9
		_, ds, _ = Score(context.Background(), v, testRecord(), 10)
		if ds[0].Supported {
			t.Error("0.9 is not above a threshold of 0.9")
		}
		if dist {
			v.Threshold = 0.3
			_, ds, _ = Score(context.Background(), v, testRecord(), 10)
			if !ds[1].Supported {
				t.Error("entailment 0.4 is above a threshold of 0.3")
			}
		}
	}
}
