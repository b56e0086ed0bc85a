// Package foreign reads the runs that fr score did not write, so that
// fr compare and fr report can put them beside its runs: FactReasoner's
// result files, and the output of fr factscore.
//
// A FactReasoner result file holds what its assessor writes: the record as
// it was scored (to_json: input, output, topic, atoms, contexts) with its
// "results" object, pretty-printed or one per line, or the results objects
// alone, one per line, as its evaluation scripts write them. Its results
// carry the atoms' marginals; those of its baselines (FactScore, VeriScore,
// FactVerify) carry a decision per atom instead ("predictions").
// An fr factscore output is one line per record with a decision per fact,
// and its summary last.
//
// Both are read into one model, Run and Record: the atoms with their gold
// labels and either a marginal P(true) or a decision each. The measures are
// this project's, computed from those (Record.Scores, with the K given);
// values the file records under names this project defines otherwise
// (FactReasoner's entropy in natural log, its num_false_atoms with the
// undecided atoms) are kept apart under their own names (Record.Recorded).
// The kind of a file is told from its content (Detect), never its name.
package foreign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/safefile"
	"github.com/factreasoner/factreasoner-go/jsonl"
	"github.com/factreasoner/factreasoner-go/score"
)

// Kind is the system that wrote a run file.
type Kind int

// Kinds of run files; the zero Kind is none of them.
const (
	// FactReasoner is a FactReasoner result file: its assessor's, with the
	// atoms' marginals, or one of its baselines', with a decision per atom.
	FactReasoner Kind = iota + 1
	// FActScore is the output of fr factscore.
	FActScore
)

func (k Kind) String() string {
	switch k {
	case FactReasoner:
		return "FactReasoner result file"
	case FActScore:
		return "fr factscore output"
	}
	return "not a foreign run"
}

// Run is the records of one run file.
type Run struct {
	Path string
	Kind Kind
	// Decided marks a run that decides each atom, supported or not,
	// without a P(true): FactReasoner's baselines and fr factscore. Its
	// entropy measure, undecided atoms, Brier score and calibration do not
	// exist.
	Decided bool
	// Verifier is fr factscore's verifier as its summary line names it
	// ("gold" for human labels); "" without a summary line. Assessor is
	// the summary's assessor: "veriscore" (fr veriscore), "factverify"
	// (fr factverify), "" for fr factscore.
	Verifier string
	Assessor string
	// Totals are values the run's summary records over the whole run, in
	// its own terms (fr veriscore's VeriScore and K: "veriscore",
	// "veriscore_k"), given after the records' means by RecordedMeans.
	Totals  Values
	Records []*Record
	// Skipped counts the records that have no atoms to score: fr factscore's
	// responses that abstained or have no facts (left out of its means too).
	Skipped int
}

// Label names the run by where it came from: "FactReasoner (FILE)",
// "FactReasoner baseline (FILE)" (decisions without marginals), "fr
// factscore (verifier NAME)" (fr veriscore, fr factverify: theirs), "fr
// factscore (gold)" for human labels, or "fr factscore (FILE)" for an
// output without its summary line.
func (r *Run) Label() string {
	file := filepath.Base(r.Path)
	cmd := "fr factscore"
	if r.Assessor != "" {
		cmd = "fr " + r.Assessor
	}
	switch {
	case r.Kind == FactReasoner && r.Decided:
		return "FactReasoner baseline (" + file + ")"
	case r.Kind == FactReasoner:
		return "FactReasoner (" + file + ")"
	case r.Verifier == "gold":
		return cmd + " (gold)"
	case r.Verifier != "":
		return cmd + " (verifier " + r.Verifier + ")"
	}
	return cmd + " (" + file + ")"
}

// Record is what a run says about one response.
type Record struct {
	// Line is where the record is: the line it starts on in its run file
	// (FactReasoner), or the line of the input record it was scored from
	// (fr factscore). Runs of the same input are matched by it.
	Line int
	// At is the line of the run file the record starts on.
	At     int
	Input  string
	Output string // "" where the file does not record it (see HasOutput)
	Topic  string
	// HasOutput: the file records the response text (fr factscore and
	// FactReasoner's results alone do not).
	HasOutput bool
	// Atoms in the file's order, with their gold labels. HasAtomText: the
	// file records their texts (FactReasoner's results alone do not).
	Atoms       []instance.Atom
	HasAtomText bool
	// Contexts as the file records them (FactReasoner's to_json only).
	Contexts []instance.Context
	// PTrue is each atom's marginal P(true) by atom id; nil in a decided run.
	PTrue map[string]float64
	// Supported is each atom's decision by atom id, in a decided run; nil
	// otherwise.
	Supported map[string]bool
	// Recorded are the values the file records, under its names, where this
	// project defines a measure of that name otherwise or does not compute
	// it (Recorded names them).
	Recorded Values
}

