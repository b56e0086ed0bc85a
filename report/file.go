package report

import (
	"os"

	"github.com/factreasoner/factreasoner-go/jsonl"
)

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so that path never holds a partial file. Without overwrite an
// existing path is left alone and an error returned.
func writeFileAtomic(path string, data []byte, overwrite bool) error {
	return WriteFile(path, overwrite, func(w *os.File) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFile creates path with what write writes, through a temporary file
// in the same directory, so that path never holds a partial file and a
// failed write leaves what was there (jsonl.WriteFile). Without overwrite
// an existing path is an error wrapping os.ErrExist and is left as it is;
// a device or pipe (/dev/null, /dev/stdout) is written as it is.
func WriteFile(path string, overwrite bool, write func(*os.File) error) error {
	return jsonl.WriteFile(path, overwrite, 0o600, write)
}
