package main

import (
	"errors"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assess"
	"github.com/factreasoner/factreasoner-go/nli/nlimodel"
)

// withFlagNames renames the options an error names (assemble.OptionError,
// "(Options.K)") after the command's flags that set them, keeping what the
// error is (its exit status); the error of a record without NLI says the
// ways to get it.
func (r runs) withFlagNames(err error) error {
	if errors.Is(err, assess.ErrNoNLI) {
		err = &renamedError{msg: strings.Replace(err.Error(), assess.ErrNoNLI.Error(), noNLIHint, 1), err: err}
	}
	return r.naming().Error(err)
}

// noNLIHint says, for assess.ErrNoNLI, the ways to get NLI.
var noNLIHint = "the record has no relations and no NLI model is configured: for results, pull one (fr models pull " +
	nlimodel.Default + ", then --nli auto or --nli onnx uses it), or use --nli llm (an OpenAI-compatible endpoint, with --llm-model) " +
	"or --nli remote (an inference server, with --nli-endpoint); --nli lexical tries the tool without a model (it compares words, not meaning: not for results)"

// renamedError is an error whose message names flags instead of options.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// renamingActions makes each command's errors name its flags
// (withFlagNames).
func renamingActions(cmds []*cli.Command) {
	for _, c := range cmds {
		if action := c.Action; action != nil {
			r := runsOf(c.Name)
			c.Action = func(ctx *cli.Context) error { return r.withFlagNames(action(ctx)) }
		}
		renamingActions(c.Subcommands)
	}
}

// prefixLines writes each line to w with prefix before it: the library's
// log lines, which name no program, as fr's ("fr: warning: …").
type prefixLines struct {
	w       io.Writer
	prefix  string
	midLine bool
}

func (p *prefixLines) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if !p.midLine {
			out = append(out, p.prefix...)
		}
		out = append(out, c)
		p.midLine = c != '\n'
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
