// Package launcher is orcr's pane launcher, the process an agent's pane runs
// (docs/lifecycle.md §8.2): `orcr __pane-exec --status-file <file> [--exit-note <file>]
// [--hold <duration>] -- <provider argv…>`.
//
// It runs from this package's init, before the rest of the orcr binary is initialized:
// a launcher lives as long as its pane, a thousand of them at once, and the binary's
// other packages (SQLite, the actor system, NATS, the CLI…) would cost every pane
// milliseconds at its start and megabytes for its life. So this package imports only
// os, os/signal, syscall, time and what they import themselves (Go initializes packages
// in the order of their import paths among those ready, so even a package with no init
// of its own, strings or strconv, would let dozens of others go first): it starts the
// child with syscall.ForkExec rather than os/exec, and writes its status file and its
// messages by hand rather than with encoding/json or strconv. A test of ./tests checks
// that no package of orcr, SQLite, the actor system or NATS is initialized before it. The server reads the status file through package paneexec.
package launcher

import (
	"errors"
	"os"
	"os/signal"
	"path"
	"syscall"
	"time"
	"unsafe"
)

const (
	// Verb is the hidden orcr verb that runs [Main].
	Verb = "__pane-exec"
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

// hangupGrace is how long the launcher waits, after passing a hangup or termination
// on to its child's group, before it kills the group: what herdr's own close of a pane
// gives a provider it started itself.
const hangupGrace = time.Second

// init runs the launcher when the process was started as `<binary> __pane-exec …`, and
// exits with its code; any other process goes on initializing.
func init() {
	if len(os.Args) > 1 && os.Args[1] == Verb {
		os.Exit(Main(os.Args[2:]))
	}
}

// Main is `__pane-exec --status-file <file> [--exit-note <file>] [--hold <duration>] --
// <argv…>`; it returns
// the launcher's exit code. Its cwd and environment are argv's, unchanged.
//
// argv runs as its child in a process group of its own; when the launcher's stdin (else
// stdout, else stderr) is a terminal, that group is made the terminal's foreground
// group, so keys typed into the pane (Ctrl-C among them) reach the provider alone and
// herdr's process detection names the provider. Nothing else is forwarded or written.
//
// When the child exits by itself the launcher takes the foreground back (SIGTTOU
// ignored for that), turns the terminal's echo off (what orcr or a user types into the
// held pane stays off the screen), writes how the child ended to the status file (a
// child that could not start is recorded as exit status [NotStarted], its error on
// stderr, so in the pane), then creates the --exit-note file, empty (the server reads
// one directory of notes rather than every agent's status file), and holds: it exits
// once it gets SIGHUP, SIGTERM, SIGINT or SIGQUIT — the pane closed — or after --hold
// ([HoldMax]), with the child's exit code (128 + its signal for a signal).
//
// One of those signals while the child runs is passed on to the child's group, which
// gets [hangupGrace] to exit before it is killed; the launcher then exits without
// writing the status file: the pane was closed, not left by its provider.
func Main(args []string) int {
	statusFile, note, hold, argv, err := parseArgs(args)
	if err != nil {
		report(err)
		return Failed
	}
	// Caught, not ignored: a caught signal is back to its default action in the child
	// after exec, an ignored one would stay ignored there.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT)

	tty, isTTY := terminal()
	var e exit
	pid, err := start(argv, tty, isTTY)
	if err != nil {
		report(err)
		e = exit{code: NotStarted, at: time.Now()}
	} else {
		done := make(chan syscall.WaitStatus, 1)
		go func() { done <- wait(pid) }()
		select {
		case ws := <-done:
			e = exitOf(ws, time.Now())
		case sig := <-sigs:
			_ = syscall.Kill(-pid, sig.(syscall.Signal))
			select {
			case ws := <-done:
				return exitOf(ws, time.Now()).exitCode()
			case <-time.After(hangupGrace):
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				return exitOf(<-done, time.Now()).exitCode()
			}
		}
	}
	if isTTY {
		reclaim(tty)
	}
	if err := writeFile(statusFile, e.json()); err != nil {
		report(errors.New("write the status file: " + err.Error()))
	} else if note != "" {
		if err := os.WriteFile(note, nil, 0o600); err != nil {
			report(errors.New("write the exit note: " + err.Error()))
		}
	}
	select {
	case <-sigs:
	case <-time.After(hold):
	}
	return e.exitCode()
}

// report writes err to the pane, on a line of its own.
func report(err error) {
	_, _ = os.Stderr.WriteString("orcr " + Verb + ": " + err.Error() + "\r\n")
}

// usage is the launcher's command line, for its messages.
const usage = "usage: --status-file <file> [--exit-note <file>] [--hold <duration>] -- <argv…>"

// parseArgs reads `--status-file <file> [--exit-note <file>] [--hold <duration>] [--]
// <argv…>` (a flag may
// also be given as `--flag=value` or with one dash): argv starts after `--` or at the
// first argument that is not a flag.
func parseArgs(args []string) (statusFile, note string, hold time.Duration, argv []string, err error) {
	hold = HoldMax
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		name, value, hasValue := flagOf(a)
		if name != "status-file" && name != "exit-note" && name != "hold" {
			return "", "", 0, nil, errors.New("unknown flag " + quote(a) + "; " + usage)
		}
		if !hasValue {
			if i+1 == len(args) {
				return "", "", 0, nil, errors.New("flag " + quote(a) + " needs a value")
			}
			i++
			value = args[i]
		}
		switch name {
		case "status-file":
			statusFile = value
			continue
		case "exit-note":
			note = value
			continue
		}
		if hold, err = time.ParseDuration(value); err != nil || hold < 0 {
			return "", "", 0, nil, errors.New("--hold " + quote(value) + ": not a duration such as 60s")
		}
	}
	argv = args[i:]
	if statusFile == "" || len(argv) == 0 {
		return "", "", 0, nil, errors.New(usage)
	}
	return statusFile, note, hold, argv, nil
}

