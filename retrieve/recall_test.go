package retrieve

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/factreasoner/factreasoner-go/bm25"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/pystr"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// The retrieval recall benchmark (BENCHMARKS.md, Retrieval): BM25 over a
// knowledge base built from the Flaherty instance's Wikipedia contexts,
// for the labeled atoms whose evidence sentences testdata/flaherty-evidence.json
// names. Run it with
//
//	go test ./retrieve -run FlahertyRecall -v

// evidenceFile is testdata/flaherty-evidence.json.
type evidenceFile struct {
	Topic string
	Atoms []struct {
		ID, Text string
		Evidence []struct{ Title, Sentence string }
	}
}

// flahertyDocuments are the Flaherty instance's contexts as knowledge-base
// documents, as fr kb build reads them from {"title", "text"} lines: one
// per title, repeated texts dropped, in order of first appearance.
func flahertyDocuments(t testing.TB) []Document {
	t.Helper()
	ins, err := instance.ReadFile(refdata.Path(t, "factreasoner", "flaherty_wikipedia.json"))
	if err != nil || len(ins) != 1 {
		t.Fatalf("%d instances, %v", len(ins), err)
	}
	var docs []Document
	index := map[string]int{}
	seen := map[string]bool{}
	for _, c := range ins[0].Contexts {
		text := strings.TrimSpace(c.Text)
		if seen[c.Title+"\x00"+text] || text == "" {
			continue
		}
		seen[c.Title+"\x00"+text] = true
		i, ok := index[c.Title]
		if !ok {
			i = len(docs)
			index[c.Title] = i
			docs = append(docs, Document{Title: c.Title})
		}
		docs[i].Pieces = append(docs[i].Pieces, text)
	}
	return docs
}

// windowSplit is the split fr kb build made before issue 23, kept as the
// baseline of the recall benchmark: it cuts a document's pieces into
// passages of at most maxTokens tokens.
//
// The pieces (trimmed, empty ones dropped) are joined by newlines into one
// text, which is tokenized once. Passages are then taken greedily: each
// holds as many tokens as fit, ending at a piece boundary when one falls in
// the second half of the window, else at the last word boundary, and only
// when a single word is longer than maxTokens tokens inside the word. A passage
// is its exact span of the text (trimmed), and is re-tokenized on its own
// to make sure it fits (a word's tokens can differ at a passage's start);
// if not, it is shortened by a word.
func windowSplit(pieces []string, tok Tokenizer, maxTokens int) ([]string, error) {
	if maxTokens < 1 {
		return nil, fmt.Errorf("passage size %d: want at least 1 token", maxTokens)
	}
	kept := trimmedPieces(pieces)
	text := strings.Join(kept, "\n")
	spans, err := tok.Spans(text)
	if err != nil {
		return nil, err
	}
	n := len(spans)
	// wordStart(j): a word starts at token j (whitespace separates it from
	// token j-1, in the gap between them or as a whitespace token).
	// pieceStart(j): a newline does.
	wordStart := func(j int) bool {
		if j <= 0 || j >= n {
			return true
		}
		if spans[j][0] > spans[j-1][1] {
			return true // whitespace between them (tokens cover all else)
		}
		return isSpaceOnly(text[spans[j-1][0]:spans[j-1][1]]) || isSpaceOnly(text[spans[j][0]:spans[j][1]])
	}
	pieceStart := func(j int) bool {
		if j <= 0 || j >= n {
			return true
		}
		lo := min(spans[j-1][1], spans[j][0])
		hi := max(spans[j-1][1], spans[j][0])
		if strings.Contains(text[lo:hi], "\n") {
			return true
		}
		for _, s := range [][2]int{spans[j-1], spans[j]} {
			if t := text[s[0]:s[1]]; strings.Contains(t, "\n") && isSpaceOnly(t) {
				return true
			}
		}
		return false
	}
	var out []string
	for i := 0; i < n; {
		end := min(i+maxTokens, n)
		if end < n {
			cut := 0
			for j := end; j > i+maxTokens/2; j-- {
				if pieceStart(j) {
					cut = j
					break
				}
			}
			if cut == 0 {
				for j := end; j > i; j-- {
					if wordStart(j) {
						cut = j
						break
					}
				}
			}
			if cut != 0 {
				end = cut
			}
		}
		for {
			passage := strings.TrimSpace(text[spans[i][0]:spans[end-1][1]])
			if passage == "" {
				break
			}
			check, err := tok.Spans(passage)
			if err != nil {
				return nil, err
			}
			if len(check) <= maxTokens || end-i == 1 {
				out = append(out, passage)
				break
			}
			// Shorten by a word (or a token inside a long word).
			j := end - 1
			for j > i+1 && !wordStart(j) {
				j--
			}
			end = j
		}
		i = end
	}
	return out, nil
}

