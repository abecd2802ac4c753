package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/orcr-go/orcr/socketapi/api"
)

// Loops and runs (docs/loops.md §1, §6–§9): every change is one named operation here,
// emitting the loop.* / loop_run.* events of docs/loops.md §11 in its transaction. The
// payloads carry the row after the change under "loop" or "run" (docs/decisions.md D2).

// Loop statuses and run statuses.
const (
	LoopActive = "active"
	LoopPaused = "paused"
	LoopEnded  = "ended"

	RunPending  = "pending"
	RunRunning  = "running"
	RunStopping = "stopping"
	RunOK       = "ok"
	RunFailed   = "failed"
	RunTimeout  = "timeout"
	RunStopped  = "stopped"
	RunCanceled = "canceled"
)

// LoopDef is a loop definition with what its runs need: the argv (from the store; a row
// written by another implementation has none and is read from its loop.json), the cwd
// and the per-run timeout.
type LoopDef struct {
	LoopRow
	Argv     []string // nil: not stored (read loop.json)
	Cwd      string
	TimeoutS int64 // 0: none
}

const loopDefSelect = `SELECT l.uuid, l.name, l.status, l.ended_reason, l.cadence_value, l.cadence_kind,
	l.tz, l.next_fire_at, l.last_fire_at, l.max_concurrency, l.overlap, l.created_at,
	COALESCE(l.argv_json, ''), l.cwd, COALESCE(l.timeout_s, 0)
	FROM loops l`

func scanLoopDef(s Scanner) (LoopDef, error) {
	var d LoopDef
	var argv string
	r := &d.LoopRow
	err := s.Scan(&r.UUID, &r.Name, &r.Status, &r.EndedReason, &r.Cadence, &r.CadenceKind,
		&r.TZ, &r.NextFireAt, &r.LastFireAt, &r.MaxConcurrency, &r.Overlap, &r.CreatedAt,
		&argv, &d.Cwd, &d.TimeoutS)
	if err == nil && argv != "" {
		err = json.Unmarshal([]byte(argv), &d.Argv)
	}
	return d, err
}

// LoopDefByUUID reads one loop definition through q. No row wraps [ErrNotFound].
func LoopDefByUUID(ctx context.Context, q Querier, uuid string) (LoopDef, error) {
	d, err := scanLoopDef(q.QueryRowContext(ctx, loopDefSelect+` WHERE l.uuid = ?`, uuid))
	return d, rowErr("loop", err)
}

// LoopByName resolves a loop name the way the loop verbs do (docs/loops.md §2.2): the
// active or paused definition, else the newest ended one. No row wraps [ErrNotFound].
func LoopByName(ctx context.Context, q Querier, name string) (LoopDef, error) {
	d, err := scanLoopDef(q.QueryRowContext(ctx, loopDefSelect+` WHERE l.name = ?
		ORDER BY (l.status IN (`+LoopLiveStatuses.SQL()+`)) DESC, l.created_at DESC, l.uuid DESC LIMIT 1`, name))
	return d, rowErr("loop", err)
}

// DueLoops lists the active loops whose next fire is at or before now (the
// loops_status_fire index: the cost follows the loops that are due, not the loops
// that exist).
func (db *DB) DueLoops(ctx context.Context, now int64) ([]LoopRow, error) {
	return QueryLoops(ctx, db.r, `WHERE l.status = 'active' AND l.next_fire_at IS NOT NULL AND l.next_fire_at <= ?
		ORDER BY l.next_fire_at, l.uuid`, now)
}

// NextLoopWake is when the loop scheduler has something to do next without being told
// (ms since the epoch; 0: nothing): the earliest `next_fire_at` of an active loop or
// `timeout_at` of a running run, each the first row of its index (docs/loops.md §6.1).
func (db *DB) NextLoopWake(ctx context.Context) (int64, error) {
	var next int64
	err := db.r.QueryRowContext(ctx, queryNextLoopWake).Scan(&next)
	return next, sqliteErr("read the next loop wake", err)
}