// Scores are this project's measures of the record with K = k, computed
// from its marginals, or from its decisions in a decided run (as P(true) 1
// or 0: the counts, precision, F1@K and the agreement with gold labels are
// exact; the entropy measure, undecided atoms and Brier score of such a run
// do not exist, and a caller must not report them).
func (r *Record) Scores(k score.K) score.Scores {
	atoms := make([]score.Atom, len(r.Atoms))
	for i, a := range r.Atoms {
		atoms[i] = score.Atom{ID: a.ID, Gold: a.Label}
		if r.PTrue != nil {
			atoms[i].PTrue = r.PTrue[a.ID]
		} else if r.Supported[a.ID] {
			atoms[i].PTrue = 1
		}
	}
	return score.Compute(atoms, k)
}

// K resolves the rule for F1@K's K for the run: "median" is the median
// atom count of its records (as fr score takes it over its input); the
// other rules are as they are.
func (r *Run) K(k score.K) score.K {
	if k.Half || k.Name != "median" {
		return k
	}
	counts := make([]int, len(r.Records))
	for i, rec := range r.Records {
		counts[i] = len(rec.Atoms)
	}
	k.Value = score.Median(counts)
	return k
}

// Value is one value a run file records under its own name; nil Value is
// a JSON null (FactReasoner's baselines write "entropy": null).
type Value struct {
	Name  string
	Value *float64
}

// Values are values in their file's order. They encode as a JSON object.
type Values []Value

// MarshalJSON writes the values as one object, in order.
func (vs Values) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(v.Name)
		b.Write(name)
		b.WriteByte(':')
		if v.Value == nil || math.IsNaN(*v.Value) || math.IsInf(*v.Value, 0) {
			b.WriteString("null")
			continue
		}
		num, err := json.Marshal(*v.Value)
		if err != nil {
			return nil, err
		}
		b.Write(num)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns the value of that name, and whether there is one.
func (vs Values) Get(name string) (float64, bool) {
	for _, v := range vs {
		if v.Name == name && v.Value != nil {
			return *v.Value, true
		}
	}
	return 0, false
}

// RecordedMeans are the means over the run's records of the values they
// record (Record.Recorded), in the order of their first appearance, then
// the run's Totals. A name that some record lacks, or records as null, has
// no mean (nil Value): a mean over some of the records would not be the
// run's.
func (r *Run) RecordedMeans() Values {
	var out Values
	index := make(map[string]int)
	for _, rec := range r.Records {
		for _, v := range rec.Recorded {
			if _, ok := index[v.Name]; !ok {
				index[v.Name] = len(out)
				out = append(out, Value{Name: v.Name})
			}
		}
	}
	for i := range out {
		sum, ok := 0.0, len(r.Records) > 0
		for _, rec := range r.Records {
			x, has := rec.Recorded.Get(out[i].Name)
			ok = ok && has
			sum += x
		}
		if ok {
			m := sum / float64(len(r.Records))
			out[i].Value = &m
		}
	}
	return append(out, r.Totals...)
}

// maxFileBytes bounds a run file, which is read whole (a pretty-printed
// FactReasoner file cannot be read a line at a time): as the input
// reader's bound on a pretty-printed file.
const maxFileBytes = instance.DefaultMaxDocumentBytes

// Detect tells from the first JSON value of the file at path whether it is
// a run file this package reads, and of which kind: a FactReasoner result
// file (a value with "results", or a results object itself:
// "factuality_score" with "marginals", "predictions" or "labels", and no
// "version", which marks an output line of fr score) or an fr factscore
// output (a value with "decisions", or its summary line alone: "verifier"
// and "factscore"). Anything else, an output of fr score or an input file,
// is Kind 0 and no error: the caller reads it as before. Only the names of
// the first value's fields are read.
func Detect(path string) (Kind, error) {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	keys, err := topKeys(f)
	if err != nil {
		return 0, nil // not a JSON object: not ours to read
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if keys[n] {
				return true
			}
		}
		return false
	}
	switch {
	case has("version"):
		return 0, nil
	case has("results"), has("factuality_score") && has("marginals", "predictions", "labels"):
		return FactReasoner, nil
	case has("decisions"), has("verifier") && has("factscore"):
		return FActScore, nil
	}
	return 0, nil
}

