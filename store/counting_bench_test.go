package store_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// BenchmarkStatementCounter measures a point read on the read pool (which counts it and
// keeps it prepared) against the same read on a pool opened on the bare driver (which
// prepares it every time), on the same file, in alternating sub-benchmarks so drift in
// machine load hits both alike.
func BenchmarkStatementCounter(b *testing.B) {
	dir := storetest.Dir(b)
	path := filepath.Join(dir, "orcr.db")
	db, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(store.MaxReaders)
	raw.SetMaxIdleConns(store.MaxReaders)
	read := func(b *testing.B, q *sql.DB) {
		var n int
		for b.Loop() {
			if err := q.QueryRow(`SELECT count(*) FROM agents WHERE uuid = ?`, "x").Scan(&n); err != nil {
				b.Fatal(err)
			}
		}
	}
	for range 3 {
		b.Run("bare", func(b *testing.B) { read(b, raw) })
		b.Run("counting", func(b *testing.B) { read(b, db.Reader()) })
	}
}
