package instance_test

import (
	"bytes"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/recgen"
)

// BenchmarkDecodeRecord decodes one Flaherty-sized jsonl record (26
// atoms, 53 contexts, relations: about 150 KB), as each worker of a run
// does for each record.
func BenchmarkDecodeRecord(b *testing.B) {
	var buf bytes.Buffer
	if err := recgen.Write(&buf, recgen.Flaherty, 1, 0, 1); err != nil {
		b.Fatal(err)
	}
	line := bytes.TrimSpace(buf.Bytes())
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := instance.Decode(line); err != nil {
			b.Fatal(err)
		}
	}
}
