package actors

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/orcr-go/orcr/actors/paneexec"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/store"
)

// The launcher of a managed agent's pane (docs/lifecycle.md §8.2, package paneexec)
// records its provider's exit status in the agent's data dir and holds the pane, the
// provider's last screen on it, until orcr closes it. A pane held so is no longer the
// agent's: the start's readiness wait, the monitor and reconciliation count it as gone,
// once its screen has been kept.

// exitFile is where the launcher of the agent's pane records its provider's exit.
func exitFile(home, path, uuid string) string {
	return filepath.Join(AgentDataDir(home, path, uuid), paneexec.StatusFile)
}

// exitNotesDir is the directory where launchers leave a note, named by the agent's
// uuid, once they recorded their provider's exit: the monitor reads it at each poll
// rather than looking at every agent's status file (docs/lifecycle.md §8.2).
func exitNotesDir(home string) string { return filepath.Join(home, "pane-exits") }

// ExitSweepEvery is how often the monitor looks at every watched agent's status file
// all the same: for a launcher that left no note (one an older orcr started).
const ExitSweepEvery = 30 * time.Second

// exitedNow names the agents of files (uuid → status file) whose launcher recorded
// its provider's exit: with sweep (or no notes directory), by looking at every status
// file; else by the notes in notes, each removed once read (one of an agent it does
// not watch is left until it is a minute old).
func exitedNow(files map[string]string, notes string, sweep bool) []string {
	var out []string
	if sweep || notes == "" {
		for u, f := range files {
			if _, err := os.Stat(f); err == nil {
				out = append(out, u)
			}
		}
		return out
	}
	ents, err := os.ReadDir(notes)
	if err != nil {
		return nil // none yet: no launcher left a note
	}
	for _, e := range ents {
		u := e.Name()
		f, ok := files[u]
		if !ok {
			// Not watched (now): an agent whose exit was seen already, or one not yet
			// watched again after a restart, whose note must outlive a few polls.
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleNote {
				_ = os.Remove(filepath.Join(notes, u))
			}
			continue
		}
		if _, err := os.Stat(f); err == nil {
			out = append(out, u)
		}
		_ = os.Remove(filepath.Join(notes, u))
	}
	return out
}

// staleNote is the age past which a poll removes a note of an agent it does not watch.
const staleNote = time.Minute

// providerExit is the exit the launcher of this agent's pane recorded; ok is false
// while the provider runs, or for a pane orcr did not launch.
func (w *agentWork) providerExit() (e paneexec.Exit, ok bool) {
	if !w.st.Managed || len(w.env.PaneExec) == 0 {
		return e, false
	}
	e, ok, err := paneexec.ReadExit(exitFile(w.env.Home, w.st.Path, w.uuid))
	if err != nil {
		w.log().Warn("cannot read the pane launcher's status file", "err", err)
	}
	return e, ok
}

// launchArgv is the pane command of a spawn running argv: through the launcher, whose
// status file left from an earlier pane of the row is removed first.
func (w *agentWork) launchArgv(argv []string) []string {
	if len(w.env.PaneExec) == 0 {
		return argv
	}
	file := exitFile(w.env.Home, w.st.Path, w.uuid)
	if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		w.log().Warn("cannot remove an old status file of the pane launcher", "err", err)
	}
	notes := exitNotesDir(w.env.Home)
	note := filepath.Join(notes, w.uuid)
	if err := os.MkdirAll(notes, 0o700); err != nil {
		w.log().Warn("cannot make the pane launchers' notes directory; the monitor finds this exit by its sweep", "err", err)
		note = ""
	} else if err := os.Remove(note); err != nil && !errors.Is(err, os.ErrNotExist) {
		w.log().Warn("cannot remove an old exit note of the pane launcher", "err", err)
	}
	if w.st.Provider == provider.Claude { // orcr's status line (docs/usage.md §7.1)
		argv = provider.WithClaudeStatusLine(argv, w.env.PaneExec[0])
	}
	return paneexec.Argv(w.env.PaneExec, file, note, argv)
}

// markExited is the lost rule for a pane whose provider exited (held, when the pane is
// still there): the pane's last screen is read and kept, the held pane closed, and the
// row marked lost with the exit as its detail, which it keeps when it ends lost. Without
// a recorded exit it is [agentWork.markLost].
func (w *agentWork) markExited(terminal string, held bool) error {
	e, ok := w.providerExit()
	if !ok {
		return w.markLost()
	}
	if held {
		w.readScreen(terminal)
		w.closePane(terminal, "exited")
	}
	end := store.End{Detail: exitedDetail(w.st.Provider, "", e.String(), w.screenText), Screen: w.screenText, ScreenAt: w.screenAt}
	return ignoreStale(w.apply(func(tx *store.Tx) error { return tx.MarkLostWith(w.uuid, end) }))
}
