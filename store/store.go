// Package store is orcr's SQLite store: schema and migrations, the write transaction
// used by the store actor (the only writer), event numbering and retention, and the read
// side (event replay, snapshots, row shapes) usable from any goroutine.
//
// A [DB] holds two handles on one file: a writer pool limited to a single connection,
// whose transactions all start with BEGIN IMMEDIATE, and a read-only pool. Only the store
// actor may call the write methods ([DB.Apply], [DB.Trim]); everything else reads through
// [DB.Reader] or the read helpers ([DB.EventsAfter], [DB.Snapshot], [AgentByUUID], …).
// Times are INTEGER milliseconds since the Unix epoch throughout.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// ErrNotFound is returned by the single-row helpers ([AgentByUUID], [LoopByUUID],
// [RunByUUID]) when no row matches.
var ErrNotFound = errors.New("store: not found")

// DB is an open store. Its methods are safe for concurrent use, but the write methods
// ([DB.Apply], [DB.Trim]) are meant for the store actor alone.
type DB struct {
	path   string
	w      *sql.DB // single writer connection
	r      *sql.DB // read-only pool
	insEvt *sql.Stmt

	// Savepoint statements, prepared once; see [DB.Apply].
	spSave, spRelease, spRollback *sql.Stmt

	// stmts caches writer statements by query text (SQLite parses a statement on every
	// un-prepared Exec, which dominates small writes); see [Tx.stmt].
	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt

	statements *atomic.Int64 // see [DB.Statements]

	budgets atomic.Pointer[[]BudgetRule] // see [DB.SetBudgets]
}

// maxCachedStmts bounds the writer statement cache; further queries are prepared per
// transaction only.
const maxCachedStmts = 512

// cachedStmt returns the cached writer statement for query, or nil.
func (db *DB) cachedStmt(query string) *sql.Stmt {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	return db.stmts[query]
}

// cacheStmts prepares queries on the writer pool and caches them. It must run while no
// write transaction is open (the pool's only connection would be busy).
func (db *DB) cacheStmts(queries []string) {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	for _, q := range queries {
		if _, ok := db.stmts[q]; ok || db.stmts == nil || len(db.stmts) >= maxCachedStmts {
			continue
		}
		if st, err := db.w.Prepare(q); err == nil {
			db.stmts[q] = st
		}
	}
}

// MaxReaders caps the connections of the read pool. Each connection holds file
// descriptors (the database and its WAL) and SQLite caches; without a cap a burst of
// clients opened one per concurrent request and ran the server out of descriptors.
// Readers beyond the cap wait for a free connection; reads are short, so eight keep
// two cores busy with room for a long snapshot.
const MaxReaders = 8

// writerDSN is the DSN of the writer pool (modernc.org/sqlite DSN: _pragma parameters and _txlock=immediate).
func writerDSN(path string) string {
	return "file:" + escapePath(path) +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// readerDSN is the DSN of the read-only pool.
func readerDSN(path string) string {
	return "file:" + escapePath(path) + "?mode=ro&_pragma=busy_timeout(5000)"
}

// escapePath escapes the characters that would end the path part of a file: URI.
func escapePath(p string) string {
	return strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(p)
}

// Open opens (creating if needed) the store at path, migrates it to [SchemaVersion] in
// one transaction and opens the read pool. A store stamped with a newer version than this
// binary knows is refused with environment_error cause store_version_mismatch; any other
// failure is environment_error cause store_open_failed. The caller must [DB.Close] it
// after the store actor has stopped.
func Open(path string) (*DB, error) {
	if err := makePrivate(path); err != nil {
		return nil, openErr(path, err)
	}
	statements := new(atomic.Int64)
	w, err := openCounting(writerDSN(path), statements)
	if err != nil {
		return nil, openErr(path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := migrate(w); err != nil {
		w.Close()
		if pe, ok := wire.As(err); ok {
			return nil, pe
		}
		return nil, openErr(path, err)
	}
	r, err := openCounting(readerDSN(path), statements)
	if err != nil {
		w.Close()
		return nil, openErr(path, err)
	}
	r.SetMaxOpenConns(MaxReaders)
	r.SetMaxIdleConns(MaxReaders)
	if err := r.Ping(); err != nil {
		w.Close()
		r.Close()
		return nil, openErr(path, err)
	}
	db := &DB{path: path, w: w, r: r, stmts: map[string]*sql.Stmt{}, statements: statements}
	for _, p := range []struct {
		dst *(*sql.Stmt)
		sql string
	}{
		{&db.insEvt, `INSERT INTO events (ts, kind, ref_uuid, payload_json) VALUES (?, ?, ?, ?)`},
		{&db.spSave, `SAVEPOINT orcr_op`},
		{&db.spRelease, `RELEASE orcr_op`},
		{&db.spRollback, `ROLLBACK TO orcr_op`},
	} {
		if *p.dst, err = w.Prepare(p.sql); err != nil {
			db.Close()
			return nil, openErr(path, err)
		}
	}
	return db, nil
}

// makePrivate creates the store file at path with mode 0600 if it is missing, and
// removes the group and other bits from the store and its -wal and -shm files if they
// exist (a store an older orcr created). It must run before SQLite opens the store:
// SQLite creates a missing database 0644 less the umask, and gives the -wal and -shm
// files it creates later the mode of the database file, so a private database keeps
// all three private whatever the umask.
func makePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&^0o077); err != nil {
				return err
			}
		}
	}
	return nil
}

func openErr(path string, err error) error {
	return wire.Env(wire.CauseStoreOpenFailed, fmt.Sprintf("cannot open store %s: %v", path, err), "path", path).Wrap(err)
}

// sqliteErr wraps a SQL failure after open as server_error cause sqlite.
func sqliteErr(what string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := wire.As(err); ok {
		return err
	}
	return wire.Internal(wire.CauseSQLite, what+": "+err.Error()).Wrap(err)
}

// Close closes both pools. It must not be called while the store actor still runs.
func (db *DB) Close() error {
	var errs []error
	db.stmtMu.Lock()
	for _, st := range db.stmts {
		errs = append(errs, st.Close())
	}
	db.stmts = nil
	db.stmtMu.Unlock()
	for _, st := range []*sql.Stmt{db.insEvt, db.spSave, db.spRelease, db.spRollback} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(append(errs, db.r.Close(), db.w.Close())...)
}

// Path returns the file the store was opened on.
func (db *DB) Path() string { return db.path }

// Reader returns the read-only pool. Writes through it fail ("attempt to write a readonly
// database"). It satisfies [Querier].
func (db *DB) Reader() *sql.DB { return db.r }

// Querier is what the row helpers need: satisfied by *sql.DB (the read pool, see
// [DB.Reader]), *sql.Tx and *[Tx].
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// nowMS returns the current time in ms since the Unix epoch.
func nowMS() int64 { return time.Now().UnixMilli() }

// Statements returns the number of SQL statements run on both pools since [Open],
// including the migration Open itself ran: every Exec and Query, whether run directly
// or through a prepared statement, inside a transaction or not, and whether it
// succeeded or failed. BEGIN, COMMIT and ROLLBACK of a transaction, preparing a
// statement and the pragmas a connection applies when it opens are not counted; a
// string of several statements run by one Exec counts once. It lets tests assert how
// much SQL a piece of work costs; the count is kept with one atomic add per statement.
func (db *DB) Statements() int64 { return db.statements.Load() }
