package cli

import "github.com/orcr-go/orcr/actors/paneexec"

// paneExecCmd is `orcr __pane-exec …`, the launcher an agent's pane runs its provider
// through (docs/lifecycle.md §8.2). It is internal: hidden from help, never talks to the
// server, and takes its arguments as they come (see [paneexec.Main]).
type paneExecCmd struct {
	Args []string `arg:"" optional:""`
}

// Run exits as the provider did (its code, or 128 + its signal), or 125 for bad
// arguments.
func (c *paneExecCmd) Run(a *app) error {
	// A hangup or termination is the launcher's to handle, not an interrupt of this
	// invocation.
	a.ownsSignals = true
	if code := paneexec.Main(c.Args); code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}
