package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api"
)

// A budget pause in the agent's session log (docs/remote.md §4, docs/usage.md §8.5):
// budget/exceeded carries the pause's id, which a stream client's approve frame names
// to lift it; budget/resumed closes it.
const (
	LogBudgetExceeded = "budget/exceeded"
	LogBudgetResumed  = "budget/resumed"
)

// BudgetPausePrefix starts a pause id: budget-<seq of its budget/exceeded entry>.
const BudgetPausePrefix = "budget-"

// logBudgetPause appends budget/exceeded to agent uuid's log when a budget paused it.
// An ended log takes nothing more.
func (t *Tx) logBudgetPause(uuid string, ev api.BudgetEvent, interrupted bool) error {
	w, err := t.session(uuid)
	if err != nil || w.h.status == string(StatusEnded) {
		return err
	}
	p := map[string]any{"pause_id": BudgetPausePrefix + strconv.FormatInt(w.h.tip+1, 10), "budget": ev.Budget,
		"scope": ev.Scope, "unit": ev.Unit, "spent": ev.Spent, "limit": ev.Limit}
	if interrupted {
		p["interrupted"] = true
	}
	if err := w.add(LogBudgetExceeded, p); err != nil {
		return err
	}
	return w.save()
}

// logBudgetResume appends budget/resumed {pause_id, budget, scope, limit} to agent uuid's
// log when an extension lifted its pause.
func (t *Tx) logBudgetResume(uuid string, budget, scope string, limit float64) error {
	id, err := BudgetPauseID(t.ctx, t, uuid)
	if err != nil {
		return err
	}
	w, err := t.session(uuid)
	if err != nil || w.h.status == string(StatusEnded) {
		return err
	}
	if err := w.add(LogBudgetResumed, map[string]any{"pause_id": id, "budget": budget, "scope": scope,
		"limit": limit}); err != nil {
		return err
	}
	return w.save()
}

// BudgetPauseID is the id of agent uuid's standing budget pause: the pause_id of its
// last budget/exceeded entry while budget_paused is set ("" = not paused).
func BudgetPauseID(ctx context.Context, q Querier, uuid string) (string, error) {
	var seq int64
	err := q.QueryRowContext(ctx, `SELECT l.seq FROM agents a JOIN session_log l ON l.agent_uuid = a.uuid
		WHERE a.uuid = ? AND a.budget_paused IS NOT NULL AND l.type = ? ORDER BY l.seq DESC LIMIT 1`,
		uuid, LogBudgetExceeded).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", sqliteErr("read budget pause", err)
	}
	return BudgetPausePrefix + strconv.FormatInt(seq, 10), nil
}

// IsBudgetPauseID reports whether a verdict's call id names a budget pause.
func IsBudgetPauseID(id string) bool { return strings.HasPrefix(id, BudgetPausePrefix) }
