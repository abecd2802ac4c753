package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/orcr-go/orcr/actors/paneexec/launcher"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Interrupt is the cancel cause of the context [NotifyContext] returns: the invocation
// was interrupted by Signal. [Run] reports an invocation whose context ended with an
// Interrupt as interrupted, whatever the command returned, because what the command saw
// (a canceled call, a cut connection) is a consequence of the interrupt and not the
// server's answer.
type Interrupt struct{ Signal syscall.Signal }

// Error returns "interrupted by SIGINT" (or the signal's name).
func (e *Interrupt) Error() string { return "interrupted by " + launcher.SignalName(e.Signal) }

// ExitCode is 128 plus the signal number (130 for SIGINT, 143 for SIGTERM): the status a
// shell reports for a process the signal ended, so scripts see the same code whether
// or not the process handled the signal.
func (e *Interrupt) ExitCode() int { return 128 + int(e.Signal) }

// NotifyContext returns a copy of parent that is canceled with an [*Interrupt] cause at
// the first SIGINT or SIGTERM. That first signal only cancels: the command winds down
// (a blocked call is cut off, the connection closes, nothing is changed on the server)
// and [Run] reports it. Then the default handling is restored, so a second signal ends
// a process that does not stop at once. stop releases the handlers; call it when Run
// returns.
func NotifyContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			sig, _ := s.(syscall.Signal)
			cancel(&Interrupt{Signal: sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(context.Canceled)
		<-done
	}
}

// interruptOf returns the [*Interrupt] that ended ctx, or nil.
func interruptOf(ctx context.Context) *Interrupt {
	var in *Interrupt
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}

// interrupted prints that the invocation was interrupted ("interrupted by SIGINT" on
// stderr, or an environment_error envelope with cause interrupted under --json) and
// returns the exit code of in.
func (a *app) interrupted(in *Interrupt) int {
	if a.json {
		a.printError(wire.Env(wire.CauseInterrupted, in.Error(), "signal", launcher.SignalName(in.Signal)))
	} else {
		a.stderr("%s", in.Error())
	}
	return in.ExitCode()
}
