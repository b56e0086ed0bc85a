// Package uai reads and writes discrete graphical models in the UAI
// inference-competition formats, as used by the merlin engine: models
// (MARKOV and BAYES), evidence files, and MAR result files (PR, STATUS and
// MAR blocks).
//
// In every table the LAST variable of a factor's scope changes fastest;
// scopes need not be sorted.
package uai

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/factreasoner/factreasoner-go/inference"
	"github.com/factreasoner/factreasoner-go/internal/parallel"
	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// Model types of the preamble.
const (
	Markov   = "MARKOV"
	Bayesian = "BAYES"
)

// Network is a model read from a UAI file.
type Network struct {
	// Type is Markov or Bayesian. A Bayesian network's conditional
	// probability tables (child last in each scope) become factors as they
	// are, so its partition function is 1.
	Type  string
	Model *inference.Model
}

// SyntaxError reports malformed input with its position.
type SyntaxError struct {
	File string // as given to the reader; may be empty
	Line int    // 1-based line of the offending token (or of the end of input)
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// maxStates bounds the number of entries of one table, and so the domain
// size of a variable, so that a malformed header cannot make the reader (or
// a solver after it) attempt an absurd allocation.
const maxStates = 1 << 31

// scanner splits input into whitespace-separated tokens and tracks lines.
// The input is held as a string, so that a token is a substring of it and
// parsing millions of numbers allocates nothing.
type scanner struct {
	name string
	data string
	pos  int
	line int // line of the last token returned
}

// MaxFileBytes bounds a UAI file (a model, evidence, a MAR result), which
// is held in memory whole while it is read: a longer file is refused
// before it is read, a longer stream once this much of it is.
const MaxFileBytes = 1 << 30

// prefixBytes is how much of a file newScanner reads first, to check its
// first token before it reads the rest.
const prefixBytes = 64 << 10

// newScanner reads r, at most MaxFileBytes, as a scanner's input. first,
// when not nil, is given the first token of r before the rest is read (as
// a scanner of the first prefixBytes of r, whose first token is cut when
// it reaches their end), and says what is wrong with it: a file that is
// not one of this format (random bytes, a jsonl file) is told so at once,
// whatever its size.
func newScanner(r io.Reader, name string, first func(s *scanner) error) (*scanner, error) {
	tooLong := func(size string) error {
		return &SyntaxError{File: name, Line: 1, Msg: fmt.Sprintf("the file is %s bytes, more than the %d a UAI file may take", size, MaxFileBytes)}
	}
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if first != nil {
				if err := checkPrefix(f, name, first); err != nil {
					return nil, err
				}
			}
			if st.Size() > MaxFileBytes {
				return nil, tooLong(strconv.FormatInt(st.Size(), 10))
			}
			data, err := readFile(f, int(st.Size()))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if len(data) > MaxFileBytes { // it grew
				return nil, tooLong("more than that")
			}
			return &scanner{name: name, data: data, line: 1}, nil
		}
	}
	br := bufio.NewReaderSize(r, prefixBytes)
	if first != nil {
		prefix, err := br.Peek(prefixBytes)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := checkFirst(&scanner{name: name, data: string(prefix), line: 1}, first); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	n, err := io.Copy(&b, io.LimitReader(br, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if n > MaxFileBytes {
		return nil, tooLong("more than that")
	}
	return &scanner{name: name, data: b.String(), line: 1}, nil
}

// checkPrefix gives first a scanner of the first prefixBytes of f from
// where it is, without moving it.
func checkPrefix(f *os.File, name string, first func(*scanner) error) error {
	at, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	buf := make([]byte, prefixBytes)
	n, err := f.ReadAt(buf, at)
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", name, err)
	}
	return checkFirst(&scanner{name: name, data: string(buf[:n]), line: 1}, first)
}

// checkFirst gives first the scanner s of a prefix of the input when its
// first token is whole: neither missing nor cut by the prefix's end,
// unless the prefix is the input or the token is already longer than any
// first token of the format (a word, a count).
func checkFirst(s *scanner, first func(*scanner) error) error {
	data := s.data
	i := 0
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	j := i
	for j < len(data) && !isSpace(data[j]) {
		j++
	}
	whole := len(data) < prefixBytes || j < len(data)
	if !whole && j-i <= maxFirstToken {
		return nil
	}
	return first(s)
}

// maxFirstToken is longer than any first token of a UAI file: MARKOV,
// BAYES, a count.
const maxFirstToken = 24

// modelType reads a model's first token, its type.
func modelType(s *scanner) (string, error) {
	typ := s.next()
	switch strings.ToUpper(typ) {
	case Markov, Bayesian:
		return strings.ToUpper(typ), nil
	case "":
		return "", s.errorf("empty input: want MARKOV or BAYES")
	}
	return "", s.errorf("model type: want MARKOV or BAYES, found %q", clip(typ))
}

// readFile reads the rest of f, a regular file of size bytes, into one
// buffer of that size (copying through io.Copy's small buffer, or growing
// a buffer as it fills, costs a 55 MB model several copies), and returns
// it as a string without copying it again: the buffer is never written
// after. A file that shrank or grew since its size was taken is read as it
// is now.
func readFile(f *os.File, size int) (string, error) {
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		buf = buf[:n] // shorter than its size said (or read from an offset)
	case err != nil:
		return "", err
	default:
		var probe [1]byte
		k, err := f.Read(probe[:])
		if err != nil && err != io.EOF {
			return "", err
		}
		if k > 0 { // it grew
			rest, err := io.ReadAll(f)
			if err != nil {
				return "", err
			}
			buf = append(append(buf, probe[0]), rest...)
		}
	}
	if len(buf) == 0 {
		return "", nil
	}
	return unsafe.String(&buf[0], len(buf)), nil
}

