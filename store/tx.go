package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/google/uuid"
	"github.com/orcr-go/orcr/socketapi/api"
)

// ErrInvalidEvent is wrapped by [Tx.Emit] when the kind is not storable or the payload is
// not a JSON object.
var ErrInvalidEvent = errors.New("store: invalid event")

// ErrUnknownIntent is wrapped by [Tx.Intent] for a kind that is not a *_requested kind and
// by [Tx.Applied] for an op id with no open intent.
var ErrUnknownIntent = errors.New("store: unknown intent")

// Op is one unit of work inside a write transaction. It runs inside its own SAVEPOINT:
// when it returns an error or panics, everything it wrote (rows and events) is rolled back
// and the other ops of the batch still commit. An Op must not keep the *Tx after it
// returns.
type Op func(*Tx) (any, error)

// OpResult is what one [Op] produced: its value, its error (nil on success), and the
// events it emitted (committed only when the whole [DB.Apply] committed).
type OpResult struct {
	Value  any
	Err    error
	Events []Event
	// Logs are the session-log entries it appended (docs/remote.md §5), in order.
	Logs []LogEntry
}

// PanicError is the [OpResult.Err] of an op that panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("store: op panicked: %v", e.Value) }

// Tx is the write transaction handed to each [Op]. Its clock ([Tx.Now]) is fixed for the
// whole transaction. Its query methods run statements prepared once per [DB] and cached by
// query text, so ops should use constant query strings with ? arguments. It satisfies
// [Querier].
type Tx struct {
	tx      *sql.Tx
	db      *DB
	ctx     context.Context
	now     int64
	ins     *sql.Stmt
	stmts   map[string]*sql.Stmt // transaction-bound statements, closed by Apply
	missed  []string             // queries to add to the DB's statement cache after the transaction
	lastSeq int64                // highest seq emitted by the ops already released
	events  []Event              // events emitted by the op currently running
	logs    []LogEntry           // session-log entries appended by the op currently running
	cuts    []BudgetCut          // running turns a budget's interrupt cut (BudgetCuts)
}

// Now returns the transaction's time in ms since the Unix epoch; the same value for every
// op of one [DB.Apply].
func (t *Tx) Now() int64 { return t.now }

// Context returns the context the transaction runs under.
func (t *Tx) Context() context.Context { return t.ctx }

// stmt returns a transaction-bound prepared statement for query, or nil (run it
// unprepared). A query seen for the first time is prepared for this transaction and
// remembered; [DB.Apply] prepares it on the writer pool once the transaction is over, so
// later transactions reuse it.
func (t *Tx) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := t.stmts[query]; ok {
		return st
	}
	var st *sql.Stmt
	if ps := t.db.cachedStmt(query); ps != nil {
		st = t.tx.StmtContext(ctx, ps)
	} else {
		var err error
		if st, err = t.tx.PrepareContext(ctx, query); err != nil {
			return nil
		}
		t.missed = append(t.missed, query)
	}
	t.stmts[query] = st
	return st
}

func (t *Tx) close() {
	for _, st := range t.stmts {
		st.Close()
	}
	t.stmts = nil
}

// Exec runs a statement in the transaction.
func (t *Tx) Exec(query string, args ...any) (sql.Result, error) {
	return t.ExecContext(t.ctx, query, args...)
}

// Query runs a query in the transaction. Close the rows before the op returns.
func (t *Tx) Query(query string, args ...any) (*sql.Rows, error) {
	return t.QueryContext(t.ctx, query, args...)
}

// QueryRow runs a single-row query in the transaction.
func (t *Tx) QueryRow(query string, args ...any) *sql.Row {
	return t.QueryRowContext(t.ctx, query, args...)
}

// ExecContext is [Tx.Exec] with an explicit context.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

// QueryContext is [Tx.Query] with an explicit context; part of [Querier].
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext is [Tx.QueryRow] with an explicit context; part of [Querier].
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

// LastSeq returns the highest event seq committed-to-be by the earlier ops of this
// transaction (ops that returned an error do not count), or 0 if none emitted an event.
func (t *Tx) LastSeq() int64 { return t.lastSeq }

// Storable reports whether kind may be stored as an event: a kind of the events table
// [api.Events] other than a control kind (server_stopping), or any "debug." kind.
func Storable(kind string) bool {
	if s, ok := api.LookupEvent(kind); ok {
		return !s.Control
	}
	return strings.HasPrefix(kind, "debug.") && len(kind) > len("debug.")
}