const queryNextLoopWake = `SELECT COALESCE(min(t), 0) FROM (
	SELECT min(next_fire_at) AS t FROM loops WHERE status = 'active' AND next_fire_at IS NOT NULL
	UNION ALL SELECT min(timeout_at) FROM loop_runs WHERE status = 'running' AND timeout_at IS NOT NULL)`

// RunIdentity is what signalling and watching a run's process group needs.
type RunIdentity struct {
	UUID, LoopUUID, RunID, Status string
	PID, PGID, StartTime          int64 // 0: unknown
	TimeoutAt                     int64 // 0: none
}

const runIdentitySelect = `SELECT r.uuid, r.loop_uuid, r.run_id, r.status, COALESCE(r.pid, 0), COALESCE(r.pgid, 0),
	COALESCE(r.pgid_start_time, 0), COALESCE(r.timeout_at, 0) FROM loop_runs r`

func scanRunIdentity(s Scanner) (RunIdentity, error) {
	var r RunIdentity
	err := s.Scan(&r.UUID, &r.LoopUUID, &r.RunID, &r.Status, &r.PID, &r.PGID, &r.StartTime, &r.TimeoutAt)
	return r, err
}

// RunIdentityOf reads one run's identity through q. No row wraps [ErrNotFound].
func RunIdentityOf(ctx context.Context, q Querier, run string) (RunIdentity, error) {
	r, err := scanRunIdentity(q.QueryRowContext(ctx, runIdentitySelect+` WHERE r.uuid = ?`, run))
	return r, rowErr("run", err)
}

// LiveRuns lists the running and stopping runs (of every loop; recovery, timeouts).
func (db *DB) LiveRuns(ctx context.Context) ([]RunIdentity, error) {
	return queryRows(ctx, db.r, runIdentitySelect+` WHERE r.status IN (`+RunLiveStatuses.SQL()+`) ORDER BY r.created_at`,
		nil, scanRunIdentity)
}

// TimedOutRuns lists the running runs whose timeout_at has passed.
func (db *DB) TimedOutRuns(ctx context.Context, now int64) ([]RunIdentity, error) {
	return queryRows(ctx, db.r, runIdentitySelect+` WHERE r.status = 'running' AND r.timeout_at IS NOT NULL
		AND r.timeout_at <= ? ORDER BY r.timeout_at`, []any{now}, scanRunIdentity)
}

// LoopNameInUseError is returned by [Tx.CreateLoop] when an active or paused loop has
// the name.
type LoopNameInUseError struct{ Occupant LoopRow }

func (e *LoopNameInUseError) Error() string {
	return "a loop named " + e.Occupant.Name + " already exists (" + e.Occupant.Status + ")"
}

// NewLoop is a loop definition to insert (loop.create).
type NewLoop struct {
	UUID, Name, CadenceKind, CadenceValue, TZ, Cwd, Overlap string
	Argv                                                    []string
	MaxConcurrency, TimeoutS                                int64 // TimeoutS 0: none
	NextFireAt                                              int64 // 0: none
}

