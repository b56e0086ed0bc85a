package printable

import (
	"strconv"
	"strings"
	"testing"
)

// TestString: what could command a terminal is escaped, and reads back
// (as a Go string literal) to what it was; other text, newlines, tabs and
// any language's letters, is left as it is.
func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Marie Curie was born in Warsaw.\n\tShe moved.", "Marie Curie was born in Warsaw.\n\tShe moved."},
		{"title \x1b]0;owned\x07 set", `title \u001b]0;owned\u0007 set`},
		{"clear \x1b[2J\x1b[H screen", `clear \u001b[2J\u001b[H screen`},
		{"C1 \u009b31m CSI", `C1 \u009b31m CSI`},
		{"bidi \u202eevil\u202c, isolate \u2066x\u2069", `bidi \u202eevil\u202c, isolate \u2066x\u2069`},
		{"carriage\rreturn, DEL\x7f, NUL\x00", `carriage\u000dreturn, DEL\u007f, NUL\u0000`},
		{"Zürich, 東京, مرحبا", "Zürich, 東京, مرحبا"},
	}
	for _, tt := range tests {
		got := String(tt.in)
		if got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		back, err := strconv.Unquote(`"` + strings.NewReplacer("\n", `\n`, "\t", `\t`, `"`, `\"`).Replace(got) + `"`)
		if err != nil || back != tt.in {
			t.Errorf("%q does not read back: %q, %v", got, back, err)
		}
	}
}

// TestWriter: a writer escapes as String does, but lets carriage returns
// and the sequences it keeps pass (a progress bar's).
func TestWriter(t *testing.T) {
	var b strings.Builder
	w := Writer(&b, "\x1b[2K", "\x1b[0K")
	w.Write([]byte("\x1b[2K\r 40% |████      | 2/5\x1b[0K"))
	w.Write([]byte("fr: line 3: context \"\x1b]0;owned\x07\" has no text\n"))
	want := "\x1b[2K\r 40% |████      | 2/5\x1b[0K" + `fr: line 3: context "\u001b]0;owned\u0007" has no text` + "\n"
	if b.String() != want {
		t.Errorf("wrote %q\nwant  %q", b.String(), want)
	}
}

// TestWriterCutCharacter: a character cut between two writes (a C1
// control is two bytes in UTF-8, a bidirectional override three) is
// escaped whole, and other characters cut so come out whole.
func TestWriterCutCharacter(t *testing.T) {
	in := "a\u009b31mb\u202ec東d"
	for cut := range len(in) + 1 {
		var b strings.Builder
		w := Writer(&b)
		w.Write([]byte(in[:cut]))
		w.Write([]byte(in[cut:]))
		if want := `a\u009b31mb\u202ec東d`; b.String() != want {
			t.Errorf("cut at %d: %q, want %q", cut, b.String(), want)
		}
	}
}