// start starts argv as the launcher's child in a process group of its own, that group
// made the foreground group of the terminal tty when isTTY.
func start(argv []string, tty int, isTTY bool) (pid int, err error) {
	path, err := lookPath(argv[0])
	if err != nil {
		return 0, err
	}
	sys := &syscall.SysProcAttr{Setpgid: true}
	if isTTY {
		sys.Foreground, sys.Ctty = true, tty
	}
	pid, err = syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   sys,
	})
	if err != nil {
		return 0, errors.New("start " + quote(argv[0]) + ": " + err.Error())
	}
	return pid, nil
}

// lookPath is the file a shell would run for name: name itself when it holds a slash,
// else the first executable regular file of that name in $PATH's folders (an empty
// entry is the current folder).
func lookPath(name string) (string, error) {
	for i := range len(name) {
		if name[i] == '/' {
			return name, nil
		}
	}
	dirs := os.Getenv("PATH")
	for more := dirs != ""; more; {
		dir := dirs
		more = false
		for i := range len(dirs) {
			if dirs[i] == ':' {
				dir, dirs, more = dirs[:i], dirs[i+1:], true
				break
			}
		}
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + name
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(quote(name) + ": executable file not found in $PATH")
}

// wait waits for the child pid to exit.
func wait(pid int) syscall.WaitStatus {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws
		}
	}
}

// terminal is the launcher's terminal: the first of stdin, stdout and stderr that is
// one.
func terminal() (fd int, ok bool) {
	var t syscall.Termios
	for _, fd := range []int{0, 1, 2} {
		if ioctl(fd, syscall.TCGETS, unsafe.Pointer(&t)) == nil {
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
	pgrp := int32(syscall.Getpgrp())
	_ = ioctl(tty, syscall.TIOCSPGRP, unsafe.Pointer(&pgrp))
	var t syscall.Termios
	if ioctl(tty, syscall.TCGETS, unsafe.Pointer(&t)) == nil {
		t.Lflag &^= syscall.ECHO | syscall.ECHONL
		_ = ioctl(tty, syscall.TCSETS, unsafe.Pointer(&t))
	}
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// exit is how the child ended: its exit code, or the signal that killed it (signal > 0),
// and when.
type exit struct {
	code   int
	signal syscall.Signal
	at     time.Time
}

func exitOf(ws syscall.WaitStatus, at time.Time) exit {
	if ws.Signaled() {
		return exit{signal: ws.Signal(), at: at}
	}
	return exit{code: ws.ExitStatus(), at: at}
}

// exitCode is the launcher's exit code for e: the child's code, or 128 + its signal.
func (e exit) exitCode() int {
	if e.signal > 0 {
		return 128 + int(e.signal)
	}
	return e.code
}

// json is the status file's content, as package paneexec reads it: {"code":N,"at":ms}
// or {"signal":"SIGSEGV","at":ms}.
func (e exit) json() []byte {
	b := make([]byte, 0, 48)
	if e.signal > 0 {
		b = append(b, `{"signal":"`...)
		b = append(b, SignalName(e.signal)...) // letters, digits and a space: nothing to escape
		b = append(b, '"')
	} else {
		b = append(b, `{"code":`...)
		b = append(b, itoa(int64(e.code))...)
	}
	b = append(b, `,"at":`...)
	b = append(b, itoa(e.at.UnixMilli())...)
	return append(b, "}\n"...)
}

// SignalName is the name of signal s ("SIGSEGV"), or "signal N" for one without a name.
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGTRAP:
		return "SIGTRAP"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGALRM:
		return "SIGALRM"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGSTKFLT:
		return "SIGSTKFLT"
	case syscall.SIGCHLD:
		return "SIGCHLD"
	case syscall.SIGCONT:
		return "SIGCONT"
	case syscall.SIGSTOP:
		return "SIGSTOP"
	case syscall.SIGTSTP:
		return "SIGTSTP"
	case syscall.SIGTTIN:
		return "SIGTTIN"
	case syscall.SIGTTOU:
		return "SIGTTOU"
	case syscall.SIGURG:
		return "SIGURG"
	case syscall.SIGXCPU:
		return "SIGXCPU"
	case syscall.SIGXFSZ:
		return "SIGXFSZ"
	case syscall.SIGVTALRM:
		return "SIGVTALRM"
	case syscall.SIGPROF:
		return "SIGPROF"
	case syscall.SIGWINCH:
		return "SIGWINCH"
	case syscall.SIGIO:
		return "SIGIO"
	case syscall.SIGPWR:
		return "SIGPWR"
	case syscall.SIGSYS:
		return "SIGSYS"
	}
	return "signal " + itoa(int64(s))
}

// writeFile writes b to path atomically (a temporary file beside it renamed over it),
// so a reader sees a whole file or none.
func writeFile(file string, b []byte) error {
	tmp, err := os.CreateTemp(path.Dir(file), ".pane_exit-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// flagOf splits a flag argument, "-name", "--name" or either with "=value".
func flagOf(a string) (name, value string, hasValue bool) {
	name = a[1:]
	if name != "" && name[0] == '-' {
		name = name[1:]
	}
	for i := range len(name) {
		if name[i] == '=' {
			return name[:i], name[i+1:], true
		}
	}
	return name, "", false
}

// quote is s in double quotes, for a message.
func quote(s string) string { return `"` + s + `"` }

// itoa is n in decimal.
func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	u := uint64(n)
	if n < 0 {
		u = uint64(-n)
	}
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if n < 0 {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
