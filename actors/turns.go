package actors

import (
	"database/sql"
	"errors"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
)

// Transcripts is how the turn state machine reaches a provider's native transcript
// (the adapters live in actors/transcript; the server wires them in).
type Transcripts interface {
	// Locate returns the transcript file of an agent (identity gate), or an error
	// (transcript_unavailable) when it cannot be located.
	Locate(t TranscriptTarget) (string, error)
	// LastResponse returns the final assistant text of the transcript at path.
	LastResponse(provider, path string) (string, error)
	// Settled reports whether the file has been quiet for settle.
	Settled(path string, settle time.Duration, now time.Time) bool
	// Cursor is the file's mtime in ms as a decimal string.
	Cursor(path string) (string, bool)
	// ClassifyBlocked guesses why a pane is blocked (question, limit, login, unknown)
	// from herdr's title and name of the pane (providers.md §7).
	ClassifyBlocked(parts ...string) string
}

// TranscriptTarget identifies an agent's transcript.
type TranscriptTarget struct {
	UUID, Path, Provider, DataDir string
	SessionKind, SessionValue     string
	Cwd                           string
	CreatedAt                     time.Time
}

// turnState is what the state machine reads for one agent.
type turnState struct {
	agentState
	IdleSince     sql.NullInt64
	CreatedAt     int64
	Cwd           string
	SessionKind   string
	SessionValue  string
	TurnSeq       int64 // open turn's input_seq; 0 = no open turn
	DeliveredAt   sql.NullInt64
	WorkingSeenAt sql.NullInt64
}

func readTurnState(q store.Querier, uuid string) (turnState, error) {
	var t turnState
	base, err := readAgentState(q, nil, uuid)
	if err != nil {
		return t, err
	}
	t.agentState = base
	var cwd, kind, value sql.NullString
	err = q.QueryRowContext(contextBG, `SELECT idle_since, created_at, cwd, agent_session_kind, agent_session_value
		FROM agents WHERE uuid = ?`, uuid).Scan(&t.IdleSince, &t.CreatedAt, &cwd, &kind, &value)
	if err != nil {
		return t, err
	}
	t.Cwd, t.SessionKind, t.SessionValue = cwd.String, kind.String, value.String
	err = q.QueryRowContext(contextBG, `SELECT input_seq, delivered_at, working_seen_at FROM turns
		WHERE agent_uuid = ? AND completed_at IS NULL ORDER BY input_seq DESC LIMIT 1`, uuid).
		Scan(&t.TurnSeq, &t.DeliveredAt, &t.WorkingSeenAt)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return t, err
}

// evaluate runs the turn state machine of lifecycle.md §10.2 on one herdr report.
// It returns true when the row ended (gc immediate completion).
func (w *agentWork) evaluate(r StatusReport) (ended bool) {
	st, err := readTurnState(w.env.DB.Reader(), w.uuid)
	if err != nil || !st.Managed {
		return err != nil
	}
	switch st.Status {
	case "working", "idle", "blocked", "parked":
	default:
		return st.Status == "ended"
	}
	if r.AgentSession != nil && r.AgentSession.Value != "" && st.SessionValue == "" {
		w.write(func(tx *store.Tx) (any, error) {
			return tx.Exec(`UPDATE agents SET agent_session_kind = ?, agent_session_value = ?, updated_at = ?
				WHERE uuid = ? AND agent_session_value IS NULL`, r.AgentSession.Kind, r.AgentSession.Value, tx.Now(), w.uuid)
		})
		st.SessionKind, st.SessionValue = r.AgentSession.Kind, r.AgentSession.Value
	}
	tun := w.tuning(st.Provider)
	now := r.At.UnixMilli()
	if st.Status == "parked" && (r.Status == herdr.StatusWorking || r.Status == herdr.StatusBlocked) {
		// A parked agent that works again (or asks something) is moved home first
		// (lifecycle.md §10.2, M18; quirk Q3: our decision for blocked too).
		cur, err := w.unpark(st.agentState)
		if err != nil {
			w.log().Warn("un-park on herdr activity failed", "err", err)
			return false
		}
		st.agentState = cur
	}
	switch r.Status {
	case herdr.StatusWorking:
		w.sawWorking(st, now)
	case herdr.StatusBlocked:
		if st.TurnSeq > 0 && !st.WorkingSeenAt.Valid && st.DeliveredAt.Valid &&
			now-st.DeliveredAt.Int64 < tun.FastTurnGrace.Milliseconds() {
			return false // not armed: the report belongs to the previous turn
		}
		w.markBlocked(st, r)
	case herdr.StatusIdle:
		if st.TurnSeq == 0 {
			return false
		}
		return w.idleTick(st, tun, r.At)
	}
	return false
}

