//go:build !linux

package runproc

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// raise ends this process with sig, the way the command it mirrors ended: with the Go
// runtime's default handling back, SIGTERM, SIGINT, SIGHUP and SIGKILL end the process
// by that signal. It returns if the signal did not end the process within a second.
func raise(sig syscall.Signal) {
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second)
}
