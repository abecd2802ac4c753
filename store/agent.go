package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api"
)

// Agent is the lifecycle state of one agent row: what an agent actor keeps in memory
// and decides on. Nullable text columns read as "" and nullable times as 0.
type Agent struct {
	UUID, Path                string
	Status                    Status
	Managed                   bool
	Provider                  string
	Model                     string // the model the agent was started with ("" = the provider's default)
	GCMode                    GCMode
	Cwd                       string
	Session                   string // herdr_session: the owned herdr session's name
	TerminalID, PaneID        string
	SessionKind, SessionValue string // herdr's agent_session pointer (transcript locator)
	MoveState                 MoveState
	MoveToken                 string
	CancelRequested           bool
	InputSeq                  int64
	CreatedAt                 int64
	IdleSince                 int64
	ParkedAt                  int64
	StatusChangedAt           int64 // last_status_change_at
	StalledAt                 int64 // when the open turn was marked stalled; 0 = not stalled (docs/lifecycle.md §10.7)
	// Worktree is the agent's git worktree (State "" = none; docs/lifecycle.md §8.4).
	Worktree Worktree
	// Turn is the open (not completed) turn with the highest input_seq; Seq 0 = none.
	Turn Turn
	// BudgetPaused names the budget that paused the agent ("" = none; docs/usage.md §7.3).
	BudgetPaused string
	// Account is the login the agent's provider runs under ("" = unknown; docs/usage.md §7.3).
	Account string
}

// Turn is the part of a turn row the completion rules read.
type Turn struct {
	Seq           int64
	DeliveredAt   int64 // when the input reached the pane (0 = not yet)
	WorkingSeenAt int64 // when herdr first reported working during the turn (0 = not seen)
}

const agentStateSelect = `SELECT a.uuid, a.path, a.status, a.managed, COALESCE(a.agent, ''), COALESCE(a.model, ''), COALESCE(a.gc_mode, ''),
	COALESCE(a.cwd, ''), COALESCE(a.herdr_session, ''), COALESCE(a.terminal_id, ''), COALESCE(a.pane_id, ''),
	COALESCE(a.agent_session_kind, ''), COALESCE(a.agent_session_value, ''), a.move_state, COALESCE(a.move_token, ''),
	a.cancel_requested, a.input_seq, a.created_at, COALESCE(a.idle_since, 0), COALESCE(a.parked_at, 0),
	COALESCE(a.last_status_change_at, 0), COALESCE(a.stalled_at, 0),
	COALESCE(t.input_seq, 0), COALESCE(t.delivered_at, 0), COALESCE(t.working_seen_at, 0),
	COALESCE(a.worktree_state, ''), COALESCE(a.worktree_path, ''), COALESCE(a.worktree_branch, ''),
	COALESCE(a.worktree_repo, ''), COALESCE(a.worktree_base, ''), a.worktree_keep, COALESCE(a.budget_paused, ''), a.account
	FROM agents a LEFT JOIN turns t ON t.agent_uuid = a.uuid AND t.input_seq =
		(SELECT max(o.input_seq) FROM turns o WHERE o.agent_uuid = a.uuid AND o.completed_at IS NULL)
	WHERE a.uuid = ?`

// LoadAgent reads the lifecycle state of uuid through q (the read pool or a write
// [Tx]) in one statement. No row wraps [ErrNotFound].
func LoadAgent(ctx context.Context, q Querier, uuid string) (Agent, error) {
	var a Agent
	err := q.QueryRowContext(ctx, agentStateSelect, uuid).Scan(a.dest()...)
	return a, rowErr("agent", err)
}

// dest is what a row of agentStateSelect scans into, in column order.
func (a *Agent) dest() []any {
	return []any{&a.UUID, &a.Path, &a.Status, &a.Managed,
		&a.Provider, &a.Model, &a.GCMode, &a.Cwd, &a.Session, &a.TerminalID, &a.PaneID, &a.SessionKind, &a.SessionValue,
		&a.MoveState, &a.MoveToken, &a.CancelRequested, &a.InputSeq, &a.CreatedAt, &a.IdleSince, &a.ParkedAt,
		&a.StatusChangedAt, &a.StalledAt, &a.Turn.Seq, &a.Turn.DeliveredAt, &a.Turn.WorkingSeenAt,
		&a.Worktree.State, &a.Worktree.Path, &a.Worktree.Branch, &a.Worktree.Repo, &a.Worktree.Base, &a.Worktree.Keep, &a.BudgetPaused, &a.Account}
}

