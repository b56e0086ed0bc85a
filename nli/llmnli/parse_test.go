package llmnli

import (
	"math"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/testgen/answercorpus"
	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
	"github.com/factreasoner/factreasoner-go/nli"
)

// tk builds a token; lp NaN means the server gave no log probability.
func tk(text string, lp float64) llm.Token {
	return llm.Token{Text: text, Bytes: []byte(text), Logprob: lp}
}

var nan = math.NaN()

type parseCase struct {
	name    string
	content string
	tokens  []llm.Token
	valid   bool // false: an error expected
	label   nli.Label
	// want is the expected probability, computed by hand from the
	// constructed log probabilities: exp(mean of the listed values).
	want []float64 // nil: NaN expected (valid)
}

func checkParse(t *testing.T, parse func(string, []llm.Token) (Answer, error), tests []parseCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := parse(tt.content, tt.tokens)
			if (err == nil) != tt.valid || a.Label != tt.label {
				t.Fatalf("got label=%v err=%v, want valid=%v label=%v", a.Label, err, tt.valid, tt.label)
			}
			switch {
			case !tt.valid:
			case tt.want == nil:
				if !math.IsNaN(a.Probability) {
					t.Errorf("probability %v, want NaN (no log probabilities)", a.Probability)
				}
			default:
				sum := 0.0
				for _, v := range tt.want {
					sum += v
				}
				want := math.Exp(sum / float64(len(tt.want)))
				if math.Abs(a.Probability-want) > 1e-12 || a.Tokens != len(tt.want) {
					t.Errorf("probability %.15f over %d tokens, want %.15f over %d", a.Probability, a.Tokens, want, len(tt.want))
				}
			}
		})
	}
}

// TestParseV1: p = exp(mean log probability of the answer's tokens), end
// token excluded, when the answer is the label alone (docs/nli.md); for an
// answer that says more, the label's tokens.
func TestParseV1(t *testing.T) {
	checkParse(t, ParseV1, []parseCase{
		{name: "label over three tokens", content: "entailment",
			tokens: []llm.Token{tk("ent", -0.1), tk("ail", -0.2), tk("ment", -0.3)},
			valid:  true, label: nli.Entailment, want: []float64{-0.1, -0.2, -0.3}},
		{name: "end token listed after the answer is excluded", content: "entailment",
			tokens: []llm.Token{tk("ent", -0.1), tk("ail", -0.2), tk("ment", -0.3), tk("<|eot_id|>", -5)},
			valid:  true, label: nli.Entailment, want: []float64{-0.1, -0.2, -0.3}},
		{name: "empty end token is excluded", content: "neutral",
			tokens: []llm.Token{tk("neut", -0.02), tk("ral", -0.04), tk("", -3)},
			valid:  true, label: nli.Neutral, want: []float64{-0.02, -0.04}},
		{name: "capitals and a period, every answer token counts", content: "Contradiction.",
			tokens: []llm.Token{tk("Contr", -0.5), tk("adiction", -0.1), tk(".", -0.3)},
			valid:  true, label: nli.Contradiction, want: []float64{-0.5, -0.1, -0.3}},
		{name: "one token with leading space", content: " neutral",
			tokens: []llm.Token{tk(" neutral", -0.05)},
			valid:  true, label: nli.Neutral, want: []float64{-0.05}},
		{name: "label in a sentence: its own tokens", content: "The answer is entailment",
			tokens: []llm.Token{tk("The", -1), tk(" answer", -0.5), tk(" is", -0.25), tk(" entail", -0.125), tk("ment", -0.0625)},
			valid:  true, label: nli.Entailment, want: []float64{-0.125, -0.0625}},
		{name: "label first, then an explanation: its own tokens", content: "Neutral. The premise says nothing of it.",
			tokens: []llm.Token{tk("Neutral", -0.2), tk(".", -0.5), tk(" The premise says nothing of it.", -2)},
			valid:  true, label: nli.Neutral, want: []float64{-0.2}},
		{name: "labels in a think block do not count, nor do their tokens", content: "<think>entailment?</think>\nneutral",
			tokens: []llm.Token{tk("<think>", -1), tk("entailment", -1), tk("?</think>\n", -1), tk("neutral", -0.3)},
			valid:  true, label: nli.Neutral, want: []float64{-0.3}},
		{name: "hidden reasoning tokens before the answer are excluded", content: "contradiction",
			tokens: []llm.Token{tk("<think>", -1), tk("no", -2), tk("</think>", -1), tk("contra", -0.2), tk("diction", -0.4)},
			valid:  true, label: nli.Contradiction, want: []float64{-0.2, -0.4}},
		{name: "server trimmed the answer's leading newline", content: "entailment",
			tokens: []llm.Token{tk("\n", -0.9), tk("entailment", -0.01)},
			valid:  true, label: nli.Entailment, want: []float64{-0.01}},
		{name: "two different labels: the last wins, as the reference", content: "entailment or neutral",
			tokens: []llm.Token{tk("entailment", -0.4), tk(" or", -0.1), tk(" neutral", -0.2)},
			valid:  true, label: nli.Neutral, want: []float64{-0.2}},
		{name: "no label", content: "I cannot tell.",
			tokens: []llm.Token{tk("I", -0.1), tk(" cannot", -0.1), tk(" tell", -0.1), tk(".", -0.1)}},
		{name: "a word that contains a label is not one", content: "neutrality",
			tokens: []llm.Token{tk("neutral", -0.1), tk("ity", -0.1)}},
		{name: "empty answer", content: "", tokens: nil},
		{name: "missing logprobs: no tokens at all", content: "entailment", tokens: nil,
			valid: true, label: nli.Entailment},
		{name: "missing logprobs: a null log probability in the answer", content: "entailment",
			tokens: []llm.Token{tk("ent", -0.1), tk("ail", nan), tk("ment", -0.3)},
			valid:  true, label: nli.Entailment},
		{name: "missing logprobs: tokens that do not spell the answer", content: "entailment",
			tokens: []llm.Token{tk("neutral", -0.1)},
			valid:  true, label: nli.Entailment},
		{name: "a null log probability outside the answer does not matter", content: "neutral",
			tokens: []llm.Token{tk("neutral", -0.3), tk("</s>", nan)},
			valid:  true, label: nli.Neutral, want: []float64{-0.3}},
	})
}