// topKeys returns the names of the fields of the first JSON value of r,
// which must be an object, reading its values as tokens so that a large
// value is never held whole.
func topKeys(r io.Reader) (map[string]bool, error) {
	br := &boundedTokens{r: io.LimitReader(skipBOM(r), maxFileBytes), max: jsonl.MaxLineBytes}
	dec := json.NewDecoder(br)
	br.dec = dec
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	keys := make(map[string]bool)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		keys[name] = true
		depth := 0
		for {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
			if depth == 0 {
				break
			}
		}
	}
	return keys, nil
}

// boundedTokens is the input of a decoder read token by token that stops
// it, with an error, when it holds more than max bytes it has not
// consumed: a token larger than that (a string of gigabytes) is never
// held whole.
type boundedTokens struct {
	r    io.Reader
	dec  *json.Decoder
	read int64
	max  int64
}

func (b *boundedTokens) Read(p []byte) (int, error) {
	if b.read-b.dec.InputOffset() > b.max {
		return 0, fmt.Errorf("a JSON value of more than %d bytes", b.max)
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

func skipBOM(r io.Reader) io.Reader {
	var bom [3]byte
	n, _ := io.ReadFull(r, bom[:])
	if n == 3 && bom == [3]byte{0xEF, 0xBB, 0xBF} {
		return r
	}
	return io.MultiReader(bytes.NewReader(bom[:n]), r)
}

// Read reads a run file of the kind Detect tells. A malformed record is an
// *instance.Error naming the file, the line and the field; with skip set,
// such a record is reported to skip and left out, where the file can be
// read on after it (not after broken JSON).
func Read(path string, skip func(*instance.Error)) (*Run, error) {
	kind, err := Detect(path)
	if err != nil {
		return nil, err
	}
	var run *Run
	switch kind {
	case FactReasoner:
		run, err = readFactReasoner(path, skip)
	case FActScore:
		run, err = readFActScore(path, skip)
	default:
		// Broken JSON says where it breaks.
		errStop := errors.New("stop")
		if err := values(path, func(int, []byte) error { return errStop }); err != nil && err != errStop {
			return nil, err
		}
		return nil, fmt.Errorf("%s: neither a FactReasoner result file nor an output of fr factscore", path)
	}
	if err != nil {
		return nil, err
	}
	if len(run.Records) == 0 {
		return nil, fmt.Errorf("%s: no record with atoms to score (%s)", path, kind)
	}
	return run, nil
}

// values reads the JSON values of a file, pretty-printed or one per line,
// and calls fn with each and the line it starts on. Broken JSON is an
// error naming the line where it breaks; the file cannot be read on after
// it.
func values(path string, fn func(line int, raw []byte) error) error {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxFileBytes {
		return &instance.Error{File: path, Err: fmt.Errorf("the file is longer than %d bytes, the most a run file may take", maxFileBytes)}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return err
	}
	if len(data) > maxFileBytes {
		return &instance.Error{File: path, Err: fmt.Errorf("the file is longer than %d bytes, the most a run file may take", maxFileBytes)}
	}
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		start := int(dec.InputOffset())
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		off := start + len(data[start:]) - len(bytes.TrimLeft(data[start:], " \t\r\n"))
		line := 1 + bytes.Count(data[:off], []byte{'\n'})
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'})
			}
			return &instance.Error{File: path, Line: line, Err: fmt.Errorf("invalid JSON: %w", err)}
		}
		if err := fn(line, raw); err != nil {
			return err
		}
	}
}

// recordError is an error about the record that starts on line of path,
// as an *instance.Error: a FieldError names its field (under prefix,
// the path of the part of the record it is about, such as "results"), and
// the line is that of the field where it can be found in raw.
func recordError(path string, line int, raw []byte, prefix string, err error) *instance.Error {
	e := &instance.Error{File: path, Line: line, Err: err}
	var fe *instance.FieldError
	if errors.As(err, &fe) {
		e.Field, e.Err = fe.Field, errors.New(fe.Msg)
		if prefix != "" {
			e.Field = prefix + "." + e.Field
		}
		if off := instance.Locate(raw, e.Field); off >= 0 {
			e.Line += bytes.Count(raw[:off], []byte{'\n'})
		}
	}
	var ie *instance.Error
	if errors.As(err, &ie) { // from the input reader, relative to raw
		e.Field, e.Err = ie.Field, ie.Err
		if ie.Line > 0 {
			e.Line = line + ie.Line - 1
		}
	}
	return e
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// sortedIDs returns the keys of m in byte order.
func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
