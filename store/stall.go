package store

import "github.com/orcr-go/orcr/socketapi/api"

// The stall signal (docs/lifecycle.md §10.7): the agent actor marks a working turn
// stalled when neither its screen nor its transcript changed for the provider's
// stall_after, and clears the mark when it sees progress. Every status change, a new
// turn and a completion clear it too, inside the transaction that makes them
// ([Tx.casStatus], [Tx.CompleteTurn], [Tx.FinishMove]), so a row is never stalled in any
// status but working. orcr never acts on the mark.

// Reasons of agent.stall_cleared.
const (
	// StallClearedProgress: the agent actor saw the screen or the transcript change, or
	// herdr reported a change of the pane.
	StallClearedProgress = "progress"
	// StallClearedStatus: the row changed status, opened a new turn or completed its turn.
	StallClearedStatus = "status"
)

// MarkStalled marks the open turn seq of a working uuid stalled now, with
// agent.stalled {uuid, input_seq, stalled: true, progress_at} (progress_at: the last
// progress the agent actor knew of, unix ms). ErrStale when the row is not working at
// that input_seq or is stalled already.
func (t *Tx) MarkStalled(uuid string, seq, progressAt int64) error {
	if err := t.execOne("mark stalled", `UPDATE agents SET stalled_at = ?, updated_at = ?
		WHERE uuid = ? AND status = 'working' AND input_seq = ? AND stalled_at IS NULL`, t.now, t.now, uuid, seq); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentStalled{InputSeq: seq, Stalled: true, ProgressAt: progressAt})
	return err
}

// ClearStall clears the stall mark of uuid for reason (one of the StallCleared…
// constants) with agent.stall_cleared {uuid, stalled: false, reason}; nothing happens
// when the row is not stalled.
func (t *Tx) ClearStall(uuid, reason string) error { return t.clearStall(uuid, reason) }

func (t *Tx) clearStall(uuid, reason string) error {
	res, err := t.Exec(`UPDATE agents SET stalled_at = NULL WHERE uuid = ? AND stalled_at IS NOT NULL`, uuid)
	if err != nil {
		return sqliteErr("clear stall", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return sqliteErr("clear stall", err)
	}
	_, err = t.EmitAgent(uuid, &api.AgentStallCleared{Reason: reason})
	return err
}
