package hftokenizer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

func loadRobertaBase(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := Load(refdata.Path(t, "tokenizers", "roberta-base", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestRobertaBaseTokenizer checks the real roberta-base tokenizer.json: the
// ids RoBERTa is known to give, and the pair layout <s> A </s></s> B </s>.
func TestRobertaBaseTokenizer(t *testing.T) {
	tok := loadRobertaBase(t)
	a, err := tok.Encode("Hello world")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.IDs, []int{31414, 232}) {
		t.Fatalf("Hello world → %v, want [31414 232]", a.IDs)
	}
	p := tok.Pair(a, 0, a.Len(), a, 0, a.Len())
	if want := []int{0, 31414, 232, 2, 2, 31414, 232, 2}; !slices.Equal(p.IDs, want) {
		t.Fatalf("pair → %v, want <s> A </s></s> B </s> = %v", p.IDs, want)
	}
	if tok.Specials() != 4 {
		t.Errorf("%d special tokens in a pair, want 4", tok.Specials())
	}
}

// TestRobertaBaseIDs compares the tokenizer on texts with tricky
// whitespace, punctuation and non-ASCII text with ids computed by the test
// models' script with its own byte-level BPE (and GPT-2's pattern run by
// Python's regex module) over the same vocabulary: an implementation
// independent of the Rust crate's fixtures.
func TestRobertaBaseIDs(t *testing.T) {
	tok := loadRobertaBase(t)
	data, err := os.ReadFile(filepath.Join("..", "testdata", "nli", "roberta-base-ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Texts []struct {
			Text string
			IDs  []int
		}
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	for _, c := range ref.Texts {
		got, err := tok.Encode(c.Text)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.IDs, c.IDs) {
			t.Errorf("%q\n got %v\nwant %v", c.Text, got.IDs, c.IDs)
		}
	}
}

// TestGPT2Pattern checks the hand-written pattern on the cases where its
// alternatives compete, against pieces worked out from the regular
// expression by hand.
func TestGPT2Pattern(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Hello world", []string{"Hello", " world"}},
		{"Next\n\nOne.  Two \n", []string{"Next", "\n", "\n", "One", ".", " ", " Two", " \n"}},
		{"it's 'quoted' they'll", []string{"it", "'s", " '", "quoted", "'", " they", "'ll"}},
		{"I'M", []string{"I", "'", "M"}},
		{"x  \t y", []string{"x", "  \t", " y"}},
		{"a\t\tb", []string{"a", "\t", "\t", "b"}},
		{"   ", []string{"   "}},
		{" 1990s 3.5kg", []string{" 1990", "s", " 3", ".", "5", "kg"}},
		{"naïve café—ok", []string{"naïve", " café", "—", "ok"}},
		{"東京 is", []string{"東京", " is"}},
		{"?!  ...", []string{"?!", " ", " ..."}},
		{"a\u00a0b", []string{"a", "\u00a0", "b"}},
	} {
		var got []string
		for _, m := range (gpt2Pattern{}).findMatches(c.in) {
			got = append(got, c.in[m.a:m.b])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q → %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRefused: what the package does not implement is refused at load,
// naming it and where it is in the file.
func TestRefused(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "tokenizers", "bert-base-uncased", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key, value, want string
	}{
		{"normalizer", `{"type":"Nmt"}`, `normalizer: normalizer type "Nmt" is not supported`},
		{"normalizer", `{"type":"Sequence","normalizers":[{"type":"Lowercase"},{"type":"Fancy"}]}`, `normalizer.normalizers[1]: normalizer type "Fancy"`},
		{"normalizer", `{"type":"BertNormalizer","lowercase":true,"new_option":1}`, `normalizer: unknown option new_option`},
		{"pre_tokenizer", `{"type":"UnicodeScripts"}`, `pre_tokenizer: pre-tokenizer type "UnicodeScripts"`},
		{"pre_tokenizer", `{"type":"Split","pattern":{"Regex":"a(?=b)"},"behavior":"Isolated","invert":false}`, `pre_tokenizer.pattern.Regex: regular expression "a(?=b)" is beyond Go's regexp`},
		{"pre_tokenizer", `{"type":"Split","pattern":{"String":"x"},"behavior":"Sideways","invert":false}`, `behavior "Sideways"`},
		{"pre_tokenizer", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"sometimes"}`, `prepend_scheme "sometimes"`},
		{"pre_tokenizer", `{"type":"Metaspace","replacement":"▁","add_prefix_space":false}`, `add_prefix_space false does not match prepend_scheme`},
		{"post_processor", `{"type":"Fancy"}`, `post_processor: post-processor type "Fancy"`},
		{"post_processor", `{"type":"BertProcessing","sep":["[SEP]",102],"cls":["[CLS]",-1]}`, `post_processor: cls: "[CLS]" has id -1`},
		{"model", `{"type":"BPE","dropout":0.1,"vocab":{},"merges":[]}`, `model: dropout 0.1`},
		{"model", `{"type":"Lattice"}`, `model: type "Lattice" is not supported`},
		// A value of the wrong type, said in the JSON's terms, not Go's.
		{"model", `{"type":"WordPiece","unk_token":"[UNK]","max_input_chars_per_word":"100","vocab":{"[UNK]":0}}`, `model.max_input_chars_per_word: expected number, got JSON string`},
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		m[c.key] = json.RawMessage(c.value)
		data, _ := json.Marshal(m)
		_, err := Parse(data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want one with %q", c.key, c.value, err, c.want)
		}
	}
}

// TestInvalidUTF8: Hugging Face tokenizers take only valid UTF-8 (Python
// and Rust strings); a Go string that is not is an error naming the byte.
func TestInvalidUTF8(t *testing.T) {
	tok := loadRobertaBase(t)
	_, err := tok.Encode("ok \xff no")
	if !errors.Is(err, ErrInvalidUTF8) || !strings.Contains(err.Error(), "byte 3") {
		t.Fatalf("error %v, want ErrInvalidUTF8 at byte 3", err)
	}
	if _, err := tok.Encode("ok \uFFFD yes"); err != nil {
		t.Fatalf("U+FFFD itself is valid: %v", err)
	}
}

// TestConcurrentEncode: a Tokenizer is safe for concurrent use (its word
// cache is shared): texts encoded from four goroutines at once give the
// answers of one at a time.
func TestConcurrentEncode(t *testing.T) {
	var strs []fixtureString
	readJSON(t, filepath.Join("testdata", "parity", "strings.json"), &strs)
	var fx variantFixture
	readJSON(t, filepath.Join("testdata", "parity", "deberta-v3.json"), &fx)
	tok := loadVariant(t, &fx)
	alone := loadVariant(t, &fx) // its own word cache
	want := make([][]int, len(strs))
	for i, s := range strs {
		e, _ := alone.Encode(s.Text)
		want[i] = e.IDs
	}
	errs := make(chan string, 4*len(strs))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range strs {
				i := (k + g*31) % len(strs)
				if e, _ := tok.Encode(strs[i].Text); !slices.Equal(e.IDs, want[i]) {
					errs <- strs[i].Text
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("%q: concurrent encoding differs", s)
	}
}
