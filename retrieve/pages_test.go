package retrieve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/factreasoner/factreasoner-go/internal/version"
	"github.com/factreasoner/factreasoner-go/retrieve/searchtest"
	"github.com/factreasoner/factreasoner-go/retry"
)

// fastRetry repeats failures twice, at once.
func fastRetry() *retry.Policy {
	return &retry.Policy{Retries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}
}

// testFetcher is a fetcher for loopback fakes, with small bounds.
func testFetcher() *PageFetcher {
	f := NewPageFetcher()
	f.AllowPrivate = true
	f.Retry = fastRetry()
	f.MaxBytes = 1 << 20
	f.Timeout = 2 * time.Second
	return f
}

var article = []string{
	"Lanny Flaherty was an American actor, born on July 27, 1942, in Pontotoc, Mississippi.",
	"He served in the United States Army before studying at Mississippi State University and the University of Southern Mississippi.",
	"Flaherty appeared in films such as Lonesome Dove, Natural Born Killers and Signs, and on stage in New York for more than four decades.",
	"He died on February 18, 2024, in New York City, at the age of 81.",
}

// hostileSite serves a good article among hostile pages.
func hostileSite(t *testing.T) *searchtest.Site {
	site := searchtest.NewSite(t)
	// The group for factreasoner-go is the one that applies to it: /private/
	// is disallowed to other robots only.
	site.SetRobots("User-agent: otherbot\nDisallow: /\n\nUser-agent: factreasoner-go\nDisallow: /no-bots/\n\nUser-agent: *\nDisallow: /private/\n")
	site.Page("/article", "text/html; charset=utf-8", searchtest.BoilerplatePage("Actor Lanny Flaherty dies at 81", article...))
	site.Page("/notes.txt", "text/plain; charset=iso-8859-1", "Caf\xe9 notes: Lanny Flaherty was born in 1942.\n")
	site.Page("/no-bots/article", "text/html", searchtest.BoilerplatePage("Hidden", article...))
	site.Handle("/huge", searchtest.Huge(3<<20, true))
	site.Handle("/huge-streamed", searchtest.Huge(3<<20, false))
	site.Handle("/binary", searchtest.BinaryAsHTML())
	site.Handle("/paper.pdf", searchtest.PDF())
	site.Handle("/loop1", searchtest.Redirect("/loop2"))
	site.Handle("/loop2", searchtest.Redirect("/loop1"))
	site.Handle("/moved", searchtest.Redirect("/article"))
	site.Handle("/moved-to-no-bots", searchtest.Redirect("/no-bots/article"))
	site.Handle("/slow", searchtest.Slow(time.Minute, "<p>too late</p>"))
	site.Handle("/gone", searchtest.Status(http.StatusNotFound))
	site.Handle("/broken", searchtest.Status(http.StatusServiceUnavailable))
	site.Page("/empty", "text/html", "<html><body><script>var x = 1;</script></body></html>")
	return site
}

