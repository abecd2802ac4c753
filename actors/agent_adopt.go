package actors

import (
	"fmt"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// The agent actor's part of an adoption (docs/lifecycle.md §11.8); the verb is
// actors/verb_adopt.go.

// adopt is the agent actor's part of an adoption: the row is read again and must still
// be an idle unmanaged one; its pane is shut down gracefully in the user's session under
// a close intent that names the new path; the row change commits with the close
// (store.Tx.Adopt). A crash in between is finished by restart recovery ([recoverClose]).
func (w *agentWork) adopt(path string) error {
	if err := w.reload(); err != nil {
		return err
	}
	switch {
	case w.st.Status == store.StatusEnded:
		return w.gone()
	case w.st.Managed:
		return wire.Invalid(wire.ReasonNotUnmanaged, "agent "+w.st.Path+" is managed already", "path", w.st.Path)
	case w.st.Status != store.StatusIdle:
		return wire.Conflict(fmt.Sprintf("agent %s is %s; it can be adopted when idle", w.st.Path, w.st.Status),
			"current_status", w.st.Status)
	case w.st.TerminalID == "" || w.env.Herdr == nil:
		return wire.Conflict("agent "+w.st.Path+" has no pane", "current_status", w.st.Status)
	}
	// The path is checked again before the pane goes (the row change re-checks it).
	if occ, err := store.ActiveAt(contextBG, w.env.DB.Reader(), path); err != nil {
		return err
	} else if occ != nil && occ.UUID != w.uuid {
		return &store.PathInUseError{Path: path, Occupant: occ}
	}
	line, grace := w.env.providers().Shutdown(w.st.Provider)
	adoption, err := w.adoption(path)
	if err != nil {
		return err
	}
	return w.closePaneThen(w.st.TerminalID, closeAdopted, line, grace, path,
		func(tx *store.Tx) error { return tx.Adopt(adoption) })
}

// closeAdopted is the close reason of an adoption's shutdown of the user's pane.
const closeAdopted = "adopted"

// adoption is the row change of an adoption to path, from the launch.json written there.
func (w *agentWork) adoption(path string) (store.Adoption, error) {
	l, err := ReadLaunch(AgentDataDir(w.env.Home, path, w.uuid))
	if err != nil {
		return store.Adoption{}, err
	}
	return store.Adoption{UUID: w.uuid, Path: path, Session: w.env.Herdr.Owned().Name(), Model: l.Model, Effort: l.Effort,
		GCMode: store.GCMode(l.GCMode), LaunchToken: l.LaunchToken, Approvals: l.Approvals}, nil
}