// CreateLoop inserts an active loop and emits loop.created {uuid, name, cadence}. An
// active or paused loop of the same name is a *[LoopNameInUseError], an active agent at
// or under the name a *[PathInUseError]; then nothing is written.
func (t *Tx) CreateLoop(n NewLoop) (LoopRow, error) {
	if occ, err := QueryLoops(t.ctx, t, `WHERE l.name = ? AND l.status IN (`+LoopLiveStatuses.SQL()+`)`, n.Name); err != nil {
		return LoopRow{}, err
	} else if len(occ) > 0 {
		return LoopRow{}, &LoopNameInUseError{Occupant: occ[0]}
	}
	// Agents already living under the name would fall into the new loop's namespace
	// (issue 11: path_in_use against agents).
	var occ string
	switch err := t.QueryRow(`SELECT uuid FROM agents WHERE status != 'ended' AND (path = ? OR (path > ? AND path < ?))
		ORDER BY path LIMIT 1`, n.Name, n.Name+"/", n.Name+"0").Scan(&occ); {
	case err == nil:
		e := &PathInUseError{Path: n.Name}
		if row, rerr := AgentByUUID(t.ctx, t, occ); rerr == nil {
			e.Occupant = &row
		}
		return LoopRow{}, e
	case !errors.Is(err, sql.ErrNoRows):
		return LoopRow{}, sqliteErr("read path occupant", err)
	}
	argv, err := json.Marshal(n.Argv)
	if err != nil {
		return LoopRow{}, err
	}
	if err := t.exec("insert loop", `INSERT INTO loops (uuid, name, cadence_kind, cadence_value, tz, cwd,
		max_concurrency, overlap, timeout_s, status, next_fire_at, argv_json, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
		n.UUID, n.Name, n.CadenceKind, n.CadenceValue, n.TZ, n.Cwd, n.MaxConcurrency, n.Overlap,
		nullInt(n.TimeoutS), nullInt(n.NextFireAt), string(argv), t.now, t.now); err != nil {
		return LoopRow{}, err
	}
	row, err := LoopByUUID(t.ctx, t, n.UUID)
	if err != nil {
		return LoopRow{}, err
	}
	return row, t.emitLoop(n.UUID, &api.LoopCreated{UUID: n.UUID, Name: n.Name, Cadence: n.CadenceValue})
}

// emitLoop emits ev for loop uuid with the loop row after the change.
func (t *Tx) emitLoop(loop string, ev api.LoopEvent) error {
	row, err := LoopByUUID(t.ctx, t, loop)
	if err != nil {
		return err
	}
	ev.LoopRef().Loop = row
	_, err = t.Emit(loop, ev)
	return err
}

// emitRun emits ev for run uuid with its run_uuid and the run row after the change.
func (t *Tx) emitRun(run string, ev api.RunEvent) error {
	row, err := RunByUUID(t.ctx, t, run)
	if err != nil {
		return err
	}
	*ev.RunRef() = api.RunHead{RunUUID: run, Run: row}
	_, err = t.Emit(run, ev)
	return err
}

// Advance is how a scheduled fire moves its loop's schedule on (docs/loops.md §6.2 step
// 5): a cron loop gets its next fire (0: none within the bound), a once loop ends fired.
type Advance struct {
	Next int64
	Once bool
}

func (t *Tx) advance(loop string, a Advance) error {
	if a.Once {
		if err := t.exec("end once loop", `UPDATE loops SET status = 'ended', ended_reason = 'fired', next_fire_at = NULL,
			last_fire_at = ?, updated_at = ? WHERE uuid = ?`, t.now, t.now, loop); err != nil {
			return err
		}
		return t.emitLoop(loop, &api.LoopEnded{LoopChange: api.LoopChange{UUID: loop, Status: LoopEnded, EndedReason: new("fired")}})
	}
	return t.exec("advance loop", `UPDATE loops SET next_fire_at = ?, last_fire_at = ?, updated_at = ? WHERE uuid = ?`,
		nullInt(a.Next), t.now, t.now, loop)
}

// Fire asks a loop for a run (docs/loops.md §6.2, allocate_run). Scheduled fires carry
// the schedule's advance; manual ones (Advance nil) never move the schedule, are never
// coalesced and ignore overlap skip.
type Fire struct {
	Loop    string
	Manual  bool
	DueAt   int64
	Advance *Advance // scheduled fires only
}

// Fired is what a fire did. Run is the run it made or folded into (nil when skipped);
// Start is true when that run is running and its process must be started now.
type Fired struct {
	Run       *RunRow
	Start     bool
	Coalesced bool
	Skipped   bool
}

// FireLoop applies one fire in the transaction: at capacity a scheduled fire is
// skipped (overlap skip) or folded into the loop's pending scheduled run, keeping the
// earliest due_at (overlap queue); otherwise a new run is inserted, running when a slot
// is free (the insert reserves it) and pending when not. The advance commits with it, so
// an occurrence is never both fired and still due. ErrStale when the loop is not active
// (a scheduled fire) or has ended (a manual one).
func (t *Tx) FireLoop(f Fire) (Fired, error) {
	d, err := LoopDefByUUID(t.ctx, t, f.Loop)
	if err != nil {
		return Fired{}, err
	}
	if d.Status == LoopEnded || (!f.Manual && d.Status != LoopActive) {
		return Fired{}, ErrStale
	}
	kind := "scheduled"
	if f.Manual {
		kind = "manual"
	}
	active, err := t.count(`SELECT count(*) FROM loop_runs WHERE loop_uuid = ? AND status IN (`+RunLiveStatuses.SQL()+`)`, f.Loop)
	if err != nil {
		return Fired{}, err
	}
	full := active >= d.MaxConcurrency
	var out Fired
	switch {
	case full && !f.Manual && d.Overlap == "skip":
		out.Skipped = true
		if err := t.emitLoop(f.Loop, &api.LoopSkipped{LoopUUID: f.Loop, DueAt: f.DueAt}); err != nil {
			return Fired{}, err
		}
	case full && !f.Manual:
		var pending string
		switch err := t.QueryRow(`SELECT uuid FROM loop_runs WHERE loop_uuid = ? AND status = 'pending' AND kind = 'scheduled'
			ORDER BY created_at LIMIT 1`, f.Loop).Scan(&pending); {
		case err == nil:
			if err := t.exec("coalesce run", `UPDATE loop_runs SET due_at = min(COALESCE(due_at, ?), ?), updated_at = ?
				WHERE uuid = ?`, f.DueAt, f.DueAt, t.now, pending); err != nil {
				return Fired{}, err
			}
			row, err := RunByUUID(t.ctx, t, pending)
			if err != nil {
				return Fired{}, err
			}
			out.Run, out.Coalesced = &row, true
			if err := t.emitLoop(f.Loop, &api.LoopCoalesced{LoopUUID: f.Loop, RunID: row.RunID,
				DueAt: *row.DueAt}); err != nil {
				return Fired{}, err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return Fired{}, sqliteErr("read pending run", err)
		}
	}
	if !out.Skipped && !out.Coalesced {
		status := RunRunning
		if full {
			status = RunPending
		}
		row, err := t.insertRun(f.Loop, kind, status, f.DueAt)
		if err != nil {
			return Fired{}, err
		}
		out.Run, out.Start = &row, status == RunRunning
		if err := t.emitLoop(f.Loop, &api.LoopFired{LoopUUID: f.Loop, RunID: row.RunID, Kind: kind,
			DueAt: f.DueAt, Pending: full}); err != nil {
			return Fired{}, err
		}
	}
	if f.Advance != nil {
		if err := t.advance(f.Loop, *f.Advance); err != nil {
			return Fired{}, err
		}
	}
	return out, nil
}

// runIDChars are the characters of a run id after its "r".
const runIDChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// newRunID is "r" and 5 random characters of [a-z0-9] (docs/loops.md §1.2).
func newRunID() (string, error) {
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = runIDChars[int(b[i])%len(runIDChars)]
	}
	return "r" + string(b), nil
}

// insertRun inserts a run of loop with a run id unique within the loop (regenerated on a
// collision, up to 8 tries).
func (t *Tx) insertRun(loop, kind, status string, dueAt int64) (RunRow, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return RunRow{}, err
	}
	for try := 0; try < 8; try++ {
		runID, err := newRunID()
		if err != nil {
			return RunRow{}, err
		}
		taken, err := t.count(`SELECT count(*) FROM loop_runs WHERE loop_uuid = ? AND run_id = ?`, loop, runID)
		if err != nil {
			return RunRow{}, err
		}
		if taken > 0 {
			continue
		}
		if err := t.exec("insert run", `INSERT INTO loop_runs (uuid, loop_uuid, run_id, kind, due_at, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id.String(), loop, runID, kind, dueAt, status, t.now, t.now); err != nil {
			return RunRow{}, err
		}
		return RunByUUID(t.ctx, t, id.String())
	}
	return RunRow{}, fmt.Errorf("store: no free run id for loop %s after 8 tries", loop)
}

