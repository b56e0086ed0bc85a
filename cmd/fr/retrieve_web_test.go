package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/result"
	"github.com/factreasoner/factreasoner-go/retrieve/searchtest"
)

const e2eSerperKey = "e2e-serper-key-abcdef123456"

// obituary is the article of the fake site's page about Lanny Flaherty.
var obituary = []string{
	"Lanny Flaherty, a character actor whose career spanned five decades, died on February 18, 2024, in New York City. He was 81.",
	"Flaherty was born on July 27, 1942, in Pontotoc, Mississippi, and graduated from Pontotoc High School before serving in the Army.",
	"He appeared in Lonesome Dove, Natural Born Killers and Signs, and worked often on stage in New York.",
}

// webFakes starts a Serper fake and a web site for the two atoms of
// bornRecord: each atom's results link an article (with boilerplate
// around it), a PDF and a page that robots.txt disallows; the second
// atom's results also link a page that is too slow.
func webFakes(t *testing.T) (*searchtest.Serper, *searchtest.Site) {
	t.Helper()
	site := searchtest.NewSite(t)
	site.SetRobots("User-agent: *\nDisallow: /members/\n")
	site.Page("/obituary", "text/html; charset=utf-8", searchtest.BoilerplatePage("Lanny Flaherty, actor, dies at 81", obituary...))
	site.Handle("/resume.pdf", searchtest.PDF())
	site.Page("/members/bio", "text/html", searchtest.BoilerplatePage("Members only", "Lanny Flaherty was born in 1942."))
	site.Handle("/slow", searchtest.Slow(time.Minute, "<p>too late</p>"))
	serper := searchtest.NewSerper(t, e2eSerperKey)
	serper.Add("Lanny Flaherty was born on July 27, 1942.",
		searchtest.Result{Title: "Lanny Flaherty, actor, dies at 81", Link: site.URL + "/obituary", Snippet: "Lanny Flaherty, a character actor, died on February 18, 2024."},
		searchtest.Result{Title: "Résumé", Link: site.URL + "/resume.pdf", Snippet: "Born July 27, 1942, Pontotoc, Mississippi."},
		searchtest.Result{Title: "Members only", Link: site.URL + "/members/bio", Snippet: "Lanny Flaherty (born 1942) was an American actor."},
	)
	serper.Add("Lanny Flaherty was a graduate of pontotoc high school.",
		searchtest.Result{Title: "Lanny Flaherty, actor, dies at 81", Link: site.URL + "/obituary#school", Snippet: "He graduated from Pontotoc High School."},
		searchtest.Result{Title: "Slow page", Link: site.URL + "/slow", Snippet: "Pontotoc High School alumni."},
		searchtest.Result{Title: "Members only", Link: site.URL + "/members/bio", Snippet: "Flaherty attended high school in Pontotoc."},
	)
	return serper, site
}