// Agent reads the lifecycle state of uuid inside the transaction.
func (t *Tx) Agent(uuid string) (Agent, error) { return LoadAgent(t.ctx, t, uuid) }

// EmitAgent emits ev for uuid with its [api.AgentHead] filled in: the uuid and the row
// after the change (every agent.* and queue.* event embeds the full row).
func (t *Tx) EmitAgent(uuid string, ev api.AgentEvent) (int64, error) {
	row, err := AgentByUUID(t.ctx, t, uuid)
	if err != nil {
		return 0, err
	}
	*ev.AgentRef() = api.AgentHead{UUID: uuid, Agent: row}
	return t.Emit(uuid, ev)
}

// casStatus moves uuid to status to when its status is one of from; set holds more
// "col = ?" assignments with their args. ErrStale when no row matched.
func (t *Tx) casStatus(uuid string, from []Status, to Status, set string, args ...any) error {
	q := `UPDATE agents SET status = ?, updated_at = ?, last_status_change_at = ?`
	all := []any{to, t.now, t.now}
	if set != "" {
		q += ", " + set
		all = append(all, args...)
	}
	q += ` WHERE uuid = ? AND status IN (` + marks(len(from)) + `)`
	all = append(all, uuid)
	for _, f := range from {
		all = append(all, f)
	}
	if err := t.execOne("update agent status", q, all...); err != nil {
		return err
	}
	return t.clearStall(uuid, StallClearedStatus)
}