// TestPageFetcherHostilePages: each hostile page fails with its reason and
// is not read past the bounds; good pages give their main text.
func TestPageFetcherHostilePages(t *testing.T) {
	site := hostileSite(t)
	f := testFetcher()
	f.Timeout = 1500 * time.Millisecond
	ctx := context.Background()
	tests := []struct {
		path      string
		reason    PageFailure // "" for a page that is read
		temporary bool
	}{
		{"/article", "", false},
		{"/moved", "", false},
		{"/notes.txt", "", false},
		{"/huge", FailSize, false},
		{"/huge-streamed", FailSize, false},
		{"/binary", FailType, false},
		{"/paper.pdf", FailType, false},
		{"/loop1", FailRedirects, false},
		{"/slow", FailTimeout, true},
		{"/no-bots/article", FailRobots, false},
		{"/moved-to-no-bots", FailRobots, false},
		{"/private/x", FailStatus, false}, // allowed to us, and not there
		{"/gone", FailStatus, false},
		{"/broken", FailStatus, true},
		{"/empty", FailNoText, false},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.path, "/"), func(t *testing.T) {
			start := time.Now()
			text, err := f.Text(ctx, site.URL+tt.path, "When was Lanny Flaherty born?")
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(text, "1942") {
					t.Errorf("text %q", text)
				}
				return
			}
			var pe *PageError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (text %q), want a PageError", err, text)
			}
			if pe.Reason != tt.reason || pe.Temporary != tt.temporary {
				t.Errorf("reason %q temporary %v, want %q %v (%v)", pe.Reason, pe.Temporary, tt.reason, tt.temporary, err)
			}
			if !strings.Contains(err.Error(), site.URL+tt.path) {
				t.Errorf("error %q does not name the page", err)
			}
			if tt.reason == FailTimeout && time.Since(start) > 10*time.Second {
				t.Errorf("the slow page held the fetcher %v", time.Since(start))
			}
		})
	}
	// The disallowed pages were never requested, only robots.txt, once.
	for _, p := range []string{"/no-bots/article"} {
		if n := site.Hits(p); n != 0 {
			t.Errorf("%s requested %d times", p, n)
		}
	}
	if n := site.Hits("/robots.txt"); n != 1 {
		t.Errorf("robots.txt requested %d times, want once", n)
	}
	// Permanent failures are not repeated; a 503 is, as the policy says.
	if n := site.Hits("/gone") + site.Hits("/private/x"); n != 2 {
		t.Errorf("/gone requested %d times", n)
	}
	if n := site.Hits("/broken"); n != 3 {
		t.Errorf("/broken requested %d times, want 3 (2 retries)", n)
	}
	for _, ua := range site.UserAgents() {
		if !strings.HasPrefix(ua, version.UserAgent()) {
			t.Errorf("User-Agent %q", ua)
		}
	}
	s := f.Stats()
	if s.Fetched != 3 || s.Failed() != 12 || s.Fallbacks[FailRobots] != 2 || s.Fallbacks[FailType] != 2 || s.Fallbacks[FailSize] != 2 || s.Fallbacks[FailStatus] != 3 {
		t.Errorf("stats %+v", s)
	}
	if msg := s.String(); !strings.HasPrefix(msg, "3 pages fetched, 12 fell back to the snippet (") || !strings.Contains(msg, "2 disallowed by robots.txt") || !strings.HasSuffix(msg, "; 15 requested, each page once for all the atoms that found it") {
		t.Errorf("stats line %q", msg)
	}
}

// TestPageFetcherRobotsWildcard: the rules for every robot apply when no
// group names factreasoner-go; a robots.txt that answers 500 disallows
// everything for now (not remembered), and one that answers 404 allows all.
func TestPageFetcherRobotsWildcard(t *testing.T) {
	site := searchtest.NewSite(t)
	site.SetRobots("User-agent: *\nDisallow: /private/\nAllow: /private/open\n")
	site.Page("/private/secret", "text/plain", "secret")
	site.Page("/private/open", "text/plain", "open")
	f := testFetcher()
	ctx := context.Background()
	var pe *PageError
	if _, err := f.Text(ctx, site.URL+"/private/secret", ""); !errors.As(err, &pe) || pe.Reason != FailRobots {
		t.Errorf("secret: %v", err)
	}
	if text, err := f.Text(ctx, site.URL+"/private/open", ""); err != nil || text != "open" {
		t.Errorf("open: %q %v", text, err)
	}
	if site.Hits("/private/secret") != 0 {
		t.Error("a disallowed page was requested")
	}

	down := searchtest.NewSite(t)
	down.Handle("/robots.txt", searchtest.Status(http.StatusInternalServerError))
	down.Page("/page", "text/plain", "text")
	for i := 0; i < 2; i++ {
		if _, err := f.Text(ctx, down.URL+"/page", ""); !errors.As(err, &pe) || pe.Reason != FailRobots || !pe.Temporary {
			t.Errorf("robots.txt 500: %v", err)
		}
	}
	if n := down.Hits("/robots.txt"); n != 3 {
		t.Errorf("robots.txt requested %d times, want 3 (the attempts of the first fetch; the page's failure is the run's)", n)
	}
	// Another page of the host asks again: a failure that may pass is not
	// remembered for the host.
	if _, err := f.Text(ctx, down.URL+"/other", ""); !errors.As(err, &pe) || pe.Reason != FailRobots {
		t.Errorf("robots.txt 500, another page: %v", err)
	}
	if n := down.Hits("/robots.txt"); n != 6 {
		t.Errorf("robots.txt requested %d times, want 3 more for another page", n)
	}
	if down.Hits("/page") != 0 {
		t.Error("a page was requested while its robots.txt failed")
	}

	none := searchtest.NewSite(t)
	none.Page("/page", "text/plain", "text")
	if text, err := f.Text(ctx, none.URL+"/page", ""); err != nil || text != "text" {
		t.Errorf("no robots.txt: %q %v", text, err)
	}
}

