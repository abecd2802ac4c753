package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/actors/runproc"
	"github.com/orcr-go/orcr/actors/schedule"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// The loop verbs of the facade (docs/loops.md §2). Checks run first and change nothing;
// what changes a loop runs as an op of its loop actor, so it never overlaps a fire, a
// promotion or a stop of the same loop.

// loopOpTimeout bounds an op of a loop actor that does not wait for a stop.
const loopOpTimeout = time.Minute

// loopOp runs do as an op of loop's actor and waits for it.
func (s *System) loopOp(loop string, do func(w *loopWork) (any, error)) (any, error) {
	res, err := s.sys.Root.RequestFuture(s.loops, LoopOp{Loop: loop, Do: do}, loopOpTimeout).Result()
	if err != nil {
		return nil, wire.Internal(wire.CauseActor, "loop actor did not answer: "+err.Error())
	}
	r := res.(LoopOpResult)
	return r.Value, r.Err
}

// LoopCreate is loop.create (docs/loops.md §2.1), validated in the spec's order. The
// definition, its argv included, is inserted first; loop.json is written beside it only
// then, so a refused create never touches a live loop's files (decision L1).
func (s *System) LoopCreate(ctx context.Context, r api.LoopCreateRequest) (api.LoopResult, error) {
	if r.Name == "" {
		return api.LoopResult{}, wire.Invalid(wire.ReasonNameRequired, "a loop name is required")
	}
	name := agentpath.ExpandRand(r.Name, nil)
	if !agentpath.ValidSegment(name) {
		return api.LoopResult{}, wire.Invalid(wire.ReasonInvalidName, "a loop name is one path segment of [a-z0-9_], 1 to 64 characters",
			"name", name)
	}
	if agentpath.IsReservedLevel1(name) {
		return api.LoopResult{}, wire.Invalid(wire.ReasonReservedName, "`"+name+"` is reserved", "name", name)
	}
	if r.Cron != "" && r.OnceAt != "" {
		return api.LoopResult{}, wire.Invalid(wire.ReasonCadenceConflict, "give either a cron expression or --once-at, not both")
	}
	now := time.Now()
	tz := schedule.LocalZoneName()
	n := store.NewLoop{Name: name, TZ: tz, Cwd: r.Cwd, Argv: r.Command, Overlap: r.Overlap, MaxConcurrency: r.MaxConcurrency}
	sch := schedule.Schedule{Loc: schedule.Zone(tz)}
	var at time.Time
	switch {
	case r.Cron != "":
		cr, err := schedule.ParseCron(r.Cron)
		if err != nil {
			return api.LoopResult{}, err
		}
		n.CadenceKind, n.CadenceValue, sch.Cron = "cron", r.Cron, cr
	case r.OnceAt != "":
		var err error
		if at, err = schedule.ParseOnceAt(r.OnceAt, now, sch.Loc); err != nil {
			return api.LoopResult{}, err
		}
		// A time already gone is a mistake, not a request to fire at once (issue 11;
		// docs/decisions.md D14); a second of slack absorbs the trip to the server.
		if at.Before(now.Add(-time.Second)) {
			return api.LoopResult{}, wire.Invalid(wire.ReasonInvalidOnceAt, "--once-at "+r.OnceAt+" is in the past",
				"value", r.OnceAt, "at", at.UTC().Format(time.RFC3339))
		}
		n.CadenceKind, n.CadenceValue = "once", r.OnceAt
	default:
		return api.LoopResult{}, wire.Invalid(wire.ReasonCadenceRequired, "a cron expression or --once-at is required")
	}
	n.NextFireAt = storeAdvance(sch.Start(now, at)).Next
	if len(r.Command) == 0 || r.Command[0] == "" {
		return api.LoopResult{}, wire.Invalid(wire.ReasonCommandRequired, "a command is required (after --)")
	}
	if n.MaxConcurrency == 0 {
		n.MaxConcurrency = 1
	}
	if n.MaxConcurrency < 1 {
		return api.LoopResult{}, wire.Invalid(wire.ReasonInvalidMaxConc, "max_concurrency must be at least 1",
			"value", r.MaxConcurrency)
	}
	switch n.Overlap {
	case "":
		n.Overlap = "queue"
	case "queue", "skip":
	default:
		return api.LoopResult{}, wire.Invalid(wire.ReasonInvalidOverlap, "overlap must be queue or skip", "value", r.Overlap)
	}
	if r.Timeout != "" {
		d, err := parseTimeout(r.Timeout)
		if err != nil {
			return api.LoopResult{}, err
		}
		if d < time.Second {
			return api.LoopResult{}, wire.Invalid(wire.ReasonTimeoutTooSmall, "a run timeout is at least 1s", "value", r.Timeout)
		}
		n.TimeoutS = int64(d / time.Second)
	}
	if n.Cwd == "" {
		n.Cwd = "."
	}
	id, err := uuid.NewV7()
	if err != nil {
		return api.LoopResult{}, wire.Internal(wire.CauseUUID, err.Error())
	}
	n.UUID = id.String()
	v, err := s.write(func(tx *store.Tx) (any, error) { return tx.CreateLoop(n) })
	if err != nil {
		var inUse *store.LoopNameInUseError
		if errors.As(err, &inUse) {
			return api.LoopResult{}, wire.Conflict(inUse.Error(), "reason", wire.ReasonLoopNameInUse,
				"occupant", map[string]any{"uuid": inUse.Occupant.UUID, "name": inUse.Occupant.Name})
		}
		var agents *store.PathInUseError
		if errors.As(err, &agents) {
			return api.LoopResult{}, pathInUse(agents)
		}
		return api.LoopResult{}, wire.From(err, wire.CauseSQLite)
	}
	row := v.(store.LoopRow)
	s.sys.Root.Send(s.loops, LoopCreated{Loop: row.UUID})
	if err := s.writeLoopJSON(n); err != nil {
		s.cfg.Log.Warn("loop.create: cannot write loop.json (the store keeps the command)", "loop", name, "err", err)
	}
	return api.LoopResult{Loop: api.CreatedLoop{LoopRow: row, Argv: r.Command, Cancel: "orcr loop rm " + name}}, nil
}

