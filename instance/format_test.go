package instance

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDetectFormatBrokenLeadingLines: broken lines before the first record
// do not hide FActScore's labeled format.
func TestDetectFormatBrokenLeadingLines(t *testing.T) {
	labeled := `{"input": "Q", "output": "R", "topic": "T", "annotations": []}`
	tests := []struct {
		in   string
		want Format
	}{
		{labeled + "\n", FActScoreLabeled},
		{"{\"input\": \n[oops\n" + labeled + "\n", FActScoreLabeled},
		{"\xEF\xBB\xBF" + labeled + "\n", FActScoreLabeled},
		{"{\n  \"annotations\": []\n}\n", FactReasoner},
		{"broken\n" + good + "\n", FactReasoner},
		{"", FactReasoner},
	}
	for i, tt := range tests {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, []byte(tt.in), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := DetectFormat(path)
		if err != nil || got != tt.want {
			t.Errorf("%d: %v, %v; want %v", i, got, err, tt.want)
		}
	}
}