// TestPageFetcherBoilerplate: readability keeps the article and drops the
// navigation, sidebar and footer around it.
func TestPageFetcherBoilerplate(t *testing.T) {
	site := hostileSite(t)
	text, err := testFetcher().Text(context.Background(), site.URL+"/article", "Lanny Flaherty was born in 1942")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range article {
		if !strings.Contains(text, p) {
			t.Errorf("article paragraph missing: %q\ntext: %q", p, text)
		}
	}
	for _, b := range searchtest.Boilerplate {
		if strings.Contains(text, b) {
			t.Errorf("boilerplate kept: %q\ntext: %q", b, text)
		}
	}
	if strings.Contains(text, "  ") || strings.Contains(text, "\n") {
		t.Errorf("whitespace not collapsed: %q", text)
	}
}

// TestPageFetcherCharset: text/plain is decoded with its declared charset.
func TestPageFetcherCharset(t *testing.T) {
	site := hostileSite(t)
	text, err := testFetcher().Text(context.Background(), site.URL+"/notes.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if text != "Café notes: Lanny Flaherty was born in 1942." {
		t.Errorf("text %q", text)
	}
}

// TestPageFetcherPrivateAddress: by default a page on a loopback address
// is refused before anything is sent.
func TestPageFetcherPrivateAddress(t *testing.T) {
	site := hostileSite(t)
	f := NewPageFetcher()
	f.Retry = fastRetry()
	_, err := f.Text(context.Background(), site.URL+"/article", "")
	var pe *PageError
	if !errors.As(err, &pe) || pe.Reason != FailAddress {
		t.Fatalf("error %v, want %q", err, FailAddress)
	}
	if n := site.Hits("/robots.txt") + site.Hits("/article"); n != 0 {
		t.Errorf("%d requests reached the site", n)
	}
	for _, link := range []string{"ftp://example.org/x", "file:///etc/passwd", "not a url"} {
		if _, err := f.Text(context.Background(), link, ""); !errors.As(err, &pe) || pe.Reason != FailURL {
			t.Errorf("%s: %v", link, err)
		}
	}
}

// TestPageFetcherCanceled: a caller that stops gets its context's error,
// not a fallback.
func TestPageFetcherCanceled(t *testing.T) {
	site := hostileSite(t)
	f := testFetcher()
	f.Timeout = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := f.Text(ctx, site.URL+"/slow", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if s := f.Stats(); s.Failed() != 0 {
		t.Errorf("a canceled fetch was counted: %+v", s)
	}
}

// TestPageFetcherExcerpt: a long page is cut to MaxChars around the
// passage that matches the atom.
func TestPageFetcherExcerpt(t *testing.T) {
	site := searchtest.NewSite(t)
	var paras []string
	for i := 0; i < 60; i++ {
		paras = append(paras, "The estate's gardens were laid out in the formal style, with hedges, gravel walks and fountains that the family kept for generations.")
	}
	paras[45] = "The astronomer Caroline Herschel discovered eight comets between 1786 and 1797 from the garden."
	site.Page("/long", "text/html", searchtest.BoilerplatePage("Gardens", paras...))
	f := testFetcher()
	f.MaxChars = 600
	text, err := f.Text(context.Background(), site.URL+"/long", "Caroline Herschel discovered comets")
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(text)); n > 600 || n < 400 {
		t.Errorf("excerpt of %d characters", n)
	}
	if !strings.Contains(text, paras[45]) {
		t.Errorf("the matching paragraph is not in the excerpt: %q", text)
	}
	// Another atom's excerpt of the same page, from the remembered text.
	other, err := f.Text(context.Background(), site.URL+"/long", "formal hedges and gravel walks")
	if err != nil || other == text || !strings.HasPrefix(other, "Gardens") && !strings.HasPrefix(other, paras[0]) {
		t.Errorf("second excerpt %q (%v)", other, err)
	}
	if n := site.Hits("/long"); n != 1 {
		t.Errorf("the page was fetched %d times", n)
	}
}

