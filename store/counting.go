package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	"modernc.org/sqlite"
)

// openCounting opens a pool on dsn whose connections add one to n for every statement
// they run (see [DB.Statements]).
func openCounting(dsn string, n *atomic.Int64) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(countingConnector{Connector: c, n: n}), nil
}

// countingConnector wraps the SQLite driver's connector; Driver() is the driver's own.
type countingConnector struct {
	driver.Connector
	n *atomic.Int64
}

// sqliteConn is every interface the SQLite driver's connection implements that
// database/sql looks for. The wrapper forwards all of them, so database/sql takes the
// same paths (context-aware exec and query without a prepare, BeginTx with options,
// session reset and validity checks before reuse) as on the bare driver. The driver
// implements no driver.NamedValueChecker, so neither does the wrapper: arguments are
// converted by database/sql's default rules either way.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.SessionResetter
	driver.Validator
	driver.Pinger
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := dc.(sqliteConn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("store: the sqlite driver's connection %T lacks an interface the statement counter forwards", dc)
	}
	return &countingConn{sqliteConn: sc, n: c.n}, nil
}

// countingConn counts the statements run directly on the connection and hands out
// counting prepared statements. Transactions are the driver's own: the statements run
// inside one go through the connection or its prepared statements, and are counted
// there; BEGIN, COMMIT and ROLLBACK themselves are not.
//
// It also keeps each single-statement query it ran prepared (up to stmtCacheMax), and
// runs it again from there: the driver's Query and Exec prepare every time, and parsing
// and planning a statement against orcr's schema cost more than running it — at rest
// they were a tenth of the server's CPU, one query every few seconds.
type countingConn struct {
	sqliteConn
	n     *atomic.Int64
	stmts map[string]*cachedStmt
}

// stmtCacheMax bounds the statements one connection keeps prepared: orcr's queries
// are a fixed set, but a few are built with as many placeholders as values.
const stmtCacheMax = 256

// cachedStmt is a prepared statement of the connection's cache; busy while rows it
// returned are open (SQLite runs a statement once at a time).
type cachedStmt struct {
	st   sqliteStmt
	busy bool
}

// cached returns query's prepared statement when it may run from the cache now: it is
// one statement, not running, and prepared (now or before) without error. database/sql
// holds the connection's lock around every call on it and on its rows, so the cache
// needs none of its own.
func (c *countingConn) cached(ctx context.Context, query string) *cachedStmt {
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil
		}
		return cs
	}
	if len(c.stmts) >= stmtCacheMax || strings.Contains(strings.TrimRight(query, "; \t\n"), ";") {
		return nil
	}
	st, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil // the uncached path reports it
	}
	ss, ok := st.(sqliteStmt)
	if !ok {
		st.Close()
		return nil
	}
	if c.stmts == nil {
		c.stmts = map[string]*cachedStmt{}
	}
	cs := &cachedStmt{st: ss}
	c.stmts[query] = cs
	return cs
}

func (c *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if cs := c.cached(ctx, query); cs != nil {
		c.n.Add(1)
		return cs.st.ExecContext(ctx, args)
	}
	r, err := c.sqliteConn.ExecContext(ctx, query, args)
	if err != driver.ErrSkip { // ErrSkip: database/sql prepares and counts it there
		c.n.Add(1)
	}
	return r, err
}

func (c *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if cs := c.cached(ctx, query); cs != nil {
		c.n.Add(1)
		r, err := cs.st.QueryContext(ctx, args)
		if err != nil {
			return nil, err
		}
		cs.busy = true
		return &cachedRows{Rows: r, cs: cs}, nil
	}
	r, err := c.sqliteConn.QueryContext(ctx, query, args)
	if err != driver.ErrSkip {
		c.n.Add(1)
	}
	return r, err
}

// Close closes the cached statements, then the connection.
func (c *countingConn) Close() error {
	for _, cs := range c.stmts {
		cs.st.Close()
	}
	c.stmts = nil
	return c.sqliteConn.Close()
}

// cachedRows are the rows of a cached statement, which is free again once they close.
// The driver's column-type answers pass through.
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

func (c *countingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	ss, ok := st.(sqliteStmt)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("store: the sqlite driver's statement %T lacks an interface the statement counter forwards", st)
	}
	return &countingStmt{sqliteStmt: ss, n: c.n}, nil
}

// sqliteStmt is every interface the SQLite driver's prepared statement implements that
// database/sql looks for.
type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// countingStmt counts each run of a prepared statement.
type countingStmt struct {
	sqliteStmt
	n *atomic.Int64
}

func (s *countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.n.Add(1)
	return s.sqliteStmt.ExecContext(ctx, args)
}

func (s *countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.n.Add(1)
	return s.sqliteStmt.QueryContext(ctx, args)
}

// Exec and Query are the pre-context forms; database/sql uses the context forms above
// when they exist, but a driver.Stmt must have these.

func (s *countingStmt) Exec(args []driver.Value) (driver.Result, error) {
	s.n.Add(1)
	return s.sqliteStmt.Exec(args)
}

func (s *countingStmt) Query(args []driver.Value) (driver.Rows, error) {
	s.n.Add(1)
	return s.sqliteStmt.Query(args)
}
