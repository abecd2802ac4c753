package runproc

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Exit codes of the shim itself; otherwise it exits as its command did.
const (
	// ShimFailed: bad arguments, or run.log could not be opened; the command was not
	// started and the reason is on the shim's stderr (shim.log).
	ShimFailed = 125
	// SpawnFailed: the command could not be started (no such file, not executable…);
	// run.log has the stderr record, exit.json is {"exit_code":null,"signal":null}.
	SpawnFailed = 127
)

// shimLinger is how long the shim still reads the command's output after the command
// exited, when something the command left running in its group holds the pipes open.
const shimLinger = time.Second

// ShimMain is `orcr __run-shim --dir <dir> [--max-bytes N] [--max-files N] -- <argv…>`,
// the process [Start] runs; it returns the shim's exit code. Its cwd and environment
// are the command's.
//
// It starts argv as its child, in the shim's own process group, with stdin /dev/null and
// stdout/stderr on pipes it reads into <dir>/run.log ([Line]; rotated as in
// [Spec.MaxBytes]). SIGTERM, SIGINT and SIGHUP do nothing to the shim — a stop signals
// the whole group, and the shim must outlive the command to record its end — while
// the command gets them with their default action. When the command has exited and its
// pipes are closed (or [shimLinger] after its exit, for a pipe a leftover member
// holds), the shim writes <dir>/exit.json — so once exit.json exists the log is
// complete — and ends like the command: with its exit code, or, for a command killed by
// a signal, killed by the same signal. A command that cannot start gives a stderr record
// "failed to spawn command: <error>", exit.json with neither code nor signal, and exit
// code [SpawnFailed].
func ShimMain(args []string) int {
	fs := flag.NewFlagSet("orcr "+ShimVerb, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	dir := fs.String("dir", "", "the run directory")
	maxBytes := fs.Int64("max-bytes", DefaultMaxBytes, "rotate run.log when the next record would pass this size")
	maxFiles := fs.Int("max-files", DefaultMaxFiles, "rotated logs kept")
	if err := fs.Parse(args); err != nil {
		return ShimFailed
	}
	report := func(err error) { fmt.Fprintf(os.Stderr, "orcr %s: %v\n", ShimVerb, err) }
	if *dir == "" {
		report(errors.New("--dir is required"))
		return ShimFailed
	}

	// Caught, not ignored: a caught signal is back to its default action in the command
	// after exec, an ignored one would stay ignored there.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		for range sigs {
		}
	}()

	l, err := openRunLog(*dir, *maxBytes, *maxFiles)
	if err != nil {
		report(err)
		return ShimFailed
	}
	e, started := runCommand(fs.Args(), l, report)
	if err := l.close(); err != nil {
		report(err)
	}
	if err := writeExit(*dir, e); err != nil {
		report(fmt.Errorf("write %s: %w", ExitFile, err))
	}
	switch {
	case !started:
		return SpawnFailed
	case e.Code != nil:
		return int(*e.Code)
	case e.Signal != nil:
		sig := syscall.Signal(*e.Signal)
		raise(sig)
		return 128 + int(sig) // the signal did not end us: say it the shell's way
	}
	return ShimFailed
}

// runCommand runs argv with its output captured into l and returns how it ended;
// started is false when it could not be started (the record is in l then).
func runCommand(argv []string, l *runLog, report func(error)) (e Exit, started bool) {
	fail := func(err error) (Exit, bool) {
		if werr := l.write(Stderr, spawnFailure(err)); werr != nil {
			report(werr)
		}
		return Exit{}, false
	}
	if len(argv) == 0 {
		return fail(errors.New("no command"))
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fail(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = outW, errW // stdin stays nil: /dev/null
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return fail(err)
	}

	var wg sync.WaitGroup
	for _, p := range []struct {
		r      *os.File
		stream string
	}{{outR, Stdout}, {errR, Stderr}} {
		wg.Go(func() { capture(p.r, p.stream, l, report) })
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()

	werr := cmd.Wait()
	select {
	case <-drained:
	case <-time.After(shimLinger):
		// A member of the group outlived the command with the pipes open: stop
		// reading (the deadline ends the reads; the second wait bounds it anyway).
		// What the member writes from now on goes nowhere (EPIPE, or SIGPIPE).
		now := time.Now()
		outR.SetReadDeadline(now)
		errR.SetReadDeadline(now)
		select {
		case <-drained:
		case <-time.After(shimLinger):
		}
	}
	outR.Close()
	errR.Close()
	e = cmdExit(cmd, werr)
	if e == (Exit{}) {
		report(fmt.Errorf("wait for the command: %v", werr))
	}
	return e, true
}
