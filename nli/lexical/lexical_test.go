package lexical_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
)

const (
	lovelace = "Ada Lovelace (10 December 1815 – 27 November 1852) was an English mathematician and writer. " +
		"She is chiefly known for her work on Charles Babbage's proposed mechanical general-purpose computer, the Analytical Engine. " +
		"She was the first to recognise that the machine had applications beyond pure calculation. " +
		"Lovelace had three children with William King."
	curie = "Marie Curie was born on 7 November 1867 in Warsaw. She was a Polish and naturalised-French physicist and chemist. " +
		"She did not win the Nobel Prize in Literature. She won the Nobel Prize in Physics in 1903."
)

// TestLexicalVerdicts checks the method's rules on hand-made pairs. They
// were written with the rules, so they show that the rules are implemented
// as documented, not how well the method does (see
// docs/lexical-agreement.md for that).
func TestLexicalVerdicts(t *testing.T) {
	E, C, N := nli.Entailment, nli.Contradiction, nli.Neutral
	filler := strings.Repeat("The weather in the valley was mild that year and the harvest was good. ", 12)
	tests := []struct {
		name       string
		premise    string
		hypothesis string
		want       nli.Label
	}{
		{"every content word in one window", curie, "Marie Curie was a physicist.", E},
		{"-ed stemming, subject named in another sentence", curie, "Marie Curie was born in Warsaw.", E},
		{"a content word missing: coverage 2/3", curie, "Marie Curie was a biologist.", N},
		{"the subject anywhere, the rest in one window", lovelace, "Ada Lovelace recognised applications of the machine beyond calculation.", E},
		{"the subject not named", "Charles Babbage designed engines. She wrote notes on the Analytical Engine.",
			"Ada Lovelace wrote notes on the Analytical Engine.", N},
		{"words far apart: no window holds them", "Marie Curie studied physics. " + filler + "Warsaw and Paris are cities.",
			"Marie Curie studied physics in Warsaw and Paris.", N},
		{"negated in the premise, to the end of its clause", curie, "Marie Curie won the Nobel Prize in Literature.", C},
		{"negated in both", curie, "Marie Curie did not win the Nobel Prize in Literature.", E},
		{"negated in the hypothesis only", lovelace, "Ada Lovelace was not a mathematician.", C},
		{"a word asserted elsewhere in the window is not negated", curie, "Marie Curie won the Nobel Prize in Physics in 1903.", E},
		{"full date agrees", curie, "Marie Curie was born on November 7, 1867.", E},
		{"year agrees", curie, "Marie Curie was born in 1867.", E},
		{"decade agrees with a year", curie, "Marie Curie was born in the 1860s.", E},
		{"day conflicts", curie, "Marie Curie was born on November 8, 1867.", C},
		{"year conflicts", curie, "Marie Curie was born in 1870.", C},
		{"month conflicts", curie, "Marie Curie was born in December 1867.", C},
		{"number word agrees", lovelace, "Ada Lovelace had 3 children.", E},
		{"number conflicts", lovelace, "Ada Lovelace had four children.", C},
		{"a quantity with nothing comparable is unsupported", "Marie Curie had children.", "Marie Curie had two children.", N},
		{"scaled number", "The film grossed $110 million worldwide.", "The film grossed 110 million worldwide.", E},
		{"scaled number conflicts", "The film grossed $110 million worldwide.", "The film grossed 120 million worldwide.", C},
		{"n't is a negation", "Marie Curie didn't paint.", "Marie Curie painted.", C},
		{"a passage against a shorter copy of itself", lovelace, strings.TrimSuffix(lovelace, "Lovelace had three children with William King."), E},
		{"a passage against another passage", curie, lovelace, N},
		{"no content words", curie, "She was.", N},
		{"empty premise", "", "Marie Curie was a physicist.", N},
		{"snippet and text", instance.Context{Snippet: "Marie Curie, physicist.", Text: "Curie was born in Warsaw."}.NLIText(),
			"Marie Curie was a physicist.", E},
	}
	lex := lexical.New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := lex.Classify(context.Background(), []nli.Pair{{Premise: tc.premise, Hypothesis: tc.hypothesis}})
			if err != nil {
				t.Fatal(err)
			}
			if res[0].Label != tc.want {
				t.Errorf("%q: got %v (%.2f), want %v", tc.hypothesis, res[0].Label, res[0].Probability, tc.want)
			}
		})
	}
}

