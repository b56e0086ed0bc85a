package main

import (
	"context"
	"io"
	"log"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/assemble"
	"github.com/factreasoner/factreasoner-go/hub"
	"github.com/factreasoner/factreasoner-go/internal/printable"
	"github.com/factreasoner/factreasoner-go/internal/redact"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

// Every message fr prints on stderr, and the error it ends with, goes
// through one redactor that knows every secret the process holds: the
// keys in the environment and the token file, the key flags, and the
// credentials in endpoint URLs. A server may echo a key in any answer, and
// a message may cut it anywhere; the library redacts what it knows too,
// but only here are all the secrets known at once.

// secretEnv are the environment variables that hold secrets.
var secretEnv = []string{"OPENAI_API_KEY", retrieve.SerperKeyEnv, hub.EnvToken, "HUGGING_FACE_HUB_TOKEN"}

// urlEnv are the environment variables that hold endpoint URLs, which may
// carry credentials.
var urlEnv = []string{"OPENAI_BASE_URL", hub.EnvEndpoint}

// secretFlags are the flags that hold secrets, urlFlags those that hold
// endpoint URLs: the settings that say so (assemble.Setting's Secret and
// URL), and fr kb build's embeddings endpoint.
func secretFlags() (secrets, urls []string) {
	var r runs
	urls = []string{"embed-endpoint"}
	for _, s := range assemble.Settings(assemble.Kinds()...) {
		switch {
		case s.Secret:
			secrets = append(secrets, r.flag(s.Name()))
		case s.URL:
			urls = append(urls, r.flag(s.Name()))
		}
	}
	return secrets, urls
}

// newRedactor returns a redactor that knows the secrets of the
// environment and of the token file.
func newRedactor() *redact.Redactor {
	r := redact.New()
	for _, name := range secretEnv {
		r.Add(os.Getenv(name))
	}
	for _, name := range urlEnv {
		r.Add(redact.Secrets(os.Getenv(name))...)
	}
	if tok, _, err := hub.Token(); err == nil {
		r.Add(tok)
	}
	return r
}

// addFlagSecrets makes r know the secrets given as flags of c's command.
func addFlagSecrets(c *cli.Context, r *redact.Redactor) {
	secrets, urls := secretFlags()
	for _, name := range secrets {
		r.Add(c.String(name))
	}
	for _, name := range urls {
		r.Add(redact.Secrets(c.String(name))...)
	}
}

// logThrough sends the lines of the standard logger to w through the
// app's redactor. fr itself never logs with it, but Go's HTTP client does:
// a server that sends bytes after its answer gets "Unsolicited response
// received on idle HTTP channel starting with …" (net/http's
// persistConn.readLoopPeekFailLocked), with those bytes quoted, and they
// may echo the request's Authorization header. Nothing in the library
// can reach that line; the process that owns stderr routes it.
func logThrough(app *cli.App, w io.Writer) {
	r, _ := app.Metadata[redactorKey].(*redact.Redactor)
	if r == nil {
		r = newRedactor()
	}
	log.SetFlags(0)
	log.SetPrefix("fr: ")
	log.SetOutput(stderrWriter(r, namesOf(app), w))
}

// knownSecrets are the secrets the app's redactor knows once c's flags are
// parsed: a model's answer that quotes one is not kept (llm.Config.Secrets).
func knownSecrets(c *cli.Context) []string {
	if r, ok := c.App.Metadata[redactorKey].(*redact.Redactor); ok {
		return r.Known()
	}
	return nil
}

// redactorKey keys the app's redactor in its Metadata.
const redactorKey = "redactor"

// execute runs app with args, its stderr and its error redacted.
func execute(ctx context.Context, app *cli.App, args []string) error {
	r, _ := app.Metadata[redactorKey].(*redact.Redactor)
	if r == nil {
		r = newRedactor()
	}
	errw := app.ErrWriter
	if errw == nil {
		errw = os.Stderr
	}
	names := namesOf(app)
	app.ErrWriter = stderrWriter(r, names, errw)
	err := app.RunContext(ctx, args)
	if err == nil {
		return nil
	}
	return &redactedError{msg: printable.String(r.String(names.String(err.Error()))), err: err}
}

// stderrWriter is what fr writes its messages through to w: secrets
// redacted, control characters that came with data (a record, a page, a
// server's answer) escaped (package printable), all but the progress
// bar's own sequences, and spooled inputs named as the user gave them.
func stderrWriter(r *redact.Redactor, names *spoolNames, w io.Writer) io.Writer {
	return printable.Writer(r.Writer(names.Writer(w)), "\x1b[2K", "\x1b[0K")
}

// redactedError is an error whose message is redacted (and its control
// characters escaped); it still wraps the error, for the exit status.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
