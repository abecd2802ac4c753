// Package servicetest records the service-manager commands of package service instead
// of running them.
package servicetest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Recorder is a service.Runner that records every command. Fail, when set, decides
// each command's error (nil: it succeeded); a nil Fail lets every command succeed.
// Fail and Effect must not change while commands run.
type Recorder struct {
	Fail func(argv []string) error
	// Effect, when set, is run for each command that succeeded: what the real command
	// would change on disk (systemctl enable's link), for a test that reads it back.
	Effect func(argv []string)

	mu    sync.Mutex
	calls [][]string
}

// Run implements service.Runner.
func (r *Recorder) Run(_ context.Context, argv []string) error {
	r.mu.Lock()
	r.calls = append(r.calls, slices.Clone(argv))
	r.mu.Unlock()
	if r.Fail != nil {
		if err := r.Fail(argv); err != nil {
			return err
		}
	}
	if r.Effect != nil {
		r.Effect(argv)
	}
	return nil
}

// Calls returns the commands run so far, each joined with spaces, and forgets them.
func (r *Recorder) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, argv := range r.calls {
		out[i] = strings.Join(argv, " ")
	}
	r.calls = nil
	return out
}

// SystemdLinks is a Recorder Effect: a `systemctl --user enable …` that succeeds links
// orcr.service of unitDir into unitDir/default.target.wants, and a disable removes the
// link, as systemd does.
func SystemdLinks(unitDir string) func(argv []string) {
	const unit = "orcr.service"
	link := filepath.Join(unitDir, "default.target.wants", unit)
	return func(argv []string) {
		switch {
		case len(argv) < 3 || argv[0] != "systemctl":
		case argv[2] == "enable":
			os.MkdirAll(filepath.Dir(link), 0o755)
			os.Symlink(filepath.Join(unitDir, unit), link)
		case argv[2] == "disable":
			os.Remove(link)
		}
	}
}