func (w *agentWork) tuning(provider string) config.Tuning {
	if w.env.Tuning == nil {
		return config.BuiltinTuning(provider)
	}
	return w.env.Tuning(provider)
}

// sawWorking: an open turn records working_seen_at and clears the idle streak (M15 when
// the public status was idle/blocked/parked); no open turn means input arrived from
// outside orcr: an external turn opens (M14).
func (w *agentWork) sawWorking(st turnState, now int64) {
	w.write(func(tx *store.Tx) (any, error) {
		cur, err := readAgentState(nil, tx, w.uuid)
		if err != nil || cur.Status == "ended" || cur.Status == "lost" || cur.Status == "starting" {
			return nil, err
		}
		var open int64
		err = tx.QueryRow(`SELECT input_seq FROM turns WHERE agent_uuid = ? AND completed_at IS NULL
			ORDER BY input_seq DESC LIMIT 1`, w.uuid).Scan(&open)
		if errors.Is(err, sql.ErrNoRows) {
			seq := cur.InputSeq + 1
			if _, err := tx.Exec(`INSERT INTO turns (agent_uuid, input_seq, source, delivered_at, working_seen_at)
				VALUES (?, ?, 'external', ?, ?)`, w.uuid, seq, tx.Now(), tx.Now()); err != nil {
				return nil, err
			}
			if err := casStatus(tx, w.uuid, []string{cur.Status}, "working",
				"input_seq = ?, idle_since = NULL, blocked_kind = NULL", seq); err != nil {
				return nil, err
			}
			return emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": "working", "input_seq": seq})
		}
		if err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`UPDATE turns SET working_seen_at = COALESCE(working_seen_at, ?)
			WHERE agent_uuid = ? AND input_seq = ?`, tx.Now(), w.uuid, open); err != nil {
			return nil, err
		}
		if cur.Status == "working" {
			_, err := tx.Exec(`UPDATE agents SET idle_since = NULL WHERE uuid = ? AND idle_since IS NOT NULL`, w.uuid)
			return nil, err
		}
		if err := casStatus(tx, w.uuid, []string{cur.Status}, "working", "idle_since = NULL, blocked_kind = NULL"); err != nil {
			return nil, err
		}
		return emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": "working"})
	})
}

// markBlocked classifies and marks the agent blocked against its open turn (M16).
func (w *agentWork) markBlocked(st turnState, r StatusReport) {
	if st.Status == "blocked" {
		return
	}
	kind := "unknown"
	if w.env.Transcripts != nil {
		kind = w.env.Transcripts.ClassifyBlocked(r.Title, r.Name)
	}
	w.write(func(tx *store.Tx) (any, error) {
		if err := casStatus(tx, w.uuid, []string{"working", "idle", "parked"}, "blocked",
			"blocked_kind = ?, idle_since = NULL", kind); err != nil {
			return nil, ignoreStale(err)
		}
		if st.TurnSeq > 0 {
			tx.Exec(`UPDATE turns SET blocked_kind = ? WHERE agent_uuid = ? AND input_seq = ?`, kind, w.uuid, st.TurnSeq)
		}
		return emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": "blocked", "blocked_kind": kind})
	})
}