func (t *Tx) count(q string, args ...any) (int64, error) {
	var n int64
	if err := t.QueryRow(q, args...).Scan(&n); err != nil {
		return 0, sqliteErr("count", err)
	}
	return n, nil
}

// SkipFire records an occurrence that will not run (docs/loops.md §6.2 L5, §9.1): event
// loop.skipped {loop_uuid, name, reason, due_at}, then the advance.
func (t *Tx) SkipFire(loop, reason string, dueAt int64, a Advance) error {
	var name string
	if err := t.QueryRow(`SELECT name FROM loops WHERE uuid = ?`, loop).Scan(&name); err != nil {
		return rowErr("loop", err)
	}
	if err := t.emitLoop(loop, &api.LoopSkipped{LoopUUID: loop, Name: name, Reason: reason,
		DueAt: dueAt}); err != nil {
		return err
	}
	return t.advance(loop, a)
}

// PromoteRun flips the loop's oldest pending run (lowest due_at, then created_at) to
// running when the loop is active and has a free slot, and returns it; nil when there
// is nothing to promote (docs/loops.md §6.3). The claim is transactional, so racing
// promoters can never exceed the cap.
func (t *Tx) PromoteRun(loop string) (*RunRow, error) {
	var max int64
	var status string
	if err := t.QueryRow(`SELECT max_concurrency, status FROM loops WHERE uuid = ?`, loop).Scan(&max, &status); err != nil {
		return nil, rowErr("loop", err)
	}
	if status != LoopActive {
		return nil, nil
	}
	active, err := t.count(`SELECT count(*) FROM loop_runs WHERE loop_uuid = ? AND status IN (`+RunLiveStatuses.SQL()+`)`, loop)
	if err != nil || active >= max {
		return nil, err
	}
	var run string
	switch err := t.QueryRow(`SELECT uuid FROM loop_runs WHERE loop_uuid = ? AND status = 'pending'
		ORDER BY due_at, created_at LIMIT 1`, loop).Scan(&run); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, sqliteErr("read pending run", err)
	}
	if err := t.exec("promote run", `UPDATE loop_runs SET status = 'running', updated_at = ? WHERE uuid = ?`, t.now, run); err != nil {
		return nil, err
	}
	row, err := RunByUUID(t.ctx, t, run)
	return &row, err
}

