package sqlcache_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// A cache flag's value is resolved, the file opened for one kind of
// answer, and answers are stored under keys made of what determines them.
func Example() {
	dir, err := os.MkdirTemp("", "cache")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// The cache directory is $FACTREASONER_CACHE; here a temporary one.
	old, had := os.LookupEnv("FACTREASONER_CACHE")
	os.Setenv("FACTREASONER_CACHE", dir)
	defer func() {
		if had {
			os.Setenv("FACTREASONER_CACHE", old)
		} else {
			os.Unsetenv("FACTREASONER_CACHE")
		}
	}()

	path, err := sqlcache.Resolve("auto", sqlcache.Retrieval) // as --retrieval-cache auto
	if err != nil {
		log.Fatal(err)
	}
	c, err := sqlcache.Open(path, sqlcache.Retrieval)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	key := sqlcache.Key("wikipedia", "3", "Lanny Flaherty", "Lanny Flaherty was an actor.")
	if err := c.Put(ctx, key, []byte(`[{"title":"Lanny Flaherty"}]`)); err != nil {
		log.Fatal(err)
	}
	v, ok, err := c.Get(ctx, key)
	fmt.Println(filepath.Base(path), string(v), ok, err)

	off, _ := sqlcache.Resolve("off", sqlcache.NLI)
	fmt.Printf("off: %q\n", off)
	// Output:
	// retrieval-cache.sqlite [{"title":"Lanny Flaherty"}] true <nil>
	// off: ""
}
