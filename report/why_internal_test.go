package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/factreasoner/factreasoner-go/evidence"
)

// span finds part in s.
func span(s, part string) evidence.Span {
	i := strings.Index(s, part)
	return evidence.Span{Start: i, End: i + len(part)}
}

func TestExcerptAround(t *testing.T) {
	const s = "One two. Three 🎉 four five. Six seven eight. Nine ten eleven twelve. Thirteen."
	for _, tc := range []struct {
		name   string
		parts  []string
		n      int
		want   string // "" when the excerpt of s's start holds the parts
		marks  []int
		inHead bool
	}{
		{"in the excerpt of the start", []string{"Three 🎉 four five."}, 30, "", []int{9, 28}, true},
		{"the whole text fits", []string{"Thirteen."}, 200, "", []int{70, 79}, true},
		{"after it: room on both sides", []string{"Nine ten eleven twelve."}, 40, "… eight. Nine ten eleven twelve. …", []int{9, 32}, false},
		{"to the end", []string{"Nine ten eleven twelve."}, 42, "… eight. Nine ten eleven twelve. Thirteen.", []int{9, 32}, false},
		{"two sentences", []string{"Six seven eight.", "Nine ten eleven twelve."}, 52, "… five. Six seven eight. Nine ten eleven twelve. …", []int{8, 24, 25, 48}, false},
		{"longer than the room", []string{"Six seven eight.", "Nine ten eleven twelve."}, 10, "… Six seven eight. Nine ten eleven twelve. …", []int{2, 18, 19, 42}, false},
		{"an astral character before the mark counts two", []string{"four five."}, 14, "… 🎉 four five. …", []int{5, 15}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spans []evidence.Span
			for _, p := range tc.parts {
				spans = append(spans, span(s, p))
			}
			got, marks, ok := excerptAround(s, spans, tc.n)
			if ok == tc.inHead || got != tc.want || !reflect.DeepEqual(marks, tc.marks) {
				t.Errorf("excerptAround(%v, %d) = %q, %v, %v; want %q, %v, %v", tc.parts, tc.n, got, marks, ok, tc.want, tc.marks, !tc.inHead)
			}
		})
	}
	if _, marks, ok := excerptAround(s, nil, 10); ok || marks != nil {
		t.Errorf("no spans: %v %v", marks, ok)
	}
}
