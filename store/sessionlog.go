package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/socketapi/api"
)

// The kinds of the per-agent session log (docs/remote.md §5).
const (
	LogSessionCreated   = "session/created"
	LogStatusChanged    = "status/changed"
	LogTurnStart        = "turn/start"
	LogUserMessage      = "user/message"
	LogContextInjected  = "context/injected"
	LogToolCall         = "tool/call"
	LogToolResult       = "tool/result"
	LogAssistantMessage = "assistant/message"
	LogUsageReported    = "usage/reported"
	LogTurnEnd          = "turn/end"
	LogApprovalRequest  = "approval/requested"
	LogApprovalResolved = "approval/resolved"
	LogPolicyUpdated    = "policy/updated"
	LogModelUpdated     = "model/updated"
	LogSessionEnded     = "session/ended"
)

// Statuses of turn/end (docs/remote.md §5).
const (
	TurnCompleted = "completed"
	TurnCancelled = "cancelled"
	TurnRejected  = "rejected"
	TurnEmpty     = "empty"
	TurnFailed    = "failed"
)

// Sources of turn/start.
const (
	SourceOrcr     = "orcr"
	SourceExternal = "external"
	SourceRemote   = "remote"
)

// CancelledBeforeExecution is the text of the tool/result a cancel writes for a call that
// had none (docs/decisions.md D7).
const CancelledBeforeExecution = "cancelled before execution"

// ErrNoTurn is returned by the session-log operations that need an open log turn
// (a cancel, a verdict) when there is none.
var ErrNoTurn = errors.New("store: no open turn")

// ErrLogEnded is returned by [Tx.SetPolicy] and [Tx.SetModel] for an agent whose log
// has ended: session/ended stays its last entry (docs/remote.md §4).
var ErrLogEnded = errors.New("store: the agent's session log has ended")

// ErrStaleCall is returned by [Tx.ResolveApproval] for a call id with no standing
// approval request in the open turn.
var ErrStaleCall = errors.New("store: no standing approval request for this call")

// LogEntry is one entry of an agent's session log, in the envelope the stream sends
// as-is (docs/remote.md §5).
type LogEntry struct {
	Agent   string // the agent's uuid (the envelope's session_id)
	Seq     int64
	ID      string // UUIDv7
	At      int64  // µs since the Unix epoch
	Type    string
	Payload json.RawMessage
}

// LogTimeFormat is the envelope's "at": UTC, microseconds, Z.
const LogTimeFormat = "2006-01-02T15:04:05.000000Z"

// Frame returns the envelope JSON: {"id","session_id","seq","at","type","payload"}.
func (e LogEntry) Frame() []byte {
	b := make([]byte, 0, 128+len(e.Payload))
	b = append(b, `{"id":`...)
	b = strconv.AppendQuote(b, e.ID)
	b = append(b, `,"session_id":`...)
	b = strconv.AppendQuote(b, e.Agent)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"at":"`...)
	b = time.UnixMicro(e.At).UTC().AppendFormat(b, LogTimeFormat)
	b = append(b, `","type":`...)
	b = strconv.AppendQuote(b, e.Type)
	b = append(b, `,"payload":`...)
	if len(e.Payload) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, e.Payload...)
	}
	return append(b, '}')
}

// sessionHead is the sessions row: what appending needs without reading the log.
type sessionHead struct {
	tip         int64
	status      string
	blockedKind string
	turnStart   int64 // seq of the open turn's turn/start; -1 = no open turn
	turnInput   int64 // input_seq of the latest input of the open turn
	approvals   bool
}

func (h sessionHead) open() bool { return h.turnStart >= 0 }

// logWriter appends to one agent's log inside a transaction; save writes the head back.
type logWriter struct {
	t     *Tx
	agent string
	h     sessionHead
}

