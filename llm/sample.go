package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Method is how an LLM stage (NLI, the summarizer) measures the
// probability of what it read from an answer.
type Method int

// The methods. The zero value is Auto.
const (
	// Auto takes the probability from the answer's token log
	// probabilities where the endpoint returns them, and samples (as
	// Sample) where it does not.
	Auto Method = iota
	// Logprobs takes it from the log probabilities, and makes an answer
	// without them an error.
	Logprobs
	// Sample asks for several answers at a temperature above 0 and takes
	// the share of those that agree (SampleShare).
	Sample
	// Fixed takes it from the log probabilities where the answer has them,
	// and gives the others a fixed probability.
	Fixed
)

var methodNames = [...]string{"auto", "logprobs", "sample", "fixed"}

func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod parses "auto" (or ""), "logprobs", "sample" or "fixed".
func ParseMethod(s string) (Method, error) {
	if s == "" {
		return Auto, nil
	}
	for i, n := range methodNames {
		if s == n {
			return Method(i), nil
		}
	}
	return Auto, fmt.Errorf("unknown method %q (want %s)", s, strings.Join(methodNames[:], ", "))
}

// Sampling defaults: DefaultSamples answers at SampleTemperature. N = 5
// is where more samples stop paying for themselves: on a fake endpoint
// whose samples follow its log probabilities, the mean distance of the
// corrected share from the log-probability one is 0.092 with 3 samples,
// 0.073 with 5 and 0.056 with 10, and the sampled label is the
// log-probability one for 93%, 95% and 96.5% of the pairs (BENCHMARKS.md,
// "Sampled probabilities").
// Temperature 1 samples the model's own distribution, the one its log
// probabilities describe.
const (
	DefaultSamples    = 5
	SampleTemperature = 1.0
	// MaxSamples bounds the answers asked for one item.
	MaxSamples = 100
)

// SampleShare is the probability given to an answer that k of n samples
// agree on: the share k/n with a small-sample correction, (k + ¼)/(n + ½),
// the mean of the share under a Beta(¼, ¼) prior. The prior puts most of
// its weight near 0 and 1, as models' answers mostly are near-certain, so
// the correction is small, but n of n samples never give certainty: 5 of 5
// give 0.955, 3 of 5 0.591, 10 of 10 0.976. Measured against the log
// probabilities the samples were drawn from, it is nearer to them than the
// raw share for 5 or more samples, and than the add-½ and add-1 rules for
// any number (BENCHMARKS.md, "Sampled probabilities").
func SampleShare(k, n int) float64 { return (float64(k) + 0.25) / (float64(n) + 0.5) }

// singlesCached reports that the cache holds no answer to the request for
// n answers, all but every answer to the requests for one: a server that
// did not honour n answered them in an earlier run, whose client may have
// learned it before asking for n (Sample), so that a rerun need not ask
// for n to learn it again.
func (c *Client) singlesCached(ctx context.Context, all, req Request, n int) bool {
	if c.cache == nil {
		return false
	}
	if _, _, r, err := c.cached(ctx, all); err != nil || r != nil {
		return false
	}
	for k := range n {
		one := req
		seed := c.seed + 1 + k
		one.N, one.Seed = 0, &seed
		if _, _, r, err := c.cached(ctx, one); err != nil || r == nil {
			return false
		}
	}
	return true
}

// Concurrency is the most requests the client has in flight at once.
func (c *Client) Concurrency() int { return cap(c.slots) }

// Sample asks for n answers to req at req.Temperature, which must be above
// 0, and returns them in order, each accepted by req.Read when it is set.
// Sample k is the k-th answer of one request asking for n (Request.N) with
// the client's seed; where the server does not honour n (it answers fewer,
// or refuses the field), or where req.Read refuses that answer, sample k
// is the answer to a request of its own with seed + 1 + k, read as
// Complete reads (asked again with req.Reminder, then an
// *UnreadableAnswerError). Every answer is cached as Complete caches it,
// so a rerun asks nothing; once a server has not honoured n, the client
// asks for one answer a request.
func (c *Client) Sample(ctx context.Context, req Request, n int) ([]*Response, error) {
	if !(req.Temperature > 0) {
		return nil, fmt.Errorf("llm: sampling at temperature %v: want one above 0", req.Temperature)
	}
	if n < 1 || n > MaxSamples {
		return nil, fmt.Errorf("llm: %d samples: want 1 to %d", n, MaxSamples)
	}
	out := make([]*Response, n)
	all := req
	all.N, all.Read, all.Seed = n, nil, nil
	if n > 1 && !c.singleAnswer.Load() && !c.singlesCached(ctx, all, req, n) {
		resp, err := c.Complete(ctx, all)
		var se *StatusError
		switch {
		case errors.As(err, &se) && (se.StatusCode == http.StatusBadRequest || se.StatusCode == http.StatusUnprocessableEntity):
			// A server that refuses n (some OpenAI-compatible APIs take
			// one answer a request only).
			c.singleAnswer.Store(true)
		case errors.Is(err, ErrQuotesSecret):
			// One of the answers quoted a secret, and was asked again
			// until the re-asks ran out: none is kept (nor cached), and
			// each sample is asked alone, read alone.
		case err != nil:
			return nil, err
		case len(resp.Choices) < n:
			c.singleAnswer.Store(true)
		default:
			for k, r := range resp.Choices[:n] {
				if c.read(req, r) == nil {
					r.Cached = resp.Cached
					out[k] = r
				}
			}
		}
	}
	var missing []int // samples asked one a request
	for k, r := range out {
		if r == nil {
			missing = append(missing, k)
		}
	}
	err := c.Each(ctx, len(missing), func(i int) Request {
		one := req
		seed := c.seed + 1 + missing[i]
		one.N, one.Seed = 0, &seed
		return one
	}, func(i int, r *Response) error {
		out[missing[i]] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
