package nlicache_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/factreasoner/factreasoner-go/nli"
	"github.com/factreasoner/factreasoner-go/nli/lexical"
	"github.com/factreasoner/factreasoner-go/nli/nlicache"
)

// fake is a deterministic text classifier that counts what it is asked.
type fake struct {
	model string
	fail  error // returned by Classify when set

	mu    sync.Mutex
	calls int
	asked []nli.Pair
}

func (f *fake) Identity() nli.Identity { return nli.Identity{Backend: "fake", Model: f.model} }

func (f *fake) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	f.mu.Lock()
	f.calls++
	f.asked = append(f.asked, pairs...)
	f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		out[i] = fakeAnswer(f.model, p)
	}
	return out, nil
}

// fakeAnswer derives an answer from the texts and the model: some with a
// distribution, some without, probabilities with all 64 bits in use.
func fakeAnswer(model string, p nli.Pair) nli.Result {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", model, p.Premise, p.Hypothesis)
	v := h.Sum64()
	r := nli.Result{Label: nli.Label(v % 3), Probability: 0.4 + float64(v>>11)/float64(1<<53)*0.6}
	if v%5 != 0 {
		rest := 1 - r.Probability
		r.Distribution = []float64{rest / 3, rest / 3, rest / 3}
		r.Distribution[r.Label] = r.Probability
	}
	return r
}

func (f *fake) stats() (calls, pairs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, len(f.asked)
}

// testPairs are n pairs over a few premises, with repeats: pair i and pair
// i+n/2 share their texts (different ids).
func testPairs(n int) []nli.Pair {
	pairs := make([]nli.Pair, n)
	for i := range pairs {
		k := i % (n / 2)
		pairs[i] = nli.Pair{
			PremiseID:    fmt.Sprintf("c%d", i),
			HypothesisID: fmt.Sprintf("a%d", i),
			Premise:      fmt.Sprintf("premise %d", k%3),
			Hypothesis:   fmt.Sprintf("hypothesis %d", k),
		}
	}
	return pairs
}

func want(model string, pairs []nli.Pair) []nli.Result {
	out := make([]nli.Result, len(pairs))
	for i, p := range pairs {
		out[i] = fakeAnswer(model, p)
	}
	return out
}

func openCache(t *testing.T, path string, inner nli.Classifier) *nlicache.Cache {
	t.Helper()
	c, err := nlicache.Open(path, inner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCache: misses are deduplicated and sent in one call, hits never
// reach the inner classifier, results come back in order and exact, and
// the file keeps them after Close.
func TestCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nli cache?.db") // a space and a '?' in the name
	ctx := context.Background()
	pairs := testPairs(20) // 10 distinct text pairs

	inner := &fake{model: "m1"}
	c := openCache(t, path, inner)
	if c.Identity() != inner.Identity() {
		t.Errorf("identity %v, want the inner %v", c.Identity(), inner.Identity())
	}
	got, err := c.Classify(ctx, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want("m1", pairs)) {
		t.Errorf("first run: results differ from the inner classifier's")
	}
	if calls, n := inner.stats(); calls != 1 || n != 10 {
		t.Errorf("first run: %d inner calls for %d pairs, want 1 call for the 10 distinct pairs", calls, n)
	}
	if inner.asked[0] != pairs[0] {
		t.Errorf("misses should be sent as first seen, got %+v", inner.asked[0])
	}
	// A caller may modify what it gets.
	for _, r := range got {
		for i := range r.Distribution {
			r.Distribution[i] = -1
		}
	}
	again, _ := c.Classify(ctx, pairs[3:7])
	if !reflect.DeepEqual(again, want("m1", pairs[3:7])) {
		t.Errorf("hits: got %+v", again)
	}
	if calls, _ := inner.stats(); calls != 1 {
		t.Errorf("hits reached the inner classifier (%d calls)", calls)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("cache file not at its path: %v", err)
	}

	// Reopened: old pairs are hits, new ones misses.
	inner2 := &fake{model: "m1"}
	c2 := openCache(t, path, inner2)
	more := append(testPairs(20), nli.Pair{Premise: "new premise", Hypothesis: "new hypothesis"})
	got, err = c2.Classify(ctx, more)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want("m1", more)) {
		t.Errorf("reopened: results differ")
	}
	if calls, n := inner2.stats(); calls != 1 || n != 1 {
		t.Errorf("reopened: %d calls for %d pairs, want 1 call for the 1 new pair", calls, n)
	}

	// Another model of the same backend shares the file but not the answers.
	inner3 := &fake{model: "m2"}
	c3 := openCache(t, path, inner3)
	got, _ = c3.Classify(ctx, pairs)
	if !reflect.DeepEqual(got, want("m2", pairs)) {
		t.Errorf("other model: results differ")
	}
	if calls, n := inner3.stats(); calls != 1 || n != 10 {
		t.Errorf("other model: %d calls for %d pairs, want 1 for 10", calls, n)
	}

	// Nothing to do: no call.
	if got, err := c3.Classify(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("empty batch: %v, %v", got, err)
	}
	if calls, _ := inner3.stats(); calls != 1 {
		t.Errorf("empty batch reached the inner classifier")
	}
}

