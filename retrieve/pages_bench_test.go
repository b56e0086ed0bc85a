package retrieve

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/retrieve/searchtest"
)

// BenchmarkPageText measures what a fetched page costs the CPU: the main
// text found by readability, then the 4,000-character excerpt around the
// atom, for news pages of about 20 KB, 200 KB and 2 MB (the network is not
// measured).
func BenchmarkPageText(b *testing.B) {
	u, _ := url.Parse("https://example.org/article")
	for _, paras := range []int{40, 400, 4000} {
		var ps []string
		for i := 0; i < paras; i++ {
			ps = append(ps, fmt.Sprintf("Paragraph %d of the story tells how the estate's gardens were laid out in the formal style, with hedges, gravel walks and fountains that the family kept for generations, and how visitors came from far away to see them in the spring.", i))
		}
		ps[paras*3/4] = "The astronomer Caroline Herschel discovered eight comets between 1786 and 1797."
		body := []byte(searchtest.BoilerplatePage("Gardens", ps...))
		f := NewPageFetcher()
		b.Run(fmt.Sprintf("%dKB", len(body)>>10), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				text, perr := f.extract(&page{body: body, mediaType: "text/html", url: u}, "page")
				if perr != nil {
					b.Fatal(perr)
				}
				if ex := Excerpt(text, "Caroline Herschel discovered comets", MaxContextChars); !strings.Contains(ex, "Herschel") {
					b.Fatal("the excerpt misses the matching paragraph")
				}
			}
		})
	}
}