// session returns the log writer of agent, creating its log (session/created, then
// status/changed with the row's status) when it has none. No agent row wraps
// [ErrNotFound].
func (t *Tx) session(agent string) (*logWriter, error) {
	w := &logWriter{t: t, agent: agent}
	var status, kind sql.NullString
	var start, input sql.NullInt64
	err := t.QueryRow(`SELECT tip, status, blocked_kind, turn_start_seq, turn_input_seq, approvals
		FROM sessions WHERE agent_uuid = ?`, agent).Scan(&w.h.tip, &status, &kind, &start, &input, &w.h.approvals)
	switch {
	case err == nil:
		w.h.status, w.h.blockedKind, w.h.turnInput = status.String, kind.String, input.Int64
		w.h.turnStart = -1
		if start.Valid {
			w.h.turnStart = start.Int64
		}
		return w, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, sqliteErr("read session", err)
	}
	return w, w.create()
}

// create writes seq 0, session/created, and the row's current status.
func (w *logWriter) create() error {
	var path, status string
	var provider, model, effort, cwd, gc, parent, kind, exit sql.NullString
	err := w.t.QueryRow(`SELECT path, status, agent, model, effort, cwd, gc_mode, parent_id, blocked_kind, exit_reason
		FROM agents WHERE uuid = ?`, w.agent).Scan(&path, &status, &provider, &model, &effort, &cwd, &gc, &parent, &kind, &exit)
	if err != nil {
		return rowErr("agent", err)
	}
	w.h = sessionHead{tip: -1, turnStart: -1}
	p := map[string]any{"path": path, "agent": nullStr(provider), "model": nullStr(model), "effort": nullStr(effort),
		"cwd": nullStr(cwd), "gc": nullStr(gc)}
	if parent.Valid {
		p["parent_id"] = parent.String
	}
	if _, err := w.t.Exec(`INSERT INTO sessions (agent_uuid, tip, created_at) VALUES (?, -1, ?)`, w.agent, w.t.now); err != nil {
		return sqliteErr("insert session", err)
	}
	if err := w.add(LogSessionCreated, p); err != nil {
		return err
	}
	if err := w.status(status, kind.String, exit.String); err != nil {
		return err
	}
	return w.save()
}

func nullStr(s sql.NullString) any {
	if !s.Valid {
		return nil
	}
	return s.String
}