type splitFunc func(pieces []string, tok Tokenizer, maxTokens int) ([]string, error)

// builtPassages builds a knowledge base of docs with a Builder and reads
// every document's passages back.
func builtPassages(t testing.TB, docs []Document, tok Tokenizer, maxTokens int) ([]kbPassage, error) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kb.db")
	b, err := NewBuilder(path, BuildOptions{MaxTokens: maxTokens, Tokenizer: tok})
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if err := b.Add(ctx, d); err != nil {
			return nil, err
		}
	}
	if _, err := b.Finish(ctx); err != nil {
		return nil, err
	}
	db, err := OpenDocDB(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var out []kbPassage
	for _, d := range docs {
		ps, err := db.Passages(ctx, d.Title)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out = append(out, kbPassage{d.Title, p})
		}
	}
	return out, nil
}

// kbPassage is a passage of a knowledge base and the title of its document.
type kbPassage struct{ title, text string }

func splitDocuments(docs []Document, split splitFunc, tok Tokenizer, maxTokens int) ([]kbPassage, error) {
	var out []kbPassage
	for _, d := range docs {
		ps, err := split(d.Pieces, tok, maxTokens)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Title, err)
		}
		for _, p := range ps {
			out = append(out, kbPassage{d.Title, p})
		}
	}
	return out, nil
}

func loadEvidence(t testing.TB) evidenceFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "flaherty-evidence.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev evidenceFile
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// holds reports whether one of passages holds one of the evidence
// sentences of atom i whole.
func (ev evidenceFile) holds(i int, passages []kbPassage) bool {
	for _, p := range passages {
		for _, e := range ev.Atoms[i].Evidence {
			if p.title == e.Title && strings.Contains(p.text, e.Sentence) {
				return true
			}
		}
	}
	return false
}

// recall ranks passages with BM25 for FActScore's query (topic and atom)
// and returns, for each k, how many of the atoms (indexes into ev.Atoms)
// have an evidence sentence whole in the top k.
func (ev evidenceFile) recall(passages []kbPassage, atoms []int, ks []int) []int {
	docs := make([][]string, len(passages))
	for i, p := range passages {
		docs[i] = pystr.Fields(p.text)
	}
	m := bm25.NewOkapi(docs)
	hits := make([]int, len(ks))
	for _, i := range atoms {
		// The knowledge base is lower-cased: so is the query, else only the
		// atom's lower-case words could match.
		query := strings.ToLower(Query(ev.Topic, ev.Atoms[i].Text))
		ranked := bm25.TopK(m.Scores(pystr.Fields(query)), ks[len(ks)-1])
		for j, k := range ks {
			top := make([]kbPassage, 0, k)
			for _, r := range ranked[:min(k, len(ranked))] {
				top = append(top, passages[r])
			}
			if ev.holds(i, top) {
				hits[j]++
			}
		}
	}
	return hits
}

