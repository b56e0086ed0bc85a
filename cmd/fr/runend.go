package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/progress"
	"github.com/factreasoner/factreasoner-go/retrieve"
	"github.com/factreasoner/factreasoner-go/retry"
)

// endedAtOnce reports a run that stopped before it did anything (done
// counts what it did) because an endpoint is not there: a refused
// connection, an unreachable host, a name that does not resolve. Its error
// is then the one line worth printing: the progress summary and the
// backends' summaries would only count zeros.
func endedAtOnce(err error, done int) bool {
	return err != nil && done == 0 && retry.Unreachable(err)
}

// finishRun ends a command's progress display: with its summary, unless
// the run ended at once (endedAtOnce).
func finishRun(prog *progress.Display, summary string, err error, atOnce bool) {
	if atOnce {
		prog.Abandon()
		return
	}
	prog.Finish(summary + stopped(err))
}

// closeRun closes a command's pipeline after its run: its summaries, then
// what only the command line can say (its flags): pages refused for their
// address and the flag that allows them. A run that ended at once is
// closed without either.
func closeRun(c *cli.Context, p *assemble.Pipeline, atOnce bool) error {
	if atOnce {
		return p.Discard()
	}
	err := p.Close()
	if s, ok := p.PageStats(); ok {
		if n := s.Fallbacks[retrieve.FailAddress]; n > 0 {
			fmt.Fprintf(c.App.ErrWriter, "fr: %d pages on loopback, private or other non-public addresses were not fetched (their snippets were kept); --fetch-private allows them\n", n)
		}
	}
	return err
}
