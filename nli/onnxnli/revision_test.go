package onnxnli

import "github.com/factreasoner/factreasoner-go/nli/nlicache"

// The NLI cache keys a model's answers by the cross-encoder's revision, so
// that answers from before Hugging Face's exact tokenization are not reused.
var _ nlicache.Revisioned = (*Model)(nil)