// next returns the next token, or "" at the end of input (leaving line at
// the last token's, where an error about a missing token belongs).
func (s *scanner) next() string {
	return s.token()
}

// token returns the next token, a substring of the input ("" at the end).
func (s *scanner) token() string {
	line := s.line
	for s.pos < len(s.data) && isSpace(s.data[s.pos]) {
		if s.data[s.pos] == '\n' {
			line++
		}
		s.pos++
	}
	if s.pos == len(s.data) {
		return ""
	}
	s.line = line
	start := s.pos
	for s.pos < len(s.data) && !isSpace(s.data[s.pos]) {
		s.pos++
	}
	return s.data[start:s.pos]
}

// peek returns the next token without consuming it.
func (s *scanner) peek() string {
	pos, line := s.pos, s.line
	tok := s.next()
	s.pos, s.line = pos, line
	return tok
}

// restOfLine returns the rest of the current line, trimmed.
func (s *scanner) restOfLine() string {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] != '\n' {
		s.pos++
	}
	return strings.TrimSpace(s.data[start:s.pos])
}

func isSpace(b byte) bool {
	// ' ', or '\t', '\n', '\v', '\f', '\r' (9 to 13): two comparisons
	// instead of six, in the loops that read every byte of a model.
	return b == ' ' || b-'\t' <= '\r'-'\t'
}

func (s *scanner) errorf(format string, args ...any) error {
	return &SyntaxError{File: s.name, Line: s.line, Msg: fmt.Sprintf(format, args...)}
}

// what describes the token being read, for error messages: a format with
// up to two %d verbs and their values. It is formatted only on error, so
// that reading millions of table entries formats nothing.
type what struct {
	format string
	a, b   int
}

func (w what) String() string {
	switch strings.Count(w.format, "%d") {
	case 0:
		return w.format
	case 1:
		return fmt.Sprintf(w.format, w.a)
	}
	return fmt.Sprintf(w.format, w.a, w.b)
}

// int reads a nonnegative integer token described by w.
func (s *scanner) int(w what) (int, error) {
	tok := s.token()
	if tok == "" {
		return 0, s.errorf("unexpected end of input: want %s", w)
	}
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 {
		return 0, s.errorf("%s: want a nonnegative integer, found %q", w, clip(tok))
	}
	return n, nil
}

