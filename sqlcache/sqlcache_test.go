package sqlcache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func open(t *testing.T, path string, kind Kind) *Cache {
	t.Helper()
	c, err := Open(path, kind)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRoundTrip: what is put is got, in this process and the next; a
// replaced value replaces; lookups of many keys, in chunks, find exactly
// the keys stored.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub dir", "a?b#c.sqlite") // a directory to create, and URI characters
	c := open(t, path, LLM)
	if c.Path() != path || c.Kind() != LLM {
		t.Errorf("path %q kind %q", c.Path(), c.Kind())
	}
	if _, ok, err := c.Get(ctx, Key("missing")); ok || err != nil {
		t.Errorf("missing key: %v, %v", ok, err)
	}
	if err := c.Put(ctx, Key("a"), []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, Key("a"), []byte("second")); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, Key("empty"), nil); err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	var keys [][]byte
	for i := range 1234 {
		k := Key("many", strconv.Itoa(i))
		if i%2 == 0 {
			entries = append(entries, Entry{k, []byte(strconv.Itoa(i * i))})
		}
		keys = append(keys, k, k) // each key twice
	}
	if err := c.PutMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c = open(t, path, LLM)
	if v, ok, err := c.Get(ctx, Key("a")); string(v) != "second" || !ok || err != nil {
		t.Errorf("replaced value: %q %v %v", v, ok, err)
	}
	if v, ok, err := c.Get(ctx, Key("empty")); len(v) != 0 || !ok || err != nil {
		t.Errorf("empty value: %q %v %v", v, ok, err)
	}
	found, err := c.GetMany(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 617 {
		t.Errorf("found %d keys, want 617", len(found))
	}
	for i := range 1234 {
		v, ok := found[string(Key("many", strconv.Itoa(i)))]
		if ok != (i%2 == 0) || ok && string(v) != strconv.Itoa(i*i) {
			t.Errorf("key %d: %q %v", i, v, ok)
		}
	}
	if err := c.PutMany(ctx, []Entry{{Key("x"), []byte("x")}, {nil, []byte("no key")}}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("empty key: %v", err)
	}
	if _, ok, _ := c.Get(ctx, Key("x")); ok {
		t.Error("a failed PutMany stored part of its entries")
	}
}

// TestKey pins the key: SHA-256 over the parts, each preceded by its
// length as a little-endian uint64.
func TestKey(t *testing.T) {
	h := sha256.New()
	for _, s := range []string{"fake", "m", "premise", ""} {
		binary.Write(h, binary.LittleEndian, uint64(len(s)))
		h.Write([]byte(s))
	}
	if got := Key("fake", "m", "premise", ""); !bytes.Equal(got, h.Sum(nil)) {
		t.Errorf("key %x", got)
	}
	if bytes.Equal(Key("ab", "c"), Key("a", "bc")) || bytes.Equal(Key("a"), Key("a", "")) {
		t.Error("different parts, same key")
	}
}

// fileSnapshot is a directory's files and their contents.
func fileSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()] = "dir"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return out
}