// RunStart is a run's process identity, recorded when it started.
type RunStart struct {
	Run            string
	PID, StartTime int64 // StartTime: the leader's OS start time (0: unknown)
	TimeoutS       int64 // 0: no timeout
}

// StartedRun records a run's process (pgid = pid) while the run is running or stopping
// (never over a stop barrier's outcome) and emits loop_run.started {run_uuid, run_id,
// pid, pgid}. ErrStale when the run is already terminal: the caller kills the group.
func (t *Tx) StartedRun(s RunStart) error {
	var timeoutAt any
	if s.TimeoutS > 0 {
		timeoutAt = t.now + s.TimeoutS*1000
	}
	if err := t.execOne("record run start", `UPDATE loop_runs SET pid = ?, pgid = ?, pgid_start_time = ?, started_at = ?,
		timeout_at = ?, updated_at = ? WHERE uuid = ? AND status IN (`+RunLiveStatuses.SQL()+`)`,
		s.PID, s.PID, nullInt(s.StartTime), t.now, timeoutAt, t.now, s.Run); err != nil {
		return err
	}
	var runID string
	if err := t.QueryRow(`SELECT run_id FROM loop_runs WHERE uuid = ?`, s.Run).Scan(&runID); err != nil {
		return rowErr("run", err)
	}
	return t.emitRun(s.Run, &api.LoopRunStarted{RunID: runID, Pid: s.PID, Pgid: s.PID})
}

// RunEnd is how a run finished (docs/loops.md §8): ExitCode and Signal are nil unless known.
type RunEnd struct {
	Run, Status      string
	ExitCode, Signal *int64
	// From are the statuses it may end from (default running and stopping).
	From []string
}

