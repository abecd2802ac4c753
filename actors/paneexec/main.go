package paneexec

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// hangupGrace is how long the launcher waits, after passing a hangup or termination
// on to its child's group, before it kills the group: what herdr's own close of a pane
// gives a provider it started itself.
const hangupGrace = time.Second

// Main is `orcr __pane-exec --status-file <file> [--hold <duration>] -- <argv…>`, the
// process of an agent's pane; it returns the launcher's exit code. Its cwd and
// environment are argv's, unchanged.
//
// argv runs as its child in a process group of its own; when the launcher's stdin (else
// stdout, else stderr) is a terminal, that group is made the terminal's foreground
// group, so keys typed into the pane (Ctrl-C among them) reach the provider alone and
// herdr's process detection names the provider. Nothing else is forwarded or written.
//
// When the child exits by itself the launcher takes the foreground back (SIGTTOU
// ignored for that), turns the terminal's echo off (what orcr or a user types into the
// held pane stays off the screen), writes the child's [Exit] to the status file (a
// child that could not start is recorded as exit status [NotStarted], its error on
// stderr, so in the pane) and holds: it exits once it gets SIGHUP, SIGTERM, SIGINT or
// SIGQUIT — the pane closed — or after --hold ([HoldMax]), with the child's exit code.
//
// One of those signals while the child runs is passed on to the child's group, which
// gets [hangupGrace] to exit before it is killed; the launcher then exits without
// writing the status file: the pane was closed, not left by its provider.
func Main(args []string) int {
	fs := flag.NewFlagSet("orcr "+Verb, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	statusFile := fs.String("status-file", "", "where to record the child's exit status")
	hold := fs.Duration("hold", HoldMax, "how long to hold the pane after the child exited")
	if err := fs.Parse(args); err != nil {
		return Failed
	}
	report := func(err error) { fmt.Fprintf(os.Stderr, "orcr %s: %v\r\n", Verb, err) }
	if *statusFile == "" || fs.NArg() == 0 {
		report(errors.New("usage: --status-file <file> -- <argv…>"))
		return Failed
	}
	// Caught, not ignored: a caught signal is back to its default action in the child
	// after exec, an ignored one would stay ignored there.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT)

	argv := fs.Args()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	tty, isTTY := terminal()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if isTTY {
		cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty = true, tty
	}
	var e Exit
	if err := cmd.Start(); err != nil {
		report(err)
		code := NotStarted
		e = Exit{Code: &code, At: time.Now().UnixMilli()}
	} else {
		done := make(chan unix.WaitStatus, 1)
		go func() {
			_ = cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			done <- unix.WaitStatus(ws)
		}()
		select {
		case ws := <-done:
			e = exitOf(ws, time.Now())
		case sig := <-sigs:
			pgid := cmd.Process.Pid
			_ = unix.Kill(-pgid, sig.(syscall.Signal))
			select {
			case ws := <-done:
				return exitCode(exitOf(ws, time.Now()))
			case <-time.After(hangupGrace):
				_ = unix.Kill(-pgid, unix.SIGKILL)
				return exitCode(exitOf(<-done, time.Now()))
			}
		}
	}
	if isTTY {
		reclaim(tty)
	}
	if err := writeExit(*statusFile, e); err != nil {
		report(fmt.Errorf("write the status file: %w", err))
	}
	select {
	case <-sigs:
	case <-time.After(*hold):
	}
	return exitCode(e)
}

// terminal is the launcher's terminal: the first of stdin, stdout and stderr that is
// one.
func terminal() (fd int, ok bool) {
	for _, fd := range []int{0, 1, 2} {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			return fd, true
		}
	}
	return 0, false
}

// reclaim makes the launcher's group the terminal's foreground group again (the child's
// group is gone) and turns echo off, so nothing typed while the pane is held shows on
// its screen.
func reclaim(tty int) {
	signal.Ignore(syscall.SIGTTOU) // a background group changing the terminal gets it
	_ = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
	if t, err := unix.IoctlGetTermios(tty, unix.TCGETS); err == nil {
		t.Lflag &^= unix.ECHO | unix.ECHONL
		_ = unix.IoctlSetTermios(tty, unix.TCSETS, t)
	}
}

// exitCode is the launcher's exit code for e: the child's code, or 128 + its signal.
func exitCode(e Exit) int {
	if e.Code != nil {
		return *e.Code
	}
	if e.Signal != "" {
		if s := unix.SignalNum(e.Signal); s != 0 {
			return 128 + int(s)
		}
	}
	return Failed
}
