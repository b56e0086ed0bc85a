package retrieve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
)

// Member is one source of a Multi.
type Member struct {
	// Name is the source's name, recorded in its passages' Source when
	// the source leaves it empty ("db", "wikipedia", "serper", "searxng").
	Name      string
	Retriever Retriever
	// K is how many passages to ask of this source; 0 takes the k given
	// to Multi.Retrieve.
	K int
}

// Multi retrieves from several sources and merges their passages: the
// sources' passages in the order the sources are listed, each source's
// best first, without duplicates. A passage is a duplicate when an earlier
// one has the same link (compared without scheme, "www.", fragment and
// trailing slash) or the same text and snippet; the earlier one is kept.
//
// A Multi of one source only labels its passages with the source's name.
type Multi struct {
	Sources []Member
	// SkipMissingTopics goes on with the other sources when one of
	// several sources does not know the record's topic (ErrTopicNotFound,
	// ErrNoTopic), after a warning; the error is returned only when no
	// source knows it. Without it, such an error is returned at once.
	SkipMissingTopics bool
	// Warn, when set, is told once per source and topic that a source
	// was skipped.
	Warn func(msg string)

	mu     sync.Mutex
	warned map[string]bool
}

// Identify says what the sources are: each one's identity, in order,
// with the number of passages asked of it where it has its own, and the
// rule for a source that lacks the topic when there are several.
func (m *Multi) Identify() string {
	parts := make([]string, 0, len(m.Sources)+1)
	for _, s := range m.Sources {
		id := s.Retriever.Identify()
		if s.K > 0 {
			id += fmt.Sprintf(" k=%d", s.K)
		}
		parts = append(parts, id)
	}
	if m.SkipMissingTopics && len(m.Sources) > 1 {
		parts = append(parts, "missing_topic=next_source")
	}
	return strings.Join(parts, "; ")
}

// maxWarned bounds the topics a Multi remembers having warned about.
const maxWarned = 4096

// Retrieve asks every source and merges their passages.
func (m *Multi) Retrieve(ctx context.Context, topic, atom string, k int) ([]Passage, error) {
	var (
		out     []Passage
		seen    = newSeen()
		missing error
		skipped int
	)
	for _, src := range m.Sources {
		sk := src.K
		if sk <= 0 {
			sk = k
		}
		ps, err := src.Retriever.Retrieve(ctx, topic, atom, sk)
		if err != nil {
			if errors.Is(err, ErrTopicNotFound) || errors.Is(err, ErrNoTopic) {
				if m.SkipMissingTopics && len(m.Sources) > 1 {
					missing = err
					skipped++
					m.warnOnce(src.Name, topic, err)
					continue
				}
			}
			if len(m.Sources) > 1 {
				err = fmt.Errorf("%s: %w", src.Name, err)
			}
			return nil, err
		}
		for _, p := range ps {
			if p.Source == "" {
				p.Source = src.Name
			}
			if seen.add(p) {
				out = append(out, p)
			}
		}
	}
	if skipped > 0 && skipped == len(m.Sources) {
		return nil, missing
	}
	return out, nil
}

func (m *Multi) warnOnce(source, topic string, err error) {
	if m.Warn == nil {
		return
	}
	key := source + "\x00" + topic
	m.mu.Lock()
	if m.warned == nil {
		m.warned = make(map[string]bool)
	}
	seen := m.warned[key]
	if !seen && len(m.warned) < maxWarned {
		m.warned[key] = true
	}
	m.mu.Unlock()
	if !seen {
		m.Warn(fmt.Sprintf("%s: %v; contexts come from the other sources", source, err))
	}
}

// normalLink is a link in a form that equal pages share: without scheme,
// "www.", fragment and trailing slash, the host in lower case.
func normalLink(link string) string {
	link = strings.TrimSpace(link)
	if link == "" {
		return ""
	}
	u, err := url.Parse(link)
	if err != nil || u.Host == "" {
		return link
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	s := host + strings.TrimSuffix(u.EscapedPath(), "/")
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}

// seen are the passages kept so far, by link and by text and snippet.
type seen struct {
	links map[string]bool
	texts map[[2]string]bool
}

func newSeen() *seen { return &seen{links: map[string]bool{}, texts: map[[2]string]bool{}} }

// add records p and reports whether it is new: no passage before had its
// link (compared without scheme, "www.", fragment and trailing slash) or
// its text and snippet.
func (s *seen) add(p Passage) bool {
	link := normalLink(p.Link)
	text := [2]string{strings.TrimSpace(p.Text), strings.TrimSpace(p.Snippet)}
	if (link != "" && s.links[link]) || (text != [2]string{} && s.texts[text]) {
		return false
	}
	if link != "" {
		s.links[link] = true
	}
	s.texts[text] = true
	return true
}
