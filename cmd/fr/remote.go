package main

import (
	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/nli/remotenli"
)

// remoteFlags configure the remote NLI backend. Its tokenizer, window and
// labels come from --nli-model; --nli-batch-size, --nli-batch-tokens and
// --nli-max-length bound its requests as they bound the onnx backend's
// calls.
func remoteFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "nli-protocol", Value: remotenli.KServe, Category: catNLIRuntime,
			Usage: "protocol of --nli remote: kserve (Triton, KServe, MLServer) or tei (text-embeddings-inference)"},
		&cli.StringFlag{Name: "nli-endpoint", Category: catNLIRuntime, Usage: "base `URL` of the inference server of --nli remote, e.g. http://localhost:8000"},
		&cli.StringFlag{Name: "nli-remote-model", Category: catNLIRuntime, Usage: "model name at the server of --nli remote (required with kserve)"},
		&cli.IntFlag{Name: "nli-concurrency", Value: remotenli.DefaultConcurrency, Category: catNLIRuntime, Usage: "most requests of --nli remote in flight at once"},
		&cli.DurationFlag{Name: "nli-timeout", Value: remotenli.DefaultTimeout, Category: catNLIRuntime, Usage: "time limit of one request attempt of --nli remote"},
	}
}

// remoteOptions maps the flags of remoteFlags, and the batching flags, to
// the remote backend's options. A request's token cap defaults to the
// remote backend's own (the onnx default suits CPUs, not servers).
func remoteOptions(c *cli.Context) remotenli.Options {
	o := remotenli.Options{
		Protocol:    c.String("nli-protocol"),
		Endpoint:    c.String("nli-endpoint"),
		Model:       c.String("nli-remote-model"),
		BatchSize:   c.Int("nli-batch-size"),
		MaxLength:   c.Int("nli-max-length"),
		Concurrency: c.Int("nli-concurrency"),
		Timeout:     c.Duration("nli-timeout"),
	}
	if c.IsSet("nli-batch-tokens") {
		o.BatchTokens = c.Int("nli-batch-tokens")
	}
	return o
}