// Emit inserts ev as an event row in the transaction and returns its seq. ref is the
// row's ref_uuid ("" stores NULL). ev is a typed payload of [api.Events] (a pointer to
// it), or an [api.RawEvent] whose fields must be a JSON object (nil stores {}). The event
// is delivered only if the op and the transaction commit; a rolled-back op leaves no gap
// in the numbering.
func (t *Tx) Emit(ref string, ev api.Event) (int64, error) {
	kind := ev.EventKind()
	if !Storable(kind) {
		return 0, fmt.Errorf("%w: kind %q is not registered", ErrInvalidEvent, kind)
	}
	b, err := marshalObject(ev)
	if err != nil {
		return 0, fmt.Errorf("%w: %s payload: %v", ErrInvalidEvent, kind, err)
	}
	var refArg any
	if ref != "" {
		refArg = ref
	}
	res, err := t.ins.ExecContext(t.ctx, t.now, kind, refArg, string(b))
	if err != nil {
		return 0, sqliteErr("insert event", err)
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return 0, sqliteErr("insert event", err)
	}
	t.events = append(t.events, Event{Seq: seq, TS: t.now, Kind: kind, Ref: ref, Payload: b})
	if ref != "" && strings.HasPrefix(kind, "agent.") {
		if raw, ok := ev.(api.RawEvent); ok {
			// A pre-encoded payload of a kind of the table is read as its type.
			if ev, err = api.DecodeEvent(kind, raw.Fields); err != nil {
				return seq, nil // no typed payload: nothing to log
			}
		}
		if err := t.logFromEvent(ref, ev); err != nil {
			return 0, err
		}
	}
	return seq, nil
}

// marshalObject marshals v and checks that it is a JSON object. JSON null becomes {}.
func marshalObject(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return json.RawMessage("{}"), nil
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("not a JSON object: %.40s", b)
	}
	return b, nil
}