// TestCacheSecondProcess: a later process finds the answers of an earlier
// one and asks its classifier nothing.
func TestCacheSecondProcess(t *testing.T) {
	if path := os.Getenv("NLI_CACHE_HELPER"); path != "" {
		cacheHelper(path)
		return
	}
	path := filepath.Join(t.TempDir(), "cache.db")
	run := func() (calls int, results []nli.Result) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheSecondProcess$")
		cmd.Env = append(os.Environ(), "NLI_CACHE_HELPER="+path)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helper process: %v\n%s", err, out)
		}
		line, _, _ := strings.Cut(string(out), "\n")
		var rep struct {
			Calls   int
			Results []nli.Result
		}
		if err := json.Unmarshal([]byte(line), &rep); err != nil {
			t.Fatalf("helper output %q: %v", out, err)
		}
		return rep.Calls, rep.Results
	}
	calls1, res1 := run()
	calls2, res2 := run()
	if calls1 != 1 || calls2 != 0 {
		t.Errorf("inner calls: first process %d, second %d; want 1 and 0", calls1, calls2)
	}
	if !reflect.DeepEqual(res1, res2) || !reflect.DeepEqual(res1, want("m", testPairs(20))) {
		t.Errorf("the processes' results differ")
	}
}

func cacheHelper(path string) {
	inner := &fake{model: "m"}
	c, err := nlicache.Open(path, inner)
	if err == nil {
		var res []nli.Result
		if res, err = c.Classify(context.Background(), testPairs(20)); err == nil {
			calls, _ := inner.stats()
			err = json.NewEncoder(os.Stdout).Encode(struct {
				Calls   int
				Results []nli.Result
			}{calls, res})
		}
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}

// TestCacheConcurrent: many goroutines on one cache, overlapping batches
// (run with -race).
func TestCacheConcurrent(t *testing.T) {
	inner := &fake{model: "m"}
	c := openCache(t, filepath.Join(t.TempDir(), "cache.db"), inner)
	pairs := testPairs(40)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			batch := pairs[g%5 : g%5+20]
			got, err := c.Classify(context.Background(), batch)
			if err == nil && !reflect.DeepEqual(got, want("m", batch)) {
				err = fmt.Errorf("goroutine %d: results differ", g)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Every distinct pair is stored now.
	before, _ := inner.stats()
	if _, err := c.Classify(context.Background(), pairs); err != nil {
		t.Fatal(err)
	}
	if after, _ := inner.stats(); after != before {
		t.Errorf("pairs missing after the concurrent calls")
	}
}

// badInner returns answers a cache must refuse.
type badInner struct {
	fake
	mangle func([]nli.Result) []nli.Result
}

func (b *badInner) Classify(ctx context.Context, pairs []nli.Pair) ([]nli.Result, error) {
	res, err := b.fake.Classify(ctx, pairs)
	if err != nil {
		return nil, err
	}
	return b.mangle(res), nil
}

// TestCacheInnerErrors: the inner classifier's failures and bad answers
// come back as errors and nothing is stored.
func TestCacheInnerErrors(t *testing.T) {
	boom := errors.New("model unavailable")
	tests := []struct {
		name  string
		inner nli.Classifier
		want  string
	}{
		{"error", &fake{model: "m", fail: boom}, "model unavailable"},
		{"short", &badInner{fake{model: "m"}, func(r []nli.Result) []nli.Result { return r[1:] }}, "returned 2 results for 3 pairs"},
		{"NaN", &badInner{fake{model: "m"}, func(r []nli.Result) []nli.Result { r[1].Probability = math.NaN(); return r }}, "pair 1"},
		{"label", &badInner{fake{model: "m"}, func(r []nli.Result) []nli.Result { r[2].Label = 7; return r }}, "invalid label"},
	}
	pairs := testPairs(6)[:3]
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cache.db")
			c := openCache(t, path, tc.inner)
			if _, err := c.Classify(context.Background(), pairs); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			// Nothing was stored: a good classifier is asked everything.
			good := &fake{model: "m"}
			c2 := openCache(t, path, good)
			if _, err := c2.Classify(context.Background(), pairs); err != nil {
				t.Fatal(err)
			}
			if _, n := good.stats(); n != 3 {
				t.Errorf("%d pairs asked after the failure, want 3", n)
			}
		})
	}
}

// TestCacheBadFile: a file that is not an NLI cache gives an error naming
// it, and is left as it was.
func TestCacheBadFile(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	content := []byte(strings.Repeat("this is not an SQLite database\n", 200))
	os.WriteFile(garbage, content, 0o644)

	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite3", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (x TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	otherContent, _ := os.ReadFile(other)

	newer := filepath.Join(dir, "newer.db")
	c := openCache(t, newer, &fake{})
	c.Close()
	db, _ = sql.Open("sqlite3", newer)
	db.Exec("UPDATE meta SET value = '99' WHERE name = 'format'")
	db.Close()

	// A parent that is a file cannot be a directory.
	parent := filepath.Join(dir, "a file")
	os.WriteFile(parent, nil, 0o644)

	tests := []struct{ path, want string }{
		{garbage, "not an SQLite database"},
		{other, "tables notes, not a factreasoner-go cache"},
		{newer, "format 99"},
		{filepath.Join(parent, "cache.db"), "not a directory"},
	}
	for _, tc := range tests {
		_, err := nlicache.Open(tc.path, &fake{})
		if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming the file and saying %q", tc.path, err, tc.want)
		}
	}
	if got, _ := os.ReadFile(garbage); string(got) != string(content) {
		t.Error("the garbage file was modified")
	}
	if got, _ := os.ReadFile(other); string(got) != string(otherContent) {
		t.Error("the other program's database was modified")
	}
}

