package retrieve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// SourcePriors map where a passage comes from to the prior of the context
// it becomes (FactReasoner's credibility-weighted context priors, with the
// table the user supplies): a web domain, for passages with a link, or a
// knowledge base's title.
type SourcePriors struct {
	domains map[string]float64 // host without "www.", lower case
	titles  map[string]float64
	name    string
}

// maxPriorsFile bounds a source priors file.
const maxPriorsFile = 16 << 20

// LoadSourcePriors reads a table of priors, one entry a line: a domain
// (wikipedia.org, which also covers en.wikipedia.org) or "title:" and a
// knowledge base title, then whitespace and the prior, a probability in
// [0, 1]. Blank lines and lines starting with # are skipped. Errors name
// the file and line.
func LoadSourcePriors(path string) (*SourcePriors, error) {
	data, err := safefile.ReadFile(path, "source priors", maxPriorsFile)
	if err != nil {
		return nil, err
	}
	sp := &SourcePriors{domains: map[string]float64{}, titles: map[string]float64{}}
	where := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxPriorsFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
		if i < 0 {
			return nil, fmt.Errorf("%s:%d: want a domain or title:TITLE, then the prior", path, n)
		}
		key, num := strings.TrimSpace(line[:i]), line[i+1:]
		p, err := strconv.ParseFloat(num, 64)
		if err != nil || !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("%s:%d: prior %q: want a probability in [0, 1]", path, n, num)
		}
		table, k, kind := sp.domains, "", "domain"
		if t, ok := strings.CutPrefix(key, "title:"); ok {
			table, k, kind = sp.titles, strings.TrimSpace(t), "title"
		} else if !strings.Contains(key, "/") {
			k = domainOf(key) // a bare domain: a URL's path would not be matched
		}
		if k == "" {
			return nil, fmt.Errorf("%s:%d: %q: want a domain (wikipedia.org) or title:TITLE", path, n, key)
		}
		id := kind + "\x00" + k
		if first, dup := where[id]; dup {
			return nil, fmt.Errorf("%s:%d: %q is given a prior on line %d already", path, n, key, first)
		}
		where[id] = n
		table[k] = p
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(sp.domains)+len(sp.titles) == 0 {
		return nil, fmt.Errorf("%s: no priors in it", path)
	}
	sum := sha256.Sum256(data)
	sp.name = fmt.Sprintf("sha256:%s/%d", hex.EncodeToString(sum[:6]), len(sp.domains)+len(sp.titles))
	return sp, nil
}

// Name identifies the table for a run's identity: a hash of the file and
// the number of entries, "sha256:0123456789ab/12".
func (sp *SourcePriors) Name() string { return sp.name }

// domainOf is a domain or a link's host, lower case, without "www." and a
// port; "" when there is none.
func domainOf(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return ""
		}
		s = u.Hostname()
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "www."), ".")
	if strings.ContainsAny(s, "/ ") {
		return ""
	}
	return s
}

// Prior returns the prior of a passage: that of its link's domain (the
// longest listed suffix of its host, at a dot), else that of its title;
// false when the table lists neither.
func (sp *SourcePriors) Prior(p Passage) (float64, bool) {
	if host := domainOf(p.Link); host != "" && strings.Contains(p.Link, "://") {
		for h := host; h != ""; {
			if v, ok := sp.domains[h]; ok {
				return v, true
			}
			_, rest, ok := strings.Cut(h, ".")
			if !ok {
				break
			}
			h = rest
		}
	}
	v, ok := sp.titles[strings.TrimSpace(p.Title)]
	return v, ok
}

// WithPriors gives the passages Next retrieves the priors of Priors: the
// contexts they become carry them as their "probability".
type WithPriors struct {
	Next   Retriever
	Priors *SourcePriors
}

// Identify says what the source is: Next's identity and the priors' table.
func (w *WithPriors) Identify() string {
	return w.Next.Identify() + "; source_priors=" + w.Priors.Name()
}

// Retrieve implements Retriever.
func (w *WithPriors) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	ps, err := w.Next.Retrieve(ctx, topic, atom, k)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		if v, ok := w.Priors.Prior(ps[i]); ok {
			ps[i].Prior = &v
		}
	}
	return ps, nil
}