// TestParseV2: p = exp(mean log probability of the tokens between the last
// '[' and the ']' after it).
func TestParseV2(t *testing.T) {
	reasoning := []llm.Token{tk("The", -1), tk(" premise", -1), tk(" says", -1), tk(" so", -1), tk(".", -1), tk("\n", -1)}
	with := func(ts ...llm.Token) []llm.Token { return append(append([]llm.Token(nil), reasoning...), ts...) }
	const pre = "The premise says so.\n"
	checkParse(t, ParseV2, []parseCase{
		{name: "bracket tokens apart from a three-token label", content: pre + "[entailment]",
			tokens: with(tk("[", -2), tk("ent", -0.1), tk("ail", -0.2), tk("ment", -0.3), tk("]", -4)),
			valid:  true, label: nli.Entailment, want: []float64{-0.1, -0.2, -0.3}},
		{name: "bracket merged into label tokens", content: pre + " [contradiction].",
			tokens: with(tk(" [contr", -0.4), tk("adiction", -0.2), tk("].", -0.9)),
			valid:  true, label: nli.Contradiction, want: []float64{-0.4, -0.2}},
		{name: "whole answer in one token", content: pre + "[neutral]",
			tokens: with(tk("[neutral]", -0.7)),
			valid:  true, label: nli.Neutral, want: []float64{-0.7}},
		{name: "last bracket wins", content: "[neutral] at first sight, but the dates differ.\n[contradiction]",
			tokens: []llm.Token{tk("[neutral]", -3), tk(" at first sight, but the dates differ.\n", -1), tk("[", -1), tk("contradiction", -0.05), tk("]", -1)},
			valid:  true, label: nli.Contradiction, want: []float64{-0.05}},
		{name: "capitals and spaces inside the brackets", content: pre + "[ Entailment ]",
			tokens: with(tk("[", -1), tk(" Ent", -0.3), tk("ailment", -0.1), tk(" ]", -1)),
			valid:  true, label: nli.Entailment, want: []float64{-0.3, -0.1}},
		{name: "end token after the bracket", content: pre + "[neutral]",
			tokens: with(tk("[", -1), tk("neutral", -0.2), tk("]", -1), tk("<|im_end|>", -0.01)),
			valid:  true, label: nli.Neutral, want: []float64{-0.2}},
		{name: "a split multi-byte character before the label", content: "Gleich — ja.\n[entailment]",
			tokens: []llm.Token{tk("Gleich ", -1), {Text: "\\xe2\\x80", Bytes: []byte{0xe2, 0x80}, Logprob: -1},
				{Text: "\\x94", Bytes: []byte{0x94}, Logprob: -1}, tk(" ja.\n[", -1), tk("entail", -0.6), tk("ment", -0.2), tk("]", -1)},
			valid: true, label: nli.Entailment, want: []float64{-0.6, -0.2}},
		{name: "no brackets: the label alone", content: "entailment",
			tokens: []llm.Token{tk("entailment", -0.1)}, valid: true, label: nli.Entailment, want: []float64{-0.1}},
		{name: "a citation after the label does not count", content: pre + "[entailment] [1]",
			tokens: with(tk("[", -1), tk("entail", -0.3), tk("ment", -0.1), tk("]", -1), tk(" [1]", -1)),
			valid:  true, label: nli.Entailment, want: []float64{-0.3, -0.1}},
		{name: "Answer: without brackets, the label's tokens", content: pre + "Answer: contradiction",
			tokens: with(tk("Answer", -1), tk(":", -1), tk(" contra", -0.1), tk("diction", -0.3)),
			valid:  true, label: nli.Contradiction, want: []float64{-0.1, -0.3}},
		{name: "leading space the tokens left out", content: "  [neutral]",
			tokens: []llm.Token{tk("[", -1), tk("neutral", -0.6), tk("]", -1)},
			valid:  true, label: nli.Neutral, want: []float64{-0.6}},
		{name: "unknown word in the brackets", content: pre + "[maybe]",
			tokens: with(tk("[maybe]", -0.1))},
		{name: "empty brackets", content: pre + "[]", tokens: with(tk("[]", -0.1))},
		{name: "cut off in the last label: an earlier label does not count", content: "[neutral] hmm\n[entail",
			tokens: []llm.Token{tk("[neutral]", -0.1), tk(" hmm\n[", -0.1), tk("entail", -0.1)}},
		{name: "missing logprobs: no tokens", content: pre + "[contradiction]", tokens: nil,
			valid: true, label: nli.Contradiction},
		{name: "missing logprobs: null inside the label", content: pre + "[neutral]",
			tokens: with(tk("[", -1), tk("neut", nan), tk("ral", -0.1), tk("]", -1)),
			valid:  true, label: nli.Neutral},
		{name: "a null log probability outside the label does not matter", content: pre + "[neutral]",
			tokens: append([]llm.Token{tk("The premise says so.\n", nan)}, tk("[", nan), tk("neutral", -0.25), tk("]", nan)),
			valid:  true, label: nli.Neutral, want: []float64{-0.25}},
	})
}