// add appends one entry at tip+1.
func (w *logWriter) add(typ string, payload any) error {
	b, err := marshalObject(payload)
	if err != nil {
		return fmt.Errorf("%w: %s payload: %v", ErrInvalidEvent, typ, err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	e := LogEntry{Agent: w.agent, Seq: w.h.tip + 1, ID: id.String(), At: time.Now().UnixMicro(), Type: typ, Payload: b}
	if _, err := w.t.Exec(`INSERT INTO session_log (agent_uuid, seq, id, at_us, type, payload_json) VALUES (?, ?, ?, ?, ?, ?)`,
		e.Agent, e.Seq, e.ID, e.At, e.Type, string(b)); err != nil {
		return sqliteErr("append session log", err)
	}
	w.h.tip = e.Seq
	w.t.logs = append(w.t.logs, e)
	return nil
}

// status logs status/changed when the public status (or the blocked kind) differs from
// the last one logged.
func (w *logWriter) status(status, kind, exit string) error {
	if status == w.h.status && kind == w.h.blockedKind {
		return nil
	}
	p := map[string]any{"status": status}
	if kind != "" {
		p["blocked_kind"] = kind
	}
	if exit != "" {
		p["exit_reason"] = exit
	}
	w.h.status, w.h.blockedKind = status, kind
	return w.add(LogStatusChanged, p)
}

func (w *logWriter) save() error {
	var start, input any
	if w.h.open() {
		start, input = w.h.turnStart, w.h.turnInput
	}
	return w.t.exec("save session", `UPDATE sessions SET tip = ?, status = ?, blocked_kind = ?, turn_start_seq = ?,
		turn_input_seq = ?, approvals = ? WHERE agent_uuid = ?`,
		w.h.tip, null(w.h.status), null(w.h.blockedKind), start, input, w.h.approvals, w.agent)
}

// openTurn logs turn/start of input_seq seq from source.
func (w *logWriter) openTurn(seq int64, source string) error {
	if err := w.add(LogTurnStart, map[string]any{"input_seq": seq, "source": source}); err != nil {
		return err
	}
	w.h.turnStart, w.h.turnInput = w.h.tip, seq
	return nil
}

// closeTurn writes what a closing turn still owes — a tool/result for every call
// without one (docs/decisions.md D7) — then turn/end, and closes the log turn.
func (w *logWriter) closeTurn(status, reason string) error {
	if !w.h.open() {
		return nil
	}
	if status != TurnCompleted {
		calls, err := w.openCalls()
		if err != nil {
			return err
		}
		for _, id := range calls {
			if err := w.add(LogToolResult, map[string]any{"input_seq": w.h.turnInput, "call_id": id, "ok": false,
				"text": CancelledBeforeExecution}); err != nil {
				return err
			}
		}
	}
	p := map[string]any{"input_seq": w.h.turnInput, "status": status}
	if reason != "" {
		p["reason"] = reason
	}
	if err := w.add(LogTurnEnd, p); err != nil {
		return err
	}
	w.h.turnStart = -1
	return nil
}

// turnEntries reads the entries of the open turn with one of types, in seq order.
func (w *logWriter) turnEntries(types ...string) ([]LogEntry, error) {
	if !w.h.open() {
		return nil, nil
	}
	args := []any{w.agent, w.h.turnStart}
	for _, t := range types {
		args = append(args, t)
	}
	rows, err := w.t.Query(`SELECT seq, id, at_us, type, payload_json FROM session_log
		WHERE agent_uuid = ? AND seq > ? AND type IN (`+marks(len(types))+`) ORDER BY seq`, args...)
	if err != nil {
		return nil, sqliteErr("read session log", err)
	}
	return scanLog(w.agent, rows)
}

// callIDs reads the call_id of each entry.
func callIDs(es []LogEntry) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		var p struct {
			CallID string `json:"call_id"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		out = append(out, p.CallID)
	}
	return out
}

// openCalls returns the call ids of the open turn's tool/call entries without a
// tool/result, in call order.
func (w *logWriter) openCalls() ([]string, error) {
	es, err := w.turnEntries(LogToolCall, LogToolResult)
	if err != nil {
		return nil, err
	}
	var order []string
	open := map[string]bool{}
	for i, id := range callIDs(es) {
		if es[i].Type == LogToolCall {
			if _, seen := open[id]; !seen {
				order = append(order, id)
			}
			open[id] = true
		} else {
			open[id] = false
		}
	}
	out := order[:0]
	for _, id := range order {
		if open[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

func scanLog(agent string, rows *sql.Rows) ([]LogEntry, error) {
	defer rows.Close()
	out := []LogEntry{}
	for rows.Next() {
		e := LogEntry{Agent: agent}
		var p string
		if err := rows.Scan(&e.Seq, &e.ID, &e.At, &e.Type, &p); err != nil {
			return nil, sqliteErr("read session log", err)
		}
		e.Payload = json.RawMessage(p)
		out = append(out, e)
	}
	return out, sqliteErr("read session log", rows.Err())
}

// logFromEvent writes the session-log entries an agent event describes, in the same
// transaction (called by [Tx.Emit]): agent.created opens the log, agent.status_changed
// logs a changed status (an end first closes an open turn), agent.ended logs
// session/ended and revokes the agent's stream tokens (docs/remote.md §2).
// An event naming no agent row logs nothing.
func (t *Tx) logFromEvent(agent string, ev api.Event) error {
	err := t.logEvent(agent, ev)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

func (t *Tx) logEvent(agent string, ev api.Event) error {
	switch ev := ev.(type) {
	case *api.AgentCreated:
		_, err := t.session(agent)
		return err
	case *api.AgentStatusChanged:
		w, err := t.session(agent)
		if err != nil {
			return err
		}
		status, exit := string(ev.Status), deref(ev.ExitReason.Value)
		if status == string(StatusEnded) && w.h.open() {
			st := TurnFailed
			if exit == string(ExitKilled) || exit == string(ExitCanceled) {
				st = TurnCancelled
			}
			if err := w.closeTurn(st, exit); err != nil {
				return err
			}
		}
		if err := w.status(status, ev.BlockedKind, exit); err != nil {
			return err
		}
		return w.save()
	case *api.AgentEnded:
		// A token handed out for the agent opens nothing once it ended; connections
		// already open close themselves after session/ended (actors/remote_stream.go).
		if _, err := t.RevokeTokens(agent); err != nil {
			return err
		}
		w, err := t.session(agent)
		if err != nil {
			return err
		}
		if err := w.add(LogSessionEnded, map[string]any{"exit_reason": deref(ev.ExitReason)}); err != nil {
			return err
		}
		return w.save()
	}
	return nil
}

// deref is a nullable string of a payload; null is "".
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// LogInput logs input delivered to agent as orcr turn seq from source: with no open log
// turn, turn/start and user/message (the text that starts a turn); inside an open turn
// (the agent was working, or a turn a crash left open), context/injected — the input
// rides that turn (docs/decisions.md D7).
func (t *Tx) LogInput(agent string, seq int64, source, text string) error {
	w, err := t.session(agent)
	if err != nil {
		return err
	}
	if w.h.open() {
		w.h.turnInput = max(w.h.turnInput, seq)
		if err := w.add(LogContextInjected, map[string]any{"input_seq": seq, "text": text}); err != nil {
			return err
		}
		return w.save()
	}
	if err := w.openTurn(seq, source); err != nil {
		return err
	}
	if err := w.add(LogUserMessage, map[string]any{"input_seq": seq, "text": text}); err != nil {
		return err
	}
	return w.save()
}

// LogExternalTurn logs turn/start (source external) for orcr turn seq when input arrived
// from outside orcr and no log turn is open.
func (t *Tx) LogExternalTurn(agent string, seq int64) error {
	w, err := t.session(agent)
	if err != nil || w.h.open() {
		return err
	}
	if err := w.openTurn(seq, SourceExternal); err != nil {
		return err
	}
	return w.save()
}

// logTurnDone closes the open log turn when orcr turn seq completes and is the latest
// input of that turn (docs/decisions.md D7): assistant/message with the final response
// when there is one, then turn/end completed.
func (t *Tx) logTurnDone(agent string, seq, latest int64, response string, u *TurnUsage) error {
	w, err := t.session(agent)
	if err != nil || !w.h.open() || seq < latest || seq < w.h.turnInput {
		return err
	}
	if response != "" {
		if err := w.add(LogAssistantMessage, map[string]any{"input_seq": seq, "text": response}); err != nil {
			return err
		}
	}
	if u != nil {
		p := usageFields(u)
		p["input_seq"] = seq
		if err := w.add(LogUsageReported, p); err != nil {
			return err
		}
	}
	w.h.turnInput = seq
	if err := w.closeTurn(TurnCompleted, ""); err != nil {
		return err
	}
	return w.save()
}

// ToolLog is a tool call or result read from a transcript (docs/remote.md §5).
type ToolLog struct {
	Result bool // false: tool/call; true: tool/result
	CallID string
	Name   string          // calls
	Args   json.RawMessage // calls; nil logs null
	OK     bool            // results
	Text   string          // results
}

// LogTools appends the transcript's tool calls and results that the open log turn does
// not hold yet (matched by call id and kind), in the order given; it returns how many it
// appended. Nothing is logged with no open turn.
func (t *Tx) LogTools(agent string, tools []ToolLog) (int, error) {
	w, err := t.session(agent)
	if err != nil || !w.h.open() || len(tools) == 0 {
		return 0, err
	}
	es, err := w.turnEntries(LogToolCall, LogToolResult)
	if err != nil {
		return 0, err
	}
	have := map[[2]string]bool{}
	for i, id := range callIDs(es) {
		have[[2]string{es[i].Type, id}] = true
	}
	n := 0
	for _, tl := range tools {
		typ := LogToolCall
		if tl.Result {
			typ = LogToolResult
		}
		if tl.CallID == "" || have[[2]string{typ, tl.CallID}] {
			continue
		}
		have[[2]string{typ, tl.CallID}] = true
		p := map[string]any{"input_seq": w.h.turnInput, "call_id": tl.CallID}
		if tl.Result {
			p["ok"] = tl.OK
			if tl.Text != "" {
				p["text"] = tl.Text
			}
		} else {
			args := tl.Args
			if len(args) == 0 || !json.Valid(args) {
				args = json.RawMessage("null")
			}
			p["name"], p["args"] = tl.Name, args
		}
		if err := w.add(typ, p); err != nil {
			return n, err
		}
		n++
	}
	if n == 0 {
		return 0, nil
	}
	return n, w.save()
}

// CancelTurn closes the open log turn of agent as cancelled with reason: every
// standing approval request is denied first, then every call without a result gets one
// ("cancelled before execution"), then turn/end cancelled (docs/remote.md §6, cancel;
// docs/decisions.md D7). [ErrNoTurn] when no turn is open. It returns the call ids it
// denied.
func (t *Tx) CancelTurn(agent, reason string) ([]string, error) {
	w, err := t.session(agent)
	if err != nil {
		return nil, err
	}
	if !w.h.open() {
		return nil, ErrNoTurn
	}
	standing, err := w.standing()
	if err != nil {
		return nil, err
	}
	for _, c := range standing {
		p := map[string]any{"call_id": c.CallID, "verdict": VerdictDenied}
		if reason != "" {
			p["reason"] = reason
		}
		if err := w.add(LogApprovalResolved, p); err != nil {
			return nil, err
		}
	}
	if err := w.closeTurn(TurnCancelled, reason); err != nil {
		return nil, err
	}
	ids := make([]string, len(standing))
	for i, c := range standing {
		ids[i] = c.CallID
	}
	return ids, w.save()
}

// Verdicts of approval/resolved.
const (
	VerdictApproved = "approved"
	VerdictDenied   = "denied"
)

// Approval is a standing approval request.
type Approval struct {
	CallID string
	Name   string
	Args   json.RawMessage
	Seq    int64 // seq of its approval/requested
}

// standing returns the open turn's approval requests that have no verdict yet.
func (w *logWriter) standing() ([]Approval, error) {
	es, err := w.turnEntries(LogApprovalRequest, LogApprovalResolved)
	if err != nil {
		return nil, err
	}
	var out []Approval
	for _, e := range es {
		var p struct {
			CallID string          `json:"call_id"`
			Name   string          `json:"name"`
			Args   json.RawMessage `json:"args"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		if e.Type == LogApprovalRequest {
			out = append(out, Approval{CallID: p.CallID, Name: p.Name, Args: p.Args, Seq: e.Seq})
			continue
		}
		for i := range out {
			if out[i].CallID == p.CallID {
				out = append(out[:i], out[i+1:]...)
				break
			}
		}
	}
	return out, nil
}

// RequestApproval logs approval/requested for a call of the open turn unless that call
// already asked in this turn (a request is never made twice); it reports whether it
// appended. [ErrNoTurn] when no turn is open.
func (t *Tx) RequestApproval(agent string, a Approval) (bool, error) {
	w, err := t.session(agent)
	if err != nil {
		return false, err
	}
	if !w.h.open() {
		return false, ErrNoTurn
	}
	es, err := w.turnEntries(LogApprovalRequest)
	if err != nil {
		return false, err
	}
	for _, id := range callIDs(es) {
		if id == a.CallID {
			return false, nil
		}
	}
	args := a.Args
	if len(args) == 0 || !json.Valid(args) {
		args = json.RawMessage("null")
	}
	if err := w.add(LogApprovalRequest, map[string]any{"call_id": a.CallID, "name": a.Name, "args": args}); err != nil {
		return false, err
	}
	return true, w.save()
}

// ResolveApproval logs the verdict (VerdictApproved or VerdictDenied) for a standing
// request of the open turn; [ErrStaleCall] (nothing appended) for any other call id.
func (t *Tx) ResolveApproval(agent, callID, verdict, reason string) (Approval, error) {
	w, err := t.session(agent)
	if err != nil {
		return Approval{}, err
	}
	standing, err := w.standing()
	if err != nil {
		return Approval{}, err
	}
	for _, a := range standing {
		if a.CallID != callID {
			continue
		}
		p := map[string]any{"call_id": callID, "verdict": verdict}
		if reason != "" {
			p["reason"] = reason
		}
		if err := w.add(LogApprovalResolved, p); err != nil {
			return Approval{}, err
		}
		return a, w.save()
	}
	return Approval{}, ErrStaleCall
}

// Verdict is a recorded verdict of the open turn.
type Verdict struct {
	CallID, Verdict, Reason string
}

// TurnVerdicts reads the verdicts recorded in agent's open log turn, oldest first
// (a restart applies the ones the pane has not seen, docs/remote.md §7).
func TurnVerdicts(ctx context.Context, q Querier, agent string) ([]Verdict, error) {
	var start sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT turn_start_seq FROM sessions WHERE agent_uuid = ?`, agent).Scan(&start)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !start.Valid) {
		return nil, nil
	}
	if err != nil {
		return nil, sqliteErr("read session", err)
	}
	rows, err := q.QueryContext(ctx, `SELECT seq, id, at_us, type, payload_json FROM session_log
		WHERE agent_uuid = ? AND seq > ? AND type = ? ORDER BY seq`, agent, start.Int64, LogApprovalResolved)
	if err != nil {
		return nil, sqliteErr("read session log", err)
	}
	es, err := scanLog(agent, rows)
	if err != nil {
		return nil, err
	}
	out := make([]Verdict, 0, len(es))
	for _, e := range es {
		var v Verdict
		var p struct {
			CallID  string `json:"call_id"`
			Verdict string `json:"verdict"`
			Reason  string `json:"reason"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		v.CallID, v.Verdict, v.Reason = p.CallID, p.Verdict, p.Reason
		out = append(out, v)
	}
	return out, nil
}