// writeLoopJSON writes data/<name>/loop.json (docs/config.md §2.2) for tools that read it.
func (s *System) writeLoopJSON(n store.NewLoop) error {
	dir := filepath.Join(s.cfg.Home, "data", n.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var timeout any
	if n.TimeoutS > 0 {
		timeout = n.TimeoutS
	}
	b, err := json.MarshalIndent(map[string]any{"version": 1, "uuid": n.UUID, "name": n.Name, "argv": n.Argv,
		"cadence_kind": n.CadenceKind, "cadence_value": n.CadenceValue, "tz": n.TZ, "cwd": n.Cwd,
		"max_concurrency": n.MaxConcurrency, "overlap": n.Overlap, "timeout_s": timeout,
		"created_at": time.Now().UnixMilli()}, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".loop.json.tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "loop.json"))
}

// resolveLoop finds a loop by name (active or paused first, else the newest ended).
func (s *System) resolveLoop(ctx context.Context, name string) (store.LoopDef, error) {
	if name == "" {
		return store.LoopDef{}, wire.Invalid(wire.ReasonNameRequired, "a loop name is required")
	}
	d, err := store.LoopByName(ctx, s.cfg.DB.Reader(), name)
	if errors.Is(err, store.ErrNotFound) {
		return store.LoopDef{}, wire.New(wire.NotFound, "no loop named "+name, "name", name)
	}
	return d, err
}

// LoopPause is loop.pause (docs/loops.md §2.2).
func (s *System) LoopPause(ctx context.Context, r api.LoopNamesRequest) (api.LoopUpdateResult, error) {
	return s.setLoops(ctx, r.Names, store.LoopPaused)
}

// LoopResume is loop.resume (docs/loops.md §2.2): a cron loop's next fire is recomputed
// from now (fires missed while paused are dropped); a once loop whose instant passed
// while paused is skipped and ends (decision L2); then pending runs may start.
func (s *System) LoopResume(ctx context.Context, r api.LoopNamesRequest) (api.LoopUpdateResult, error) {
	return s.setLoops(ctx, r.Names, store.LoopActive)
}

func (s *System) setLoops(ctx context.Context, names []string, status string) (api.LoopUpdateResult, error) {
	if len(names) == 0 {
		return api.LoopUpdateResult{}, wire.Invalid(wire.ReasonNameRequired, "at least one loop name is required")
	}
	out := api.LoopUpdateResult{Updated: []api.LoopNameStatus{}, Skipped: []api.LoopNameReason{}}
	for _, name := range names {
		d, err := s.resolveLoop(ctx, name)
		if wire.Is(err, wire.NotFound, "") || (err == nil && d.Status == store.LoopEnded) {
			out.Skipped = append(out.Skipped, api.LoopNameReason{Name: name, Reason: "not_found"})
			continue
		}
		if err != nil {
			return api.LoopUpdateResult{}, err
		}
		v, err := s.loopOp(d.UUID, func(w *loopWork) (any, error) { return w.setStatus(status) })
		if err != nil {
			return api.LoopUpdateResult{}, wire.From(err, wire.CauseSQLite)
		}
		out.Updated = append(out.Updated, api.LoopNameStatus{Name: name, Status: v.(string)})
	}
	return out, nil
}

// setStatus pauses or resumes the loop; it returns the status the loop has after it.
func (w *loopWork) setStatus(status string) (any, error) {
	d, err := w.def()
	if err != nil {
		return nil, err
	}
	if status == store.LoopPaused {
		_, err := w.write(func(tx *store.Tx) (any, error) {
			return nil, tx.SetLoopStatus(w.loop, store.LoopPaused, &api.LoopPaused{}, nil)
		})
		return store.LoopPaused, ignoreStale(err)
	}
	sch, err := scheduleOf(d)
	if err != nil {
		return nil, err
	}
	var due time.Time
	if d.NextFireAt != nil {
		due = time.UnixMilli(*d.NextFireAt)
	}
	st := sch.Resume(due, time.Now())
	if st.Skip != "" {
		_, err := w.write(func(tx *store.Tx) (any, error) {
			return nil, tx.SkipFire(w.loop, st.Skip, *d.NextFireAt, storeAdvance(st))
		})
		return store.LoopEnded, err
	}
	next := storeAdvance(st).Next
	_, err = w.write(func(tx *store.Tx) (any, error) {
		return nil, tx.SetLoopStatus(w.loop, store.LoopActive, &api.LoopResumed{}, &next)
	})
	if err != nil {
		return nil, ignoreStale(err)
	}
	w.promote()
	return store.LoopActive, nil
}

// LoopRm is loop.rm (docs/loops.md §2.3): the loop ends (removed_by_run when the caller
// is inside one of its runs) and its pending runs are canceled in one transaction; with
// kill_active its running runs are then stopped, concurrently, and the call returns when
// they are (so no fire can come between the removal and the stops, the end is written
// first: loop.removed precedes the stopped runs' loop_run.ended).
func (s *System) LoopRm(ctx context.Context, r api.LoopRmRequest) (api.LoopRmResult, error) {
	if len(r.Names) == 0 {
		return api.LoopRmResult{}, wire.Invalid(wire.ReasonNameRequired, "at least one loop name is required")
	}
	out := api.LoopRmResult{Removed: []api.LoopNameReason{}, Skipped: []api.LoopNameReason{}}
	var tickets []StopTicket
	for _, name := range r.Names {
		d, err := s.resolveLoop(ctx, name)
		if wire.Is(err, wire.NotFound, "") || (err == nil && d.Status == store.LoopEnded) {
			out.Skipped = append(out.Skipped, api.LoopNameReason{Name: name, Reason: "not_found"})
			continue
		}
		if err != nil {
			return api.LoopRmResult{}, err
		}
		reason := "removed"
		if strings.HasPrefix(r.CallerPath, d.Name+"/") {
			reason = "removed_by_run"
		}
		v, err := s.loopOp(d.UUID, func(w *loopWork) (any, error) { return w.remove(reason, r.KillActive) })
		if errors.Is(err, store.ErrStale) {
			out.Skipped = append(out.Skipped, api.LoopNameReason{Name: name, Reason: "not_found"})
			continue
		}
		if err != nil {
			return api.LoopRmResult{}, wire.From(err, wire.CauseSQLite)
		}
		tickets = append(tickets, v.([]StopTicket)...)
		out.Removed = append(out.Removed, api.LoopNameReason{Name: name, Reason: reason})
	}
	if err := waitTickets(ctx, tickets); err != nil {
		return api.LoopRmResult{}, err
	}
	return out, nil
}

// remove ends the loop and, with killActive, starts the stop of its live runs.
func (w *loopWork) remove(reason string, killActive bool) (any, error) {
	if _, err := w.write(func(tx *store.Tx) (any, error) { return nil, tx.EndLoop(w.loop, reason, &api.LoopRemoved{}) }); err != nil {
		return nil, err
	}
	var tickets []StopTicket
	if !killActive {
		return tickets, nil
	}
	runs, err := store.QueryRuns(contextBG, w.env.DB.Reader(), `WHERE r.loop_uuid = ? AND r.status IN ('running','stopping')
		ORDER BY r.created_at`, w.loop)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		t, err := w.stop(r.UUID, store.RunStopped)
		if err != nil {
			return nil, err
		}
		tickets = append(tickets, t)
	}
	return tickets, nil
}

// waitTickets waits until every ticket's stop is over, or ctx ends.
func waitTickets(ctx context.Context, tickets []StopTicket) error {
	for _, t := range tickets {
		if t.Done == nil {
			continue
		}
		select {
		case <-t.Done:
		case <-ctx.Done():
			return wire.Env(wire.CauseInterrupted, "the request ended before the runs stopped; the stops go on")
		}
	}
	return nil
}

// LoopLs is loop.ls (docs/loops.md §2.4).
func (s *System) LoopLs(ctx context.Context, r api.LoopLsRequest) (api.LoopLsResult, error) {
	var where []string
	var args []any
	switch {
	case r.Status != "":
		where, args = append(where, "l.status = ?"), append(args, r.Status)
	case !r.All && len(r.Names) == 0:
		where = append(where, "l.status IN ('active','paused')")
	}
	if len(r.Names) > 0 {
		where = append(where, "l.name IN ("+strings.TrimSuffix(strings.Repeat("?,", len(r.Names)), ",")+")")
		for _, n := range r.Names {
			args = append(args, n)
		}
	}
	tail := ""
	if len(where) > 0 {
		tail = "WHERE " + strings.Join(where, " AND ")
	}
	loops, err := store.QueryLoops(ctx, s.cfg.DB.Reader(), tail+" ORDER BY l.created_at, l.uuid", args...)
	if err != nil {
		return api.LoopLsResult{}, wire.From(err, wire.CauseSQLite)
	}
	return api.LoopLsResult{Loops: loops}, nil
}

// LoopRunStart is loop.run.start (docs/loops.md §2.5): paused loops are allowed.
func (s *System) LoopRunStart(ctx context.Context, r api.LoopRunRequest) (api.LoopRunResult, error) {
	d, err := s.resolveLoop(ctx, r.Name)
	if err == nil && d.Status == store.LoopEnded {
		err = wire.New(wire.NotFound, "no active loop named "+r.Name, "name", r.Name)
	}
	if err != nil {
		return api.LoopRunResult{}, err
	}
	v, err := s.loopOp(d.UUID, func(w *loopWork) (any, error) { return w.start() })
	if errors.Is(err, store.ErrStale) {
		return api.LoopRunResult{}, wire.New(wire.NotFound, "no active loop named "+r.Name, "name", r.Name)
	}
	if err != nil {
		return api.LoopRunResult{}, wire.From(err, wire.CauseSQLite)
	}
	run := v.(store.RunRow)
	return api.LoopRunResult{Run: api.StartedRun{UUID: run.UUID, RunID: run.RunID, Path: run.Path,
		Loop: d.Name, Kind: run.Kind, Status: run.Status}}, nil
}

// LoopRunStop is loop.run.stop (docs/loops.md §2.6): the runs are stopped concurrently
// and the call returns when every stop is over (no read timeout on the client side).
func (s *System) LoopRunStop(ctx context.Context, r api.LoopRunStopRequest) (api.LoopRunStopResult, error) {
	d, err := s.resolveLoop(ctx, r.Name)
	if err != nil {
		return api.LoopRunStopResult{}, err
	}
	var runs []store.RunRow
	if r.Run != "" {
		runs, err = store.QueryRuns(ctx, s.cfg.DB.Reader(), `WHERE r.loop_uuid = ? AND (r.run_id = ? OR r.uuid = ?)`,
			d.UUID, r.Run, r.Run)
		if err == nil && len(runs) == 0 {
			return api.LoopRunStopResult{}, wire.New(wire.NotFound, fmt.Sprintf("loop %s has no run %s", d.Name, r.Run),
				"name", d.Name, "run", r.Run)
		}
	} else {
		runs, err = store.QueryRuns(ctx, s.cfg.DB.Reader(), `WHERE r.loop_uuid = ? AND r.status IN ('pending','running','stopping')
			ORDER BY r.created_at`, d.UUID)
	}
	if err != nil {
		return api.LoopRunStopResult{}, wire.From(err, wire.CauseSQLite)
	}
	out := api.LoopRunStopResult{Stopped: []api.RunStopped{}, Skipped: []api.RunSkipped{}}
	var tickets []StopTicket
	for _, run := range runs {
		v, err := s.loopOp(d.UUID, func(w *loopWork) (any, error) { return w.stop(run.UUID, store.RunStopped) })
		if err != nil {
			return api.LoopRunStopResult{}, wire.From(err, wire.CauseSQLite)
		}
		tickets = append(tickets, v.(StopTicket))
	}
	if err := waitTickets(ctx, tickets); err != nil {
		return api.LoopRunStopResult{}, err
	}
	for _, t := range tickets {
		if t.Skipped {
			out.Skipped = append(out.Skipped, api.RunSkipped{RunID: t.Run.RunID, Reason: "not_running", Status: t.Status})
			continue
		}
		status := t.Status
		if row, err := store.RunByUUID(ctx, s.cfg.DB.Reader(), t.Run.UUID); err == nil {
			status = row.Status
			t.Run = row
		}
		out.Stopped = append(out.Stopped, api.RunStopped{RunID: t.Run.RunID, Path: t.Run.Path, Status: status})
	}
	return out, nil
}

// LoopRunLs is loop.run.ls (docs/loops.md §2.7).
func (s *System) LoopRunLs(ctx context.Context, r api.LoopRunLsRequest) (api.LoopRunLsResult, error) {
	d, err := s.resolveLoop(ctx, r.Name)
	if err != nil {
		return api.LoopRunLsResult{}, err
	}
	tail, args := `WHERE r.loop_uuid = ?`, []any{d.UUID}
	switch {
	case r.Status != "":
		tail, args = tail+` AND r.status = ?`, append(args, r.Status)
	case !r.All:
		tail += ` AND r.status IN ('pending','running','stopping')`
	}
	runs, err := store.QueryRuns(ctx, s.cfg.DB.Reader(), tail+` ORDER BY r.created_at, r.uuid`, args...)
	if err != nil {
		return api.LoopRunLsResult{}, wire.From(err, wire.CauseSQLite)
	}
	return api.LoopRunLsResult{Runs: runs}, nil
}

// LoopLogs is loop.logs (docs/loops.md §2.8): the runs' command output from their
// run.log files and the scheduler's events, merged by time.
func (s *System) LoopLogs(ctx context.Context, r api.LoopLogsRequest) (api.LoopLogsResult, error) {
	d, err := s.resolveLoop(ctx, r.Name)
	if err != nil {
		return api.LoopLogsResult{}, err
	}
	tail, args := `WHERE r.loop_uuid = ?`, []any{d.UUID}
	if r.Run != "" {
		tail, args = tail+` AND (r.run_id = ? OR r.uuid = ?)`, append(args, r.Run, r.Run)
	}
	runs, err := store.QueryRuns(ctx, s.cfg.DB.Reader(), tail+` ORDER BY r.created_at`, args...)
	if err != nil {
		return api.LoopLogsResult{}, wire.From(err, wire.CauseSQLite)
	}
	if r.Run != "" && len(runs) == 0 {
		return api.LoopLogsResult{}, wire.New(wire.NotFound, fmt.Sprintf("loop %s has no run %s", d.Name, r.Run),
			"name", d.Name, "run", r.Run)
	}
	lines := []api.LoopLogLine{}
	byUUID := map[string]string{}
	for _, run := range runs {
		byUUID[run.UUID] = run.Path
		if r.Source == "orcr" {
			continue
		}
		got, err := runproc.ReadLog(filepath.Join(s.cfg.Home, "data", d.Name, run.RunID))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			s.cfg.Log.Warn("loop.logs: cannot read a run log", "run", run.Path, "err", err)
		}
		for _, l := range got {
			lines = append(lines, api.LoopLogLine{Run: run.Path, Source: "command", TS: l.TS, Stream: l.Stream, Text: l.Text})
		}
	}
	if r.Source != "command" {
		evs, err := s.cfg.DB.LoopEvents(ctx, d.UUID)
		if err != nil {
			return api.LoopLogsResult{}, wire.From(err, wire.CauseSQLite)
		}
		for _, e := range evs {
			run, ok := byUUID[e.Ref]
			if !ok {
				var p struct {
					RunID string `json:"run_id"`
				}
				_ = json.Unmarshal(e.Payload, &p)
				if p.RunID != "" {
					run, ok = d.Name+"/"+p.RunID, r.Run == "" || p.RunID == r.Run
				}
			}
			if !ok {
				if r.Run != "" || e.Ref != d.UUID {
					continue
				}
				run = d.Name
			}
			lines = append(lines, api.LoopLogLine{Run: run, Source: "orcr", TS: e.TS, Text: e.Kind + ": " + eventText(e)})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].TS < lines[j].TS })
	if r.Tail != nil && *r.Tail >= 0 && *r.Tail < len(lines) {
		lines = lines[len(lines)-*r.Tail:]
	}
	return api.LoopLogsResult{Lines: lines}, nil
}

// eventText is an event's payload as JSON without the embedded rows (they repeat what
// the line already says).
func eventText(e store.Event) string {
	var m map[string]any
	if json.Unmarshal(e.Payload, &m) != nil {
		return string(e.Payload)
	}
	delete(m, "loop")
	delete(m, "run")
	b, _ := json.Marshal(m)
	return string(b)
}
