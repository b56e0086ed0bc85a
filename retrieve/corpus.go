package retrieve

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/factreasoner/factreasoner-go/kbindex"
)

// Scope says which passages of a knowledge base a record is searched
// against.
type Scope int

const (
	// ScopeTopic searches a record that has a topic in the document whose
	// title is the topic (FActScore's retrieval) and a record without one
	// in every passage.
	ScopeTopic Scope = iota
	// ScopeCorpus searches every record in every passage.
	ScopeCorpus
)

// ParseScope reads "topic" or "corpus".
func ParseScope(s string) (Scope, error) {
	switch s {
	case "topic", "":
		return ScopeTopic, nil
	case "corpus":
		return ScopeCorpus, nil
	}
	return 0, fmt.Errorf("%q is not topic or corpus", s)
}

func (s Scope) String() string {
	if s == ScopeCorpus {
		return "corpus"
	}
	return "topic"
}

// Corpus searches every passage of a knowledge base through its
// corpus-wide index (package kbindex; fr kb build writes one), for the
// query topic + " " + atom, or the atom alone when there is no topic.
// Passages are titled with their document's title.
type Corpus struct {
	db  *DocDB
	idx *kbindex.Index

	mu   sync.Mutex
	last struct { // the document read last: hits often share one
		doc      int64
		title    string
		passages []string
	}
}

// NewCorpus opens the corpus-wide index of db. A knowledge base without
// one gives an error wrapping kbindex.ErrNoIndex.
func NewCorpus(ctx context.Context, db *DocDB) (*Corpus, error) {
	idx, err := kbindex.Open(ctx, db.db)
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", db.Path(), err)
	}
	return &Corpus{db: db, idx: idx}, nil
}

// Close releases the index (not the knowledge base).
func (c *Corpus) Close() error { return c.idx.Close() }

// EmbedModel returns the model and dimension of the knowledge base's
// passage vectors; false when it has none.
func (c *Corpus) EmbedModel() (model string, dim int, ok bool) { return c.idx.EmbedModel() }

// Len is the number of passages indexed.
func (c *Corpus) Len() int { return c.idx.Len() }

// Identify says what the search is: BM25 over every passage of the
// knowledge base, by its content.
func (c *Corpus) Identify() string {
	return "db[kb=" + c.db.contentName() + ",scope=corpus,ranking=bm25]"
}

// Source names the search for caches.
func (c *Corpus) Source() string { return "corpus-bm25:" + c.db.Fingerprint() }

// CorpusQuery is the query of a corpus-wide search: FActScore's (topic, a
// space, the atom) when there is a topic, else the atom.
func CorpusQuery(topic, atom string) string {
	if strings.TrimSpace(topic) == "" {
		return strings.TrimSpace(atom)
	}
	return Query(topic, atom)
}

// Retrieve returns the k passages of the whole knowledge base that best
// match the atom (and the topic, when there is one), best first; fewer
// when fewer share a word with the query.
func (c *Corpus) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	hits, err := c.idx.Search(ctx, CorpusQuery(topic, atom), k)
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", c.db.Path(), err)
	}
	return c.passages(ctx, hits)
}

// passages reads the text of the passages hits name.
func (c *Corpus) passages(ctx context.Context, hits []kbindex.Hit) ([]Passage, error) {
	out := make([]Passage, len(hits))
	for i, h := range hits {
		title, text, err := c.passage(ctx, h.Doc, h.Ord)
		if err != nil {
			return nil, err
		}
		out[i] = Passage{Title: title, Text: text, Source: "db"}
	}
	return out, nil
}

// passage reads the ord-th passage of the document whose rowid is doc.
func (c *Corpus) passage(ctx context.Context, doc int64, ord int) (title, text string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last.passages == nil || c.last.doc != doc {
		var t, body sql.NullString
		err := c.db.db.QueryRowContext(ctx, `SELECT title, text FROM documents WHERE rowid = ?`, doc).Scan(&t, &body)
		if errors.Is(err, sql.ErrNoRows) {
			return "", "", fmt.Errorf("knowledge base %s: the index names document %d, which is not there (was the documents table changed after fr kb build?)", c.db.Path(), doc)
		}
		if err != nil {
			return "", "", fmt.Errorf("knowledge base %s: %w", c.db.Path(), err)
		}
		c.last.doc, c.last.title, c.last.passages = doc, t.String, splitPassages(body.String)
	}
	if ord < 0 || ord >= len(c.last.passages) {
		return "", "", fmt.Errorf("knowledge base %s: the index names passage %d of %q, which has %d (was the documents table changed after fr kb build?)", c.db.Path(), ord, c.last.title, len(c.last.passages))
	}
	return c.last.title, c.last.passages[ord], nil
}

