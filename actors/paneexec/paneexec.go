// Package paneexec is what the server knows of orcr's pane launcher (package launcher,
// docs/lifecycle.md §8.2): the pane command that runs a provider through it ([Argv]) and
// the status file it leaves when the provider exits ([ReadExit]). herdr removes a pane
// the moment its process exits and reports no exit status, so a provider that prints
// an error and exits at once would take its message with it; the launcher records the
// exit status and holds the pane, the provider's last screen still showing.
package paneexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/orcr-go/orcr/actors/paneexec/launcher"
)

const (
	// Verb is the hidden orcr verb of the launcher.
	Verb = launcher.Verb
	// StatusFile is the status file's name in the agent's data dir.
	StatusFile = "pane_exit.json"
	// NotStarted is the child's exit code recorded when argv could not be started.
	NotStarted = launcher.NotStarted
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
// and [Verb]), recording into statusFile and, when note is not empty, leaving the empty
// file note once it did. An empty prefix runs argv as it is.
func Argv(prefix []string, statusFile, note string, argv []string) []string {
	if len(prefix) == 0 {
		return argv
	}
	out := slices.Clip(prefix)
	out = append(out, "--status-file", statusFile)
	if note != "" {
		out = append(out, "--exit-note", note)
	}
	out = append(out, "--")
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
