package service

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// Runner runs one service-manager command (systemctl, launchctl) to completion. The
// error of a command that failed should carry what it printed.
type Runner interface {
	Run(ctx context.Context, argv []string) error
}

// Exec is the [Runner] that runs commands for real, each for at most [ExecTimeout], with
// the process's own environment (the user bus of systemctl --user comes from there).
type Exec struct{}

// ExecTimeout bounds one service-manager command; systemctl waits for the start job of
// `enable --now`, which for orcr is quick (Type=simple).
const ExecTimeout = 30 * time.Second

// Run implements [Runner]; a failure is a [*CommandError].
func (Exec) Run(ctx context.Context, argv []string) error {
	ctx, cancel := context.WithTimeout(ctx, ExecTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return &CommandError{Argv: argv, Output: strings.Join(strings.Fields(string(out)), " "), Err: err}
	}
	return nil
}

// CommandError is a service-manager command that failed, with what it printed (its
// whitespace folded to single spaces).
type CommandError struct {
	Argv   []string
	Output string
	Err    error
}

func (e *CommandError) Error() string {
	s := strings.Join(e.Argv, " ") + ": " + e.Err.Error()
	if e.Output != "" {
		s += ": " + e.Output
	}
	return s
}

func (e *CommandError) Unwrap() error { return e.Err }

// commands runs a platform's loader commands for one user.
type commands struct {
	r   Runner
	uid int
}

func (c commands) run(ctx context.Context, argv ...string) error { return c.r.Run(ctx, argv) }
