package cli

import "github.com/orcr-go/orcr/actors/runproc"

// runShimCmd is `orcr __run-shim …`, the process a loop run's command is started
// through (docs/loops.md §6.4). It is internal: hidden from help, never talks to the
// server, and takes its arguments as they come (see [runproc.ShimMain]).
type runShimCmd struct {
	Args []string `arg:"" optional:""`
}

// Run exits as the run's command did: with its code, or — inside ShimMain — by its
// signal.
func (c *runShimCmd) Run(a *app) error {
	// SIGTERM and friends are the shim's to ignore, not an interrupt of this invocation.
	a.ownsSignals = true
	if code := runproc.ShimMain(c.Args); code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}