// TestLexicalDistribution checks the probabilities on every answer of the
// hand-made and golden pairs: a distribution strictly inside (0, 1) that sums
// to 1, whose largest value is the label's and equals Probability, and the
// caps the method documents.
func TestLexicalDistribution(t *testing.T) {
	var pairs []nli.Pair
	for _, h := range []string{"Marie Curie was a physicist.", "Marie Curie was born in 1870.", "Marie Curie was a biologist.",
		"Marie Curie won the Nobel Prize in Literature.", "Marie Curie was born in Warsaw in 1867 and was a chemist."} {
		pairs = append(pairs, nli.Pair{Premise: curie, Hypothesis: h})
	}
	res, err := lexical.New().Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[nli.Label]bool{}
	for i, r := range res {
		seen[r.Label] = true
		d := r.Distribution
		if len(d) != 3 {
			t.Fatalf("pair %d: distribution %v", i, d)
		}
		sum := 0.0
		for l, v := range d {
			if !(v > 0 && v < 1) {
				t.Errorf("pair %d: P(%v) = %v not in (0, 1)", i, nli.Label(l), v)
			}
			if v > d[r.Label] {
				t.Errorf("pair %d: label %v but P(%v) = %v is larger", i, r.Label, nli.Label(l), v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("pair %d: distribution sums to %v", i, sum)
		}
		if r.Probability != d[r.Label] {
			t.Errorf("pair %d: Probability %v, distribution says %v", i, r.Probability, d[r.Label])
		}
		if d[nli.Entailment] > 0.9+1e-12 || d[nli.Contradiction] > 0.8+1e-12 {
			t.Errorf("pair %d: %v exceeds the caps", i, d)
		}
	}
	if len(seen) != 3 {
		t.Errorf("the pairs should cover all three labels, got %v", seen)
	}
}

// TestLexicalBatchIndependence: an answer does not depend on the batch it
// comes in, and two runs give identical results.
func TestLexicalBatchIndependence(t *testing.T) {
	var pairs []nli.Pair
	for _, p := range []string{curie, lovelace} {
		for _, h := range []string{"Marie Curie was a physicist.", "Ada Lovelace was born in 1852.", "Ada Lovelace had 3 children.", "Marie Curie was born in 1870."} {
			pairs = append(pairs, nli.Pair{Premise: p, Hypothesis: h})
		}
	}
	lex := lexical.New()
	batch, err := lex.Classify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := lex.Classify(context.Background(), pairs)
	if !reflect.DeepEqual(batch, again) {
		t.Error("two runs differ")
	}
	for i, p := range pairs {
		one, _ := lex.Classify(context.Background(), []nli.Pair{p})
		if !reflect.DeepEqual(one[0], batch[i]) {
			t.Errorf("pair %d alone: %+v, in the batch: %+v", i, one[0], batch[i])
		}
	}
}

func TestLexicalCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := lexical.New().Classify(ctx, []nli.Pair{{Premise: curie, Hypothesis: "Marie Curie was a physicist."}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestLexicalIdentity(t *testing.T) {
	if got := lexical.New().Identity(); got != (nli.Identity{Backend: "lexical", Model: lexical.Model}) || got.String() != "lexical:coverage-v1" {
		t.Errorf("identity %v", got)
	}
}

func ExampleClassifier() {
	premise := "Ada Lovelace, an English mathematician, had three children."
	res, _ := lexical.New().Classify(context.Background(), []nli.Pair{
		{Premise: premise, Hypothesis: "Ada Lovelace was a mathematician."},
		{Premise: premise, Hypothesis: "Ada Lovelace had four children."},
		{Premise: premise, Hypothesis: "Ada Lovelace was a painter."},
	})
	for _, r := range res {
		fmt.Printf("%s %.2f\n", r.Label, r.Probability)
	}
	// Output:
	// entailment 0.90
	// contradiction 0.80
	// neutral 0.72
}

// FuzzLexical: any texts give a valid distribution whose largest value is
// the label's, and the same answer twice.
func FuzzLexical(f *testing.F) {
	f.Add(curie, "Marie Curie was born in 1870.")
	f.Add(lovelace, "Ada Lovelace had four children.")
	f.Add("Lanny Flaherty (July 27, 1942 – February 18, 2024) was an American actor.", "Lanny Flaherty was born on December 18, 1949.")
	f.Add("a b", "New York Shakespeare Festival")
	f.Add("(1 May 2000 - 2 June 2001)", "(born 3 may 2000) didn't 1,000,000.5 million 1970s")
	f.Add("", "")
	lex := lexical.New()
	f.Fuzz(func(t *testing.T, premise, hypothesis string) {
		pairs := []nli.Pair{{Premise: premise, Hypothesis: hypothesis}, {Premise: hypothesis, Hypothesis: premise}}
		res, err := lex.Classify(context.Background(), pairs)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := lex.Classify(context.Background(), pairs)
		if !reflect.DeepEqual(res, again) {
			t.Fatal("two runs differ")
		}
		for _, r := range res {
			sum := 0.0
			for _, v := range r.Distribution {
				if !(v > 0 && v < 1) || v > r.Probability {
					t.Fatalf("distribution %v, label %v", r.Distribution, r.Label)
				}
				sum += v
			}
			if len(r.Distribution) != 3 || math.Abs(sum-1) > 1e-12 || r.Probability != r.Distribution[r.Label] {
				t.Fatalf("result %+v", r)
			}
		}
	})
}
