package crossenc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/internal/jsonpath"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// ChunkInputs is one input of the model: what it is fed, exactly, for one
// premise chunk and one hypothesis chunk.
type ChunkInputs struct {
	InputIDs      []int `json:"input_ids"`
	AttentionMask []int `json:"attention_mask"`
	// TokenTypeIDs are those the model is fed: the tokenizer's, or zeros
	// for a model whose type_vocab_size is 1.
	TokenTypeIDs []int `json:"token_type_ids"`
	// PremiseSpan and HypothesisSpan are the ranges [start, end) of the
	// premise's and the hypothesis's tokens (the ids of {"text": ...})
	// that the input holds.
	PremiseSpan    [2]int `json:"premise_span"`
	HypothesisSpan [2]int `json:"hypothesis_span"`
}

// PairInputs is every input the model gets for a pair, in the order they
// are run (and aggregated: see Classifier).
type PairInputs struct {
	Chunks []ChunkInputs `json:"chunks"`
}

// TextTokens is a text tokenized alone, without special tokens: Hugging
// Face's tokenizer(text, add_special_tokens=False) with its tokens and
// offsets. Offsets count characters (Unicode code points), as Python's.
type TextTokens struct {
	IDs     []int    `json:"ids"`
	Tokens  []string `json:"tokens"`
	Offsets [][2]int `json:"offsets"`
}

// Inputs returns the model inputs of a pair.
func (e *Encoder) Inputs(premise, hypothesis string) (PairInputs, error) {
	enc, err := e.Encode(premise, hypothesis)
	if err != nil {
		return PairInputs{}, err
	}
	out := PairInputs{Chunks: make([]ChunkInputs, len(enc.Sequences))}
	for i, s := range enc.Sequences {
		c := ChunkInputs{InputIDs: s.IDs, AttentionMask: make([]int, len(s.IDs)), TokenTypeIDs: make([]int, len(s.IDs)),
			PremiseSpan: [2]int{s.PremiseSpan.Start, s.PremiseSpan.End}, HypothesisSpan: [2]int{s.HypothesisSpan.Start, s.HypothesisSpan.End}}
		for k := range s.IDs {
			c.AttentionMask[k] = 1
			if !e.zeroTypes && k < len(s.TypeIDs) {
				c.TokenTypeIDs[k] = s.TypeIDs[k]
			}
		}
		out.Chunks[i] = c
	}
	return out, nil
}

// TextTokens returns the tokens of a text alone.
func (e *Encoder) TextTokens(text string) (TextTokens, error) {
	t, err := e.tok.Encode(text)
	if err != nil {
		return TextTokens{}, err
	}
	out := TextTokens{IDs: t.IDs, Tokens: t.Tokens, Offsets: make([][2]int, t.Len())}
	if out.IDs == nil {
		out.IDs, out.Tokens = []int{}, []string{}
	}
	// Byte offsets to characters, in one pass over the text (the offsets
	// are not monotone: special and trimmed tokens go back).
	chars := make([]int, len(text)+1)
	n := 0
	for i := range text {
		chars[i] = n
		n++
	}
	chars[len(text)] = n
	for i := len(text) - 1; i >= 0; i-- {
		if !utf8.RuneStart(text[i]) {
			chars[i] = chars[i+1]
		}
	}
	for i, o := range t.Offsets {
		out.Offsets[i] = [2]int{chars[min(o[0], len(text))], chars[min(o[1], len(text))]}
	}
	return out, nil
}

// MaxInputLine bounds a line of TokenizeLines.
const MaxInputLine = 64 << 20

// TokenizeLines reads jsonl from r (named name in errors): a line
// {"premise": P, "hypothesis": H} is answered by the PairInputs of the
// pair, a line {"text": T} by the TextTokens of T, one JSON line each on
// w, in order. A line that is neither is an error naming name, the line
// and the field.
func (e *Encoder) TokenizeLines(ctx context.Context, r io.Reader, name string, w io.Writer) error {
	// A line too long is said once MaxInputLine of it is read, and never
	// held (jsonl.LineReader): an endless line from a device or a pipe
	// costs what the bound does.
	lr := jsonl.NewLineReader(r, MaxInputLine)
	bw := bufio.NewWriter(w)
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, tooLong, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err == nil && tooLong {
			err = fmt.Errorf("line longer than %d MiB", MaxInputLine>>20)
		}
		if err != nil {
			bw.Flush() // what was answered stays written
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			out, lerr := e.tokenizeLine(raw)
			if lerr != nil {
				bw.Flush()
				return fmt.Errorf("%s:%d: %w", name, line, lerr)
			}
			b, merr := json.Marshal(out)
			if merr != nil {
				bw.Flush()
				return fmt.Errorf("%s:%d: %w", name, line, merr)
			}
			bw.Write(b)
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

func (e *Encoder) tokenizeLine(raw []byte) (any, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", jsonpath.Error(raw, err))
	}
	str := func(k string) (string, error) {
		var s string
		if err := json.Unmarshal(in[k], &s); err != nil {
			return "", fmt.Errorf("%s: want a string", k)
		}
		return s, nil
	}
	for k := range in {
		if k != "premise" && k != "hypothesis" && k != "text" {
			return nil, fmt.Errorf("%s: unknown field (want premise and hypothesis, or text)", k)
		}
	}
	_, hasText := in["text"]
	_, hasP := in["premise"]
	_, hasH := in["hypothesis"]
	switch {
	case hasText && !hasP && !hasH:
		t, err := str("text")
		if err != nil {
			return nil, err
		}
		out, err := e.TextTokens(t)
		if err != nil {
			return nil, fmt.Errorf("text: %w", err)
		}
		return out, nil
	case hasP && hasH && !hasText:
		p, err := str("premise")
		if err != nil {
			return nil, err
		}
		h, err := str("hypothesis")
		if err != nil {
			return nil, err
		}
		out, err := e.Inputs(p, h)
		if err != nil {
			return nil, err
		}
		return out, nil
	case hasP && !hasH:
		return nil, errors.New("hypothesis: missing")
	case hasH && !hasP:
		return nil, errors.New("premise: missing")
	}
	return nil, errors.New("want {\"premise\", \"hypothesis\"} or {\"text\"}")
}