func TestCacheCancel(t *testing.T) {
	inner := &fake{model: "m"}
	c := openCache(t, filepath.Join(t.TempDir(), "cache.db"), inner)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Classify(ctx, testPairs(4)); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "nli")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "nli.db")
	pairs := []nli.Pair{{Premise: "Ada Lovelace was an English mathematician.", Hypothesis: "Ada Lovelace was a mathematician."}}

	for range 2 {
		cache, err := nlicache.Open(path, lexical.New())
		if err != nil {
			fmt.Println(err)
			return
		}
		res, _ := cache.Classify(context.Background(), pairs)
		fmt.Println(cache.Identity(), res[0].Label)
		cache.Close()
	}
	// Output:
	// lexical:coverage-v1 entailment
	// lexical:coverage-v1 entailment
}

// TestCacheFileFormat pins the key of an entry (sha256 over backend, model,
// premise and hypothesis, each preceded by its length as a little-endian
// uint64) and its value (the answer in JSON), so that a change to them,
// which would orphan every existing cache, is deliberate; and shows that a
// damaged entry is reported, not returned.
func TestCacheFileFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	p := nli.Pair{Premise: "Ada Lovelace was a mathematician.", Hypothesis: "Ada Lovelace was a writer."}
	c := openCache(t, path, &fake{model: "m"})
	if _, err := c.Classify(context.Background(), []nli.Pair{p}); err != nil {
		t.Fatal(err)
	}
	c.Close()

	h := sha256.New()
	for _, s := range []string{"fake", "m", p.Premise, p.Hypothesis} {
		binary.Write(h, binary.LittleEndian, uint64(len(s)))
		h.Write([]byte(s))
	}
	key := h.Sum(nil)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var value []byte
	if err := db.QueryRow("SELECT value FROM entries WHERE key = ?", key).Scan(&value); err != nil {
		t.Fatalf("entry not under the documented key: %v", err)
	}
	var stored struct {
		Label        int
		Probability  float64
		Distribution []float64
	}
	if err := json.Unmarshal(value, &stored); err != nil {
		t.Fatalf("value %s: %v", value, err)
	}
	if w := fakeAnswer("m", p); stored.Label != int(w.Label) || stored.Probability != w.Probability || !reflect.DeepEqual(stored.Distribution, w.Distribution) {
		t.Errorf("stored %s, want %+v", value, w)
	}

	for _, damage := range []string{`{"label": 9, "probability": 0.5}`, `{"label": 256, "probability": 0.5}`, `{"label": 1, "probability": 1.5}`, `not json`} {
		if _, err := db.Exec("UPDATE entries SET value = ?", []byte(damage)); err != nil {
			t.Fatal(err)
		}
		c = openCache(t, path, &fake{model: "m"})
		if _, err := c.Classify(context.Background(), []nli.Pair{p}); err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), path) {
			t.Errorf("damaged entry %s: got %v", damage, err)
		}
		c.Close()
	}
}

// revisioned is a fake whose answers depend on a code revision.
type revisioned struct {
	*fake
	revision string
}

func (r revisioned) Revision() string { return r.revision }

// TestCacheRevision: answers stored by one revision of a classifier's code
// are not reused by another (the cross-encoders' tokenizer fix), and a
// classifier without a revision keeps its keys.
func TestCacheRevision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nli.db")
	pairs := []nli.Pair{{PremiseID: "c1", Premise: "Paris is in France.", HypothesisID: "a1", Hypothesis: "Paris is French."}}
	ask := func(c nli.Classifier) int {
		t.Helper()
		cache, err := nlicache.Open(path, c)
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close()
		if _, err := cache.Classify(context.Background(), pairs); err != nil {
			t.Fatal(err)
		}
		var inner *fake
		switch c := c.(type) {
		case *fake:
			inner = c
		case revisioned:
			inner = c.fake
		}
		return len(inner.asked)
	}
	for i, c := range []struct {
		classifier nli.Classifier
		asked      int
	}{
		{&fake{model: "m"}, 1},
		{&fake{model: "m"}, 0},
		{revisioned{&fake{model: "m"}, "r1"}, 1},
		{revisioned{&fake{model: "m"}, "r1"}, 0},
		{revisioned{&fake{model: "m"}, "r2"}, 1},
		{&fake{model: "m"}, 0},
	} {
		if got := ask(c.classifier); got != c.asked {
			t.Errorf("step %d: the classifier was asked %d pairs, want %d", i, got, c.asked)
		}
	}
}