// execOne runs an UPDATE that must change exactly one row; ErrStale when none matched.
func (t *Tx) execOne(what, q string, args ...any) error {
	res, err := t.Exec(q, args...)
	if err != nil {
		return sqliteErr(what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return sqliteErr(what, err)
	}
	if n == 0 {
		return ErrStale
	}
	return nil
}

func (t *Tx) exec(what, q string, args ...any) error {
	_, err := t.Exec(q, args...)
	return sqliteErr(what, err)
}

// marks returns n comma-separated placeholders.
func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// NewAgent is a managed agent row to enqueue (agent.run).
type NewAgent struct {
	UUID, Path, ParentID      string
	Provider, Model, Effort   string
	GCMode                    GCMode
	Cwd, Session, LaunchToken string
	DeadlineAt                int64 // 0 = none
	// Worktree, when its Branch is set, is the planned worktree (state pending).
	Worktree Worktree
	// Budget is agent run --budget (zero = none: the parent's run budget, if any, is
	// inherited; docs/usage.md §7.2).
	Budget api.BudgetLimit
	// Account is the login the agent's provider runs under in its pane's environment
	// (docs/usage.md §7.3): the account whose quota windows and pauses hold it.
	Account string
}

// Enqueue inserts a queued managed row at the tail of the admission queue and emits
// agent.created. A non-ended row on the same path is a *[PathInUseError].
func (t *Tx) Enqueue(n NewAgent) (AgentRow, error) {
	var occ string
	err := t.QueryRow(`SELECT uuid FROM agents WHERE path = ? AND status != 'ended'`, n.Path).Scan(&occ)
	switch {
	case err == nil:
		e := &PathInUseError{Path: n.Path}
		if row, rerr := AgentByUUID(t.ctx, t, occ); rerr == nil {
			e.Occupant = &row
		}
		return AgentRow{}, e
	case !errors.Is(err, sql.ErrNoRows):
		return AgentRow{}, sqliteErr("read path occupant", err)
	}
	var wtState any
	if wt := n.Worktree; wt.Branch != "" {
		if err := t.checkWorktreeFree(wt); err != nil {
			return AgentRow{}, err
		}
		wtState = WorktreePending
	}
	_, err = t.Exec(`INSERT INTO agents (uuid, path, managed, origin, parent_id, agent, model, effort, gc_mode,
		cwd, herdr_session, launch_token, status, queue_seq, enqueued_at, deadline_at, last_status_change_at,
		created_at, updated_at, worktree_state, worktree_path, worktree_branch, worktree_repo, worktree_base, worktree_keep, account)
		VALUES (?, ?, 1, 'run', ?, ?, ?, ?, ?, ?, ?, ?, 'queued',
		(SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM agents), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		n.UUID, n.Path, null(n.ParentID), n.Provider, n.Model, n.Effort, n.GCMode, null(n.Cwd),
		n.Session, n.LaunchToken, t.now, nullInt(n.DeadlineAt), t.now, t.now, t.now,
		wtState, null(n.Worktree.Path), null(n.Worktree.Branch), null(n.Worktree.Repo), null(n.Worktree.Base), n.Worktree.Keep, n.Account)
	if isUniqueViolation(err) {
		return AgentRow{}, &PathInUseError{Path: n.Path}
	}
	if err != nil {
		return AgentRow{}, sqliteErr("insert agent", err)
	}
	if err := t.enqueueRunBudget(n); err != nil {
		return AgentRow{}, err
	}
	row, err := AgentByUUID(t.ctx, t, n.UUID)
	if err != nil {
		return AgentRow{}, err
	}
	_, err = t.Emit(n.UUID, &api.AgentCreated{AgentHead: api.AgentHead{UUID: n.UUID, Agent: row}, Path: n.Path, Status: StatusQueued})
	return row, err
}

// EndAgent ends uuid from one of from with reason, emitting agent.status_changed(ended)
// then agent.ended. The compare-and-set makes a second end a no-op (ErrStale).
func (t *Tx) EndAgent(uuid string, from []Status, reason ExitReason) error {
	return t.EndAgentWith(uuid, from, reason, End{})
}

// End is what an end records besides its exit_reason (docs/lifecycle.md §4.1): Detail,
// why in words; Screen, the last screen orcr read of the pane, with ScreenAt, when it
// was read. Empty fields leave what the row holds.
type End struct {
	Detail   string
	Screen   string
	ScreenAt int64
}

// endSet is the SET clause, and its arguments, that record end's detail and screen;
// empty fields leave what the row holds.
func endSet(end End) (string, []any) {
	var screen, screenAt any
	if strings.TrimSpace(end.Screen) != "" {
		screen, screenAt = end.Screen, nullInt(end.ScreenAt)
	}
	return "exit_detail = COALESCE(?, exit_detail), last_screen = COALESCE(?, last_screen), " +
		"last_screen_at = COALESCE(?, last_screen_at)", []any{null(end.Detail), screen, screenAt}
}

// EndAgentWith is [Tx.EndAgent] that also records end.
func (t *Tx) EndAgentWith(uuid string, from []Status, reason ExitReason, end End) error {
	set, args := endSet(end)
	// A planned worktree never made (the row ended queued) is marked unused, a made one
	// with keep_worktree kept; any other made one stays ready until the agent actor
	// removes it (docs/lifecycle.md §8.4).
	if err := t.casStatus(uuid, from, StatusEnded, "exit_reason = ?, ended_at = ?, move_state = 'none', move_token = NULL, "+
		set+", worktree_state = CASE WHEN worktree_state = 'pending' THEN 'unused' "+
		"WHEN worktree_state = 'ready' AND worktree_keep = 1 THEN 'kept' ELSE worktree_state END",
		append([]any{reason, t.now}, args...)...); err != nil {
		return err
	}
	if _, err := t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusEnded, ExitReason: api.Present(exitText(reason))}); err != nil {
		return err
	}
	if _, err := t.EmitAgent(uuid, &api.AgentEnded{ExitReason: exitText(reason)}); err != nil {
		return err
	}
	// Text still waiting in the stream's inbox can never be delivered now.
	return t.InboxDrop(uuid)
}

// CancelStarting sets the cancel interlock of a starting row and ends it canceled in
// one step: the spawn pipeline sees the interlock at its next checkpoint and closes any
// pane it made. ErrStale when the row is not starting.
func (t *Tx) CancelStarting(uuid string, reason ExitReason) error {
	if err := t.exec("set cancel interlock", `UPDATE agents SET cancel_requested = 1 WHERE uuid = ? AND status = 'starting'`, uuid); err != nil {
		return err
	}
	return t.EndAgent(uuid, []Status{StatusStarting}, reason)
}

// CheckStarting returns ErrStale unless uuid is starting without the cancel interlock:
// the spawn pipeline's proof, inside the transaction of its next side effect, that the
// spawn may go on.
func (t *Tx) CheckStarting(uuid string) error {
	var n int
	if err := t.QueryRow(`SELECT count(*) FROM agents WHERE uuid = ? AND status = 'starting' AND cancel_requested = 0`,
		uuid).Scan(&n); err != nil {
		return sqliteErr("read agent", err)
	}
	if n == 0 {
		return ErrStale
	}
	return nil
}

// RecordLocation records the pane a spawn made, if the row is still starting and not
// canceled (ErrStale otherwise), and emits agent.location_changed.
func (t *Tx) RecordLocation(uuid, session, terminal, pane string) error {
	if err := t.execOne("record location", `UPDATE agents SET herdr_session = ?, terminal_id = ?, pane_id = ?, updated_at = ?
		WHERE uuid = ? AND status = 'starting' AND cancel_requested = 0`, session, terminal, pane, t.now, uuid); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentLocationChanged{PaneID: pane, TerminalID: terminal})
	return err
}

// RecordAgentSession stores herdr's transcript pointer unless one is already stored.
func (t *Tx) RecordAgentSession(uuid, kind, value string) error {
	return t.exec("record agent session", `UPDATE agents SET agent_session_kind = ?, agent_session_value = ?, updated_at = ?
		WHERE uuid = ? AND agent_session_value IS NULL`, kind, value, t.now, uuid)
}

// SettleIdle moves a starting row with no first prompt to idle (its idle streak and
// park clock start now).
func (t *Tx) SettleIdle(uuid string) error {
	if err := t.casStatus(uuid, []Status{StatusStarting}, StatusIdle, "idle_since = ?", t.now); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusIdle})
	return err
}

// OpenTurn opens the next orcr turn of uuid before its input is typed: status working
// (from one of from), input_seq+1, a turn row, agent.status_changed. It returns the new
// input_seq and the status the row had. An ended or lost row is a *[GoneError].
func (t *Tx) OpenTurn(uuid string, from []Status) (seq int64, was Status, err error) {
	a, err := t.Agent(uuid)
	if err != nil {
		return 0, "", err
	}
	if a.Status.Gone() {
		return 0, a.Status, &GoneError{UUID: uuid, Path: a.Path, Status: a.Status}
	}
	seq = a.InputSeq + 1
	if err := t.casStatus(uuid, from, StatusWorking, "input_seq = ?, blocked_kind = NULL, idle_since = NULL", seq); err != nil {
		return 0, a.Status, err
	}
	if err := t.exec("insert turn", `INSERT INTO turns (agent_uuid, input_seq, source, delivered_at) VALUES (?, ?, 'orcr', ?)`,
		uuid, seq, t.now); err != nil {
		return 0, a.Status, err
	}
	_, err = t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusWorking, InputSeq: &seq})
	return seq, a.Status, err
}

// AbandonTurn undoes OpenTurn for turn seq when its delivery failed short of the pane
// (docs/lifecycle.md §9.1): the turn row goes, input_seq steps back and the row returns
// to the status the turn opened from (an idle row restarts its park clock), announced
// with agent.status_changed. ErrStale when the row has moved on since.
func (t *Tx) AbandonTurn(uuid string, seq int64, was Status) error {
	a, err := t.Agent(uuid)
	if err != nil {
		return err
	}
	if a.Status != StatusWorking || a.InputSeq != seq || a.Turn.Seq != seq {
		return ErrStale
	}
	set, args := "input_seq = ?, idle_since = NULL", []any{seq - 1}
	if was == StatusIdle {
		set, args = "input_seq = ?, idle_since = ?", []any{seq - 1, t.now}
	}
	if err := t.casStatus(uuid, []Status{StatusWorking}, was, set, args...); err != nil {
		return err
	}
	if err := t.exec("drop turn", `DELETE FROM turns WHERE agent_uuid = ? AND input_seq = ?`, uuid, seq); err != nil {
		return err
	}
	_, err = t.EmitAgent(uuid, &api.AgentStatusChanged{Status: was, InputSeq: new(seq - 1)})
	return err
}

// MarkDelivered stamps the turn's delivered_at with at (unix ms), the moment its Enter
// was sent, or with the transaction time when at is 0 (a recovery that does not know
// it): the turn counts as delivered when Enter reached the pane, so the fast-turn grace
// window starts when the provider actually has the input, and what the provider wrote
// in answer comes after it (docs/lifecycle.md §9.1).
func (t *Tx) MarkDelivered(uuid string, seq, at int64) error {
	if at == 0 {
		at = t.now
	}
	return t.exec("mark delivered", `UPDATE turns SET delivered_at = ? WHERE agent_uuid = ? AND input_seq = ?`, at, uuid, seq)
}

// SeeWorking applies herdr reporting the pane working: an open turn records
// working_seen_at (first time only), the idle streak ends and the status becomes
// working; with no open turn, input arrived from outside orcr and an external turn
// opens. Rows that are not running a provider are left alone.
func (t *Tx) SeeWorking(uuid string) error {
	a, err := t.Agent(uuid)
	if err != nil {
		return err
	}
	if !PaneStatuses.Has(a.Status) {
		return nil
	}
	if a.Turn.Seq == 0 {
		seq := a.InputSeq + 1
		if err := t.exec("insert turn", `INSERT INTO turns (agent_uuid, input_seq, source, delivered_at, working_seen_at)
			VALUES (?, ?, 'external', ?, ?)`, uuid, seq, t.now, t.now); err != nil {
			return err
		}
		if err := t.casStatus(uuid, []Status{a.Status}, StatusWorking, "input_seq = ?, idle_since = NULL, blocked_kind = NULL", seq); err != nil {
			return err
		}
		if err := t.LogExternalTurn(uuid, seq); err != nil {
			return err
		}
		_, err := t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusWorking, InputSeq: &seq})
		return err
	}
	if a.Turn.WorkingSeenAt == 0 {
		if err := t.exec("mark working seen", `UPDATE turns SET working_seen_at = ? WHERE agent_uuid = ? AND input_seq = ?`,
			t.now, uuid, a.Turn.Seq); err != nil {
			return err
		}
	}
	if a.Status == StatusWorking {
		if a.IdleSince == 0 {
			return nil
		}
		return t.exec("clear idle streak", `UPDATE agents SET idle_since = NULL WHERE uuid = ?`, uuid)
	}
	if err := t.casStatus(uuid, []Status{a.Status}, StatusWorking, "idle_since = NULL, blocked_kind = NULL"); err != nil {
		return err
	}
	_, err = t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusWorking})
	return err
}

// StartIdle records the start of an idle streak at at, unless one is running.
func (t *Tx) StartIdle(uuid string, at int64) error {
	return t.exec("start idle streak", `UPDATE agents SET idle_since = ? WHERE uuid = ? AND idle_since IS NULL`, at, uuid)
}

// RecordWorkSeen records evidence that the agent worked on turn seq at at (its
// transcript was written then) as the turn's working_seen_at, when none is recorded.
// The idle streak and the status are left as they are.
func (t *Tx) RecordWorkSeen(uuid string, seq, at int64) error {
	return t.exec("record work seen", `UPDATE turns SET working_seen_at = ? WHERE agent_uuid = ? AND input_seq = ?
		AND working_seen_at IS NULL`, at, uuid, seq)
}

// RestartIdle starts the idle streak again at at, replacing one that runs: herdr saw
// the agent go idle anew (an idle edge, docs/lifecycle.md §10.2).
func (t *Tx) RestartIdle(uuid string, at int64) error {
	return t.exec("restart idle streak", `UPDATE agents SET idle_since = ? WHERE uuid = ?`, at, uuid)
}

// MarkBlocked moves a working, idle or parked row to blocked with kind, recording the
// kind on the open turn (turnSeq, 0 = none). A row in another status is left alone.
func (t *Tx) MarkBlocked(uuid, kind string, turnSeq int64) error {
	err := t.casStatus(uuid, BlockableStatuses, StatusBlocked, "blocked_kind = ?, idle_since = NULL", kind)
	if errors.Is(err, ErrStale) {
		return nil
	}
	if err != nil {
		return err
	}
	if turnSeq > 0 {
		if err := t.exec("mark turn blocked", `UPDATE turns SET blocked_kind = ? WHERE agent_uuid = ? AND input_seq = ?`,
			kind, uuid, turnSeq); err != nil {
			return err
		}
	}
	_, err = t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusBlocked, BlockedKind: kind})
	return err
}

// TurnUsage is the tokens a turn used by kind (docs/providers.md §6.8), the model that
// answered and the cost at the price table's price (docs/usage.md).
type TurnUsage struct {
	Input, Output, CacheRead, CacheWrite, Reasoning int64
	// Model is the transcript's model, else the agent's ("" = none known).
	Model string
	// CostMicros is the cost in millionths of a US dollar; nil when the model has no
	// price.
	CostMicros *int64
	// Quota is the quota windows the transcript last reported (docs/usage.md §7): the
	// quota_windows rows of the agent's provider and account (agents.account) are
	// replaced by them.
	Quota []QuotaWindow
}

// TurnCompletion is what [Tx.CompleteTurn] records.
type TurnCompletion struct {
	UUID string
	Seq  int64
	// Cursor is the transcript's position at completion ("" = unknown); Locator the
	// transcript file ("" = not located).
	Cursor, Locator string
	// IdleFrom, when set, moves the status to idle if it is still IdleFrom (the turn
	// rules decide whether completion flips the status; a gc-immediate agent ends
	// instead, and a blocked turn whose working was never seen stays blocked).
	IdleFrom Status
	// Response is the turn's final response when it was read ("" = none): the
	// session log's assistant/message.
	Response string
	// Usage is the tokens the turn used as the transcript reported them, nil when it
	// reported none (docs/providers.md §6.8).
	Usage *TurnUsage
}

// CompleteTurn completes the open turn c.Seq once (ErrStale when it already is):
// agent.turn_completed, then the status back to idle (when c.IdleFrom is set and the row
// is still in it at that input_seq) and agent.response_captured when the transcript was
// located.
func (t *Tx) CompleteTurn(c TurnCompletion) error {
	if err := t.execOne("complete turn", `UPDATE turns SET completed_at = ?, transcript_cursor = ? WHERE agent_uuid = ?
		AND input_seq = ? AND completed_at IS NULL`, t.now, null(c.Cursor), c.UUID, c.Seq); err != nil {
		return err
	}
	if err := t.clearStall(c.UUID, StallClearedStatus); err != nil {
		return err
	}
	var latest int64
	var path, provider, model, account string
	if err := t.QueryRow(`SELECT input_seq, path, COALESCE(agent, ''), COALESCE(model, ''), account FROM agents WHERE uuid = ?`,
		c.UUID).Scan(&latest, &path, &provider, &model, &account); err != nil {
		return sqliteErr("read agent", err)
	}
	if u := c.Usage; u != nil {
		if u.Model == "" {
			u.Model = model
		}
		loop, err := t.recordUsage(c.UUID, c.Seq, path, provider, u)
		if err != nil {
			return err
		}
		// The windows first: a quota percent budget reads the turn's own report.
		if err := t.recordQuota(c.UUID, provider, account, u.Quota); err != nil {
			return err
		}
		if err := t.checkBudgets(c.UUID, c.Seq, path, provider, loop); err != nil {
			return err
		}
	}
	if _, err := t.EmitAgent(c.UUID, &api.AgentTurnCompleted{InputSeq: c.Seq}); err != nil {
		return err
	}
	if err := t.logTurnDone(c.UUID, c.Seq, latest, c.Response, c.Usage); err != nil {
		return err
	}
	if c.IdleFrom != "" {
		err := t.execOne("settle idle", `UPDATE agents SET status = 'idle', blocked_kind = NULL, updated_at = ?, last_status_change_at = ?
			WHERE uuid = ? AND input_seq = ? AND status = ?`, t.now, t.now, c.UUID, c.Seq, c.IdleFrom)
		switch {
		case err == nil:
			if _, err := t.EmitAgent(c.UUID, &api.AgentStatusChanged{Status: StatusIdle}); err != nil {
				return err
			}
		case !errors.Is(err, ErrStale):
			return err
		}
	}
	if c.Locator == "" {
		return nil
	}
	if err := t.exec("record transcript", `UPDATE agents SET transcript_locator = ?, transcript_cursor = ?, updated_at = ?
		WHERE uuid = ?`, c.Locator, null(c.Cursor), t.now, c.UUID); err != nil {
		return err
	}
	_, err := t.EmitAgent(c.UUID, &api.AgentResponseCaptured{TranscriptLocator: c.Locator})
	return err
}

// MoveStart is a pane move's first phase ([Tx.BeginMove]).
type MoveStart struct {
	UUID  string
	State MoveState // MoveParking or MoveUnparking
	Token string
	From  Status
	// IdleBefore, when not 0, is the GC park condition: gc mode auto, an idle streak
	// that began at or before it, and no stored attach lease (docs/lifecycle.md §12.2).
	IdleBefore int64
}

// BeginMove takes the move lease (move_state, move_token) when the row is in m.From
// with no move in flight; ErrStale otherwise.
func (t *Tx) BeginMove(m MoveStart) error {
	q := `UPDATE agents SET move_state = ?, move_token = ?, updated_at = ?
		WHERE uuid = ? AND status = ? AND move_state = 'none'`
	args := []any{m.State, m.Token, t.now, m.UUID, m.From}
	if m.IdleBefore != 0 {
		q += ` AND gc_mode = 'auto' AND idle_since IS NOT NULL AND idle_since <= ?
			AND NOT EXISTS (SELECT 1 FROM attaches l WHERE l.agent_uuid = agents.uuid)`
		args = append(args, m.IdleBefore)
	}
	return t.execOne("begin move", q, args...)
}

// FinishMove applies a move herdr reported done, by token: status to, the new
// location, the lease cleared and the clocks of the new status (parked: parked_at now;
// idle: a fresh idle streak); then agent.location_changed and agent.status_changed.
// ErrStale when the token no longer matches.
func (t *Tx) FinishMove(uuid string, state MoveState, token string, to Status, terminal, pane string) error {
	clocks := "parked_at = ?, idle_since = NULL"
	if to == StatusIdle {
		clocks = "parked_at = NULL, idle_since = ?"
	}
	if err := t.execOne("finish move", `UPDATE agents SET status = ?, move_state = 'none', move_token = NULL,
		terminal_id = ?, pane_id = ?, updated_at = ?, last_status_change_at = ?, `+clocks+`
		WHERE uuid = ? AND move_state = ? AND move_token = ?`,
		to, terminal, pane, t.now, t.now, t.now, uuid, state, token); err != nil {
		return err
	}
	if err := t.clearStall(uuid, StallClearedStatus); err != nil {
		return err
	}
	if _, err := t.EmitAgent(uuid, &api.AgentLocationChanged{PaneID: pane, TerminalID: terminal}); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentStatusChanged{Status: to})
	return err
}

// RollbackMove clears the lease token without a status change.
func (t *Tx) RollbackMove(uuid, token string) error {
	return t.exec("roll back move", `UPDATE agents SET move_state = 'none', move_token = NULL, updated_at = ?
		WHERE uuid = ? AND move_token = ?`, t.now, uuid, token)
}

// MarkLost marks a running row lost (its pane is gone). A row in another status is
// left alone.
func (t *Tx) MarkLost(uuid string) error { return t.MarkLostWith(uuid, End{}) }

// MarkLostWith is [Tx.MarkLost] that also records end: the provider's exit, when its
// pane's launcher recorded one (docs/lifecycle.md §8.2), which the row keeps when it
// ends lost.
func (t *Tx) MarkLostWith(uuid string, end End) error {
	set, args := endSet(end)
	err := t.casStatus(uuid, PaneStatuses, StatusLost, set, args...)
	if errors.Is(err, ErrStale) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusLost})
	return err
}

// Revive gives a lost row whose terminal is visible again a live status
// (docs/lifecycle.md §13.2, Q4): to is working, idle or blocked. An idle revival starts
// the park clock; the others clear it. ErrStale when the row is no longer lost.
func (t *Tx) Revive(uuid string, to Status) error {
	set, args := "idle_since = NULL", []any{}
	if to == StatusIdle {
		set, args = "idle_since = ?", []any{t.now}
	}
	if err := t.casStatus(uuid, []Status{StatusLost}, to, set, args...); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentStatusChanged{Status: to})
	return err
}

// Rearm is the restart re-arm (docs/lifecycle.md §10.5): working and blocked rows lose
// their idle streak (completion must see a fresh one), idle rows restart the park
// clock; parked rows keep parked_at. No event: clocks are not part of the stream.
func (t *Tx) Rearm() error {
	if err := t.exec("re-arm", `UPDATE agents SET idle_since = NULL WHERE managed = 1 AND status IN (`+BusyStatuses.SQL()+`)`); err != nil {
		return err
	}
	return t.exec("re-arm", `UPDATE agents SET idle_since = ? WHERE managed = 1 AND status = 'idle'`, t.now)
}

func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// Requeue puts a starting row back at its place in the admission queue: its spawn was
// cut off by a server stop before any pane was recorded, and no pane carries its label.
// ErrStale when the row is not starting, is canceled or has a pane.
func (t *Tx) Requeue(uuid string) error {
	if err := t.execOne("requeue", `UPDATE agents SET status = 'queued', starting_at = NULL, updated_at = ?, last_status_change_at = ?
		WHERE uuid = ? AND status = 'starting' AND cancel_requested = 0 AND terminal_id IS NULL`, t.now, t.now, uuid); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusQueued})
	return err
}

// exitText is an exit reason as the events carry it.
func exitText(r ExitReason) *string { return new(string(r)) }
