package retrieve

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/bm25"
	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/pystr"
	"github.com/factreasoner/factreasoner-go/internal/refdata"
)

// The recall of the corpus-wide search (BENCHMARKS.md, "Corpus-wide
// search"): records without a topic, their atoms searched in every
// passage of a knowledge base built by Builder, on labeled data whose
// evidence is known. Run with
//
//	go test ./retrieve -run CorpusRecall -v

// recallSet is a knowledge base's documents and atoms whose evidence is
// known: evidence(i, p) says whether passage p is evidence of atom i.
type recallSet struct {
	name     string
	docs     []Document
	atoms    []string
	evidence func(i int, p kbPassage) bool
}

func recallSets(t *testing.T) []recallSet {
	ev := loadEvidence(t)
	flaherty := recallSet{name: "flaherty-evidence", docs: flahertyDocuments(t)}
	for _, a := range ev.Atoms {
		flaherty.atoms = append(flaherty.atoms, a.Text)
	}
	flaherty.evidence = func(i int, p kbPassage) bool { return ev.holds(i, []kbPassage{p}) }
	// ConflictBank: each record's two passages (one supports its atom, one
	// contradicts it) are a document titled with its topic; 100 documents
	// about 100 subjects, and each atom is searched without its topic.
	recs, err := instance.ReadFile(refdata.Path(t, "factreasoner", "conflictbank-n100.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	conflicts := recallSet{name: "conflictbank"}
	topics := []string{}
	for _, r := range recs {
		d := Document{Title: r.Topic}
		for _, c := range r.Contexts {
			d.Pieces = append(d.Pieces, c.Text)
		}
		conflicts.docs = append(conflicts.docs, d)
		conflicts.atoms = append(conflicts.atoms, r.Atoms[0].Text)
		topics = append(topics, r.Topic)
	}
	conflicts.evidence = func(i int, p kbPassage) bool { return p.title == topics[i] }
	return []recallSet{flaherty, conflicts, ownResults(t, "flaherty_google.json"), ownResults(t, "nasa_science-labeled_google.jsonl")}
}

// ownResults is a set of web results: each distinct snippet a document,
// each atom's evidence the results the search engine returned for it
// (their snippets), searched among the results of every atom of the file.
func ownResults(t *testing.T, file string) recallSet {
	recs, err := instance.ReadFile(refdata.Path(t, "factreasoner", file))
	if err != nil {
		t.Fatal(err)
	}
	set := recallSet{name: strings.TrimSuffix(strings.TrimSuffix(file, ".json"), ".jsonl") + " (own results)"}
	titleOf := map[string]string{} // snippet -> its document's title
	var own []map[string]bool
	for r, rec := range recs {
		snippet := map[string]string{}
		for _, c := range rec.Contexts {
			snippet[c.ID] = strings.TrimSpace(c.Snippet + " " + c.Text)
		}
		for _, a := range rec.Atoms {
			titles := map[string]bool{}
			for _, id := range a.Contexts {
				text := snippet[id]
				if text == "" {
					continue
				}
				if _, ok := titleOf[text]; !ok {
					titleOf[text] = fmt.Sprintf("result %d.%d", r, len(titleOf))
					set.docs = append(set.docs, Document{Title: titleOf[text], Pieces: []string{text}})
				}
				titles[titleOf[text]] = true
			}
			if len(titles) > 0 {
				set.atoms = append(set.atoms, a.Text)
				own = append(own, titles)
			}
		}
	}
	set.evidence = func(i int, p kbPassage) bool { return own[i][p.title] }
	return set
}

// TestCorpusRecall: atoms searched without a topic in every passage of the
// knowledge base (Corpus, what fr retrieve and fr score do for a record
// without a topic) find their evidence exactly as often as BM25 over every
// passage (bm25.NewLucene, the reference), at k = 1, 3, 5 and 10; rank_bm25's
// Okapi over the same words is logged beside it.
func TestCorpusRecall(t *testing.T) {
	ctx := context.Background()
	ks := []int{1, 3, 5, 10}
	t.Logf("| set | atoms | documents | passages | ranking | recall@1 | @3 | @5 | @10 |")
	for _, set := range recallSets(t) {
		path := filepath.Join(t.TempDir(), "kb.db")
		b, err := NewBuilder(path, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range set.docs {
			if err := b.Add(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := b.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		db, err := OpenDocDB(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		corpus, err := NewCorpus(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		var passages []kbPassage
		for _, p := range allPassages(t, db) {
			passages = append(passages, kbPassage{p.Title, p.Text})
		}
		words, fields := make([][]string, len(passages)), make([][]string, len(passages))
		for i, p := range passages {
			words[i], fields[i] = bm25.Words(p.text), pystr.Fields(strings.ToLower(p.text))
		}
		lucene, okapi := bm25.NewLucene(words, bm25.DefaultK1, bm25.DefaultB), bm25.NewOkapi(fields)
		hits := map[string][]int{}
		for i, atom := range set.atoms {
			ps, err := (&KB{Topic: NewBM25Retriever(db), Corpus: corpus}).Retrieve(ctx, "", atom, ks[len(ks)-1])
			if err != nil {
				t.Fatal(err)
			}
			var got []kbPassage
			for _, p := range ps {
				got = append(got, kbPassage{p.Title, p.Text})
			}
			ranked := map[string][]kbPassage{"corpus index (bm25, fr)": got}
			for name, ranking := range map[string][]int{
				"every passage, bm25 (Lucene idf)":           bm25.TopK(lucene.Scores(bm25.Words(atom)), ks[len(ks)-1]),
				"every passage, rank_bm25 Okapi (FActScore)": bm25.TopK(okapi.Scores(pystr.Fields(strings.ToLower(atom))), ks[len(ks)-1]),
			} {
				for _, r := range ranking {
					ranked[name] = append(ranked[name], passages[r])
				}
			}
			for name, r := range ranked {
				if hits[name] == nil {
					hits[name] = make([]int, len(ks))
				}
				for j, k := range ks {
					for _, p := range r[:min(k, len(r))] {
						if set.evidence(i, p) {
							hits[name][j]++
							break
						}
					}
				}
			}
		}
		for _, name := range []string{"corpus index (bm25, fr)", "every passage, bm25 (Lucene idf)", "every passage, rank_bm25 Okapi (FActScore)"} {
			h := hits[name]
			t.Logf("| %s | %d | %d | %d | %s | %d | %d | %d | %d |", set.name, len(set.atoms), len(set.docs), len(passages), name, h[0], h[1], h[2], h[3])
		}
		if fmt.Sprint(hits["corpus index (bm25, fr)"]) != fmt.Sprint(hits["every passage, bm25 (Lucene idf)"]) {
			t.Errorf("%s: the index's recall %v differs from BM25 over every passage %v", set.name, hits["corpus index (bm25, fr)"], hits["every passage, bm25 (Lucene idf)"])
		}
	}
}
