package retrieve

import (
	"strings"
	"testing"
	"time"
)

// TestIdentify: a source's identity names its kind and every setting that
// changes what it finds, and nothing of where a file is nor anything
// secret: a web endpoint by its host (its path, query and credentials
// left out), a knowledge base by its content.
func TestIdentify(t *testing.T) {
	wiki := NewWikipedia("https://user:pw@de.wikipedia.org/w/api.php?key=secret")
	topic := NewWikipedia("")
	topic.Query = QueryTopic
	serper, err := NewSerper("https://google.serper.dev/search", "KEY")
	if err != nil {
		t.Fatal(err)
	}
	searx, err := NewSearXNG("http://localhost:8888")
	if err != nil {
		t.Fatal(err)
	}
	fetcher := NewPageFetcher()
	fetcher.Timeout = 3 * time.Second
	kbPath := buildKB(t, corpusDocs, nil, "")
	db, err := OpenDocDB(kbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	content, _ := contentOf(t, kbPath, nil)
	for _, tc := range []struct {
		r    Retriever
		want string
	}{
		{wiki, "wikipedia[host=de.wikipedia.org,chars=4000,query=atom]"},
		{topic, "wikipedia[host=en.wikipedia.org,chars=4000,query=topic]"},
		{serper, "serper[host=google.serper.dev,query=atom]"},
		{searx, "searxng[host=localhost:8888,query=atom]"},
		{&FetchPages{Search: searx, Fetcher: fetcher, Budget: time.Minute},
			"searxng[host=localhost:8888,query=atom]+pages(chars=4000,bytes=5242880,redirects=5,private=false,agent=factreasoner-go),timeout=3s,budget=1m0s"},
		{NewBM25Retriever(db), "db[kb=" + content + ",scope=topic]"},
		{&KB{Topic: NewBM25Retriever(db)}, "db[kb=" + content + ",scope=topic,corpus=none]"},
		{&Multi{Sources: []Member{{Name: "wikipedia", Retriever: wiki}, {Name: "serper", Retriever: serper, K: 5}}, SkipMissingTopics: true},
			"wikipedia[host=de.wikipedia.org,chars=4000,query=atom]; serper[host=google.serper.dev,query=atom] k=5; missing_topic=next_source"},
	} {
		got := tc.r.Identify()
		if got != tc.want {
			t.Errorf("%T: %s\nwant %s", tc.r, got, tc.want)
		}
		for _, secret := range []string{"pw", "secret", "KEY", kbPath} {
			if strings.Contains(got, secret) {
				t.Errorf("%T: %s names %q", tc.r, got, secret)
			}
		}
	}
}
