package assemble

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/cascade"
)

// cascadeBackend is the backend "FIRST,SECOND" (Options.NLI.Backend): a
// cascade (package cascade) that asks FIRST about every pair and SECOND
// about those FIRST answers with a probability below NLI.CascadeBelow. Both
// are backends of the table (or NLI.Extra) that classify: not auto, given,
// nor a cascade.
func cascadeBackend(o Options, first, second string) (NLIBackend, error) {
	var parts [2]NLIBackend
	for i, name := range []string{first, second} {
		if strings.Contains(name, ",") {
			return NLIBackend{}, optionErr("NLI.Backend", fmt.Errorf("%q: a cascade has two backends, FIRST,SECOND", o.NLI.Backend))
		}
		po := o
		po.NLI.Backend = name
		b, err := nliBackend(po)
		if err != nil {
			return NLIBackend{}, err
		}
		if b.Open == nil || b.Name == "auto" {
			return NLIBackend{}, optionErr("NLI.Backend", fmt.Errorf("%s in the cascade %q: a cascade's backends classify every pair they are given (onnx, remote, llm, lexical)", name, o.NLI.Backend))
		}
		parts[i] = b
	}
	if first == second {
		return NLIBackend{}, optionErr("NLI.Backend", fmt.Errorf("%q: a cascade asks a second backend, not the first again", o.NLI.Backend))
	}
	below := o.NLI.CascadeBelow
	if below == 0 {
		below = cascade.DefaultBelow
	}
	if !(below > 0 && below <= 1) {
		return NLIBackend{}, optionErr("NLI.CascadeBelow", fmt.Errorf("%v: want a probability above 0, at most 1", below))
	}
	return NLIBackend{
		Name:        first + "," + second,
		Description: "a cascade: " + first + " for every pair, " + second + " for those " + first + " is unsure of",
		Open: func(ctx context.Context, env *Env) (nli.Classifier, error) {
			var cls [2]nli.Classifier
			for i, b := range parts {
				cl, err := b.Open(ctx, env)
				if err != nil {
					return nil, err
				}
				if cl == nil {
					return nil, errors.New("nli cascade: " + b.Name + " has no classifier")
				}
				// Each backend has its own place in the NLI cache, so
				// that another threshold reuses both's answers.
				if cls[i], err = env.p.register(cl, env.Options); err != nil {
					return nil, err
				}
			}
			c, err := cascade.New(cls[0], cls[1], below)
			if err != nil {
				return nil, optionErr("NLI.Backend", err)
			}
			return c, nil
		},
	}, nil
}
