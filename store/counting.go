package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
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
type countingConn struct {
	sqliteConn
	n *atomic.Int64
}

func (c *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.sqliteConn.ExecContext(ctx, query, args)
	if err != driver.ErrSkip { // ErrSkip: database/sql prepares and counts it there
		c.n.Add(1)
	}
	return r, err
}

func (c *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.sqliteConn.QueryContext(ctx, query, args)
	if err != driver.ErrSkip {
		c.n.Add(1)
	}
	return r, err
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
