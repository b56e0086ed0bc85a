package main

import (
	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/nli/onnxnli"
	"github.com/factreasoner/factreasoner-go/pipeline"
)

// onnxFlags configure the onnx NLI backend.
func onnxFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "nli-model", DefaultText: pipeline.DefaultONNXModel, Category: catNLI,
			Usage: "model of --nli onnx and remote: a directory, or a hub repository id (fr models pull)"},
		&cli.StringFlag{Name: "onnxruntime-lib", EnvVars: []string{onnxnli.LibraryEnvVar}, DefaultText: "installed by scripts/install-onnxruntime", Category: catNLIRuntime,
			Usage: "ONNX Runtime shared library (libonnxruntime.so)"},
		&cli.IntFlag{Name: "nli-batch-size", Value: onnxnli.DefaultBatchSize, Category: catNLIRuntime, Usage: "most sequences per ONNX Runtime call (--nli remote: per request)"},
		&cli.IntFlag{Name: "nli-batch-tokens", Value: onnxnli.DefaultBatchTokens, Category: catNLIRuntime, Usage: "most tokens per ONNX Runtime call (--nli remote: per request), padding included"},
		&cli.IntFlag{Name: "nli-threads", Category: catNLIRuntime, Usage: "ONNX Runtime threads (0: one per core)"},
		&cli.IntFlag{Name: "nli-max-length", Category: catNLIRuntime, Usage: "tokens per model input (0: the model's window); longer premises are split into chunks"},
		&cli.StringFlag{Name: "nli-positive-label", Category: catNLI,
			Usage: "label of a 2-label grounding classifier that means supported (MiniCheck's exports: LABEL_1)"},
		&cli.StringFlag{Name: "nli-unsupported", Value: "neutral", Category: catNLI,
			Usage: "a pair a grounding classifier finds not supported: neutral, or contradiction with 1 − P"},
	}
}

// onnxOptions maps the flags of onnxFlags to the onnx backend's options.
func onnxOptions(c *cli.Context) onnxnli.Options {
	return onnxnli.Options{
		Library:     c.String("onnxruntime-lib"),
		BatchSize:   c.Int("nli-batch-size"),
		BatchTokens: c.Int("nli-batch-tokens"),
		Threads:     c.Int("nli-threads"),
		MaxLength:   c.Int("nli-max-length"),
	}
}
