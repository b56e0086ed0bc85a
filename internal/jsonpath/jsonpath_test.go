package jsonpath

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestError: a value of the wrong type is named by its full path, indices
// included, with the JSON types, never the Go ones; a syntax error keeps
// json's words.
func TestError(t *testing.T) {
	var v struct {
		Query struct {
			Search []struct {
				Title string  `json:"title"`
				Score float64 `json:"score"`
			} `json:"search"`
		} `json:"query"`
	}
	tests := []struct{ data, want string }{
		{`{"query": {"search": [{"title": "a"}, {"title": 5}]}}`, "query.search[1].title: expected string, got JSON number"},
		{`{"query": {"search": {"title": "a"}}}`, "query.search: expected array, got JSON object"},
		{`{"query": {"search": [{"score": "high"}]}}`, "query.search[0].score: expected number, got JSON string"},
		{`[1, 2]`, "expected object, got JSON array"},
		{`{"query": `, "invalid JSON: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		err := json.Unmarshal([]byte(tt.data), &v)
		got := Error([]byte(tt.data), err).Error()
		if got != tt.want || strings.Contains(got, "Go ") || strings.Contains(got, "struct") {
			t.Errorf("%s: %q, want %q", tt.data, got, tt.want)
		}
	}
	if off := Locate([]byte(`{"a": [1, {"b": true}]}`), "a[1].b"); off != 16 {
		t.Errorf("Locate = %d, want 16", off)
	}
	if off := Locate([]byte(`{"a": [1]}`), "a[3].c"); off != 6 {
		t.Errorf("Locate of a missing path = %d, want its enclosing value's 6", off)
	}
}