// float reads a number token described by w.
func (s *scanner) float(w what) (float64, error) {
	tok := s.token()
	if tok == "" {
		return 0, s.errorf("unexpected end of input: want %s", w)
	}
	x, err := parseFloat(tok)
	if err != nil {
		return 0, s.errorf("%s: want a number, found %q", w, clip(tok))
	}
	return x, nil
}

// parseFloat reads a number as strconv.ParseFloat does, and also C++'s
// spelling of a negative NaN.
func parseFloat(tok string) (float64, error) {
	x, err := strconv.ParseFloat(tok, 64)
	if err != nil && (tok == "-nan" || tok == "-NaN") { // C++ prints a negative NaN so
		x, err = math.NaN(), nil
	}
	return x, err
}

// clip shortens a token for an error message.
func clip(tok string) string {
	if len(tok) > 40 {
		return tok[:40] + "…"
	}
	return tok
}

// ReadFile reads a model file.
func ReadFile(path string) (*Network, error) {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a model in the UAI format. name labels error messages.
func Read(r io.Reader, name string) (*Network, error) {
	s, err := newScanner(r, name, func(s *scanner) error {
		_, err := modelType(s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.model(true)
}

// model reads a model from s. With inParallel false it reads every scope
// and table one token at a time, as Read does where its parallel readers
// refuse the input (tests compare the two).
func (s *scanner) model(inParallel bool) (*Network, error) {
	typ, err := modelType(s)
	if err != nil {
		return nil, err
	}
	nvars, err := s.int(what{format: "number of variables"})
	if err != nil {
		return nil, err
	}
	// Every number is a token of at least two bytes (with its separator):
	// what the input cannot hold is not allocated.
	tokens := (len(s.data)-s.pos)/2 + 1
	m := &inference.Model{Cards: make([]int, 0, min(nvars, tokens))}
	for i := range nvars {
		c, err := s.int(what{"domain size of variable %d", i, 0})
		if err != nil {
			return nil, err
		}
		if c < 1 {
			return nil, s.errorf("domain size of variable %d is 0", i)
		}
		if c > maxStates {
			// Its marginal alone would be a table over the limit, and
			// products of larger sizes could overflow.
			return nil, s.errorf("domain size of variable %d: %d, more than the %d states a variable may have", i, c, maxStates)
		}
		m.Cards = append(m.Cards, c)
	}
	nfuncs, err := s.int(what{format: "number of functions"})
	if err != nil {
		return nil, err
	}
	if !inParallel || !s.readScopes(m, typ, nvars, nfuncs) {
		// Something is wrong, or unusual: the scopes again, one token
		// at a time, to say where.
		if err := s.scopes(m, typ, nvars, nfuncs); err != nil {
			return nil, err
		}
	}
	sizes := make([]int, len(m.Factors))
	for i, f := range m.Factors {
		want := 1
		for _, v := range f.Scope {
			want *= m.Cards[v]
			if want > maxStates {
				// Found here, before any table is read, where the
				// sequential reader also finds it (its line is the last
				// scope's).
				return nil, s.errorf("function %d: table of more than %d entries", i, maxStates)
			}
		}
		sizes[i] = want
	}
	if !inParallel || !readTables(s.data[s.pos:], m, sizes) {
		// Something is wrong, or unusual: the tables again, one token
		// at a time, to say where.
		if err := s.tables(m, sizes); err != nil {
			return nil, err
		}
	}
	return &Network{Type: typ, Model: m}, nil
}

// scopeChunk is how many bytes of scopes one goroutine of readScopes
// parses at a time.
const scopeChunk = 1 << 18

// readScopes parses the scopes of nfuncs functions into m.Factors on every
// core, when each scope is a line of its own (as Write, merlin and the
// competition's files have them): the nfuncs lines after the number of
// functions are cut into chunks at line ends, the lines and tokens of each
// counted, and then each chunk parsed into its place. On success it leaves
// s after the last scope, where the sequential reader would be. It reports
// false, changing neither s nor m, on anything it does not accept as it
// is: a line that is not a scope size and that many variables, a variable
// out of range or repeated, an empty BAYES scope; scanner.scopes then
// reads the scopes again and says where.
func (s *scanner) readScopes(m *inference.Model, typ string, nvars, nfuncs int) bool {
	data := s.data
	// The rest of the line of the number of functions must be blank.
	start := s.pos
	for start < len(data) && data[start] != '\n' {
		if !isSpace(data[start]) {
			return false
		}
		start++
	}
	if nfuncs == 0 || start == len(data) || nfuncs > len(data)-start {
		return false
	}
	start++
	// The end of the nfuncs-th line: count line ends a block at a time,
	// then find the last in its block.
	end, lines := start, 0
	for {
		block := data[end:min(end+1<<16, len(data))]
		n := strings.Count(block, "\n")
		if lines+n < nfuncs {
			if end += len(block); end == len(data) {
				return false // too few lines
			}
			lines += n
			continue
		}
		for ; ; end++ {
			end += strings.IndexByte(data[end:], '\n')
			if lines++; lines == nfuncs {
				break
			}
		}
		break
	}
	section := data[start:end] // nfuncs lines, without the last line end
	// Chunks of whole lines: chunk c is section[lo[c]:lo[c+1]-1] (the
	// last one ends at the end of the section).
	lo := []int{0}
	for at := 0; at < len(section); {
		next := min(at+scopeChunk, len(section))
		if i := strings.IndexByte(section[next:], '\n'); i >= 0 {
			next += i + 1
		} else {
			next = len(section) + 1
		}
		lo = append(lo, next)
		at = next
	}
	if len(lo) == 1 {
		lo = append(lo, 1) // one empty line: a scope without tokens
	}
	chunks := len(lo) - 1
	chunk := func(c int) string { return section[lo[c] : lo[c+1]-1] }
	// funcs[c] and vars[c]: the functions and scope variables before
	// chunk c, if every line holds a scope.
	funcs := make([]int, chunks+1)
	vars := make([]int, chunks+1)
	workers := runtime.GOMAXPROCS(0)
	parallel.Do(context.Background(), chunks, workers, func(_ context.Context, c int) error {
		text := chunk(c)
		funcs[c+1] = strings.Count(text, "\n") + 1
		vars[c+1] = countTokens(text) - funcs[c+1]
		return nil
	})
	for c := range chunks {
		funcs[c+1] += funcs[c]
		vars[c+1] += vars[c]
	}
	if funcs[chunks] != nfuncs || vars[chunks] < 0 {
		return false
	}
	flat := make([]int, vars[chunks])
	factors := make([]inference.Factor, nfuncs)
	err := parallel.Do(context.Background(), chunks, workers, func(_ context.Context, c int) error {
		text := chunk(c)
		i := funcs[c]                   // the function at hand
		off, stop := vars[c], vars[c+1] // its variables' place in flat
		for pos := 0; pos <= len(text); i++ {
			k, scope := -1, []int(nil)
			for {
				for pos < len(text) && text[pos] != '\n' && isSpace(text[pos]) {
					pos++
				}
				if pos == len(text) || text[pos] == '\n' {
					pos++ // past the line end
					break
				}
				at := pos
				for pos < len(text) && !isSpace(text[pos]) {
					pos++
				}
				n, err := strconv.Atoi(text[at:pos])
				if err != nil || n < 0 {
					return errUnusual
				}
				if k < 0 {
					if k = n; k > stop-off {
						return errUnusual
					}
					scope = flat[off : off : off+k]
					continue
				}
				if len(scope) == k || n >= nvars || slices.Contains(scope, n) {
					return errUnusual
				}
				scope = append(scope, n)
			}
			if k < 0 || len(scope) != k || k == 0 && typ == Bayesian {
				return errUnusual
			}
			if k > 0 {
				factors[i].Scope = scope
				off += k
			}
		}
		return nil
	})
	if err != nil {
		return false
	}
	m.Factors = factors
	s.pos, s.line = end, s.line+nfuncs
	return true
}

// scopes reads the scopes of nfuncs functions into m.Factors, one token
// at a time (readScopes does it in parallel, but has no line numbers).
func (s *scanner) scopes(m *inference.Model, typ string, nvars, nfuncs int) error {
	tokens := (len(s.data)-s.pos)/2 + 1
	m.Factors = make([]inference.Factor, 0, min(nfuncs, tokens))
	var pool []int // scopes are cut from it, a block at a time
	for i := range nfuncs {
		k, err := s.int(what{"scope size of function %d", i, 0})
		if err != nil {
			return err
		}
		if len(pool) < k {
			pool = make([]int, max(min(k, tokens), 1<<12))
		}
		scope := pool[:0:min(k, len(pool))]
		for j := range k {
			v, err := s.int(what{"variable %d of the scope of function %d", j, i})
			if err != nil {
				return err
			}
			if v >= nvars {
				return s.errorf("function %d: variable %d out of range (the model has %d)", i, v, nvars)
			}
			if slices.Contains(scope, v) {
				return s.errorf("function %d: variable %d appears twice in the scope", i, v)
			}
			scope = append(scope, v)
		}
		switch {
		case k == 0:
			scope = nil
		case &scope[0] == &pool[0]:
			pool = pool[len(scope):]
		}
		if typ == Bayesian && k == 0 {
			return s.errorf("function %d: a BAYES function needs at least its child variable", i)
		}
		m.Factors = append(m.Factors, inference.Factor{Scope: scope})
	}
	return nil
}

// tables reads the tables of m's factors, whose sizes are given, one token
// at a time (readTables does it in parallel, but has no line numbers).
func (s *scanner) tables(m *inference.Model, sizes []int) error {
	for i := range m.Factors {
		f := &m.Factors[i]
		want := sizes[i]
		n, err := s.int(what{"number of entries of function %d", i, 0})
		if err != nil {
			return err
		}
		if n != want {
			return s.errorf("function %d: table has %d entries, its scope needs %d", i, n, want)
		}
		f.Table = make([]float64, 0, min(n, len(s.data)/2+1))
		for j := range n {
			x, err := s.float(what{"entry %d of function %d", j, i})
			if err != nil {
				return err
			}
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				return s.errorf("entry %d of function %d is %v (want finite and >= 0)", j, i, x)
			}
			f.Table = append(f.Table, x)
		}
	}
	if tok := s.next(); tok != "" {
		return s.errorf("unexpected %q after the last table", clip(tok))
	}
	return nil
}

// tableChunk is how many bytes of tables one goroutine of readTables
// parses at a time.
const tableChunk = 1 << 20

// readTables parses the tables of m's factors, whose sizes are given, from
// data (the rest of the input), on every core: the input is cut into
// chunks at whitespace, the tokens of each counted, and then each chunk
// parsed into its place. It reports false, leaving the tables to the
// sequential reader, on anything it does not accept as it is: a count
// that is not the digits of the size, an entry that is not a finite
// nonnegative number, a token too many or too few.
func readTables(data string, m *inference.Model, sizes []int) bool {
	// The token each factor's table starts at (its count), and the total.
	first := make([]int, len(sizes)+1)
	entries := 0
	for i, n := range sizes {
		first[i+1] = first[i] + 1 + n
		entries += n
		if first[i+1] > len(data)/2+1 {
			return false // the input cannot hold so many tokens
		}
	}
	var bounds []int // chunk boundaries, at whitespace or the end
	for at := 0; at < len(data); {
		bounds = append(bounds, at)
		end := min(at+tableChunk, len(data))
		for end < len(data) && !isSpace(data[end]) {
			end++
		}
		at = end
	}
	bounds = append(bounds, len(data))
	chunks := len(bounds) - 1
	counts := make([]int, chunks+1) // counts[c]: the tokens before chunk c
	workers := runtime.GOMAXPROCS(0)
	parallel.Do(context.Background(), chunks, workers, func(_ context.Context, c int) error {
		counts[c+1] = countTokens(data[bounds[c]:bounds[c+1]])
		return nil
	})
	for c := range chunks {
		counts[c+1] += counts[c]
	}
	if counts[chunks] != first[len(sizes)] {
		return false
	}
	flat := make([]float64, entries)
	for i, n := range sizes {
		off := first[i] - i // entries before factor i
		m.Factors[i].Table = flat[off : off+n : off+n]
	}
	err := parallel.Do(context.Background(), chunks, workers, func(_ context.Context, c int) error {
		t := counts[c] // the token at hand
		// The factor whose table holds token t.
		i := sort.Search(len(sizes), func(i int) bool { return first[i+1] > t })
		chunk := data[bounds[c]:bounds[c+1]]
		for pos := 0; ; t++ {
			for pos < len(chunk) && isSpace(chunk[pos]) {
				pos++
			}
			if pos == len(chunk) {
				return nil
			}
			start := pos
			for pos < len(chunk) && !isSpace(chunk[pos]) {
				pos++
			}
			tok := chunk[start:pos]
			for t >= first[i+1] {
				i++
			}
			if t == first[i] {
				if tok != strconv.Itoa(sizes[i]) {
					return errUnusual
				}
				continue
			}
			x, err := strconv.ParseFloat(tok, 64)
			if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
				return errUnusual
			}
			flat[t-i-1] = x
		}
	})
	return err == nil
}

// errUnusual stops readTables.
var errUnusual = errors.New("unusual input")

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// countTokens counts the whitespace-separated tokens of data.
func countTokens(data string) int {
	// A token starts at every byte that is not a space and follows a
	// space (or the start), counted without a branch on the data.
	n, prev := 0, 1 // prev: whether the byte before was a space
	for i := 0; i < len(data); i++ {
		sp := b2i(isSpace(data[i]))
		n += prev &^ sp
		prev = sp
	}
	return n
}

// Write writes a model in the UAI MARKOV format, with every number in the
// shortest form that reads back exactly.
func Write(w io.Writer, m *inference.Model) error {
	return write(w, m, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) })
}

