package store

import (
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the embedded steps in version order; loaded once.
var migrations = loadMigrations()

// SchemaVersion is the schema version this binary writes: the highest migration.
var SchemaVersion = migrations[len(migrations)-1].version

func loadMigrations() []migration {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		panic(err)
	}
	var ms []migration
	for _, n := range names {
		base := strings.TrimPrefix(n, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			panic(fmt.Sprintf("store: bad migration file name %q", base))
		}
		b, err := migrationFS.ReadFile(n)
		if err != nil {
			panic(err)
		}
		ms = append(ms, migration{version: v, name: base, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			panic(fmt.Sprintf("store: migrations must be numbered 1..n without gaps, got %q", m.name))
		}
	}
	return ms
}

// storedVersion reads meta.schema_version inside tx; 0 when the store is empty (no meta
// table or no row).
func storedVersion(tx *sql.Tx) (int, error) {
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	var v string
	err := tx.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ver, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || ver < 0 {
		return 0, fmt.Errorf("meta.schema_version %q is not a version number", v)
	}
	return ver, nil
}

// migrate brings the store behind w to [SchemaVersion] in one transaction. It refuses a
// store newer than this binary with store_version_mismatch.
func migrate(w *sql.DB) (err error) {
	tx, err := w.Begin()
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	cur, err := storedVersion(tx)
	if err != nil {
		return err
	}
	if cur > SchemaVersion {
		return wire.Env(wire.CauseStoreVersionMismatch,
			fmt.Sprintf("store schema version %d is newer than this binary supports (schema version %d); upgrade orcr", cur, SchemaVersion),
			"store_version", cur, "supported_version", SchemaVersion)
	}
	if cur == SchemaVersion {
		return tx.Commit()
	}
	for _, m := range migrations {
		if m.version <= cur {
			continue
		}
		if _, err := tx.Exec(m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.Itoa(SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}
