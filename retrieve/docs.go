package retrieve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/jsonl"
)

// DocumentFiles expands paths to the files that hold documents: files as
// given, directories into their regular files (recursively, in lexical
// order, hidden files left out).
func DocumentFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory", a)
		}
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			// A device (/dev/zero) or a socket holds no documents.
			if err := safefile.CheckInput(a); err != nil {
				return nil, err
			}
			files = append(files, a)
			continue
		}
		err = filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// ReadDocuments calls add with each document of a file, in order:
//
//   - *.jsonl, *.json: one {"title": ..., "text": "..." or ["piece", ...]}
//     object per line;
//   - any other file: UTF-8 text whose title is the file name without its
//     extension, and whose pieces are its paragraphs (split at blank lines).
//
// Errors name the file and, for jsonl, the line.
func ReadDocuments(path string, add func(Document) error) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".json":
		return readJSONLDocs(path, add)
	}
	data, err := readText(path)
	if err != nil {
		return err
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%s: not UTF-8 text (plain-text documents must be UTF-8; use .jsonl for structured input)", path)
	}
	title := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return add(Document{Title: title, Pieces: paragraphs(string(data))})
}

// MaxTextBytes bounds a plain-text document, which is held whole while
// it is split into paragraphs: a book is a few megabytes. Larger
// collections go in .jsonl files, a document a line.
const MaxTextBytes = jsonl.MaxLineBytes

// readText reads a plain-text document of at most MaxTextBytes.
func readText(path string) ([]byte, error) {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTextBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxTextBytes {
		return nil, fmt.Errorf("%s: a plain-text document of more than %d bytes, the most one may take (split it, or give a .jsonl file of documents, one a line)", path, MaxTextBytes)
	}
	return data, nil
}

var blankLines = regexp.MustCompile(`\n[ \t\r\f\v]*\n`)

// paragraphs splits text at blank lines.
func paragraphs(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return blankLines.Split(text, -1)
}

// readJSONLDocs reads {"title": ..., "text": "..." | ["...", ...]} lines.
func readJSONLDocs(path string, add func(Document) error) error {
	return jsonl.ReadLines(path, jsonl.MaxLineBytes, func(line int, raw []byte) error {
		d, err := parseDocLine(raw)
		if err == nil {
			err = add(d)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		return nil
	})
}

func parseDocLine(raw []byte) (Document, error) {
	var rec struct {
		Title *string         `json:"title"`
		Text  json.RawMessage `json:"text"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		if fe, ok := instance.JSONError(raw, err).(*instance.FieldError); ok {
			return Document{}, fmt.Errorf("%s: %s", fe.Field, fe.Msg)
		}
		return Document{}, fmt.Errorf("invalid JSON (want one {\"title\": ..., \"text\": ...} object per line): %w", err)
	}
	if rec.Title == nil || strings.TrimSpace(*rec.Title) == "" {
		return Document{}, errors.New("title: missing or empty")
	}
	d := Document{Title: *rec.Title}
	if t := bytes.TrimSpace(rec.Text); len(t) == 0 || string(t) == "null" {
		return Document{}, errors.New("text: missing or null (want a string or an array of strings)")
	}
	var one string
	if err := json.Unmarshal(rec.Text, &one); err == nil {
		d.Pieces = []string{one}
		return d, nil
	}
	var pieces []*string // a null piece is an error, not ""
	if err := json.Unmarshal(rec.Text, &pieces); err != nil || slices.Contains(pieces, nil) {
		return Document{}, errors.New("text: want a string or an array of strings")
	}
	for _, p := range pieces {
		d.Pieces = append(d.Pieces, *p)
	}
	return d, nil
}