// TestReadLabelCorpus runs the NLI corpus of answer shapes
// (testdata/llm-answers/nli): every answer names the label of its want
// file, read from a span of the answer that spells it (so that its tokens'
// probabilities are the label's), or is refused.
func TestReadLabelCorpus(t *testing.T) {
	for _, c := range answercorpus.Load(t, "nli") {
		t.Run(c.Name, func(t *testing.T) {
			r, err := ReadLabel(c.Answer)
			if c.Unreadable {
				if err == nil {
					t.Fatalf("read %v from an answer that must be refused", r.Label)
				}
				if !strings.Contains(err.Error(), c.Why) {
					t.Errorf("error %q lacks %q", err, c.Why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Want) != 1 || r.Label.String() != c.Want[0] {
				t.Fatalf("got %v, want %q", r.Label, c.Want)
			}
			if span := strings.ToLower(c.Answer[r.Start:r.End]); !strings.Contains(span, c.Want[0]) {
				t.Errorf("read from %q", c.Answer[r.Start:r.End])
			}
		})
	}
}

// TestFakeShapes: every answer shape the test endpoint (llm/llmtest)
// writes reads back as the label it was written from.
func TestFakeShapes(t *testing.T) {
	for _, l := range []nli.Label{nli.Entailment, nli.Contradiction, nli.Neutral} {
		for n := range llmtest.LabelShapes {
			answer := llmtest.LabelAnswer(n, l.String())
			if r, err := ReadLabel(answer); err != nil || r.Label != l {
				t.Errorf("shape %d %q: %v, %v", n, answer, r.Label, err)
			}
		}
	}
	if r, err := ReadLabel(llmtest.UnreadableLabel); err == nil {
		t.Errorf("read %v", r.Label)
	}
}

// FuzzReadLabel: no answer makes ReadLabel (and the probability that
// follows from its tokens) panic; the span it reads from lies in the
// answer and spells the label; and a label read round-trips through the
// v2 shape: "reasoning\n[label]" reads as the same label.
func FuzzReadLabel(f *testing.F) {
	for _, c := range answercorpus.Load(f, "nli") {
		f.Add(c.Answer)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		r, err := ReadLabel(answer)
		if err != nil {
			return
		}
		if r.Start < 0 || r.End > len(answer) || r.Start > r.End ||
			!strings.Contains(strings.ToLower(answer[r.Start:r.End]), r.Label.String()) {
			t.Fatalf("label %v read from [%d, %d) of %q", r.Label, r.Start, r.End, answer)
		}
		var toks []llm.Token
		for _, ft := range llmtest.Tokenize(answer, -0.5) {
			toks = append(toks, tk(ft.Text, *ft.Logprob))
		}
		for _, parse := range []func(string, []llm.Token) (Answer, error){ParseV1, ParseV2} {
			a, err := parse(answer, toks)
			if err != nil || a.Label != r.Label || math.Abs(a.Probability-math.Exp(-0.5)) > 1e-9 {
				t.Fatalf("parse: %+v, %v", a, err)
			}
		}
		again, err := ReadLabel("Reasoning.\n[" + r.Label.String() + "]")
		if err != nil || again.Label != r.Label {
			t.Fatalf("round trip: %v became %v, %v", r.Label, again.Label, err)
		}
	})
}
