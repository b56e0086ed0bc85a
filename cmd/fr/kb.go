package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/retrieve"
)

func kbCommand() *cli.Command {
	return &cli.Command{
		Name:  "kb",
		Usage: "knowledge bases in FActScore's SQLite format",
		Subcommands: []*cli.Command{{
			Name:      "build",
			Usage:     "build a knowledge base from documents",
			ArgsUsage: "DOCS...",
			Description: "Writes an SQLite file in FActScore's format, documents(title, text), the text being the\n" +
				"document's passages joined by ####SPECIAL####SEPARATOR####; fr retrieve, fr factscore and\n" +
				"fr score look documents up by the record's topic (exact title match).\n\n" +
				"DOCS are files or directories (their files, recursively, in name order):\n" +
				"  *.jsonl, *.json  one JSON object per line: {\"title\": ..., \"text\": \"...\" or [\"piece\", ...]}\n" +
				"  any other file   plain UTF-8 text; title = the file name without extension;\n" +
				"                   paragraphs (separated by blank lines) are its pieces\n" +
				"Documents with the same title are merged; repeated pieces are dropped. Pieces are\n" +
				"packed into passages of at most --max-tokens RoBERTa tokens, split at word boundaries\n" +
				"when a piece is longer. Without --tokenizer, passages hold at most 3/4 as many words\n" +
				"(192 for 256 tokens: RoBERTa averages 1.3 tokens per English word), an approximation.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "knowledge base file to write"},
				&cli.StringFlag{Name: "tokenizer", Usage: "a RoBERTa `tokenizer.json` (Hugging Face format) to size passages in tokens"},
				&cli.IntFlag{Name: "max-tokens", Value: retrieve.DefaultMaxTokens, Usage: "passage size in tokens"},
				&cli.BoolFlag{Name: "force", Usage: "replace OUTPUT if it exists"},
			},
			Action: runKBBuild,
		}},
	}
}

func runKBBuild(c *cli.Context) error {
	if c.NArg() == 0 {
		return errors.New("kb build: no DOCS given (see fr kb build --help)")
	}
	opts := retrieve.BuildOptions{MaxTokens: c.Int("max-tokens"), Overwrite: c.Bool("force")}
	if opts.MaxTokens < 1 {
		return fmt.Errorf("--max-tokens %d: want at least 1", opts.MaxTokens)
	}
	if path := c.String("tokenizer"); path != "" {
		tok, err := retrieve.LoadHFTokenizer(path)
		if err != nil {
			return fmt.Errorf("--tokenizer: %w", err)
		}
		opts.Tokenizer = tok
	} else {
		fmt.Fprintf(c.App.ErrWriter, "fr kb build: no --tokenizer: passages are sized in words (at most %d), an approximation of %d RoBERTa tokens\n",
			int(float64(opts.MaxTokens)*retrieve.WordsPerToken), opts.MaxTokens)
	}
	files, err := docFiles(c.Args().Slice())
	if err != nil {
		return err
	}
	out := c.String("output")
	b, err := retrieve.NewBuilder(out, opts)
	if err != nil {
		if !opts.Overwrite && strings.Contains(err.Error(), "already exists") {
			return fmt.Errorf("%w (use --force to replace it)", err)
		}
		return err
	}
	defer b.Abort() // a no-op after a successful Finish
	start, last := time.Now(), time.Now()
	docs := 0
	for _, f := range files {
		err := readDocs(f, func(d retrieve.Document) error {
			docs++
			if time.Since(last) >= time.Second {
				last = time.Now()
				fmt.Fprintf(c.App.ErrWriter, "fr kb build: read %d documents (%s)\n", docs, f)
			}
			return b.Add(c.Context, d)
		})
		if err != nil {
			return err
		}
	}
	b.Progress = func(done, total int) {
		if time.Since(last) >= time.Second {
			last = time.Now()
			fmt.Fprintf(c.App.ErrWriter, "fr kb build: split %d of %d documents, %.1fs\n", done, total, time.Since(start).Seconds())
		}
	}
	st, err := b.Finish(c.Context)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "fr kb build: wrote %s: %d documents, %d passages (%d pieces read, %d repeated pieces dropped, %d repeated titles merged, %d empty documents skipped) in %.1fs\n",
		out, st.Documents, st.Passages, st.Pieces, st.DuplicatePieces, st.RepeatedTitles, st.EmptyDocuments, time.Since(start).Seconds())
	return nil
}

// docFiles expands the DOCS arguments: files as given, directories into
// their regular files (recursively, in lexical order).
func docFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
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

// readDocs reads the documents of one file.
func readDocs(path string, add func(retrieve.Document) error) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".json":
		return readJSONLDocs(path, add)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%s: not UTF-8 text (plain-text documents must be UTF-8; use .jsonl for structured input)", path)
	}
	title := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return add(retrieve.Document{Title: title, Pieces: paragraphs(string(data))})
}

var blankLines = regexp.MustCompile(`\n[ \t\r\f\v]*\n`)

// paragraphs splits text at blank lines.
func paragraphs(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return blankLines.Split(text, -1)
}

// readJSONLDocs reads {"title": ..., "text": "..." | ["...", ...]} lines.
func readJSONLDocs(path string, add func(retrieve.Document) error) error {
	return jsonl.ReadLines(path, func(line int, raw []byte) error {
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

func parseDocLine(raw []byte) (retrieve.Document, error) {
	var rec struct {
		Title *string         `json:"title"`
		Text  json.RawMessage `json:"text"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return retrieve.Document{}, fmt.Errorf("invalid JSON (want one {\"title\": ..., \"text\": ...} object per line): %w", err)
	}
	if rec.Title == nil || strings.TrimSpace(*rec.Title) == "" {
		return retrieve.Document{}, errors.New("title: missing or empty")
	}
	d := retrieve.Document{Title: *rec.Title}
	var one string
	if err := json.Unmarshal(rec.Text, &one); err == nil {
		d.Pieces = []string{one}
	} else if err := json.Unmarshal(rec.Text, &d.Pieces); err != nil || len(rec.Text) == 0 || string(rec.Text) == "null" {
		return retrieve.Document{}, errors.New("text: want a string or an array of strings")
	}
	return d, nil
}
