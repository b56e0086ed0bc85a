package llmnli

import (
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/llm"
	"github.com/factreasoner/factreasoner-go/llm/llmtest"
)

// BenchmarkParseV2: a v2 answer of about 200 tokens of reasoning.
func BenchmarkParseV2(b *testing.B) {
	content := strings.Repeat("The premise says something about it. ", 40) + "\n[entailment]"
	var tokens []llm.Token
	for _, t := range llmtest.Tokenize(content, -0.1) {
		tokens = append(tokens, llm.Token{Text: t.Text, Bytes: []byte(t.Text), Logprob: *t.Logprob})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseV2(content, tokens); err != nil {
			b.Fatal("invalid")
		}
	}
}
