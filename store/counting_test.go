package store_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// Statements counts every statement run on either pool, whatever path database/sql
// takes to run it: a plain Query or Exec, a prepared statement, a read transaction, and
// the store's own write transactions (savepoints, cached statements).
func TestStatementsCountsEveryStatement(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	steps := []struct {
		name string
		want int64
		run  func() error
	}{
		{"QueryRow on the read pool", 1, func() error {
			var n int
			return db.Reader().QueryRowContext(ctx, `SELECT 1`).Scan(&n)
		}},
		{"Query on the read pool", 1, func() error {
			rows, err := db.Reader().QueryContext(ctx, `SELECT seq FROM events`)
			if err != nil {
				return err
			}
			return rows.Close()
		}},
		{"Exec on the read pool", 1, func() error {
			_, err := db.Reader().ExecContext(ctx, `SELECT 1`)
			return err
		}},
		{"prepared statement run twice", 2, func() error {
			st, err := db.Reader().PrepareContext(ctx, `SELECT ?`)
			if err != nil {
				return err
			}
			defer st.Close()
			var n int
			if err := st.QueryRowContext(ctx, 1).Scan(&n); err != nil {
				return err
			}
			_, err = st.ExecContext(ctx, 2)
			return err
		}},
		{"read transaction with two queries", 2, func() error {
			tx, err := db.Reader().BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT 1`).Scan(&n); err != nil {
				return err
			}
			return tx.QueryRowContext(ctx, `SELECT count(*) FROM agents`).Scan(&n)
		}},
		{"write: one op emitting one event (savepoint, insert, release)", 3, func() error {
			_, _, err := db.Apply([]store.Op{emitOp("", raw("debug.x", ""))})
			return err
		}},
		{"write: two ops with a statement each", 6, func() error {
			op := func(tx *store.Tx) (any, error) {
				_, err := tx.Exec(`UPDATE meta SET value = value WHERE key = 'schema_version'`)
				return nil, err
			}
			_, _, err := db.Apply([]store.Op{op, op})
			return err
		}},
		{"write: a failing op (savepoint, rollback to, release)", 3, func() error {
			res, _, err := db.Apply([]store.Op{func(*store.Tx) (any, error) { return nil, errors.New("no") }})
			if err == nil && res[0].Err == nil {
				return errors.New("the op did not fail")
			}
			return err
		}},
		{"read helpers", 2, func() error {
			if _, err := db.EventsAfter(ctx, 0, 10); err != nil {
				return err
			}
			_, _, err := db.Bounds()
			return err
		}},
	}
	for _, s := range steps {
		before := db.Statements()
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := db.Statements() - before; got != s.want {
			t.Errorf("%s: counted %d statements, want %d", s.name, got, s.want)
		}
	}
}

// The counting wrapper keeps every optional interface of the SQLite driver's
// connections, so database/sql takes the same fast paths as without it.
func TestCountingConnKeepsDriverInterfaces(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	conn, err := db.Reader().Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		for name, ok := range map[string]bool{
			"ExecerContext":      is[driver.ExecerContext](dc),
			"QueryerContext":     is[driver.QueryerContext](dc),
			"ConnPrepareContext": is[driver.ConnPrepareContext](dc),
			"ConnBeginTx":        is[driver.ConnBeginTx](dc),
			"SessionResetter":    is[driver.SessionResetter](dc),
			"Validator":          is[driver.Validator](dc),
			"Pinger":             is[driver.Pinger](dc),
		} {
			if !ok {
				t.Errorf("the read pool's connection %T lacks driver.%s", dc, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func is[T any](v any) bool { _, ok := v.(T); return ok }

// A query run again while its rows are still open (on one connection: a transaction)
// gets its own rows, and a statement that failed runs again from the connection's cache
// with its next values.
func TestCachedStatementsNestedAndAfterAnError(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	tx, err := db.Reader().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const q = `SELECT value FROM (SELECT 1 AS value UNION ALL SELECT 2 UNION ALL SELECT 3) WHERE value >= ? ORDER BY value`
	outer, err := tx.QueryContext(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for outer.Next() {
		var v int
		if err := outer.Scan(&v); err != nil {
			t.Fatal(err)
		}
		var inner []int
		rows, err := tx.QueryContext(ctx, q, v)
		if err != nil {
			t.Fatalf("the same query while its rows are open: %v", err)
		}
		for rows.Next() {
			var w int
			rows.Scan(&w)
			inner = append(inner, w)
		}
		rows.Close()
		if len(inner) != 4-v || inner[0] != v {
			t.Errorf("inner query from %d: %v", v, inner)
		}
		got = append(got, v)
	}
	if err := outer.Close(); err != nil || len(got) != 3 {
		t.Fatalf("outer rows %v, %v; want 1 2 3", got, err)
	}
	for i, want := range []error{errors.New("abs() of the smallest integer overflows"), nil} {
		var n int
		arg := any("x")
		if want == nil {
			arg = 2
		}
		err := tx.QueryRowContext(ctx, `SELECT 4 / CAST(? AS INTEGER) + (CASE WHEN typeof(?) = 'text' THEN abs(-9223372036854775807 - 1) ELSE 0 END)`, arg, arg).Scan(&n)
		if (err != nil) != (want != nil) {
			t.Errorf("run %d: err %v, want an error %v", i, err, want != nil)
		}
		if want == nil && n != 2 {
			t.Errorf("run %d: %d, want 2", i, n)
		}
	}
}
