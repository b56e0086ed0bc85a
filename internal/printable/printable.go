// Package printable makes text that comes from data (records, fetched
// pages, a server's answers) safe to show on a terminal: a control
// character or a bidirectional override in it could set the terminal's
// title, clear the screen, move the cursor or reorder what is shown. Each
// is written as the escape \uXXXX instead, which Go and JSON read back as
// the same character, so that what is shown still says what was there.
package printable

import (
	"io"
	"strings"
	"unicode/utf8"
)

// escaped reports whether r is shown as an escape: a control character
// (C0 but line feed and tab, DEL, C1) or a character that changes the
// direction of the text around it.
func escaped(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

const hex = "0123456789abcdef"

// String returns s with every control character but line feed and tab,
// and every bidirectional control, written as \uXXXX.
func String(s string) string {
	i := strings.IndexFunc(s, escaped)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for s = s[i:]; len(s) > 0; {
		r, n := utf8.DecodeRuneInString(s)
		if escaped(r) {
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[r>>shift&0xf])
			}
		} else {
			b.WriteString(s[:n]) // an invalid byte too: it cannot command a terminal
		}
		s = s[n:]
	}
	return b.String()
}

// Writer returns a writer that writes to w what it is given with the
// characters String escapes escaped, except carriage returns and the
// sequences in keep (a progress bar's own "\x1b[2K"), which pass as they
// are, when a write holds them whole. A character cut between two writes
// (a buffer's end) is escaped as a whole: its first bytes wait for the
// next write (a stream that ends inside one loses them, as a character it
// never finished).
func Writer(w io.Writer, keep ...string) io.Writer { return &writer{w: w, keep: keep} }

type writer struct {
	w    io.Writer
	keep []string
	cut  []byte // the start of a character cut at the end of the last write
}

// Fd is the file descriptor of the writer written to, so that a terminal
// behind it is still known as one; ^uintptr(0) when it has none.
func (w *writer) Fd() uintptr {
	if f, ok := w.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

func (w *writer) Write(p []byte) (int, error) {
	s := string(append(w.cut, p...))
	w.cut = w.cut[:0]
	// A character cut at the end waits for its rest.
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				w.cut = append(w.cut, s[i:]...)
				s = s[:i]
			}
			break
		}
	}
	if strings.IndexFunc(s, escaped) < 0 {
		if _, err := io.WriteString(w.w, s); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexFunc(s, escaped)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		if s[0] == '\r' {
			b.WriteByte('\r')
			s = s[1:]
			continue
		}
		kept := false
		for _, k := range w.keep {
			if strings.HasPrefix(s, k) {
				b.WriteString(k)
				s, kept = s[len(k):], true
				break
			}
		}
		if !kept {
			_, n := utf8.DecodeRuneInString(s)
			b.WriteString(String(s[:n]))
			s = s[n:]
		}
	}
	if _, err := io.WriteString(w.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