// SetPolicy logs policy/updated with patterns (docs/remote.md §6, set_policy).
func (t *Tx) SetPolicy(agent string, patterns []string) error {
	w, err := t.session(agent)
	if err != nil {
		return err
	}
	if w.h.status == string(StatusEnded) {
		return ErrLogEnded
	}
	if patterns == nil {
		patterns = []string{}
	}
	if err := w.add(LogPolicyUpdated, map[string]any{"patterns": patterns}); err != nil {
		return err
	}
	return w.save()
}

// SetModel logs model/updated {role, spec}; for role main the spec also becomes the
// pending model switch the pane gets before its next waking input ([Tx.TakePendingModel]).
func (t *Tx) SetModel(agent, role, spec string) error {
	w, err := t.session(agent)
	if err != nil {
		return err
	}
	if w.h.status == string(StatusEnded) {
		return ErrLogEnded
	}
	if err := w.add(LogModelUpdated, map[string]any{"role": role, "spec": spec}); err != nil {
		return err
	}
	if err := w.save(); err != nil {
		return err
	}
	if role != "main" {
		return nil
	}
	return t.exec("set pending model", `UPDATE sessions SET pending_model = ? WHERE agent_uuid = ?`, spec, agent)
}

// PendingModel reads the model switch agent's pane has not had yet ("" = none).
func PendingModel(ctx context.Context, q Querier, agent string) (string, error) {
	var m sql.NullString
	err := q.QueryRowContext(ctx, `SELECT pending_model FROM sessions WHERE agent_uuid = ?`, agent).Scan(&m)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return m.String, sqliteErr("read pending model", err)
}

