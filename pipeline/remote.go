package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/factreasoner/factreasoner-go/nli/remotenli"
)

// openRemote opens the remote backend: the tokenizer, window and labels of
// the model directory o.Model names, the model run by the server that
// o.Remote names, retried as the run's other HTTP clients.
func (p *Pipeline) openRemote(ctx context.Context, o NLIOptions) (*remotenli.Classifier, error) {
	ref, err := ResolveModel(o.Model)
	if err != nil {
		return nil, err
	}
	if ref.Found != "" {
		fmt.Fprintf(p.res.log, "fr: nli model %s from %s\n", ref.Name, ref.Found)
	}
	ro := o.Remote
	ro.Name, ro.Retry = ref.Name, p.res.retry
	c, err := remotenli.Open(ctx, ref.Dir, ro)
	if err != nil {
		return nil, err
	}
	p.onClose(c.Close)
	p.onSummary(func(w io.Writer) {
		s, u := c.Stats(), c.Usage()
		if s.Pairs == 0 {
			return
		}
		fmt.Fprintf(w, "fr: remote nli %s %s at %s: %d pairs, %d model inputs in %d requests (%d retries); %d premises split into chunks (up to %d), %d hypotheses cut to half the %d-token window",
			c.Protocol(), c.RemoteModel(), c.Endpoint(), s.Pairs, s.Sequences, u.Requests, u.Retries, s.ChunkedPairs, s.MaxChunksOfPair, s.CutHypotheses, c.MaxLength())
		if s.Retokenized > 0 {
			fmt.Fprintf(w, "; %d chunk texts tokenized differently from their chunks (sent as the texts' tokens)", s.Retokenized)
		}
		fmt.Fprintln(w)
	})
	return c, nil
}
