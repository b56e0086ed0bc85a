// Package llmanswer holds what the parsers of the LLM stages (atomizer,
// reviser, NLI, FActScore's verifier) share: the bound on an answer's size
// and the masking of reasoning blocks, which are the model's scratch work
// and not its answer, and of end-of-turn tokens left at its end.
package llmanswer

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// MaxBytes bounds the answers the parsers read. Answers are bounded by the
// requests' token limits (4096 tokens for the atomizer, about 16 KB), so a
// longer one is not an answer to these prompts; refusing it keeps every
// parser's work bounded.
const MaxBytes = 1 << 20

// CheckSize refuses an answer longer than MaxBytes.
func CheckSize(answer string) error {
	if len(answer) > MaxBytes {
		return fmt.Errorf("the answer is %d bytes long, more than the %d an answer may have", len(answer), MaxBytes)
	}
	return nil
}

// Body is an answer as the parsers read it: of a bounded size
// (CheckSize), its reasoning and end tokens masked (MaskThink), and not
// empty once they are (an answer that is only reasoning is no answer).
func Body(answer string) (string, error) {
	if err := CheckSize(answer); err != nil {
		return "", err
	}
	text, err := MaskThink(answer)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the answer is empty")
	}
	return text, nil
}

// thinkTag matches the tags around the reasoning that models such as
// DeepSeek-R1, Qwen3 and QwQ write before their answer when the server
// does not take it out of the content.
var thinkTag = regexp.MustCompile(`(?i)</?(?:think|thinking|reasoning)>`)

// endTokens matches the end-of-turn and end-of-sequence tokens of Llama 3,
// ChatML (Qwen, Granite), Phi, GPT-2-style and SentencePiece models
// (Mistral, Llama 2) at the end of an answer.
var endTokens = regexp.MustCompile(`(?:<\|(?:eot_id|eom_id|im_end|end|endoftext|end_of_text|end_of_turn)\|>|</s>|<end_of_turn>)(?:\s*(?:<\|(?:eot_id|eom_id|im_end|end|endoftext|end_of_text|end_of_turn)\|>|</s>|<end_of_turn>))*\s*$`)

// MaskThink returns the answer with its reasoning blocks (<think>…</think>,
// also <thinking> and <reasoning>) replaced by as many spaces, so that byte
// offsets into the result are offsets into the answer. A closing tag with
// no opening one (some chat templates put the opening tag in the prompt)
// masks everything before it. An opening tag never closed means the answer
// is all reasoning, cut off or not, and is an error.
//
// End-of-turn tokens at the end of the answer (<|eot_id|>, <|im_end|>,
// </s>, …), which a server with the wrong chat template leaves in the
// content, are masked too: they are not text of the answer.
func MaskThink(answer string) (string, error) {
	if loc := endTokens.FindStringIndex(answer); loc != nil {
		answer = answer[:loc[0]] + strings.Repeat(" ", loc[1]-loc[0])
	}
	locs := thinkTag.FindAllStringIndex(answer, -1)
	if len(locs) == 0 {
		return answer, nil
	}
	b := []byte(answer)
	open := 0 // start of the block being masked
	inside := true
	if t := answer[locs[0][0]:locs[0][1]]; !strings.HasPrefix(t, "</") {
		inside = false
	}
	for _, l := range locs {
		closing := answer[l[0]+1] == '/'
		switch {
		case !inside && !closing:
			open, inside = l[0], true
		case inside && closing:
			for i := open; i < l[1]; i++ {
				b[i] = ' '
			}
			inside = false
		}
		// A nested or stray tag inside a block, or a stray closing tag
		// after one, is part of what is masked or left as text.
	}
	if inside {
		return "", fmt.Errorf("the answer is reasoning that never ends (%s is not closed)", answer[open:min(len(answer), open+len("<think>"))])
	}
	return string(b), nil
}

// Clip is the start of an answer for error messages: its first n
// characters, spaces run together, with "…" when there was more.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