// splitPassages splits a document's text into its passages, without the
// markers <s> and </s> FActScore's builder leaves in them.
func splitPassages(text string) []string {
	parts := strings.Split(text, Separator)
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "<s>", ""), "</s>", "")
	}
	return parts
}

// KB is the db source: FActScore's retrieval (the topic's document, BM25)
// for a record with a topic, and the corpus-wide search for the others,
// or for every record with ScopeCorpus. Corpus may be nil (a knowledge
// base without an index): a record without a topic is then an error
// wrapping ErrNoTopic.
type KB struct {
	Topic  *BM25Retriever
	Corpus Retriever // *Corpus, or a dense or hybrid search of it
	Scope  Scope
	// CorpusName names Corpus's search for caches (Corpus.Source, ...).
	CorpusName string
}

// Retrieve implements Retriever.
func (r *KB) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	if r.Scope == ScopeTopic && strings.TrimSpace(topic) != "" {
		return r.Topic.Retrieve(ctx, topic, atom, k)
	}
	if r.Corpus == nil {
		if r.Scope == ScopeCorpus {
			return nil, fmt.Errorf("knowledge base %s: %w", r.Topic.db.Path(), kbindex.ErrNoIndex)
		}
		return nil, fmt.Errorf("%w, and %s has no corpus-wide index to search without one (rebuild it with fr kb build)", ErrNoTopic, r.Topic.db.Path())
	}
	return r.Corpus.Retrieve(ctx, topic, atom, k)
}

// Identify says what the source is: the knowledge base by its content,
// the scope, and the ranking of its corpus-wide search ("none" without an
// index: records without a topic then fail).
func (r *KB) Identify() string {
	ranking := "none"
	switch c := r.Corpus.(type) {
	case nil:
	case *Corpus:
		ranking = "bm25"
	case *VectorSearch:
		ranking = c.rankingName()
	default:
		ranking = c.Identify()
	}
	return fmt.Sprintf("db[kb=%s,scope=%s,corpus=%s]", r.Topic.db.contentName(), r.Scope, ranking)
}

// Source names the source's settings for caches: the knowledge base, the
// scope and the corpus-wide search.
func (r *KB) Source() string {
	s := r.Topic.Source()
	if r.Corpus != nil {
		s += ";scope=" + r.Scope.String() + ";" + r.CorpusName
	}
	return s
}

// Embedder turns texts into vectors, in order (llm.Client.Embed: an
// OpenAI-compatible /v1/embeddings endpoint).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Ranking is how a corpus-wide search ranks passages.
type Ranking int

const (
	// RankBM25 ranks by the words the query shares (the index's BM25).
	RankBM25 Ranking = iota
	// RankDense ranks by the cosine similarity of the query's vector to
	// the passages' (fr kb build --embed-model stores them).
	RankDense
	// RankHybrid fuses the two rankings by reciprocal rank.
	RankHybrid
)

// ParseRanking reads "bm25", "dense" or "hybrid".
func ParseRanking(s string) (Ranking, error) {
	switch s {
	case "bm25", "":
		return RankBM25, nil
	case "dense":
		return RankDense, nil
	case "hybrid":
		return RankHybrid, nil
	}
	return 0, fmt.Errorf("%q is not bm25, dense or hybrid", s)
}

func (r Ranking) String() string {
	return [...]string{"bm25", "dense", "hybrid"}[r]
}

// RRFConstant is reciprocal-rank fusion's k (Cormack et al. 2009, and
// Elasticsearch's and Vespa's default): a passage's fused score is the sum
// over the rankings of 1/(60 + its rank), ranks from 1.
const RRFConstant = 60

// FusionDepth is how deep each ranking is read for the fusion of a top k:
// max(FusionDepth, 2k) passages of each.
const FusionDepth = 50

