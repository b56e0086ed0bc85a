package pystr

import (
	"reflect"
	"strings"
	"testing"
)

func TestFields(t *testing.T) {
	// Expected values are what CPython 3 prints for s.split().
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"a b", []string{"a", "b"}},
		{"\ta\n\nb  c\r\n", []string{"a", "b", "c"}},
		{"a\x1cb\x1fc", []string{"a", "b", "c"}}, // information separators split in Python
		{"a\u00a0b\u2009c\u3000d", []string{"a", "b", "c", "d"}},
		{"a\u200bb", []string{"a\u200bb"}}, // zero-width space is not whitespace
	}
	for _, tt := range tests {
		got := Fields(tt.in)
		if len(got) == 0 && len(tt.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Fields(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFieldsASCII checks the ASCII fast path against the general one on
// every ASCII byte as separator.
func TestFieldsASCII(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		s := "ab" + string(rune(c)) + "cd" + string(rune(c)) + string(rune(c)) + "e"
		got := Fields(s)
		want := strings.FieldsFunc(s, IsSpace)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("separator %#x: %q, want %q", c, got, want)
		}
	}
}

func TestStripAndPunct(t *testing.T) {
	if got := Strip("\x1e  x y \n\x1c"); got != "x y" {
		t.Errorf("Strip = %q", got)
	}
	for _, r := range "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		if !IsPunct(r) {
			t.Errorf("IsPunct(%q) = false", r)
		}
	}
	for _, r := range "a0 \n–“”…" {
		if IsPunct(r) {
			t.Errorf("IsPunct(%q) = true", r)
		}
	}
}
