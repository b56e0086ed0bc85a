package factscore

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/internal/llmanswer"
	"github.com/factreasoner/factreasoner-go/llm"
)

// LabelVerifier asks a chat model, claim by claim, a question whose answer
// names one of three verdicts (VerdictS, VerdictC, VerdictU), as the
// verifiers of FactReasoner's VeriScore and FactVerify baselines do: the
// prompt and the rule that reads the answer are the baseline's (packages
// veriscore and factverify). Claims without evidence are asked too, with
// none, as FactReasoner asks them. An answer Read refuses is asked again
// with Reminder, as often as the client's llm.Config.Reasks allows, and
// is never cached; then it is an *llm.UnreadableAnswerError, never a
// verdict. A LabelVerifier is safe for concurrent use and must not be
// copied after first use.
type LabelVerifier struct {
	Client *llm.Client
	// Verifier names the verifier for output records ("veriscore",
	// "factverify"): Name is it, a colon, and the model.
	Verifier string
	// Stage names the stage in errors ("veriscore verifier").
	Stage string
	// Messages are the conversation that asks about a claim of a topic.
	Messages func(topic string, c Claim) ([]llm.Message, error)
	// Read reads an answer's verdict.
	Read      func(answer string) (string, error)
	Reminder  string
	MaxTokens int

	answers, reasks, unreadable atomic.Int64
	verdicts                    [3]atomic.Int64 // S, C, U
}

// Name implements Verifier.
func (v *LabelVerifier) Name() string { return v.Verifier + ":" + v.Client.Model() }

// Verify implements Verifier: the claims are asked about as many at once
// as the client allows.
func (v *LabelVerifier) Verify(ctx context.Context, topic string, claims []Claim) ([]Decision, error) {
	msgs := make([][]llm.Message, len(claims))
	for i, c := range claims {
		m, err := v.Messages(topic, c)
		if err != nil {
			return nil, fmt.Errorf("atom %s: %w", c.ID, err)
		}
		msgs[i] = m
	}
	read := func(r *llm.Response) error {
		if r.FinishReason == "length" {
			// The verdict comes last: one in reasoning cut off is not it.
			return fmt.Errorf("the answer was cut off at the token limit before its verdict")
		}
		_, err := v.Read(r.Content)
		return err
	}
	out := make([]Decision, len(claims))
	err := v.Client.Each(ctx, len(claims), func(i int) llm.Request {
		return llm.Request{Messages: msgs[i], MaxTokens: v.MaxTokens, Read: read, Reminder: v.Reminder,
			Stage: v.Stage, Item: "atom " + claims[i].ID}
	}, func(i int, r *llm.Response) error {
		verdict, err := v.Read(r.Content)
		if err != nil { // Read accepted it: cannot happen
			return err
		}
		v.reasks.Add(int64(r.Reasks))
		v.answers.Add(1)
		switch verdict {
		case VerdictS:
			v.verdicts[0].Add(1)
		case VerdictC:
			v.verdicts[1].Add(1)
		default:
			v.verdicts[2].Add(1)
		}
		out[i] = Decision{ID: claims[i].ID, Atom: claims[i].Text, Supported: verdict == VerdictS, Verdict: verdict,
			Answer: r.Content, NoEvidence: len(claims[i].Evidence) == 0}
		return nil
	})
	if err != nil {
		llmanswer.CountUnreadable(err, &v.reasks, &v.unreadable)
		return nil, err
	}
	return out, nil
}

// LabelStats count a LabelVerifier's answers.
type LabelStats struct {
	Answers                          int64
	Supported, Contradicted, Neither int64
	Reasks                           int64
	Unreadable                       int64
}

func (s LabelStats) String() string {
	return fmt.Sprintf("%d answers (%d supported, %d contradicted, %d neither); %d re-asks, %d answers unreadable after re-asking",
		s.Answers, s.Supported, s.Contradicted, s.Neither, s.Reasks, s.Unreadable)
}

// Stats returns the counts so far.
func (v *LabelVerifier) Stats() LabelStats {
	return LabelStats{Answers: v.answers.Load(), Supported: v.verdicts[0].Load(), Contradicted: v.verdicts[1].Load(),
		Neither: v.verdicts[2].Load(), Reasks: v.reasks.Load(), Unreadable: v.unreadable.Load()}
}
