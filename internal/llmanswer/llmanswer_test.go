package llmanswer

import (
	"strings"
	"testing"
)

// sp is as many spaces as s has bytes.
func sp(s string) string { return strings.Repeat(" ", len(s)) }

func TestMaskThink(t *testing.T) {
	tests := []struct {
		in, want string // want "" with err: an error
		err      bool
	}{
		{"neutral", "neutral", false},
		{"<think>entailment?</think>neutral", sp("<think>entailment?</think>") + "neutral", false},
		{"a<THINK>x</Think>b<thinking>y</thinking>c", "a" + sp("<THINK>x</Think>") + "b" + sp("<thinking>y</thinking>") + "c", false},
		{"reasoning, opened in the prompt</think>\n[neutral]", sp("reasoning, opened in the prompt</think>") + "\n[neutral]", false},
		{"<think>never closed [entailment]", "", true},
		{"<reasoning>a</reasoning>b", sp("<reasoning>a</reasoning>") + "b", false},
		// A nested opening tag is part of the block; the first closing
		// tag ends it.
		{"<think><think>x</think>y</think>z", sp("<think><think>x</think>") + "y</think>z", false},
		{"é<think>ü</think>é", "é" + sp("<think>ü</think>") + "é", false},
	}
	for _, tt := range tests {
		got, err := MaskThink(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("MaskThink(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && len(got) != len(tt.in) {
			t.Errorf("MaskThink(%q): offsets moved", tt.in)
		}
	}
}

func TestCheckSize(t *testing.T) {
	if err := CheckSize(strings.Repeat("a", MaxBytes)); err != nil {
		t.Error(err)
	}
	if err := CheckSize(strings.Repeat("a", MaxBytes+1)); err == nil || !strings.Contains(err.Error(), "1048577 bytes") {
		t.Errorf("err %v", err)
	}
}
