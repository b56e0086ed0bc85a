package tempfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClean: Clean removes the files and directories of the pattern that
// no process holds (closed without being removed: what a killed process
// leaves, its locks gone with it), and leaves those in use and any other
// name alone.
func TestClean(t *testing.T) {
	if !canLock {
		t.Skip("no advisory locks on this system")
	}
	dir := t.TempDir()
	inUse, err := Create(dir, ".out.*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer inUse.Close()
	left, err := Create(dir, ".out.*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	left.Close() // as if killed: the file stays, its lock goes
	dirInUse, err := MkdirTemp(dir, "fr-stdin-")
	if err != nil {
		t.Fatal(err)
	}
	defer dirInUse.RemoveAll()
	dirLeft, err := MkdirTemp(dir, "fr-stdin-")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dirLeft.Path, "stdin"), []byte("records"), 0o600)
	dirLeft.lock.Close()
	bare := filepath.Join(dir, "fr-stdin-123") // killed before its lock file
	os.Mkdir(bare, 0o700)
	other := filepath.Join(dir, "out.jsonl")
	os.WriteFile(other, nil, 0o600)

	Clean(dir, ".out.*.tmp")
	Clean(dir, "fr-stdin-*")
	for path, want := range map[string]bool{inUse.Name(): true, left.Name(): false, dirInUse.Path: true, dirLeft.Path: false, bare: false, other: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", path, err == nil, want)
		}
	}
	if err := dirInUse.RemoveAll(); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(dirInUse.Path); err == nil {
		t.Error("RemoveAll left the directory")
	}
}

// TestCreateTakenByCleaner: a file that a cleaner takes the moment it is
// made is not the one Create returns.
func TestCreateTakenByCleaner(t *testing.T) {
	if !canLock {
		t.Skip("no advisory locks on this system")
	}
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, "x.*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cleaner, _ := os.Open(f.Name())
	defer cleaner.Close()
	if err := tryLock(cleaner); err != nil {
		t.Fatal(err)
	}
	if held(f) {
		t.Error("a file locked by a cleaner was taken as held")
	}
	os.Remove(f.Name())
	g, _ := os.CreateTemp(dir, "y.*")
	defer g.Close()
	os.Remove(g.Name())
	if held(g) {
		t.Error("a file removed by a cleaner was taken as held")
	}
}
