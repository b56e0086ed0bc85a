// Package stancegen makes FactReasoner records whose NLI answers are
// known, for measuring what pair pruning costs in accuracy: an Oracle
// answers the pairs of a record as a model would, from stances set on its
// texts, and Generate writes biographies of made-up people in which, as in
// real retrieval, each atom has its own retrieved contexts and some
// contexts state other atoms' facts too (a page about a person states many
// of their facts).
//
// The records are shaped like FactReasoner's Wikipedia runs: 7 to 12 atoms
// (one fact each; about 70% true, the others a wrong value of the fact), 3
// contexts retrieved per atom (so 21 to 36 contexts), ids c_<atom>_<rank>.
// A retrieved context states its atom's fact with probability 0.8 (else
// it is about the person but not that fact); it also states one other
// fact of the record with probability 0.45 and two with 0.15. Every text
// mentions the person's name.
//
// The stances, with the noise a real model has: a context that states an
// atom's fact entails it when the atom is true and contradicts it when it
// is false, with probability in [0.6, 0.99]; 15% of such stances are
// missed (neutral) and 5% come out the other way. Of the pairs that state
// nothing about each other, 2% get a spurious stance with probability in
// [0.5, 0.75]. Two contexts that state a common fact entail each other
// (FR3's context pairs), with the same noise.
package stancegen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/nli"
)

// Oracle answers NLI pairs from the stances set on their texts; every
// other pair is neutral. It is safe for concurrent Classify calls once
// its stances are set.
type Oracle struct {
	answers map[[2]string]nli.Result
}

// NewOracle returns an oracle with no stances: every pair is neutral.
func NewOracle() *Oracle { return &Oracle{answers: make(map[[2]string]nli.Result)} }

// Set makes r the answer for (premise, hypothesis).
func (o *Oracle) Set(premise, hypothesis string, r nli.Result) {
	o.answers[[2]string{premise, hypothesis}] = r
}

// Stances is the number of non-neutral answers set.
func (o *Oracle) Stances() int { return len(o.answers) }

// Identity implements nli.Classifier.
func (o *Oracle) Identity() nli.Identity { return nli.Identity{Backend: "stance-oracle"} }

// Classify implements nli.Classifier.
func (o *Oracle) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		r, ok := o.answers[[2]string{p.Premise, p.Hypothesis}]
		if !ok {
			r = nli.Result{Label: nli.Neutral, Probability: 0.9}
		}
		out[i] = r
	}
	return out, nil
}

// Noise is how a model's answers depart from the true stances.
type Noise struct {
	Miss     float64 // share of true stances answered neutral
	Flip     float64 // share answered with the other label
	Spurious float64 // share of unrelated pairs given a stance
}

// DefaultNoise is the noise of Generate (see the package comment).
var DefaultNoise = Noise{Miss: 0.15, Flip: 0.05, Spurious: 0.02}

// Stance sets the answer for a pair whose true stance is l (entailment or
// contradiction), with the noise of n drawn from rng: missed, flipped, or
// l with a probability in [0.6, 0.99].
func (o *Oracle) Stance(rng *rand.Rand, n Noise, premise, hypothesis string, l nli.Label) {
	switch u := rng.Float64(); {
	case u < n.Miss:
		return
	case u < n.Miss+n.Flip:
		l = other(l)
	}
	o.Set(premise, hypothesis, nli.Result{Label: l, Probability: 0.6 + 0.39*rng.Float64()})
}

// Spurious gives an unrelated pair, with n.Spurious's probability, a weak
// stance (probability in [0.5, 0.75]) of either label.
func (o *Oracle) Spurious(rng *rand.Rand, n Noise, premise, hypothesis string) {
	if rng.Float64() >= n.Spurious {
		return
	}
	l := nli.Entailment
	if rng.IntN(2) == 0 {
		l = nli.Contradiction
	}
	o.Set(premise, hypothesis, nli.Result{Label: l, Probability: 0.5 + 0.25*rng.Float64()})
}

func other(l nli.Label) nli.Label {
	if l == nli.Entailment {
		return nli.Contradiction
	}
	return nli.Entailment
}

// relations are the kinds of facts of a biography: a phrase and the values
// it takes. Each value is its own words, so that BM25 tells facts apart.
var relations = []struct {
	phrase string
	values []string
}{
	{"was born in the city of", []string{"Pensacola", "Tallahassee", "Savannah", "Montgomery", "Knoxville", "Lexington"}},
	{"studied", []string{"chemistry", "architecture", "philosophy", "geology", "linguistics", "astronomy"}},
	{"graduated from", []string{"Stanford University", "Yale University", "Rice University", "Tulane University", "Emory University", "Duke University"}},
	{"married the painter", []string{"Helen Morrow", "Ruth Castellano", "Ida Whitcombe", "Nora Feldstein", "Clara Ashby", "Vera Lindqvist"}},
	{"won the award", []string{"Peabody Medal", "Harlan Prize", "Crestwood Fellowship", "Obelisk Award", "Meridian Cup", "Lantern Honor"}},
	{"starred in the film", []string{"Silent Harbor", "The Copper Road", "Winter Orchard", "Night Ferry", "Glass Mountain", "The Last Signal"}},
	{"wrote the novel", []string{"Salt and Ember", "The Hollow Choir", "Distant Lanterns", "A House of Wheat", "River Without Banks", "The Paper Crown"}},
	{"served in the", []string{"United States Navy", "Coast Guard", "Peace Corps", "Army Signal Corps", "Merchant Marine", "Air National Guard"}},
	{"taught at", []string{"Oberlin College", "Reed College", "Bard College", "Vassar College", "Colby College", "Grinnell College"}},
	{"founded the company", []string{"Northwind Records", "Bluegate Studios", "Harrow Press", "Quarry Lane Films", "Ironleaf Media", "Saltmarsh Books"}},
	{"played the instrument", []string{"cello", "banjo", "oboe", "mandolin", "harpsichord", "trombone"}},
	{"retired to", []string{"Vermont", "New Mexico", "Oregon", "Maine", "Montana", "Wyoming"}},
}

