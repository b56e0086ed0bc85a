package instance_test

import (
	"bytes"
	"testing"

	"github.com/factreasoner/factreasoner-go/instance"
	"github.com/factreasoner/factreasoner-go/internal/testgen/recgen"
)

// BenchmarkDecodeRecord decodes one Flaherty-sized jsonl record (26
// atoms, 53 contexts, relations: about 150 KB), as each worker of a run
// does for each record.
func BenchmarkDecodeRecord(b *testing.B) {
	benchmarkDecode(b, flahertyLine(b))
}

// BenchmarkDecodeRecordInfinity is BenchmarkDecodeRecord with the word
// Infinity in a passage (a title, a film): quoteNonFinite must look at
// the whole record for the bare words outside strings.
func BenchmarkDecodeRecordInfinity(b *testing.B) {
	line := bytes.Replace(flahertyLine(b), []byte(`"text":"`), []byte(`"text":"Infinity War `), 1)
	if !bytes.Contains(line, []byte("Infinity")) {
		b.Fatal("no passage text to put the word in")
	}
	benchmarkDecode(b, line)
}

func flahertyLine(b *testing.B) []byte {
	var buf bytes.Buffer
	if err := recgen.Write(&buf, recgen.Flaherty, 1, 0, 1); err != nil {
		b.Fatal(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

func benchmarkDecode(b *testing.B, line []byte) {
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := instance.Decode(line); err != nil {
			b.Fatal(err)
		}
	}
}
