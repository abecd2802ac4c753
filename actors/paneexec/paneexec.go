// Package paneexec is the launcher an agent's pane runs (docs/lifecycle.md §8.2):
// `orcr __pane-exec --status-file <file> -- <provider argv…>`. herdr removes a pane
// the moment its process exits and reports no exit status, so a provider that prints
// an error and exits at once would take its message with it. The launcher starts the
// provider as its child in a process group of its own, made the terminal's foreground
// group (herdr's process detection probes that group, so it still sees claude or
// codex), and when the child exits it records the exit status in the status file and
// holds the pane — the provider's last screen still showing — until orcr closes it or
// [HoldMax] passes. It never talks to the server, so it outlives a server restart.
package paneexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// Verb is the hidden orcr verb that runs [Main].
	Verb = "__pane-exec"
	// StatusFile is the status file's name in the agent's data dir.
	StatusFile = "pane_exit.json"
	// HoldMax bounds how long the launcher holds a pane after its child exited, for an
	// orcr that is not there to close it (stopped, restarting): the pane then goes away
	// as it did before the launcher, and the status file stays.
	HoldMax = 60 * time.Second
	// Failed is the launcher's exit code for bad arguments: nothing was started.
	Failed = 125
	// NotStarted is the child's exit code recorded when argv could not be started (no
	// such file, not executable…), as a shell says it.
	NotStarted = 127
)

// Exit is the status file's content: how the child ended — its exit Code, or the
// Signal that killed it — and when (unix ms).
type Exit struct {
	Code   *int   `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"`
	At     int64  `json:"at"`
}

// String says how the child ended: "exit status 1", "killed by SIGSEGV".
func (e Exit) String() string {
	switch {
	case e.Signal != "":
		return "killed by " + e.Signal
	case e.Code != nil:
		return "exit status " + strconv.Itoa(*e.Code)
	}
	return "exit status unknown"
}

// Argv is the pane command that runs argv through the launcher prefix (the orcr binary
// and [Verb]), recording into statusFile. An empty prefix runs argv as it is.
func Argv(prefix []string, statusFile string, argv []string) []string {
	if len(prefix) == 0 {
		return argv
	}
	out := slices.Clip(prefix)
	out = append(out, "--status-file", statusFile, "--")
	return append(out, argv...)
}

// ReadExit reads the status file at path; ok is false when there is none (the child
// has not exited, or the pane was not started through the launcher).
func ReadExit(path string) (e Exit, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Exit{}, false, nil
	}
	if err != nil {
		return Exit{}, false, err
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return Exit{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return e, true, nil
}

// writeExit writes e to path atomically (a temporary file renamed over it), so a
// reader sees a whole file or none.
func writeExit(path string, e Exit) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pane_exit-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// exitOf is the Exit of a child whose wait status is ws.
func exitOf(ws unix.WaitStatus, at time.Time) Exit {
	e := Exit{At: at.UnixMilli()}
	if ws.Signaled() {
		e.Signal = unix.SignalName(ws.Signal())
		if e.Signal == "" {
			e.Signal = "signal " + strconv.Itoa(int(ws.Signal()))
		}
		return e
	}
	code := ws.ExitStatus()
	e.Code = &code
	return e
}