// TestScoreSerperFetchPages scores a record end to end with
// --source serper --fetch-pages against loopback fakes: contexts carry the
// article's main text (boilerplate dropped) or, for pages that fail, the
// snippet alone; each records its source and link; the stderr summary
// counts the fallbacks; a second run with the cache gives the same bytes,
// searching again only for the atom whose page timed out.
func TestScoreSerperFetchPages(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv("SERPER_API_KEY", e2eSerperKey)
	serper, site := webFakes(t)
	in := writeTemp(t, "in.jsonl", bornRecord)
	cache := filepath.Join(t.TempDir(), "retrieval.sqlite")
	args := []string{"score", "--nli", "lexical", "--source", "serper", "--serper-endpoint", serper.URL, "--fetch-pages", "--fetch-private",
		"--page-timeout", "1s", "--retrieve-k", "3", "--retrieval-cache", cache, in}
	ctx := context.Background()
	out, stderr, err := run(t, ctx, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rec result.Line
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rec.NumAtoms != 2 || rec.FactualityScore < 0 || rec.FactualityScore > 1 || len(rec.Marginals) != 2 {
		t.Errorf("record %+v", rec)
	}
	byID := map[string]instance.Context{}
	for _, c := range rec.Contexts {
		byID[c.ID] = c
		if c.Source != "serper" || !strings.HasPrefix(c.Link, site.URL+"/") || c.Snippet == "" {
			t.Errorf("context %+v", c)
		}
	}
	if len(rec.Contexts) != 6 || strings.Join(rec.Atoms[0].Contexts, " ") != "c_a0_0 c_a0_1 c_a0_2" || strings.Join(rec.Atoms[1].Contexts, " ") != "c_a1_0 c_a1_1 c_a1_2" {
		t.Fatalf("contexts %+v, atoms %+v", rec.Contexts, rec.Atoms)
	}
	for _, id := range []string{"c_a0_0", "c_a1_0"} {
		text := byID[id].Text
		for _, p := range obituary {
			if !strings.Contains(text, p) {
				t.Errorf("%s: article text missing %q: %q", id, p, text)
			}
		}
		for _, b := range searchtest.Boilerplate {
			if strings.Contains(text, b) {
				t.Errorf("%s: boilerplate kept: %q", id, b)
			}
		}
	}
	for _, id := range []string{"c_a0_1", "c_a0_2", "c_a1_1", "c_a1_2"} {
		if byID[id].Text != "" {
			t.Errorf("%s: a failed page has text %q", id, byID[id].Text)
		}
	}
	if site.Hits("/members/bio") != 0 {
		t.Error("a page disallowed by robots.txt was fetched")
	}
	if n := site.Hits("/obituary"); n != 1 {
		t.Errorf("the page both atoms found was fetched %d times", n)
	}
	want := "fr: pages: 2 pages fetched, 4 fell back to the snippet (1 not text/html or text/plain, 1 timed out, 2 disallowed by robots.txt)"
	// Two atoms' searches and the question's (which finds nothing here).
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "fr: serper: 3 searches at "+serper.URL) {
		t.Errorf("stderr lacks the summary %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, e2eSerperKey) || strings.Contains(out, e2eSerperKey) {
		t.Error("the key was printed")
	}
	// Again from the cache: the same bytes; only the atom with the
	// timed-out page is searched again.
	again, _, err := run(t, ctx, args...)
	if err != nil {
		t.Fatal(err)
	}
	if again != out {
		t.Errorf("second run differs:\n%s\n%s", out, again)
	}
	if n := len(serper.Requests()); n != 4 {
		t.Errorf("%d searches, want 4", n)
	}
}

// TestRetrieveWebErrors: a missing key names SERPER_API_KEY and a refused
// one the status and the quota, before any output; bad source lists are
// usage errors.
func TestRetrieveWebErrors(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	serper, _ := webFakes(t)
	in := writeTemp(t, "in.jsonl", bornRecord)
	ctx := context.Background()
	outFile := filepath.Join(t.TempDir(), "out.jsonl")

	t.Setenv("SERPER_API_KEY", "")
	_, _, err := run(t, ctx, "retrieve", "--source", "serper", "--serper-endpoint", serper.URL, "-o", outFile, in)
	if err == nil || !strings.Contains(err.Error(), "SERPER_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	if _, err := os.Stat(outFile); err == nil {
		t.Error("an output file was made")
	}

	t.Setenv("SERPER_API_KEY", "not-the-key-98765")
	_, stderr, err := run(t, ctx, "retrieve", "--source", "serper", "--serper-endpoint", serper.URL, "--retrieval-cache", "off", in)
	if err == nil || !strings.Contains(err.Error(), in+":1:") || !strings.Contains(err.Error(), "HTTP 403") || !strings.Contains(err.Error(), "quota") ||
		strings.Contains(err.Error()+stderr, "not-the-key-98765") {
		t.Errorf("refused key: %v", err)
	}

	for _, tt := range []struct{ args, want string }{
		{"--source serper,bing", `"bing" is not a source`},
		{"--source serper,serper", "serper is listed twice"},
		{"--source searxng", "--searxng-url"},
		{"--source wikipedia --fetch-pages", "--fetch-pages"},
		{"--source wikipedia --k-per-source serper=2", "serper is not one of the sources"},
		{"--source wikipedia --k-per-source wikipedia=0", "--k-per-source"},
		{"--source wikipedia --web-query title", "--web-query"},
		{"--source wikipedia --db kb.db", "--db applies to --source db, not to this run (--source wikipedia)"},
	} {
		_, _, err := run(t, ctx, append(append([]string{"retrieve"}, strings.Fields(tt.args)...), in)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestRetrieveSeveralSources: --source db,searxng,serper merges the
// sources in that order, k per source, without duplicates, each context
// recording its source; the topic query goes to the web sources.
func TestRetrieveSeveralSources(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv("SERPER_API_KEY", e2eSerperKey)
	ctx := context.Background()
	kb := filepath.Join(t.TempDir(), "kb.db")
	doc := writeTemp(t, "Lanny Flaherty.txt", "Lanny Flaherty was an American actor.\n\nHe was born in 1942.\n")
	if _, _, err := run(t, ctx, "kb", "build", "-o", kb, doc); err != nil {
		t.Fatal(err)
	}
	serper := searchtest.NewSerper(t, e2eSerperKey)
	searx := searchtest.NewSearXNG(t)
	const q = "Lanny Flaherty Lanny Flaherty was born on July 27, 1942."
	serper.Add(q,
		searchtest.Result{Title: "IMDb", Link: "https://www.imdb.com/name/nm0280890/", Snippet: "Born July 27, 1942."},
		searchtest.Result{Title: "Wikipedia", Link: "https://en.wikipedia.org/wiki/Lanny_Flaherty", Snippet: "An American actor."},
		searchtest.Result{Title: "Third", Link: "https://example.org/3", Snippet: "third"},
	)
	searx.Add(q,
		searchtest.Result{Title: "Lanny Flaherty - Wikipedia", Link: "https://en.wikipedia.org/wiki/Lanny_Flaherty", Snippet: "Lanny Flaherty was an American actor."},
	)
	in := writeTemp(t, "in.jsonl", strings.Replace(bornRecord, `, {"id": "a1", "text": "Lanny Flaherty was a graduate of pontotoc high school."}`, "", 1))
	out, _, err := run(t, ctx, "retrieve", "--db", kb, "--source", "db,searxng,serper", "--searxng-url", searx.URL, "--serper-endpoint", serper.URL,
		"--web-query", "topic", "--k", "1", "--k-per-source", "serper=3", "--retrieval-cache", "off", in)
	if err != nil {
		t.Fatal(err)
	}
	var rec instance.Instance
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got []string
	for _, c := range rec.Contexts {
		got = append(got, c.ID+" "+c.Source+" "+c.Title)
	}
	// The question's passages come from the same sources (here only the
	// knowledge base has one for it).
	want := []string{"c_a0_0 db Lanny Flaherty", "c_a0_1 searxng Lanny Flaherty - Wikipedia", "c_a0_2 serper IMDb", "c_a0_3 serper Third", "c_q_0 db Lanny Flaherty"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("contexts\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if reqs := serper.Requests(); len(reqs) != 2 || reqs[0].Num != 3 || reqs[1].Q != "Lanny Flaherty Tell me a bio of Lanny Flaherty." {
		t.Errorf("serper requests %+v", reqs)
	}
}

// TestRetrieveRetries: fr retrieve takes --retries, the one retry count of
// its HTTP clients: a Serper rate limit (429, Retry-After in seconds) is
// asked again that many times, then reported with its status.
func TestRetrieveRetries(t *testing.T) {
	t.Setenv("FACTREASONER_CACHE", t.TempDir())
	t.Setenv("SERPER_API_KEY", e2eSerperKey)
	serper, _ := webFakes(t)
	in := writeTemp(t, "in.jsonl", bornRecord)
	ctx := context.Background()
	for _, retries := range []int{0, 2} {
		serper.Throttle(10, "0.01")
		before := len(serper.Requests())
		_, stderr, err := run(t, ctx, "retrieve", "--source", "serper", "--serper-endpoint", serper.URL, "--retrieval-cache", "off",
			"--retries", strconv.Itoa(retries), in)
		if err == nil || !strings.Contains(err.Error(), "HTTP 429") {
			t.Errorf("--retries %d: %v\n%s", retries, err, stderr)
		}
		if n := len(serper.Requests()) - before; n != retries+1 {
			t.Errorf("--retries %d: %d requests, want %d", retries, n, retries+1)
		}
		if n := strings.Count(stderr, "retrying in 10ms"); n != retries {
			t.Errorf("--retries %d: %d retries announced with the server's wait, want %d:\n%s", retries, n, retries, stderr)
		}
	}
}

// TestScoreRetrievalCacheFlag: fr score keeps its retrievals where
// --retrieval-cache says: in FILE, or nowhere with off (the default file in
// the cache directory is not made, and every search is made again).
func TestScoreRetrievalCacheFlag(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv("FACTREASONER_CACHE", cacheDir)
	t.Setenv("SERPER_API_KEY", e2eSerperKey)
	serper, _ := webFakes(t)
	in := writeTemp(t, "in.jsonl", bornRecord)
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "mine.sqlite")
	args := []string{"score", "--nli", "lexical", "--source", "serper", "--serper-endpoint", serper.URL, "--retrieval-cache"}
	for i := 0; i < 2; i++ {
		if _, stderr, err := run(t, ctx, append(args, file, in)...); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
	}
	// Two atoms and the question.
	if n := len(serper.Requests()); n != 3 {
		t.Errorf("--retrieval-cache FILE: %d searches in two runs, want 3 (the second from the cache)", n)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("--retrieval-cache FILE: %v", err)
	}
	for i := 0; i < 2; i++ {
		if _, stderr, err := run(t, ctx, append(args, "off", in)...); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
	}
	if n := len(serper.Requests()); n != 9 {
		t.Errorf("--retrieval-cache off: %d searches in all, want 9 (3 more per run)", n)
	}
	if matches, _ := filepath.Glob(filepath.Join(cacheDir, "retrieval*")); len(matches) != 0 {
		t.Errorf("--retrieval-cache FILE or off made %v", matches)
	}
}