func sqliteFile(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRefusesOtherFiles: a file that is not a cache of the kind asked for
// is refused with an error naming it, and nothing in its directory changes
// (no table added, no journal mode switched, no -wal or -shm file left).
func TestRefusesOtherFiles(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		kind Kind
		want string
	}{
		{"text", func(t *testing.T, p string) {
			os.WriteFile(p, []byte(strings.Repeat("not a database\n", 100)), 0o644)
		}, LLM, "not an SQLite database"},
		{"knowledge base", func(t *testing.T, p string) {
			sqliteFile(t, p, "CREATE TABLE documents (title PRIMARY KEY, text)", "INSERT INTO documents VALUES ('Lanny Flaherty', 'An actor.')")
		}, Retrieval, "tables documents, not a factreasoner-go cache"},
		{"another program's empty database", func(t *testing.T, p string) {
			sqliteFile(t, p, "PRAGMA application_id = 1234")
		}, NLI, "application id 0x4d2"},
		{"another program's versioned database", func(t *testing.T, p string) {
			sqliteFile(t, p, "PRAGMA user_version = 3")
		}, NLI, "not a factreasoner-go cache"},
		{"an old NLI cache", func(t *testing.T, p string) {
			sqliteFile(t, p, "PRAGMA application_id = 1179799116", "CREATE TABLE nli (key BLOB PRIMARY KEY, label INTEGER)")
		}, NLI, "earlier version"},
		{"an old LLM cache", func(t *testing.T, p string) {
			sqliteFile(t, p, "CREATE TABLE answers (key TEXT PRIMARY KEY, response BLOB)")
		}, LLM, "one table, answers"},
		{"a cache of another kind", func(t *testing.T, p string) {
			c, err := Open(p, LLM)
			if err != nil {
				t.Fatal(err)
			}
			c.Put(context.Background(), Key("k"), []byte("v"))
			c.Close()
		}, Retrieval, "a llm cache, not a retrieval cache"},
		{"a newer format", func(t *testing.T, p string) {
			c, err := Open(p, NLI)
			if err != nil {
				t.Fatal(err)
			}
			c.db.Exec("UPDATE meta SET value = '99' WHERE name = 'format'")
			c.Close()
		}, NLI, "cache format 99"},
		{"a directory", func(t *testing.T, p string) { os.Mkdir(p, 0o755) }, NLI, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "file.db")
			tt.make(t, path)
			before := fileSnapshot(t, dir)
			c, err := Open(path, tt.kind)
			if err == nil {
				c.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want one naming the file and saying %q", err, tt.want)
			}
			after := fileSnapshot(t, dir)
			if fmt.Sprint(before) != fmt.Sprint(after) {
				t.Errorf("the directory changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestMarks: a new cache file carries the application id and a meta table
// naming its kind and format, and is in WAL mode.
func TestMarks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	open(t, path, Retrieval).Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id int64
	var mode, kind, format string
	db.QueryRow("PRAGMA application_id").Scan(&id)
	db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	db.QueryRow("SELECT value FROM meta WHERE name = 'kind'").Scan(&kind)
	db.QueryRow("SELECT value FROM meta WHERE name = 'format'").Scan(&format)
	if id != AppID || mode != "wal" || kind != "retrieval" || format != "1" {
		t.Errorf("application_id %#x, journal %s, kind %q, format %q", id, mode, kind, format)
	}
	// An empty file (as touch makes) becomes a cache.
	empty := filepath.Join(t.TempDir(), "empty.sqlite")
	os.WriteFile(empty, nil, 0o644)
	open(t, empty, NLI)
}

// helperEnv runs this test binary as a writer process: it opens the cache
// named by SQLCACHE_HELPER, stores SQLCACHE_N entries prefixed with
// SQLCACHE_PREFIX, one transaction each, and prints each key once stored.
func TestMain(m *testing.M) {
	if path := os.Getenv("SQLCACHE_HELPER"); path != "" {
		os.Exit(writer(path, os.Getenv("SQLCACHE_PREFIX"), os.Getenv("SQLCACHE_N")))
	}
	os.Exit(m.Run())
}

func writer(path, prefix, count string) int {
	n, _ := strconv.Atoi(count)
	c, err := Open(path, LLM)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	w := bufio.NewWriter(os.Stdout)
	for i := 0; n == 0 || i < n; i++ {
		k := fmt.Sprintf("%s-%d", prefix, i)
		if err := c.Put(context.Background(), []byte(k), bytes.Repeat([]byte(k), 100)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(w, k)
		w.Flush()
	}
	return 0
}

func writerCmd(path, prefix string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SQLCACHE_HELPER="+path, "SQLCACHE_PREFIX="+prefix, "SQLCACHE_N="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	return cmd
}

// TestProcesses: several processes writing one new file at once (racing
// to create it, too) all finish, and every entry is there.
func TestProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.sqlite")
	var wg sync.WaitGroup
	const procs, n = 4, 150
	errs := make([]error, procs)
	for p := range procs {
		wg.Go(func() { errs[p] = writerCmd(path, fmt.Sprint("p", p), n).Run() })
	}
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", p, err)
		}
	}
	c := open(t, path, LLM)
	var keys [][]byte
	for p := range procs {
		for i := range n {
			keys = append(keys, []byte(fmt.Sprintf("p%d-%d", p, i)))
		}
	}
	found, err := c.GetMany(context.Background(), keys)
	if err != nil || len(found) != procs*n {
		t.Errorf("%d of %d entries, %v", len(found), procs*n, err)
	}
}

// TestKilled: a writer killed with SIGKILL in the middle of its writes
// leaves a sound file that holds every entry it reported stored.
func TestKilled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "killed.sqlite")
	for round := range 3 {
		cmd := writerCmd(path, fmt.Sprint("r", round), 0) // writes until killed
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		var stored []string
		for sc.Scan() {
			stored = append(stored, sc.Text())
			if len(stored) == 100+50*round {
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		for sc.Scan() {
			stored = append(stored, sc.Text()) // reported before the kill landed
		}
		cmd.Wait()

		c, err := Open(path, LLM)
		if err != nil {
			t.Fatal(err)
		}
		var check string
		if err := c.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Errorf("round %d: integrity check %q, %v", round, check, err)
		}
		for _, k := range stored {
			if v, ok, err := c.Get(context.Background(), []byte(k)); !ok || err != nil || !bytes.Equal(v, bytes.Repeat([]byte(k), 100)) {
				t.Errorf("round %d: %s lost (%v, %v)", round, k, ok, err)
				break
			}
		}
		c.Close()
	}
}