// EndRun finishes a run once (ErrStale when it is no longer in End.From) and emits
// loop_run.ended {run_uuid, run_id, status, exit_code, signal}.
func (t *Tx) EndRun(e RunEnd) error {
	from := e.From
	if from == nil {
		from = []string{RunRunning, RunStopping}
	}
	args := []any{e.Status, e.ExitCode, e.Signal, t.now, t.now, e.Run}
	for _, f := range from {
		args = append(args, f)
	}
	if err := t.execOne("end run", `UPDATE loop_runs SET status = ?, exit_code = ?, signal = ?, ended_at = ?, updated_at = ?
		WHERE uuid = ? AND status IN (`+marks(len(from))+`)`, args...); err != nil {
		return err
	}
	var runID string
	if err := t.QueryRow(`SELECT run_id FROM loop_runs WHERE uuid = ?`, e.Run).Scan(&runID); err != nil {
		return rowErr("run", err)
	}
	return t.emitRun(e.Run, &api.LoopRunEnded{RunID: runID, Status: e.Status,
		ExitCode: e.ExitCode, Signal: e.Signal})
}

// StopBarrier moves a running run to stopping (docs/loops.md §7 step 1) and emits
// loop_run.stopping: from then on agent creation under the run is refused. ErrStale when
// the run is not running.
func (t *Tx) StopBarrier(run string) error {
	if err := t.execOne("stop run", `UPDATE loop_runs SET status = 'stopping', updated_at = ? WHERE uuid = ? AND status = 'running'`,
		t.now, run); err != nil {
		return err
	}
	return t.emitRun(run, &api.LoopRunStopping{})
}

// SetLoopStatus pauses or resumes a loop (docs/loops.md §2.2), with the next fire a
// resume recomputed (nil leaves it), emitting ev (&api.LoopPaused{} or &api.LoopResumed{})
// with {uuid, status, ended_reason}. ErrStale when the loop has ended.
func (t *Tx) SetLoopStatus(loop, status string, ev api.LoopChangeEvent, next *int64) error {
	q, args := `UPDATE loops SET status = ?, updated_at = ?`, []any{status, t.now}
	if next != nil {
		q += `, next_fire_at = ?`
		args = append(args, nullInt(*next))
	}
	args = append(args, loop)
	if err := t.execOne("set loop status", q+` WHERE uuid = ? AND status IN (`+LoopLiveStatuses.SQL()+`)`, args...); err != nil {
		return err
	}
	*ev.Change() = api.LoopChange{UUID: loop, Status: status}
	return t.emitLoop(loop, ev)
}

// EndLoop ends a loop (loop.rm, or a once loop whose instant passed while paused) with
// reason: every pending run is canceled first (loop_run.ended {status: canceled}), then
// the loop ends with ev (&api.LoopRemoved{} or &api.LoopEnded{}). ErrStale when it
// already ended.
func (t *Tx) EndLoop(loop, reason string, ev api.LoopChangeEvent) error {
	pending, err := t.uuids(`SELECT uuid FROM loop_runs WHERE loop_uuid = ? AND status = 'pending' ORDER BY created_at`, loop)
	if err != nil {
		return err
	}
	for _, r := range pending {
		if err := t.EndRun(RunEnd{Run: r, Status: RunCanceled, From: []string{RunPending}}); err != nil {
			return err
		}
	}
	if err := t.execOne("end loop", `UPDATE loops SET status = 'ended', ended_reason = ?, next_fire_at = NULL, updated_at = ?
		WHERE uuid = ? AND status IN (`+LoopLiveStatuses.SQL()+`)`, reason, t.now, loop); err != nil {
		return err
	}
	*ev.Change() = api.LoopChange{UUID: loop, Status: LoopEnded, EndedReason: &reason}
	return t.emitLoop(loop, ev)
}

// LiveLoops lists the active and paused loops, oldest first: each has a loop actor, and
// restart recovery looks at each (docs/loops.md §9.1).
func (db *DB) LiveLoops(ctx context.Context) ([]string, error) {
	return queryStrings(db.r, ctx, `SELECT uuid FROM loops WHERE status IN (`+LoopLiveStatuses.SQL()+`) ORDER BY created_at, uuid`)
}