// ModelSwitched records that the pane switched to model: the pending switch is cleared
// (when it is still model) and the row's model column follows.
func (t *Tx) ModelSwitched(agent, model string) error {
	if err := t.exec("clear pending model", `UPDATE sessions SET pending_model = NULL WHERE agent_uuid = ? AND pending_model = ?`,
		agent, model); err != nil {
		return err
	}
	return t.exec("record model", `UPDATE agents SET model = ?, updated_at = ? WHERE uuid = ?`, model, t.now, agent)
}

// MountApprovals records that agent's approvals row is mounted (it was started while
// remote.approvals was on).
func (t *Tx) MountApprovals(agent string) error {
	w, err := t.session(agent)
	if err != nil {
		return err
	}
	w.h.approvals = true
	return w.save()
}

// EnsureSession creates agent's log when it has none (an agent created before the log
// existed: "connecting creates the session", docs/remote.md §4) and returns its tip.
func (t *Tx) EnsureSession(agent string) (int64, error) {
	w, err := t.session(agent)
	if err != nil {
		return 0, err
	}
	return w.h.tip, nil
}

// SessionInfo is what the stream and the facade read about an agent's log.
type SessionInfo struct {
	Tip       int64 // highest seq; -1 = no log yet
	Open      bool  // a log turn is open
	TurnInput int64 // input_seq of the open turn's latest input
	Approvals bool  // approvals row mounted
}

