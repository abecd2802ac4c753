package actors

import (
	"errors"
	"fmt"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// The agent actor's work on unmanaged rows (docs/lifecycle.md §3.2): send and kill
// --force go through the herdr session the agent lives in; discovery keeps the row's
// status (actors/herdr_discovery.go).

// sess is the herdr session of the agent's pane: the owned session for managed rows, the
// user's session for unmanaged ones.
func (w *agentWork) sess() *herdr.Session {
	if !w.st.Managed && w.st.Session != "" {
		return w.env.Herdr.Session(w.st.Session)
	}
	return w.env.Herdr.Owned()
}

// liveStatuses are the statuses a kill or a finished teardown ends the row from.
func (w *agentWork) liveStatuses() []store.Status {
	if !w.st.Managed {
		return store.UnmanagedStatuses
	}
	return store.LiveStatuses
}

// sendExternal is agent.send on an unmanaged row (docs/lifecycle.md §11.1): the pane is
// looked up by terminal id in its own session (a session that does not answer is
// state_conflict), an external turn opens before typing, and the prompt is typed
// without confirmation. Discovery then follows herdr's status and ends the turn
// (docs/decisions.md D11). A delivery that fails undoes the turn.
func (w *agentWork) sendExternal(prompt string) (api.SendResult, error) {
	if w.env.Herdr == nil {
		return api.SendResult{}, wire.Conflict("no herdr binary; cannot reach agent " + w.st.Path)
	}
	ctx, cancel := w.herdrCtx()
	list, err := w.sess().AgentList(ctx)
	cancel()
	if err != nil {
		return api.SendResult{}, wire.Conflict(fmt.Sprintf("herdr session %s of agent %s is not running", w.st.Session, w.st.Path))
	}
	var pane herdr.AgentInfo
	for _, a := range list {
		if a.TerminalID == w.st.TerminalID {
			pane = a
		}
	}
	if pane.TerminalID == "" {
		return api.SendResult{}, wire.Conflict(fmt.Sprintf("agent %s has no pane in herdr session %s", w.st.Path, w.st.Session),
			"current_status", w.st.Status)
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		seq, was, err := tx.OpenExternalTurn(w.uuid)
		if err != nil {
			return nil, err
		}
		id, _, err := tx.Intent(w.uuid, &api.AgentInputRequested{InputSeq: seq, Target: w.st.TerminalID,
			Bytes: len(prompt), Session: w.st.Session})
		return openedTurn{seq: seq, opID: id, was: was}, err
	})
	if err := w.openFailed(err); errors.Is(err, store.ErrStale) {
		return api.SendResult{}, wire.Conflict("agent "+w.st.Path+" changed state during delivery", "current_status", w.st.Status)
	} else if err != nil {
		return api.SendResult{}, err
	}
	o := v.(openedTurn)
	plan := w.plan(w.st.Provider)
	ctx, cancel = w.herdrCtx()
	typed, derr := w.sess().SubmitAt(ctx, pane.PaneID, plan.submission(prompt, plan.EnterDelay))
	cancel()
	err = w.apply(func(tx *store.Tx) error {
		if err := w.recordDelivery(tx, o, prompt, typed.Entered, derr); err != nil {
			return err
		}
		if derr != nil {
			return ignoreStale(tx.AbandonTurn(w.uuid, o.seq, o.was))
		}
		return nil
	})
	w.logErr("input applied", err)
	if derr != nil {
		return api.SendResult{}, wire.From(derr, wire.CauseHerdr)
	}
	return api.SendResult{UUID: w.uuid, Path: w.st.Path, DeliveredWhile: o.was, InputSeq: o.seq}, nil
}
