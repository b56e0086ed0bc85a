package remotenli_test

import (
	"github.com/factreasoner/factreasoner-go/nli/nlicache"
	"github.com/factreasoner/factreasoner-go/nli/remotenli"
)

// The NLI cache keys a server's answers by the cross-encoder's revision,
// so that answers from before Hugging Face's exact tokenization are not
// reused.
var _ nlicache.Revisioned = (*remotenli.Classifier)(nil)