// Session reads agent's log head; an agent with no log has Tip -1.
func Session(ctx context.Context, q Querier, agent string) (SessionInfo, error) {
	s := SessionInfo{Tip: -1}
	var start, input sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT tip, turn_start_seq, turn_input_seq, approvals FROM sessions WHERE agent_uuid = ?`,
		agent).Scan(&s.Tip, &start, &input, &s.Approvals)
	if errors.Is(err, sql.ErrNoRows) {
		return SessionInfo{Tip: -1}, nil
	}
	s.Open, s.TurnInput = start.Valid, input.Int64
	return s, sqliteErr("read session", err)
}

// LogAfter returns up to limit entries of agent's log with seq >= from, oldest first,
// from the read pool.
func (db *DB) LogAfter(ctx context.Context, agent string, from int64, limit int) ([]LogEntry, error) {
	if limit <= 0 {
		limit = DefaultEventsBatch
	}
	rows, err := db.r.QueryContext(ctx, `SELECT seq, id, at_us, type, payload_json FROM session_log
		WHERE agent_uuid = ? AND seq >= ? ORDER BY seq LIMIT ?`, agent, from, limit)
	if err != nil {
		return nil, sqliteErr("read session log", err)
	}
	return scanLog(agent, rows)
}

// Policy returns agent's active tool allow list: the patterns of the last
// policy/updated in its log (rebuilt from the log, so it survives restarts); nil when
// none was set.
func Policy(ctx context.Context, q Querier, agent string) ([]string, error) {
	var p string
	err := q.QueryRowContext(ctx, `SELECT payload_json FROM session_log WHERE agent_uuid = ? AND type = ?
		ORDER BY seq DESC LIMIT 1`, agent, LogPolicyUpdated).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, sqliteErr("read policy", err)
	}
	var v struct {
		Patterns []string `json:"patterns"`
	}
	if err := json.Unmarshal([]byte(p), &v); err != nil {
		return nil, fmt.Errorf("store: policy of %s: %w", agent, err)
	}
	if v.Patterns == nil {
		v.Patterns = []string{}
	}
	return v.Patterns, nil
}

// LastPrompt returns the text of the last input delivered to agent, as its session log
// holds it (user/message or context/injected, docs/remote.md §5); false when it holds
// none. A provider without a transcript has its answer read under the prompt's echo on
// screen (docs/providers.md §11.3).
func LastPrompt(ctx context.Context, q Querier, agent string) (string, bool, error) {
	var p string
	err := q.QueryRowContext(ctx, `SELECT payload_json FROM session_log WHERE agent_uuid = ? AND type IN (?, ?)
		ORDER BY seq DESC LIMIT 1`, agent, LogUserMessage, LogContextInjected).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, sqliteErr("read last prompt", err)
	}
	var v struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(p), &v); err != nil {
		return "", false, fmt.Errorf("store: last prompt of %s: %w", agent, err)
	}
	return v.Text, v.Text != "", nil
}
