// Package runproc starts and watches the process of a loop run (docs/loops.md §6.4,
// §6.5, §7, §8).
//
// A run's command must outlive the server that started it: after a crash or a
// `kill -9` of the server, the next server adopts the run by its pid and the OS start
// time of its leader. So the server holds nothing of the command: no pipe (a pipe whose
// reader died makes the writer die of SIGPIPE) and no terminal. Instead [Start] runs a
// small shim — the orcr binary itself, `orcr __run-shim` ([ShimMain]) — as a session
// and process-group leader. The shim starts the command as its child in the same group,
// owns its stdout and stderr, writes them to the run log (<dir>/run.log, [ReadLog]),
// records how the command ended (<dir>/exit.json, [ReadExit]), and exits the way the
// command did, so the server's own wait on the shim ([Process.Wait]) reads the
// command's status.
//
// The shim's pid is the run's pid and pgid. [Alive] and [SignalGroup] are the identity
// guard: a recorded pid is signalled only while its start time still matches, because
// pids are reused.
package runproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// Defaults of the run-log bound (docs/config.md logs.max_bytes / logs.max_files).
const (
	DefaultMaxBytes int64 = 10 << 20
	DefaultMaxFiles       = 5
)

// The files of a run's directory.
const (
	LogFile  = "run.log"   // the command's output, JSON Lines ([Line])
	ExitFile = "exit.json" // the command's status ([Exit]), written by the shim at the end
	ShimLog  = "shim.log"  // the shim's own stdout and stderr: its errors, if any
)

// ShimVerb is the hidden orcr verb that runs [ShimMain].
const ShimVerb = "__run-shim"

// Spec is what [Start] runs.
type Spec struct {
	// Shim is the argv that runs [ShimMain] with the arguments Start appends, e.g.
	// {"/usr/local/bin/orcr", ShimVerb}.
	Shim []string
	// Argv is the command; Argv[0] is looked up in Env's PATH.
	Argv []string
	// Cwd is the command's working directory; empty means the caller's.
	Cwd string
	// Env is the command's whole environment; nil means the caller's.
	Env []string
	// Dir is the run's directory, created if missing: run.log, exit.json, shim.log.
	Dir string
	// MaxBytes bounds run.log; the next record that would pass it starts a new file.
	// 0 means [DefaultMaxBytes].
	MaxBytes int64
	// MaxFiles is how many rotated logs (run.log.1 … run.log.<MaxFiles>) are kept.
	// 0 means [DefaultMaxFiles].
	MaxFiles int
}

// Exit is how a command ended: exactly one of Code and Signal is set, or neither when
// the command never ran or its status could not be learnt. It is also the shape of
// exit.json: {"exit_code":N|null,"signal":S|null}.
type Exit struct {
	Code   *int64 `json:"exit_code"`
	Signal *int64 `json:"signal"`
}

// String is "exit 3", "signal 15" or "unknown".
func (e Exit) String() string {
	switch {
	case e.Code != nil:
		return "exit " + strconv.FormatInt(*e.Code, 10)
	case e.Signal != nil:
		return "signal " + strconv.FormatInt(*e.Signal, 10)
	}
	return "unknown"
}

func exitCode(c int) Exit   { v := int64(c); return Exit{Code: &v} }
func exitSignal(s int) Exit { v := int64(s); return Exit{Signal: &v} }

// Process is a started run: the shim's pid (also the run's pgid) and its OS start time
// ([StartTime]; 0 when unknown).
type Process struct {
	PID       int
	StartTime int64

	dir  string
	cmd  *exec.Cmd
	once sync.Once
	shim Exit // from the shim's wait status
	exit Exit // what Wait returns
}

// Start creates s.Dir and starts the shim for s as the leader of a new session and
// process group, with stdin /dev/null and stdout/stderr appended to <Dir>/shim.log; it
// returns once the shim is running, without waiting for the command. When the shim
// cannot be started, the reason is also left in run.log as a stderr record
// "failed to spawn command: <error>", as the shim does for a command it cannot start.
func Start(s Spec) (*Process, error) {
	switch {
	case len(s.Shim) == 0:
		return nil, errors.New("runproc: no shim argv")
	case len(s.Argv) == 0:
		return nil, errors.New("runproc: empty argv")
	case s.Dir == "":
		return nil, errors.New("runproc: no run directory")
	}
	// The shim runs in s.Cwd: a relative Dir would be another directory there.
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("runproc: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("runproc: %w", err)
	}
	out, err := os.OpenFile(filepath.Join(dir, ShimLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("runproc: %w", err)
	}
	defer out.Close()

	args := append(s.Shim[1:len(s.Shim):len(s.Shim)],
		"--dir", dir,
		"--max-bytes", strconv.FormatInt(orDefault(s.MaxBytes, DefaultMaxBytes), 10),
		"--max-files", strconv.Itoa(orDefault(s.MaxFiles, DefaultMaxFiles)),
		"--")
	cmd := exec.Command(s.Shim[0], append(args, s.Argv...)...)
	cmd.Dir, cmd.Env = s.Cwd, s.Env
	cmd.Stdout, cmd.Stderr = out, out // *os.File: handed over as is, nothing of ours stays open
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		appendSpawnFailure(dir, err)
		return nil, fmt.Errorf("runproc: start the shim: %w", err)
	}
	p := &Process{PID: cmd.Process.Pid, dir: dir, cmd: cmd}
	// The shim is our unreaped child, so its /proc entry is there even if it already
	// exited.
	p.StartTime, _ = StartTime(p.PID)
	return p, nil
}

func orDefault[T int | int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Wait waits for the shim to exit and returns the command's status: exit.json when the
// shim wrote it, else the shim's own wait status — which mirrors the command's (same
// code, or death by the same signal), and is SIGKILL when the group was killed. A
// failed wait gives the zero Exit. Wait may be called more than once, from any
// goroutine; every call returns the same value. Only a Process returned by [Start] can
// be waited for (an adopted run is not this process's child: poll [Alive], then
// [ReadExit]); any other returns the zero Exit at once.
func (p *Process) Wait() Exit {
	p.once.Do(func() {
		if p.cmd == nil {
			return
		}
		p.shim = cmdExit(p.cmd, p.cmd.Wait())
		p.exit = p.shim
		if e, ok := ReadExit(p.dir); ok {
			p.exit = e
		}
	})
	return p.exit
}

// cmdExit is the [Exit] of cmd after Wait returned err; the zero Exit when the wait
// itself failed.
func cmdExit(cmd *exec.Cmd, err error) Exit {
	if cmd.ProcessState == nil || (err != nil && !errors.As(err, new(*exec.ExitError))) {
		return Exit{}
	}
	st, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return waitExit(st)
}

// waitExit is the [Exit] of a wait status.
func waitExit(st syscall.WaitStatus) Exit {
	switch {
	case st.Exited():
		return exitCode(st.ExitStatus())
	case st.Signaled():
		return exitSignal(int(st.Signal()))
	}
	return Exit{}
}

// ReadExit reads <dir>/exit.json; false when there is none (the shim has not finished,
// or it died first) or it cannot be read.
func ReadExit(dir string) (Exit, bool) {
	b, err := os.ReadFile(filepath.Join(dir, ExitFile))
	if err != nil {
		return Exit{}, false
	}
	var e Exit
	if err := json.Unmarshal(b, &e); err != nil {
		return Exit{}, false
	}
	return e, true
}

// writeExit writes <dir>/exit.json atomically: a reader sees the whole file or none.
func writeExit(dir string, e Exit) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ExitFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, ExitFile))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