// idleTick handles an idle report with an open turn: it keeps the idle streak and
// completes the turn once (working seen, or the fast-turn grace fully passed with idle
// held) and the idle is stable and the transcript settled (lifecycle.md §10.2–§10.3).
func (w *agentWork) idleTick(st turnState, tun config.Tuning, at time.Time) (ended bool) {
	now := at.UnixMilli()
	idleSince := now
	if st.IdleSince.Valid {
		idleSince = st.IdleSince.Int64
	} else {
		w.write(func(tx *store.Tx) (any, error) {
			return tx.Exec(`UPDATE agents SET idle_since = ? WHERE uuid = ? AND idle_since IS NULL`, now, w.uuid)
		})
	}
	delivered := st.CreatedAt
	if st.DeliveredAt.Valid {
		delivered = st.DeliveredAt.Int64
	}
	grace := tun.FastTurnGrace.Milliseconds()
	workingOK := st.WorkingSeenAt.Valid
	fastOK := !workingOK && idleSince-delivered <= grace && now-delivered >= grace
	stable := now-idleSince >= tun.IdleStable.Milliseconds()
	if !(workingOK || fastOK) || !stable {
		return false
	}
	path, locErr := w.locate(st)
	if tun.TranscriptSettle > 0 {
		if locErr != nil || !w.env.Transcripts.Settled(path, tun.TranscriptSettle, at) {
			return false
		}
	}
	immediate := st.GCMode == "immediate"
	if immediate {
		if locErr != nil || w.env.Transcripts == nil {
			return false
		}
		if _, err := w.env.Transcripts.LastResponse(st.Provider, path); err != nil {
			return false // not readable yet: the provider has not flushed; try next tick
		}
	}
	cursor := ""
	if locErr == nil && w.env.Transcripts != nil {
		cursor, _ = w.env.Transcripts.Cursor(path)
	}
	seq := st.TurnSeq
	_, err := w.write(func(tx *store.Tx) (any, error) {
		res, err := tx.Exec(`UPDATE turns SET completed_at = ?, transcript_cursor = ? WHERE agent_uuid = ?
			AND input_seq = ? AND completed_at IS NULL`, tx.Now(), nullable(cursor), w.uuid, seq)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, ErrStale // already completed
		}
		if _, err := emitAgent(tx, "agent.turn_completed", w.uuid, map[string]any{"input_seq": seq}); err != nil {
			return nil, err
		}
		if !immediate {
			from := []string{"working"}
			if workingOK {
				from = append(from, "blocked") // quirk Q2: our decision
			}
			q := `UPDATE agents SET status = 'idle', blocked_kind = NULL, updated_at = ?, last_status_change_at = ?
				WHERE uuid = ? AND input_seq = ? AND status IN (` + placeholders(len(from)) + `)`
			args := []any{tx.Now(), tx.Now(), w.uuid, seq}
			for _, f := range from {
				args = append(args, f)
			}
			r, err := tx.Exec(q, args...)
			if err != nil {
				return nil, err
			}
			if n, _ := r.RowsAffected(); n > 0 {
				if _, err := emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": "idle"}); err != nil {
					return nil, err
				}
			}
		}
		if path != "" && locErr == nil {
			if _, err := tx.Exec(`UPDATE agents SET transcript_locator = ?, transcript_cursor = ?, updated_at = ?
				WHERE uuid = ?`, path, nullable(cursor), tx.Now(), w.uuid); err != nil {
				return nil, err
			}
			if _, err := emitAgent(tx, "agent.response_captured", w.uuid, map[string]any{"transcript_locator": path}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil || !immediate {
		return false
	}
	// gc immediate: the response is readable; tear the pane down, then end completed.
	w.shutdownPane(st.agentState, "completed")
	w.endAs([]string{"working", "idle", "blocked"}, "completed")
	return true
}

func (w *agentWork) locate(st turnState) (string, error) {
	if w.env.Transcripts == nil {
		return "", errNoTranscripts
	}
	return w.env.Transcripts.Locate(TranscriptTarget{
		UUID: w.uuid, Path: st.Path, Provider: st.Provider,
		DataDir:     AgentDataDir(w.env.Home, st.Path, w.uuid),
		SessionKind: st.SessionKind, SessionValue: st.SessionValue, Cwd: st.Cwd,
		CreatedAt: time.UnixMilli(st.CreatedAt),
	})
}

var errNoTranscripts = errors.New("actors: no transcript adapters configured")

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// shutdownPane is the graceful shutdown of one pane (lifecycle.md §15.2): the
// provider's shutdown line and grace when it has one, then pane.close.
func (w *agentWork) shutdownPane(st agentState, reason string) {
	if st.TerminalID == "" || w.env.Herdr == nil {
		return
	}
	if w.env.Shutdown != nil {
		if line, grace := w.env.Shutdown(st.Provider); line != "" {
			ctx, cancel := w.herdrCtx()
			if err := w.env.Herdr.Owned().Deliver(ctx, st.TerminalID, line); err == nil && grace > 0 {
				t := time.NewTimer(grace)
				select {
				case <-t.C:
				case <-w.ctx.Done():
					t.Stop()
				}
			}
			cancel()
		}
	}
	w.closePane(st.TerminalID, reason)
}
