package assemble

import (
	"context"
	"fmt"

	"github.com/factreasoner/factreasoner-go/nli/nlimodel"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
)

// openRemote opens the remote backend: the tokenizer, window and labels of
// the model directory o.Model names, the model run by the server that
// o.Remote names, retried as the run's other HTTP clients.
func (p *Pipeline) openRemote(ctx context.Context, o NLIOptions) (*remotenli.Classifier, error) {
	ref, err := nlimodel.Resolve(o.Model)
	if err != nil {
		return nil, err
	}
	if ref.Found != "" {
		fmt.Fprintf(p.res.log, "nli model %s from %s\n", ref.Name, ref.Found)
	}
	ro := o.Remote
	ro.Name, ro.Retry = ref.Name, p.res.retry
	if ro.PositiveLabel, ro.Unsupported, err = o.grounding(); err != nil {
		return nil, err
	}
	c, err := remotenli.Open(ctx, ref.Dir, ro)
	if err != nil {
		return nil, err
	}
	return c, nil
}