// TestFlahertyRecall measures retrieval recall on the Flaherty knowledge
// base for the split fr kb build made before (windowSplit) and the
// sentence split, at three passage sizes, over the whole knowledge base and
// over the topic's document alone (FActScore's retrieval). It fails when
// the sentence split cuts an evidence sentence, or when its recall is below
// the old split's anywhere.
func TestFlahertyRecall(t *testing.T) {
	docs := flahertyDocuments(t)
	ev := loadEvidence(t)
	text := map[string]string{}
	for _, d := range docs {
		text[d.Title] = strings.Join(d.Pieces, "\n")
	}
	var all, inTopic []int
	for i, a := range ev.Atoms {
		all = append(all, i)
		topical := false
		for _, e := range a.Evidence {
			if !strings.Contains(text[e.Title], e.Sentence) {
				t.Fatalf("%s: evidence not in %q: %q", a.ID, e.Title, e.Sentence)
			}
			topical = topical || e.Title == ev.Topic
		}
		if topical {
			inTopic = append(inTopic, i)
		}
	}
	memo := &memoTokenizer{tok: loadRoberta(t), seen: map[string][][2]int{}}
	splits := []struct {
		name     string
		passages func(max int) ([]kbPassage, error)
	}{
		{"window (before)", func(max int) ([]kbPassage, error) { return splitDocuments(docs, windowSplit, memo, max) }},
		// What fr kb build writes and fr retrieve --db reads.
		{"sentences", func(max int) ([]kbPassage, error) { return builtPassages(t, docs, memo, max) }},
	}
	ks := []int{1, 3, 5}
	t.Logf("%d atoms with evidence (%d in the topic's document), %d documents", len(all), len(inTopic), len(docs))
	t.Logf("| split | max tokens | passages | cuts inside a sentence | evidence sentences cut | KB recall@1 | @3 | @5 | topic recall@1 | @3 | @5 |")
	for _, max := range []int{256, 128, 64} {
		var recalls [][]int
		for _, sp := range splits {
			passages, err := sp.passages(max)
			if err != nil {
				t.Fatal(err)
			}
			sentences := map[[2]string]bool{}
			cut := 0
			for _, a := range ev.Atoms {
				for _, e := range a.Evidence {
					key := [2]string{e.Title, e.Sentence}
					if sentences[key] {
						continue
					}
					sentences[key] = true
					whole := false
					for _, p := range passages {
						whole = whole || p.title == e.Title && strings.Contains(p.text, e.Sentence)
					}
					if !whole {
						cut++
					}
				}
			}
			// Passage boundaries inside a sentence (package sentence's
			// ends; passages of a document are consecutive spans).
			inside, pos, prev := 0, 0, ""
			var ends []int
			for _, p := range passages {
				if p.title != prev {
					pos, prev, ends = 0, p.title, sentenceEnds(text[p.title])
				}
				i := strings.Index(text[p.title][pos:], p.text)
				if i < 0 {
					t.Fatalf("%s: passage %.60q is not a span of its document", p.title, p.text)
				}
				if pos > 0 && !slices.Contains(ends, pos) {
					inside++
				}
				pos += i + len(p.text)
			}
			var topic []kbPassage
			for _, p := range passages {
				if p.title == ev.Topic {
					topic = append(topic, p)
				}
			}
			kb, tp := ev.recall(passages, all, ks), ev.recall(topic, inTopic, ks)
			recalls = append(recalls, append(kb, tp...))
			t.Logf("| %s | %d | %d | %d | %d of %d | %d/%d | %d/%d | %d/%d | %d/%d | %d/%d | %d/%d |", sp.name, max, len(passages), inside, cut, len(sentences),
				kb[0], len(all), kb[1], len(all), kb[2], len(all), tp[0], len(inTopic), tp[1], len(inTopic), tp[2], len(inTopic))
			if sp.name == "sentences" && cut > 0 {
				t.Errorf("max %d: the sentence split cut %d evidence sentences", max, cut)
			}
		}
		for j := range recalls[0] {
			if recalls[1][j] < recalls[0][j] {
				t.Errorf("max %d: recall %d below the old split's %d (column %d)", max, recalls[1][j], recalls[0][j], j)
			}
		}
	}
}