// Intent records an intent (docs/decisions.md D1): it allocates a UUIDv7 op id, fills in
// ev's [api.IntentHead] (the ref as uuid, or run_uuid for a loop_run.* kind; the op id;
// an agent's row), emits it (its kind must be a *_requested kind of [api.Events]) and
// inserts the open-intent row that [Tx.Applied] closes.
func (t *Tx) Intent(ref string, ev api.IntentEvent) (opID string, seq int64, err error) {
	kind := ev.EventKind()
	if _, ok := api.AppliedKind(kind); !ok {
		return "", 0, fmt.Errorf("%w: %q is not a *_requested kind", ErrUnknownIntent, kind)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return "", 0, err
	}
	opID = id.String()
	h := ev.Intent()
	*h = api.IntentHead{OpID: opID}
	if strings.HasPrefix(kind, "loop_run.") {
		h.RunUUID = ref
	} else {
		h.UUID = ref
	}
	pj, err := marshalObject(ev)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %s params: %v", ErrInvalidEvent, kind, err)
	}
	if h.Agent, err = t.embedAgent(kind, ref); err != nil {
		return "", 0, err
	}
	seq, err = t.Emit(ref, ev)
	if err != nil {
		return "", 0, err
	}
	var refArg any
	if ref != "" {
		refArg = ref
	}
	if _, err := t.Exec(`INSERT INTO intents (op_id, kind, ref_uuid, requested_seq, params_json, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, opID, kind, refArg, seq, string(pj), t.now); err != nil {
		return "", 0, sqliteErr("insert intent", err)
	}
	return opID, seq, nil
}

// Applied closes the open intent opID: it fills in ev's [api.AppliedHead] (ref, op id,
// ok, error when errText is not empty, an agent's row), emits it and deletes the intent
// row. ev must be of the *_applied kind that closes the intent; nil is an empty one of
// that kind. Recovery sets Repaired. An unknown op id, or an ev of another kind, wraps
// [ErrUnknownIntent].
func (t *Tx) Applied(opID string, ok bool, errText string, ev api.AppliedEvent) (int64, error) {
	var kind string
	var ref sql.NullString
	err := t.QueryRow(`SELECT kind, ref_uuid FROM intents WHERE op_id = ?`, opID).Scan(&kind, &ref)
	if err == sql.ErrNoRows {
		return 0, fmt.Errorf("%w: no open intent with op_id %q", ErrUnknownIntent, opID)
	}
	if err != nil {
		return 0, sqliteErr("read intent", err)
	}
	zero, known := api.NewApplied(kind)
	if !known {
		return 0, fmt.Errorf("%w: stored intent kind %q has no applied pair", ErrUnknownIntent, kind)
	}
	applied := zero.EventKind()
	if ev == nil {
		ev = zero
	}
	if ev.EventKind() != applied {
		return 0, fmt.Errorf("%w: %s closes %s, not %s", ErrUnknownIntent, applied, kind, ev.EventKind())
	}
	h := ev.Outcome()
	h.OpID, h.OK, h.Error, h.UUID, h.RunUUID = opID, ok, errText, "", ""
	if strings.HasPrefix(kind, "loop_run.") {
		h.RunUUID = ref.String
	} else {
		h.UUID = ref.String
	}
	if h.Agent, err = t.embedAgent(applied, ref.String); err != nil {
		return 0, err
	}
	seq, err := t.Emit(ref.String, ev)
	if err != nil {
		return 0, err
	}
	if _, err := t.Exec(`DELETE FROM intents WHERE op_id = ?`, opID); err != nil {
		return 0, sqliteErr("delete intent", err)
	}
	return seq, nil
}

// Apply runs ops in ONE write transaction (BEGIN IMMEDIATE), each inside its own
// SAVEPOINT: an op that returns an error or panics is rolled back alone (its rows and
// events vanish, and event seqs stay gapless because the AUTOINCREMENT counter rolls back
// with it) while the others commit. results[i] belongs to ops[i]; events are all committed
// events in seq order. When the transaction itself fails (begin, savepoint bookkeeping or
// commit), nothing commits, err is a server_error cause sqlite, every result carries it
// and events is nil. Only the store actor may call Apply.
func (db *DB) Apply(ops []Op) (results []OpResult, events []Event, err error) {
	results = make([]OpResult, len(ops))
	failAll := func(e error) ([]OpResult, []Event, error) {
		for i := range results {
			results[i] = OpResult{Err: e}
		}
		return results, nil, e
	}
	if len(ops) == 0 {
		return results, nil, nil
	}
	ctx := context.Background()
	stx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return failAll(sqliteErr("begin", err))
	}
	t := &Tx{tx: stx, db: db, ctx: ctx, now: nowMS(), ins: stx.StmtContext(ctx, db.insEvt), stmts: map[string]*sql.Stmt{}}
	save, release, rollback := stx.StmtContext(ctx, db.spSave), stx.StmtContext(ctx, db.spRelease), stx.StmtContext(ctx, db.spRollback)
	defer func() {
		t.close()
		t.ins.Close()
		save.Close()
		release.Close()
		rollback.Close()
		if len(t.missed) > 0 {
			db.cacheStmts(t.missed)
		}
	}()
	for i, op := range ops {
		if _, err := save.ExecContext(ctx); err != nil {
			stx.Rollback()
			return failAll(sqliteErr("savepoint", err))
		}
		t.events, t.logs = nil, nil
		v, opErr := runOp(t, op)
		if opErr != nil {
			if _, err := rollback.ExecContext(ctx); err != nil {
				stx.Rollback()
				return failAll(sqliteErr("rollback to savepoint", err))
			}
			if _, err := release.ExecContext(ctx); err != nil {
				stx.Rollback()
				return failAll(sqliteErr("release savepoint", err))
			}
			results[i] = OpResult{Err: opErr}
			continue
		}
		if _, err := release.ExecContext(ctx); err != nil {
			stx.Rollback()
			return failAll(sqliteErr("release savepoint", err))
		}
		results[i] = OpResult{Value: v, Events: t.events, Logs: t.logs}
		events = append(events, t.events...)
		if len(t.events) > 0 {
			t.lastSeq = t.events[len(t.events)-1].Seq
		}
	}
	if err := stx.Commit(); err != nil {
		return failAll(sqliteErr("commit", err))
	}
	return results, events, nil
}

// runOp calls op, turning a panic into a *PanicError.
func runOp(t *Tx, op Op) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return op(t)
}

// Intent is an open intent: a *_requested event whose *_applied has not been written.
type Intent struct {
	OpID         string
	Kind         string
	Ref          string
	RequestedSeq int64
	Params       json.RawMessage // the params given to [Tx.Intent], as a JSON object
	CreatedAt    int64
}

// OpenIntents lists the open intents, oldest first, from the read pool. Recovery closes
// each one with [Tx.Applied] (result {"repaired": true}) once it knows what happened.
func (db *DB) OpenIntents() ([]Intent, error) {
	rows, err := db.r.Query(`SELECT op_id, kind, ref_uuid, requested_seq, params_json, created_at
		FROM intents ORDER BY requested_seq`)
	if err != nil {
		return nil, sqliteErr("read intents", err)
	}
	defer rows.Close()
	var out []Intent
	for rows.Next() {
		var in Intent
		var ref sql.NullString
		var params string
		if err := rows.Scan(&in.OpID, &in.Kind, &ref, &in.RequestedSeq, &params, &in.CreatedAt); err != nil {
			return nil, sqliteErr("read intents", err)
		}
		in.Ref = ref.String
		in.Params = json.RawMessage(params)
		out = append(out, in)
	}
	return out, sqliteErr("read intents", rows.Err())
}

// embedAgent returns the agent row, as it is at this point of the transaction, for the
// payload of an agent.* intent or applied event (docs/decisions.md D2: every agent.*
// payload carries the row). A delivery stamps the turn's delivered_at just before its
// agent.input_applied, and no other event announces that change; without the row a
// client keeping a snapshot current from events would keep the old turn's time. An
// intent about a row that is gone carries none.
func (t *Tx) embedAgent(kind, ref string) (*AgentRow, error) {
	if ref == "" || !strings.HasPrefix(kind, "agent.") {
		return nil, nil
	}
	row, err := AgentByUUID(t.ctx, t, ref)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &row, nil
}
