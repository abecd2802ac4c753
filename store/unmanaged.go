package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/socketapi/api"
)

// Unmanaged agents (docs/lifecycle.md §3.2, §5.2, §13.5): rows discovery keeps for the
// supported agents it finds in the user's own herdr sessions. They are keyed by
// (herdr_session, terminal_id), have origin "detected" and managed = 0, and their status
// is herdr's: working, idle, blocked or unknown, until their terminal goes (ended, no
// exit_reason).

// StatusUnknown is herdr's "cannot tell" status, used only by unmanaged rows.
const StatusUnknown = api.StatusUnknown

// UnmanagedStatuses are the statuses an active unmanaged row can have.
var UnmanagedStatuses = StatusSet{StatusWorking, StatusIdle, StatusBlocked, StatusUnknown}

// Sighting is one agent discovery saw in a user session's agent.list.
type Sighting struct {
	TerminalID, PaneID, Provider, Cwd string
	// Status is herdr's status folded to a row status (done → idle).
	Status                    Status
	SessionKind, SessionValue string // herdr's agent_session pointer, when reported
}

// UnmanagedRow is an active unmanaged row as discovery reads it.
type UnmanagedRow struct {
	Agent
	// Closing: an operation is closing its pane (an open agent.close_requested: a kill
	// --force or an adoption), which ends or adopts the row; discovery leaves it alone
	// but still counts its terminal as known.
	Closing bool
}

// UnmanagedRows reads the active unmanaged rows of herdr session session, with their
// open turns, in creation order.
func (db *DB) UnmanagedRows(ctx context.Context, session string) ([]UnmanagedRow, error) {
	q := strings.Replace(agentStateSelect, "\n\tFROM agents a",
		`, EXISTS (SELECT 1 FROM intents i WHERE i.ref_uuid = a.uuid AND i.kind = 'agent.close_requested')
	FROM agents a`, 1)
	q = strings.Replace(q, "WHERE a.uuid = ?",
		"WHERE a.managed = 0 AND a.herdr_session = ? AND a.status != 'ended' ORDER BY a.created_at, a.uuid", 1)
	rows, err := db.r.QueryContext(ctx, q, session)
	if err != nil {
		return nil, sqliteErr("read unmanaged agents", err)
	}
	defer rows.Close()
	var out []UnmanagedRow
	for rows.Next() {
		var u UnmanagedRow
		if err := rows.Scan(append(u.Agent.dest(), &u.Closing)...); err != nil {
			return nil, sqliteErr("read unmanaged agents", err)
		}
		out = append(out, u)
	}
	return out, sqliteErr("read unmanaged agents", rows.Err())
}

// queryUnmanagedSessions reads the partial index agents_unmanaged alone (its WHERE
// written word for word, docs/config.md §3.3): discovery's every pass costs nothing per
// ended row.
const queryUnmanagedSessions = `SELECT DISTINCT herdr_session FROM agents
		WHERE managed = 0 AND status != 'ended' AND herdr_session IS NOT NULL ORDER BY herdr_session`

// UnmanagedSessions lists the herdr sessions that have active unmanaged rows.
func (db *DB) UnmanagedSessions(ctx context.Context) ([]string, error) {
	rows, err := db.r.QueryContext(ctx, queryUnmanagedSessions)
	if err != nil {
		return nil, sqliteErr("read unmanaged sessions", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, sqliteErr("read unmanaged sessions", err)
		}
		out = append(out, s)
	}
	return out, sqliteErr("read unmanaged sessions", rows.Err())
}