// VectorSearch searches a knowledge base's passages by their vectors
// (RankDense), or by both their words and their vectors, fused
// (RankHybrid). The query is embedded by Embedder, which must be the
// model the knowledge base's vectors were made with.
type VectorSearch struct {
	corpus  *Corpus
	vectors *kbindex.Vectors
	embed   Embedder
	ranking Ranking
}

// NewVectorSearch returns the search of c ranked as r (RankDense or
// RankHybrid), queries embedded by e, which speaks for model. A knowledge
// base without vectors, or with vectors of another model, is refused.
func NewVectorSearch(ctx context.Context, c *Corpus, r Ranking, e Embedder, model string) (*VectorSearch, error) {
	kbModel, dim, ok := c.idx.EmbedModel()
	if !ok {
		return nil, fmt.Errorf("knowledge base %s: %w", c.db.Path(), kbindex.ErrNoVectors)
	}
	if model != "" && model != kbModel {
		return nil, fmt.Errorf("knowledge base %s: its passages were embedded by %q (%d dimensions); queries embedded by %q would be compared in another space: use %q, or rebuild the knowledge base with the other model", c.db.Path(), kbModel, dim, model, kbModel)
	}
	vs, err := c.idx.Vectors(ctx)
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", c.db.Path(), err)
	}
	return &VectorSearch{corpus: c, vectors: vs, embed: e, ranking: r}, nil
}

// Identify says what the search is: every passage of the knowledge base,
// by its content, ranked as it ranks them.
func (s *VectorSearch) Identify() string {
	return "db[kb=" + s.corpus.db.contentName() + ",scope=corpus,ranking=" + s.rankingName() + "]"
}

// rankingName is the ranking with the vectors' model: "dense:MODEL/DIM".
func (s *VectorSearch) rankingName() string {
	return fmt.Sprintf("%s:%s/%d", s.ranking, s.vectors.Model(), s.vectors.Dim())
}

// Source names the search for caches: the knowledge base, the ranking and
// the model.
func (s *VectorSearch) Source() string {
	return fmt.Sprintf("corpus-%s:%s:%s/%d", s.ranking, s.corpus.db.Fingerprint(), s.vectors.Model(), s.vectors.Dim())
}

// Retrieve implements Retriever.
func (s *VectorSearch) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	query := CorpusQuery(topic, atom)
	vs, err := s.embed.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embedding the query: %w", err)
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("embedding the query: %d vectors for one text", len(vs))
	}
	if len(vs[0]) != s.vectors.Dim() {
		return nil, fmt.Errorf("the embeddings endpoint gave a query vector of %d dimensions, and the knowledge base's vectors (model %s) have %d: is %s the model the endpoint serves?",
			len(vs[0]), s.vectors.Model(), s.vectors.Dim(), s.vectors.Model())
	}
	depth := k
	if s.ranking == RankHybrid {
		depth = max(FusionDepth, 2*k)
	}
	dense, err := s.vectors.Search(ctx, vs[0], depth)
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", s.corpus.db.Path(), err)
	}
	if s.ranking == RankDense {
		return s.corpus.passages(ctx, dense)
	}
	words, err := s.corpus.idx.Search(ctx, query, depth)
	if err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", s.corpus.db.Path(), err)
	}
	return s.corpus.passages(ctx, Fuse(k, words, dense))
}

// Fuse merges rankings by reciprocal rank: each passage scores the sum,
// over the rankings that hold it, of 1/(RRFConstant + rank), ranks from 1;
// the k best are returned, equal scores in passage order.
func Fuse(k int, rankings ...[]kbindex.Hit) []kbindex.Hit {
	score := map[int]float64{}
	where := map[int]kbindex.Hit{}
	for _, r := range rankings {
		for i, h := range r {
			score[h.Passage] += 1 / float64(RRFConstant+i+1)
			where[h.Passage] = h
		}
	}
	out := make([]kbindex.Hit, 0, len(score))
	for p, s := range score {
		h := where[p]
		h.Score = s
		out = append(out, h)
	}
	sortHits(out)
	return out[:min(k, len(out))]
}

// sortHits orders hits best first, equal scores in passage order.
func sortHits(hs []kbindex.Hit) {
	slices.SortFunc(hs, func(a, b kbindex.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Passage, b.Passage)
	})
}