// TestPageFetcherRobotsRFC9309: robots.txt is read as RFC 9309 says: rule
// paths and the URL's path are compared in one encoding (§2.2.2), and the
// parseable rules of a file are used even when some lines are not (§2.2),
// without joining groups that a dropped line kept apart; the group that
// applies is the one that names the product token (§2.2.1).
func TestPageFetcherRobotsRFC9309(t *testing.T) {
	tests := []struct {
		name, robots, path string
		allowed            bool
	}{
		{"encoded unreserved in the rule", "User-agent: *\nDisallow: /%7Ejoe/\n", "/~joe/notes", false},
		{"encoded unreserved in the link", "User-agent: *\nDisallow: /~joe/\n", "/%7ejoe/notes", false},
		{"non-ASCII rule, encoded link", "User-agent: *\nDisallow: /wiki/Café\n", "/wiki/Caf%C3%A9", false},
		{"non-ASCII link, encoded rule", "User-agent: *\nDisallow: /wiki/Caf%c3%a9\n", "/wiki/Café", false},
		{"other pages stay allowed", "User-agent: *\nDisallow: /wiki/Café\n", "/wiki/Cafe", true},
		{"an encoded reserved character differs", "User-agent: *\nDisallow: /a%3Ab\n", "/a:b", true},
		{"an encoded reserved character matches itself", "User-agent: *\nDisallow: /a%3ab\n", "/a%3Ab", false},
		{"allow wins a tie", "User-agent: *\nDisallow: /page\nAllow: /page\n", "/page", true},
		{"allow wins a tie of patterns", "User-agent: *\nDisallow: /*.html\nAllow: /*.html\n", "/a.html", true},
		{"the longer rule wins", "User-agent: *\nAllow: /p\nDisallow: /page\n", "/page", false},
		{"ties are kept within groups", "User-agent: otherbot\nDisallow: /page\n\nUser-agent: *\nAllow: /x\n", "/page", true},
		{"a comment after the path", "User-agent: *\nDisallow: /private/ # staff only\n", "/private/x", false},
		{"crawl-delay before any group", "Crawl-delay: 10\nUser-agent: *\nDisallow: /admin/\n", "/page", true},
		{"crawl-delay before any group, rules kept", "Crawl-delay: 10\nUser-agent: *\nDisallow: /admin/\n", "/admin/x", false},
		{"a rule before any group", "Disallow: /\nUser-agent: *\nDisallow: /admin/\n", "/page", true},
		{"crawl-delay that is not a number", "User-agent: *\nCrawl-delay: 2s\nDisallow: /admin/\n", "/admin/x", false},
		{"crawl-delay that is not a number, others allowed", "User-agent: *\nCrawl-delay: 2s\nDisallow: /admin/\n", "/page", true},
		{"a group for a prefix of the token is another robot's", "User-agent: factreasoner\nDisallow: /\n", "/page", true},
		{"the token's group, in any case", "User-agent: FactReasoner-Go\nDisallow: /a/\n\nUser-agent: *\nDisallow: /\n", "/page", true},
		{"the token's group, its rules", "User-agent: FactReasoner-Go\nDisallow: /a/\n\nUser-agent: *\nDisallow: /\n", "/a/x", false},
		{"the token with a version", "User-agent: factreasoner-go/1.0\nDisallow: /\n", "/page", false},
		{"groups of the token combine", "User-agent: factreasoner-go\nDisallow: /a/\n\nUser-agent: otherbot\nDisallow: /\n\nUser-agent: factreasoner-go\nDisallow: /b/\n", "/b/x", false},
		{"other robots' groups stay theirs", "User-agent: factreasoner-go\nDisallow: /a/\n\nUser-agent: otherbot\nDisallow: /\n\nUser-agent: factreasoner-go\nDisallow: /b/\n", "/c", true},
		{"a bad crawl-delay does not join groups", "User-agent: factreasoner-go\nCrawl-delay: NaN\n\nUser-agent: otherbot\nDisallow: /\n", "/page", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := searchtest.NewSite(t)
			site.SetRobots(tt.robots)
			site.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.Write([]byte("page text"))
			}))
			_, err := testFetcher().Text(context.Background(), site.URL+tt.path, "")
			var pe *PageError
			if allowed := !errors.As(err, &pe) || pe.Reason != FailRobots; allowed != tt.allowed {
				t.Errorf("%q for %s: allowed %v, want %v (%v)", tt.robots, tt.path, allowed, tt.allowed, err)
			}
		})
	}
}