// Slug is a path segment made from a herdr name (docs/lifecycle.md §13.5): lowercase,
// every character outside [a-z0-9_] replaced by "_", cut to 64 bytes, "x" when empty.
func Slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if b.Len() == 64 {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

// UnmanagedPath is the path of an agent discovered in session on pane paneID:
// unmanaged/<slug(session)>/<slug(pane_id)>.
func UnmanagedPath(session, paneID string) string {
	return "unmanaged/" + Slug(session) + "/" + Slug(paneID)
}

// terminalSuffix is "_" and 6 hex characters of a hash of the terminal id: what tells
// two discovered agents apart whose paths would be the same.
func terminalSuffix(terminal string) string {
	h := sha256.Sum256([]byte(terminal))
	return "_" + hex.EncodeToString(h[:3])
}

// CreateUnmanaged inserts the row of an agent discovery found in session (status
// s.Status) and emits agent.created with managed:false. Its path is
// [UnmanagedPath], with the terminal's suffix when an active row already holds that.
func (t *Tx) CreateUnmanaged(session string, s Sighting) (AgentRow, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return AgentRow{}, err
	}
	path := UnmanagedPath(session, s.PaneID)
	var occ string
	switch err := t.QueryRow(`SELECT uuid FROM agents WHERE path = ? AND status != 'ended'`, path).Scan(&occ); {
	case err == nil:
		path += terminalSuffix(s.TerminalID)
	case !errors.Is(err, sql.ErrNoRows):
		return AgentRow{}, sqliteErr("read path occupant", err)
	}
	if _, err := t.Exec(`INSERT INTO agents (uuid, path, managed, origin, agent, cwd, herdr_session, terminal_id, pane_id,
		agent_session_kind, agent_session_value, status, last_status_change_at, created_at, updated_at)
		VALUES (?, ?, 0, 'detected', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id.String(), path, s.Provider, null(s.Cwd), session, s.TerminalID, null(s.PaneID), null(s.SessionKind),
		null(s.SessionValue), s.Status, t.now, t.now, t.now); err != nil {
		if isUniqueViolation(err) {
			return AgentRow{}, &PathInUseError{Path: path}
		}
		return AgentRow{}, sqliteErr("insert unmanaged agent", err)
	}
	row, err := AgentByUUID(t.ctx, t, id.String())
	if err != nil {
		return AgentRow{}, err
	}
	_, err = t.Emit(row.UUID, &api.AgentCreated{AgentHead: api.AgentHead{UUID: row.UUID, Agent: row}, Path: path,
		Status: s.Status, Managed: new(false)})
	return row, err
}

// RefreshUnmanaged records where an unmanaged row's terminal is now and herdr's late
// agent_session pointer, without an event (docs/lifecycle.md §5.2).
func (t *Tx) RefreshUnmanaged(uuid, pane, kind, value string) error {
	return t.exec("refresh unmanaged agent", `UPDATE agents SET pane_id = ?,
		agent_session_kind = COALESCE(?, agent_session_kind), agent_session_value = COALESCE(?, agent_session_value),
		updated_at = ? WHERE uuid = ? AND managed = 0 AND status != 'ended'`, null(pane), null(kind), null(value), t.now, uuid)
}

// SetUnmanagedStatus gives an unmanaged row herdr's status to, if the row is still
// in from at input_seq seq (ErrStale otherwise: a send changed it since discovery
// read it), and emits agent.status_changed. A working status on a row with an open
// turn records that the turn was seen working.
func (t *Tx) SetUnmanagedStatus(uuid string, from, to Status, seq int64) error {
	if err := t.execOne("set unmanaged status", `UPDATE agents SET status = ?, updated_at = ?, last_status_change_at = ?
		WHERE uuid = ? AND managed = 0 AND status = ? AND input_seq = ?`, to, t.now, t.now, uuid, from, seq); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentStatusChanged{Status: to})
	return err
}

// SeeExternalWork records that herdr reported the open turn seq of an unmanaged row
// working or blocked (first time only).
func (t *Tx) SeeExternalWork(uuid string, seq int64) error {
	return t.exec("see external work", `UPDATE turns SET working_seen_at = ? WHERE agent_uuid = ? AND input_seq = ?
		AND working_seen_at IS NULL`, t.now, uuid, seq)
}

// EndUnmanaged ends an unmanaged row whose terminal is gone: status ended with no
// exit_reason, agent.status_changed and agent.ended. ErrStale when it already ended.
func (t *Tx) EndUnmanaged(uuid string) error {
	if err := t.execOne("end unmanaged agent", `UPDATE agents SET status = 'ended', exit_reason = NULL, ended_at = ?,
		updated_at = ?, last_status_change_at = ? WHERE uuid = ? AND managed = 0 AND status != 'ended'`,
		t.now, t.now, t.now, uuid); err != nil {
		return err
	}
	if _, err := t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusEnded, ExitReason: api.Present(nil)}); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentEnded{})
	return err
}

// OpenExternalTurn opens the next turn of an unmanaged row before a send types into
// its pane (docs/lifecycle.md §11.1 step 7): status working, input_seq+1, a turn row
// with source external, agent.status_changed {status, input_seq}. It returns the new
// input_seq and the status the row had. An ended row is a *[GoneError].
func (t *Tx) OpenExternalTurn(uuid string) (seq int64, was Status, err error) {
	a, err := t.Agent(uuid)
	if err != nil {
		return 0, "", err
	}
	if a.Status == StatusEnded {
		return 0, a.Status, &GoneError{UUID: uuid, Path: a.Path, Status: a.Status}
	}
	seq = a.InputSeq + 1
	if err := t.execOne("open external turn", `UPDATE agents SET status = 'working', input_seq = ?, blocked_kind = NULL,
		updated_at = ?, last_status_change_at = ? WHERE uuid = ? AND managed = 0 AND status = ? AND input_seq = ?`,
		seq, t.now, t.now, uuid, a.Status, a.InputSeq); err != nil {
		return 0, a.Status, err
	}
	// A turn still open from an earlier send is over: this one follows it.
	if a.Turn.Seq != 0 {
		if err := t.CompleteTurn(TurnCompletion{UUID: uuid, Seq: a.Turn.Seq}); err != nil && !errors.Is(err, ErrStale) {
			return 0, a.Status, err
		}
	}
	if err := t.exec("insert turn", `INSERT INTO turns (agent_uuid, input_seq, source, delivered_at) VALUES (?, ?, 'external', ?)`,
		uuid, seq, t.now); err != nil {
		return 0, a.Status, err
	}
	_, err = t.EmitAgent(uuid, &api.AgentStatusChanged{Status: StatusWorking, InputSeq: &seq})
	return seq, a.Status, err
}

// Adoption is what [Tx.Adopt] gives an unmanaged row (docs/decisions.md D12).
type Adoption struct {
	UUID, Path, Session string // Session: the owned herdr session
	Model, Effort       string
	GCMode              GCMode
	LaunchToken         string
	Approvals           bool // mount the approvals row (docs/remote.md §7)
}

// Adopt turns the idle unmanaged row a.UUID into a managed one at a.Path, queued at the
// tail of the admission queue: origin "adopted", the owned session, no pane yet (its
// spawn resumes the conversation), herdr's old conversation pointer cleared for the new
// pane's. input_seq and the turns are kept. Emits agent.status_changed {status:
// "queued", adopted_from}. ErrStale when the row is no longer an idle unmanaged one;
// *[PathInUseError] when an active row holds the path.
func (t *Tx) Adopt(a Adoption) error {
	var from string
	if err := t.QueryRow(`SELECT path FROM agents WHERE uuid = ?`, a.UUID).Scan(&from); err != nil {
		return rowErr("agent", err)
	}
	var occ string
	switch err := t.QueryRow(`SELECT uuid FROM agents WHERE path = ? AND status != 'ended' AND uuid != ?`, a.Path, a.UUID).Scan(&occ); {
	case err == nil:
		e := &PathInUseError{Path: a.Path}
		if row, rerr := AgentByUUID(t.ctx, t, occ); rerr == nil {
			e.Occupant = &row
		}
		return e
	case !errors.Is(err, sql.ErrNoRows):
		return sqliteErr("read path occupant", err)
	}
	err := t.execOne("adopt agent", `UPDATE agents SET managed = 1, origin = 'adopted', path = ?, herdr_session = ?,
		model = ?, effort = ?, gc_mode = ?, launch_token = ?, terminal_id = NULL, pane_id = NULL,
		agent_session_kind = NULL, agent_session_value = NULL, transcript_locator = NULL, transcript_cursor = NULL,
		status = 'queued', queue_seq = (SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM agents), enqueued_at = ?,
		idle_since = NULL, blocked_kind = NULL, updated_at = ?, last_status_change_at = ?
		WHERE uuid = ? AND managed = 0 AND status = 'idle'`,
		a.Path, a.Session, null(a.Model), null(a.Effort), a.GCMode, a.LaunchToken, t.now, t.now, t.now, a.UUID)
	if isUniqueViolation(err) {
		return &PathInUseError{Path: a.Path}
	}
	if err != nil {
		return err
	}
	if _, err = t.EmitAgent(a.UUID, &api.AgentStatusChanged{Status: StatusQueued, AdoptedFrom: from}); err != nil {
		return err
	}
	if a.Approvals {
		return t.MountApprovals(a.UUID)
	}
	return nil
}

// ActiveAt returns the active (not ended) row at path, or nil.
func ActiveAt(ctx context.Context, q Querier, path string) (*AgentRow, error) {
	var uuid string
	err := q.QueryRowContext(ctx, `SELECT uuid FROM agents WHERE path = ? AND status != 'ended'`, path).Scan(&uuid)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, sqliteErr("read path occupant", err)
	}
	row, err := AgentByUUID(ctx, q, uuid)
	if err != nil {
		return nil, err
	}
	return &row, nil
}