// WriteFixed is Write with table entries printed with a fixed number of
// decimals (the FactReasoner reference writes merlin's input with 6). A
// positive entry too small for that is written in full instead, so that
// no positive entry turns into a zero.
func WriteFixed(w io.Writer, m *inference.Model, decimals int) error {
	tiny := 0.5 * math.Pow(10, -float64(decimals))
	return write(w, m, func(x float64) string {
		if x > 0 && x < tiny {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return strconv.FormatFloat(x, 'f', decimals, 64)
	})
}

func write(w io.Writer, m *inference.Model, format func(float64) string) error {
	if err := m.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n%d\n", Markov, len(m.Cards))
	for i, c := range m.Cards {
		if i > 0 {
			bw.WriteByte(' ')
		}
		bw.WriteString(strconv.Itoa(c))
	}
	fmt.Fprintf(bw, "\n%d\n", len(m.Factors))
	for _, f := range m.Factors {
		bw.WriteString(strconv.Itoa(len(f.Scope)))
		for _, v := range f.Scope {
			bw.WriteByte(' ')
			bw.WriteString(strconv.Itoa(v))
		}
		bw.WriteByte('\n')
	}
	for _, f := range m.Factors {
		fmt.Fprintf(bw, "\n%d\n", len(f.Table))
		// One line per assignment of all but the last variable, as in
		// merlin's and the competition's files.
		row := len(f.Table)
		if len(f.Scope) > 0 {
			row = m.Cards[f.Scope[len(f.Scope)-1]]
		}
		for j, x := range f.Table {
			bw.WriteByte(' ')
			bw.WriteString(format(x))
			if (j+1)%row == 0 {
				bw.WriteByte('\n')
			}
		}
	}
	return bw.Flush()
}

// ReadEvidence reads an evidence file: observed variables and their values.
// Both layouts in use are accepted: merlin's single line
// "N v1 x1 … vN xN", and the older competition layout that first gives the
// number of evidence samples ("1", then "N v1 x1 …"); only one sample is
// supported. An empty file means no evidence.
func ReadEvidence(r io.Reader, name string) (map[int]int, error) {
	const what0 = "number of observed variables"
	s, err := newScanner(r, name, func(s *scanner) error {
		if s.peek() == "" {
			return nil
		}
		_, err := s.int(what{format: what0})
		return err
	})
	if err != nil {
		return nil, err
	}
	// The tokens are counted first, to tell the layouts apart, and then
	// read one at a time: the file is held once, never as a list.
	ntoks := countTokens(s.data)
	if ntoks == 0 {
		return map[int]int{}, nil
	}
	first, err := s.int(what{format: what0})
	if err != nil {
		return nil, err
	}
	count := first
	if ntoks != 1+2*first {
		// Not merlin's layout: the first number counts samples.
		if first != 1 {
			if first == 0 {
				s.next()
				return nil, s.errorf("%d tokens after a sample count of 0", ntoks-1)
			}
			return nil, s.errorf("want \"N v1 x1 … vN xN\" (%d numbers for N = %d, found %d) or one evidence sample; %d samples are not supported", 1+2*first, first, ntoks, first)
		}
		if count, err = s.int(what{format: what0}); err != nil {
			return nil, err
		}
		if ntoks != 2+2*count {
			for s.next() != "" {
			}
			return nil, s.errorf("%d observed variables need %d numbers, found %d", count, 2+2*count, ntoks)
		}
	}
	ev := make(map[int]int, count)
	for i := range count {
		v, err := s.int(what{"variable of observation %d", i, 0})
		if err != nil {
			return nil, err
		}
		line := s.line
		x, err := s.int(what{"value of observation %d", i, 0})
		if err != nil {
			return nil, err
		}
		if old, ok := ev[v]; ok && old != x {
			return nil, &SyntaxError{File: name, Line: line, Msg: fmt.Sprintf("variable %d observed twice, as %d and %d", v, old, x)}
		}
		ev[v] = x
	}
	return ev, nil
}

// ReadEvidenceFile reads an evidence file.
func ReadEvidenceFile(path string) (map[int]int, error) {
	f, err := safefile.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadEvidence(f, path)
}

// MAR is a result file in merlin's UAI output format.
type MAR struct {
	// LogZ is the natural log of the partition function (the probability
	// of evidence) from the PR block; NaN when there is none.
	LogZ float64
	// HasStatus says whether a STATUS block was present; Consistent is
	// true when it starts with "true", and StatusMessage is its line.
	HasStatus     bool
	Consistent    bool
	StatusMessage string
	// Marginals[v][x] as printed.
	Marginals [][]float64
	// Errors[v] is how far variable v's marginal may be from the truth,
	// from an ERRORS block (written for a result that is not exact; see
	// inference.Result.Errors); nil without one.
	Errors []float64
}

// WriteMAR writes a result in merlin's UAI output format: a PR block with
// ln Z and Z (omitted when res.LogZ is NaN), a STATUS block, and the MAR
// block on one line, every number with 6 decimals. A result that is not
// exact (res.Errors) gets an ERRORS block after them, this project's own:
// the number of variables and each one's error bar, on one line.
func WriteMAR(w io.Writer, res *inference.Result) error {
	bw := bufio.NewWriter(w)
	consistent := !math.IsInf(res.LogZ, -1)
	if !math.IsNaN(res.LogZ) {
		fmt.Fprintf(bw, "PR\n%s (%s)\n", cfloat(res.LogZ, 'f'), cfloat(math.Exp(res.LogZ), 'e'))
	}
	if consistent {
		bw.WriteString("STATUS\ntrue: Consistent evidence\n")
	} else {
		bw.WriteString("STATUS\nfalse: Inconsistent evidence or underflow\n")
	}
	fmt.Fprintf(bw, "MAR\n%d", len(res.Marginals))
	for _, p := range res.Marginals {
		fmt.Fprintf(bw, " %d", len(p))
		for _, x := range p {
			bw.WriteByte(' ')
			bw.WriteString(cfloat(x, 'f'))
		}
	}
	bw.WriteByte('\n')
	if res.Errors != nil {
		fmt.Fprintf(bw, "ERRORS\n%d", len(res.Errors))
		for _, e := range res.Errors {
			bw.WriteByte(' ')
			// Rounded up, so that the bar printed still covers.
			bw.WriteString(cfloat(math.Ceil(e*1e6)/1e6, 'f'))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// cfloat formats x with 6 decimals the way C++ iostreams do (merlin's
// output), including its spelling of infinities and NaN.
func cfloat(x float64, format byte) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, format, 6, 64)
}

// ReadMAR reads a result file in merlin's UAI output format. The PR and
// STATUS blocks are optional (merlin's sampling algorithms write neither),
// and so is an ERRORS block (WriteMAR's); the MAR block is required.
func ReadMAR(r io.Reader, name string) (*MAR, error) {
	s, err := newScanner(r, name, nil)
	if err != nil {
		return nil, err
	}
	out := &MAR{LogZ: math.NaN()}
	seen := map[string]bool{}
	for {
		block := s.next()
		if block == "" {
			break
		}
		if seen[block] {
			return nil, s.errorf("second %s block", block)
		}
		seen[block] = true
		switch block {
		case "PR":
			x, err := s.float(what{format: "ln Z in the PR block"})
			if err != nil {
				return nil, err
			}
			out.LogZ = x
			// Z itself may follow in parentheses (merlin writes it); it
			// says nothing new.
			if z := s.peek(); strings.HasPrefix(z, "(") {
				if s.next(); !strings.HasSuffix(z, ")") {
					return nil, s.errorf("PR block: want Z in parentheses after ln Z, found %q", clip(z))
				}
			}
		case "STATUS":
			status := s.next()
			if status == "" {
				return nil, s.errorf("unexpected end of input in the STATUS block")
			}
			out.HasStatus = true
			out.StatusMessage = strings.TrimSpace(status + " " + s.restOfLine())
			switch {
			case strings.HasPrefix(status, "true"):
				out.Consistent = true
			case strings.HasPrefix(status, "false"):
			default:
				return nil, s.errorf("STATUS block: want true or false, found %q", clip(status))
			}
		case "MAR":
			n, err := s.int(what{format: "number of variables in the MAR block"})
			if err != nil {
				return nil, err
			}
			for v := range n {
				c, err := s.int(what{"domain size of variable %d in the MAR block", v, 0})
				if err != nil {
					return nil, err
				}
				if c > len(s.data) {
					return nil, s.errorf("domain size %d of variable %d is longer than the file", c, v)
				}
				p := make([]float64, c)
				for x := range p {
					if p[x], err = s.float(what{"P(variable %d = %d)", v, x}); err != nil {
						return nil, err
					}
				}
				out.Marginals = append(out.Marginals, p)
			}
		case "ERRORS":
			n, err := s.int(what{format: "number of variables in the ERRORS block"})
			if err != nil {
				return nil, err
			}
			if n > len(s.data) {
				return nil, s.errorf("%d variables in the ERRORS block: more than the file's length", n)
			}
			out.Errors = make([]float64, n)
			for v := range n {
				if out.Errors[v], err = s.float(what{"error of variable %d", v, 0}); err != nil {
					return nil, err
				}
				if e := out.Errors[v]; !(e >= 0 && e <= 1) {
					return nil, s.errorf("error of variable %d is %v (want a number in [0, 1])", v, e)
				}
			}
		default:
			return nil, s.errorf("want a PR, STATUS, MAR or ERRORS block, found %q", clip(block))
		}
	}
	if !seen["MAR"] {
		return nil, &SyntaxError{File: name, Line: s.line, Msg: "no MAR block"}
	}
	return out, nil
}