// TestConcurrent: goroutines reading and writing one cache (run with
// -race).
func TestConcurrent(t *testing.T) {
	c := open(t, filepath.Join(t.TempDir(), "c.sqlite"), NLI)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := Key(strconv.Itoa(i))
				if err := c.Put(ctx, k, []byte(strconv.Itoa(i))); err != nil {
					t.Error(err)
					return
				}
				if v, ok, err := c.Get(ctx, k); !ok || err != nil || string(v) != strconv.Itoa(i) {
					t.Errorf("goroutine %d, key %d: %q %v %v", g, i, v, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestResolve(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache home")
	t.Setenv("FACTREASONER_CACHE", dir)
	tests := []struct {
		setting string
		kind    Kind
		want    string
	}{
		{"", LLM, ""},
		{"off", LLM, ""},
		{"OFF", NLI, ""},
		{"none", Retrieval, ""},
		{"auto", Retrieval, filepath.Join(dir, "retrieval-cache.sqlite")},
		{"Auto", NLI, filepath.Join(dir, "nli-cache.sqlite")},
		{"answers.db", LLM, "answers.db"},
		{"./auto", LLM, "./auto"},
		{"/tmp/x/off", LLM, "/tmp/x/off"},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.setting, tt.kind)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q, %s) = %q, %v; want %q", tt.setting, tt.kind, got, err, tt.want)
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("auto did not create the cache directory: %v", err)
	}
	names := []string{NLI.DefaultFile(), LLM.DefaultFile(), Retrieval.DefaultFile()}
	if !slices.Equal(names, []string{"nli-cache.sqlite", "llm-cache.sqlite", "retrieval-cache.sqlite"}) {
		t.Errorf("default files %v", names)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open("", NLI); err == nil || !strings.Contains(err.Error(), "no file") {
		t.Errorf("empty path: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "x"), "Bad Kind"); err == nil {
		t.Error("bad kind accepted")
	}
	// A parent that is a file cannot be a directory.
	parent := filepath.Join(t.TempDir(), "file")
	os.WriteFile(parent, []byte("x"), 0o644)
	p := filepath.Join(parent, "c.sqlite")
	if _, err := Open(p, NLI); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("parent is a file: %v", err)
	}
}

// TestOpenRace: openers racing to make a new file a cache all succeed. A
// reader that saw the header before another opener's commit and the schema
// after it once refused the new cache as a foreign database (TestProcesses
// failed so under load), so Open reads header and schema in one snapshot.
func TestOpenRace(t *testing.T) {
	dir := t.TempDir()
	const files, openers = 40, 6
	for f := range files {
		path := filepath.Join(dir, fmt.Sprintf("race%d.sqlite", f))
		var wg sync.WaitGroup
		errs := make([]error, openers)
		for o := range openers {
			wg.Go(func() {
				c, err := Open(path, LLM)
				if err == nil {
					err = c.Close()
				}
				errs[o] = err
			})
		}
		wg.Wait()
		for o, err := range errs {
			if err != nil {
				t.Fatalf("file %d, opener %d: %v", f, o, err)
			}
		}
	}
}
