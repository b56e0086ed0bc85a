package retrieve

import (
	"strings"
	"sync/atomic"

	"github.com/factreasoner/factreasoner-go/internal/endpoint"
)

// WebLink reports whether link is an absolute http or https URL with a
// host: the only links a passage keeps. A search result may carry any
// other (javascript:, data:, file:), which a report would render as
// something to click.
func WebLink(link string) bool { return endpoint.WebLink(link) }

// linkFilter drops the links of results that are not WebLinks, counting
// them.
type linkFilter struct{ dropped atomic.Int64 }

// keep returns link when it is a WebLink, else "" (counted).
func (f *linkFilter) keep(link string) string {
	if link == "" || WebLink(link) {
		return strings.TrimSpace(link)
	}
	f.dropped.Add(1)
	return ""
}

// DroppedLinks is the number of result links dropped so far for not
// being http or https URLs (the results are kept, without links).
func (f *linkFilter) DroppedLinks() int { return int(f.dropped.Load()) }