func TestRobotsPath(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b?c=d":      "/a/b?c=d",
		"/%7euser/%7Ex": "/~user/~x",
		"/caf%c3%a9":    "/caf%C3%A9",
		"/café":         "/caf%C3%A9",
		"/a%2Fb%3a":     "/a%2Fb%3A",
		"/%41%2d%5F":    "/A-_",
		"/100%":         "/100%",
		"/%zz":          "/%zz",
		"/a b":          "/a%20b",
		"/*.php$":       "/*.php$",
		"":              "",
	} {
		if got := robotsPath(in); got != want {
			t.Errorf("robotsPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPageFetcherElementBomb: a page of more elements than readability may
// look at is refused as too large from its bytes, before a document is
// built; one just under the bound is parsed.
func TestPageFetcherElementBomb(t *testing.T) {
	site := searchtest.NewSite(t)
	site.SetRobots("")
	bomb := "<html><body>" + strings.Repeat("<div><p>a</p></div>", maxPageElements/2+1) + "</body></html>"
	site.Page("/bomb", "text/html", bomb)
	f := testFetcher()
	f.MaxBytes = int64(len(bomb)) + 1
	_, err := f.Text(context.Background(), site.URL+"/bomb", "a")
	var pe *PageError
	if !errors.As(err, &pe) || pe.Reason != FailSize || !strings.Contains(err.Error(), "HTML elements") {
		t.Errorf("error %v, want %q for the elements", err, FailSize)
	}
	if n := htmlElements([]byte(bomb), maxPageElements); n != maxPageElements+1 {
		t.Errorf("htmlElements = %d, want the count to stop at %d", n, maxPageElements+1)
	}
	if n := htmlElements([]byte("<p>a<br/><img src=x></p><!-- <b> --><script>'<i>'</script>"), 100); n != 4 {
		t.Errorf("htmlElements = %d, want 4 (p, br, img, script)", n)
	}
}

// TestPageFetcherOnce: within a run each page is fetched once, however
// many atoms find it: at once (the others wait for the one fetch), after
// more pages than stay in memory (the text comes back from the spill
// file), with another fragment, and when it timed out; Close removes
// what was spilled.
func TestPageFetcherOnce(t *testing.T) {
	site := searchtest.NewSite(t)
	site.SetRobots("")
	site.Handle("/slow-article", searchtest.Slow(300*time.Millisecond, searchtest.BoilerplatePage("Flaherty", article...)))
	site.Handle("/too-slow", searchtest.Slow(time.Minute, "<p>late</p>"))
	for i := range webPageMemory + 6 {
		site.Page(fmt.Sprintf("/p%d", i), "text/plain", fmt.Sprintf("Page %d says Lanny Flaherty was born in 1942. %s", i, strings.Repeat("x", i)))
	}
	f := testFetcher()
	f.Timeout = time.Second
	ctx := context.Background()
	var wg sync.WaitGroup
	texts := make([]string, 8)
	for i := range texts {
		wg.Go(func() {
			texts[i], _ = f.Text(ctx, fmt.Sprintf("%s/slow-article#part%d", site.URL, i), "born")
		})
	}
	wg.Wait()
	for i, text := range texts {
		if !strings.Contains(text, "1942") {
			t.Errorf("atom %d got %q", i, text)
		}
	}
	if n := site.Hits("/slow-article"); n != 1 {
		t.Errorf("8 atoms at once: the page was requested %d times, want once", n)
	}
	for round := range 2 {
		for i := range webPageMemory + 6 {
			text, err := f.Text(ctx, fmt.Sprintf("%s/p%d", site.URL, i), "born")
			if want := fmt.Sprintf("Page %d says", i); err != nil || !strings.Contains(text, want) {
				t.Fatalf("round %d, page %d: %q, %v", round, i, text, err)
			}
		}
	}
	for i := range webPageMemory + 6 {
		if n := site.Hits(fmt.Sprintf("/p%d", i)); n != 1 {
			t.Errorf("page %d requested %d times, want once", i, n)
		}
	}
	if f.store.spill == nil {
		t.Error("nothing was spilled: the memory bound did not apply")
	}
	for range 2 {
		var pe *PageError
		if _, err := f.Text(ctx, site.URL+"/too-slow", ""); !errors.As(err, &pe) || pe.Reason != FailTimeout {
			t.Errorf("too slow: %v", err)
		}
	}
	if n := site.Hits("/too-slow"); n != 1 {
		t.Errorf("a page that timed out was requested %d times, want once", n)
	}
	if s := f.Stats(); s.Downloads != 1+webPageMemory+6+1 {
		t.Errorf("%d downloads, want %d", s.Downloads, 1+webPageMemory+6+1)
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
}

// TestPageEvents: a context with WithPageEvents is told of each page
// fetch as it starts and ends, failed or not, and of none for a page the
// run already has.
func TestPageEvents(t *testing.T) {
	site := hostileSite(t)
	f := testFetcher()
	var mu sync.Mutex
	var got []string
	ctx := WithPageEvents(context.Background(), func(e PageEvent) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprintf("%s done=%v failed=%v", strings.TrimPrefix(e.Link, site.URL), e.Done, e.Failed))
	})
	for _, p := range []string{"/article", "/gone", "/article"} {
		f.Text(ctx, site.URL+p, "born")
	}
	want := []string{"/article done=false failed=false", "/article done=true failed=false", "/gone done=false failed=false", "/gone done=true failed=true"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