var firstNames = []string{"Lanny", "Marisol", "Dexter", "Wilhelmina", "Osric", "Tamsin", "Barnaby", "Leonie"}
var lastNames = []string{"Flaherty", "Quennell", "Abernathy", "Okonkwo", "Strand", "Vasquez-Hale", "Montrose", "Pelletier"}

// fillers are things said about the person that state none of the facts.
var fillers = []string{
	"%s is often mentioned in regional histories .",
	"in interviews , %s spoke about family and early years .",
	"critics have written about %s for several decades .",
	"%s appeared at many public events over the years .",
}

// Generate returns n records and the oracle that answers their pairs (see
// the package comment), from seed: the same n and seed give the same
// records and answers.
func Generate(n int, seed uint64) ([]*instance.Instance, *Oracle) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	o := NewOracle()
	records := make([]*instance.Instance, n)
	for r := range records {
		records[r] = generate(rng, o)
	}
	return records, o
}

func generate(rng *rand.Rand, o *Oracle) *instance.Instance {
	name := firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))]
	lower := strings.ToLower(name)
	nFacts := 7 + rng.IntN(6)
	kinds := rng.Perm(len(relations))[:nFacts]
	truth := make([]string, nFacts) // each fact's true value
	in := &instance.Instance{Input: fmt.Sprintf("Tell me a bio of %s.", name), Topic: name}
	var sentences []string
	for i, k := range kinds {
		rel := relations[k]
		truth[i] = rel.values[rng.IntN(len(rel.values))]
		value, label := truth[i], instance.Supported
		if rng.Float64() >= 0.7 {
			for value == truth[i] {
				value = rel.values[rng.IntN(len(rel.values))]
			}
			label = instance.NotSupported
		}
		text := fmt.Sprintf("%s %s %s.", name, rel.phrase, value)
		sentences = append(sentences, text)
		in.Atoms = append(in.Atoms, instance.Atom{ID: fmt.Sprintf("a%d", i), Text: text, Label: label})
	}
	in.Output = strings.Join(sentences, " ")
	states := func(fact int) string { // a context's sentence of a fact's true value
		return strings.ToLower(fmt.Sprintf("%s %s %s .", name, relations[kinds[fact]].phrase, truth[fact]))
	}
	stated := make([][]int, 0) // facts each context states, by context
	for i := range in.Atoms {
		for rank := range 3 {
			var facts []int
			if rng.Float64() < 0.8 {
				facts = append(facts, i)
			}
			extra := 0
			switch u := rng.Float64(); {
			case u < 0.15:
				extra = 2
			case u < 0.6:
				extra = 1
			}
			for _, f := range rng.Perm(nFacts) {
				if extra == 0 {
					break
				}
				if f != i {
					facts = append(facts, f)
					extra--
				}
			}
			parts := []string{fmt.Sprintf(fillers[rng.IntN(len(fillers))], lower)}
			for _, f := range facts {
				parts = append(parts, states(f))
			}
			rng.Shuffle(len(parts), func(a, b int) { parts[a], parts[b] = parts[b], parts[a] })
			id := fmt.Sprintf("c_a%d_%d", i, rank)
			in.Contexts = append(in.Contexts, instance.Context{ID: id, Title: name, Text: strings.Join(parts, " ")})
			in.Atoms[i].Contexts = append(in.Atoms[i].Contexts, id)
			stated = append(stated, facts)
		}
	}
	// The stances: context → atom, and context → context.
	says := func(c, fact int) bool {
		for _, f := range stated[c] {
			if f == fact {
				return true
			}
		}
		return false
	}
	for c, ctx := range in.Contexts {
		for a, atom := range in.Atoms {
			switch {
			case says(c, a) && atom.Label == instance.Supported:
				o.Stance(rng, DefaultNoise, ctx.Text, atom.Text, nli.Entailment)
			case says(c, a):
				o.Stance(rng, DefaultNoise, ctx.Text, atom.Text, nli.Contradiction)
			default:
				o.Spurious(rng, DefaultNoise, ctx.Text, atom.Text)
			}
		}
		for d, other := range in.Contexts {
			if d == c || ctx.Text == other.Text {
				continue
			}
			common := false
			for _, f := range stated[c] {
				common = common || says(d, f)
			}
			if common {
				o.Stance(rng, DefaultNoise, ctx.Text, other.Text, nli.Entailment)
			} else {
				o.Spurious(rng, DefaultNoise, ctx.Text, other.Text)
			}
		}
	}
	return in
}
