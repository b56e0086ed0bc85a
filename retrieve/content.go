package retrieve

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"os"

	"github.com/factreasoner/factreasoner-go/kbindex"
	"github.com/factreasoner/factreasoner-go/sqlcache"
)

// A knowledge base's content identity names its documents by what they
// say, not by where the file is: "sha256:" and the first 32 hexadecimal
// digits of a SHA-256 over every row of its documents table in stored
// (rowid) order, each row's title and text length-prefixed, so that no two
// different tables hash alike by shifting bytes between rows. A copy or a
// VACUUM of a file keeps it; any change to a title or a text, or a row
// added, dropped or moved, changes it. It is part of the identity of a run
// that retrieves from the knowledge base (Retriever's Identify), so that
// a resumed run or a merge refuses lines retrieved from another one.
//
// fr kb build records it in the index's settings as it writes the
// documents (kbindex, key "content"); for a knowledge base without it
// (FActScore's, or one built before it was recorded) DocDB.Content reads
// every document once (BENCHMARKS.md, "Knowledge base identity") and keeps
// the result in the retrieval cache under the file's path, size and
// modification time.

// contentHash is the running hash of a content identity.
type contentHash struct {
	h   hash.Hash
	buf []byte
}

func newContentHash() *contentHash { return &contentHash{h: sha256.New()} }

// add hashes one row; a NULL title or text hashes apart from an empty one.
func (c *contentHash) add(title, text sql.NullString) {
	for _, s := range []sql.NullString{title, text} {
		c.buf = c.buf[:0]
		if !s.Valid {
			c.buf = append(c.buf, 0)
		} else {
			c.buf = append(c.buf, 1)
			c.buf = binary.AppendUvarint(c.buf, uint64(len(s.String)))
		}
		c.h.Write(c.buf)
		c.h.Write([]byte(s.String))
	}
}

// id is the identity of the rows added.
func (c *contentHash) id() string {
	return "sha256:" + hex.EncodeToString(c.h.Sum(nil)[:16])
}

// computeContent reads every document of db in stored order and returns
// the content identity; progress, when set, is told the bytes read so far
// every 64 MiB.
func computeContent(ctx context.Context, db *sql.DB, progress func(read int64)) (string, error) {
	rows, err := db.QueryContext(ctx, `SELECT title, text FROM documents ORDER BY rowid`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	c := newContentHash()
	var read, reported int64
	if progress != nil {
		progress(0)
	}
	for rows.Next() {
		var title, text sql.NullString
		if err := rows.Scan(&title, &text); err != nil {
			return "", err
		}
		c.add(title, text)
		read += int64(len(title.String) + len(text.String))
		if progress != nil && read-reported >= 64<<20 {
			reported = read
			progress(read)
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return c.id(), nil
}

// Content returns the knowledge base's content identity: the one its
// index records, else the one the retrieval cache holds for this file
// (cache may be nil), else computed by reading every document, which
// progress (when set) follows in bytes read of the file's size, and kept
// in the cache. The answer is kept for the DocDB's retrievers' Identify.
func (d *DocDB) Content(ctx context.Context, cache *Cache, progress func(read, size int64)) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.content != "" {
		return d.content, nil
	}
	id, err := kbindex.Content(ctx, d.db)
	if err != nil {
		return "", fmt.Errorf("knowledge base %s: %w", d.path, err)
	}
	key := sqlcache.Key("kb-content", d.stamp)
	if id == "" && cache != nil {
		data, ok, err := cache.store.Get(ctx, key)
		if err != nil {
			return "", err
		}
		if ok {
			id = string(data)
		}
	}
	if id == "" {
		var size int64
		if fi, err := os.Stat(d.path); err == nil {
			size = fi.Size()
		}
		var report func(int64)
		if progress != nil {
			report = func(read int64) { progress(read, size) }
		}
		if id, err = computeContent(ctx, d.db, report); err != nil {
			return "", fmt.Errorf("knowledge base %s: reading its documents for its content identity: %w", d.path, err)
		}
		if cache != nil {
			if err := cache.store.Put(ctx, key, []byte(id)); err != nil {
				return "", err
			}
		}
	}
	d.content = id
	return id, nil
}

// contentName is the content identity for the DocDB's retrievers'
// Identify: Content's answer, computed (without a cache) if no one asked
// yet; a knowledge base that cannot be read is named by its failure,
// which matches no other identity.
func (d *DocDB) contentName() string {
	id, err := d.Content(context.Background(), nil, nil)
	if err != nil {
		return "unreadable (" + err.Error() + ")"
	}
	return id
}
