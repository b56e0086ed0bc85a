package hub

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Everything the hub says that reaches a file name is checked first: a
// hostile or broken hub must not make the client write outside the model's
// directory (issue 16: a listed sha256 of "../../pwn" once named a partial
// file outside it).

// maxPathLen bounds a listed file name.
const maxPathLen = 1024

// maxFileSize bounds a listed file's size: the largest NLI models are a few
// GB; a listing that claims more is not believed.
const maxFileSize = 1 << 40

// ValidPath reports why p, a file path in a repository as the hub lists
// it, cannot be stored under a model's directory; nil when it can. A valid
// path is relative, uses forward slashes, and has no empty, "." or ".."
// segment, no backslash, colon, control character or invalid UTF-8.
func ValidPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty file name")
	case len(p) > maxPathLen:
		return fmt.Errorf("file name over %d bytes", maxPathLen)
	case !utf8.ValidString(p):
		return fmt.Errorf("file name %q is not UTF-8", p)
	case strings.ContainsAny(p, "\\:"):
		return fmt.Errorf("file name %q has a backslash or a colon", p)
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("file name %q has a control character", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("file name %q is not a plain relative path", p)
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return fmt.Errorf("file name %q does not stay inside the model's directory", p)
	}
	return nil
}

// isHex reports whether s is n lower- or upper-case hexadecimal digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// validCommit reports whether s is a git commit id (40 hex digits).
func validCommit(s string) bool { return isHex(s, 40) }

// validFile checks what a listing says about a file: its path, its size
// and its hash (a sha256 for LFS files, a git blob id for the others; at
// least one, so that every download is checked).
func validFile(f File) error {
	if err := ValidPath(f.Path); err != nil {
		return err
	}
	switch {
	case f.Size < -1 || f.Size > maxFileSize:
		return fmt.Errorf("%s: size %d is not believable", f.Path, f.Size)
	case f.SHA256 != "" && !isHex(f.SHA256, 64):
		return fmt.Errorf("%s: sha256 %q is not 64 hexadecimal digits", f.Path, clip(f.SHA256))
	case f.BlobID != "" && !isHex(f.BlobID, 40):
		return fmt.Errorf("%s: blob id %q is not 40 hexadecimal digits", f.Path, clip(f.BlobID))
	case f.SHA256 == "" && f.BlobID == "":
		return fmt.Errorf("%s: no sha256 or blob id to check the download against", f.Path)
	}
	return nil
}

// clip shortens a hostile value for a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// inside returns dir/rel (rel a valid repository path), and an error if
// the result would not lie inside dir.
func inside(dir, rel string) (string, error) {
	if err := ValidPath(rel); err != nil {
		return "", err
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	r, err := filepath.Rel(dir, p)
	if err != nil || !filepath.IsLocal(r) {
		return "", fmt.Errorf("file name %q does not stay inside %s", rel, dir)
	}
	return p, nil
}
