package actors

import (
	"github.com/orcr-go/orcr/store"
)

// kill shuts a live row down: the provider's shutdown line (if any) and grace, then
// pane.close, then the row ends killed (lost for a lost row). The row is re-read
// first: a kill or deadline may have changed it behind this actor (the cancel
// interlock). Ended rows are left alone.
func (w *agentWork) kill(reason store.ExitReason) (killed bool, err error) {
	if err := w.reload(); err != nil {
		return false, err
	}
	switch w.st.Status {
	case store.StatusEnded:
		// A canceled spawn may have left a pane behind a pipeline that was mid-call
		// when the cancel landed; close it if it is still there.
		if w.st.TerminalID != "" && w.env.Herdr != nil {
			ctx, cancel := w.herdrCtx()
			_, err := w.sess().PaneGet(ctx, w.st.TerminalID)
			cancel()
			if err == nil {
				w.closePane(w.st.TerminalID, "canceled")
			}
		}
		return false, nil
	case store.StatusQueued:
		err := w.apply(func(tx *store.Tx) error {
			return tx.EndAgent(w.uuid, []store.Status{store.StatusQueued}, store.ExitCanceled)
		})
		return err == nil, ignoreStale(err)
	case store.StatusStarting:
		err := w.apply(func(tx *store.Tx) error { return tx.CancelStarting(w.uuid, store.ExitCanceled) })
		if w.st.TerminalID != "" {
			w.closePane(w.st.TerminalID, "canceled")
		}
		return err == nil, ignoreStale(err)
	}
	if reason == "" {
		reason = store.ExitKilled
	}
	if w.st.Status == store.StatusLost {
		reason = store.ExitLost
	} else {
		// The row ends in the transaction that commits the pane's close: a crash between
		// the two would leave a closed pane behind a live row, which recovery can only
		// take for lost.
		ended := false
		_ = w.shutdownPaneThen(string(reason), func(tx *store.Tx) error {
			if err := tx.EndAgent(w.uuid, w.liveStatuses(), reason); err != nil {
				return err
			}
			ended = true
			return nil
		})
		if ended {
			return true, nil
		}
	}
	err = w.apply(func(tx *store.Tx) error { return tx.EndAgent(w.uuid, w.liveStatuses(), reason) })
	return err == nil, ignoreStale(err)
}

// shutdownPane is the graceful shutdown of the agent's pane (docs/lifecycle.md
// §15.2): the provider's shutdown line and grace when it has one, then pane.close — all
// under one close intent recorded before the line is typed, so a crash anywhere in the
// teardown leaves an open intent that restart recovery finishes.
func (w *agentWork) shutdownPane(reason string) {
	_ = w.shutdownPaneThen(reason, nil)
}

// shutdownPaneThen is shutdownPane that runs then in the transaction committing a
// successful close (closePaneThen); it returns the close's or the write's error.
func (w *agentWork) shutdownPaneThen(reason string, then func(tx *store.Tx) error) error {
	if w.st.TerminalID == "" || w.env.Herdr == nil {
		return nil
	}
	line, grace := w.env.providers().Shutdown(w.st.Provider)
	return w.closePaneThen(w.st.TerminalID, reason, line, grace, "", then)
}
