package cli

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
)

// attachSignalGrace is how long a forwarded SIGINT/SIGTERM/SIGHUP may take to end the
// attach command before it is killed (the lease is released either way).
const attachSignalGrace = 5 * time.Second

// attachReleaseTimeout bounds the release call after the attach ended.
const attachReleaseTimeout = 10 * time.Second

type agentAttachCmd struct {
	Target   string `arg:"" help:"Agent path or uuid."`
	Takeover bool   `help:"Take over input instead of observing."`
	Quiet    bool   `help:"Print neither the detach hint nor the detached line (what orcr top runs)."`
}

// detachHint is the line `agent attach` prints on stderr before attaching, when stderr
// is a terminal (docs/cli.md §5.6): herdr's detach key, and how to type it through a
// tmux that holds ctrl+b as its own prefix (tmux's default binds ctrl+b ctrl+b to send
// one ctrl+b on).
func detachHint(path string, inTmux bool) string {
	h := "attaching to " + path + ": detach with ctrl+b q"
	if inTmux {
		h += " (inside tmux: ctrl+b ctrl+b q)"
	}
	return h
}

// attachResult is the CLI's JSON result of `agent attach` (docs/cli.md §5.6).
type attachResult struct {
	UUID     string `json:"uuid"`
	Path     string `json:"path"`
	Attached bool   `json:"attached"`
	Takeover bool   `json:"takeover"`
	Host     string `json:"host,omitempty"` // another host's agent (docs/fleet.md §4.10)
}

// Run implements `orcr agent attach` (docs/cli.md §5.6): take the lease, run herdr's
// attach command on this terminal (the fallback when herdr refuses the pane id),
// heartbeat meanwhile, release when it ends — also after SIGINT, SIGTERM or SIGHUP,
// which are forwarded to the command first — and exit with the command's status.
func (c *agentAttachCmd) Run(a *app) error {
	if host, target := splitHost(c.Target); host != "" {
		return c.runOnHost(a, host, target)
	}
	home, err := a.prepareHome()
	if err != nil {
		return err
	}
	cl, _, _, err := a.ensureRunning(home)
	if err != nil {
		return err
	}
	lease, err := cl.AttachPrepare(a.ctx, api.AttachPrepareRequest{Target: c.Target, Takeover: c.Takeover, ClientPID: int64(a.env.PID)})
	if err != nil {
		return err
	}
	// Whatever happens from here, the lease is released.
	release := func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(a.ctx), attachReleaseTimeout)
		defer cancel()
		if err := a.leaseCall(ctx, home, func(cl *socketapi.Client) error {
			_, err := cl.AttachRelease(ctx, lease.LeaseID)
			return err
		}); err != nil {
			a.stderr("warning: cannot release attach lease %s (it expires by itself): %v", lease.LeaseID, err)
		}
	}
	if len(lease.Command) == 0 {
		release()
		return wire.Internal(wire.CauseAttachCommand, "the server returned an empty attach command")
	}
	if !c.Quiet && !a.json && a.stderrIsTTY() {
		a.stderr("%s", detachHint(lease.Path, a.env.Getenv("TMUX") != ""))
	}
	hb := a.heartbeat(home, lease)
	code, runErr := a.runAttach(lease.Command, lease.FallbackCommand)
	hb.stop()
	release()
	if runErr != nil {
		return wire.Env(wire.CauseHerdrUnreachable, "cannot run herdr's attach command: "+runErr.Error(), "command", lease.Command)
	}
	if hb.lost.Load() {
		a.stderr("warning: the attach lease of %s ran out during the session; the GC may have parked the agent", lease.Path)
	}
	if a.json {
		a.printOKValue(attachResult{UUID: lease.UUID, Path: lease.Path, Attached: true, Takeover: lease.Takeover})
	} else if !c.Quiet {
		a.stdout("detached %s", lease.Path)
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

// stderrIsTTY reports whether the CLI's stderr is a terminal.
func (a *app) stderrIsTTY() bool {
	f, ok := a.env.Stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// leaseCall runs fn with a client of home's server under ctx, starting the server again
// if it is gone (docs/cli.md §1.3: each heartbeat and release re-runs ensure-running;
// leases are stored, so a restarted server still knows them).
func (a *app) leaseCall(ctx context.Context, home string, fn func(*socketapi.Client) error) error {
	b := *a
	b.ctx = ctx
	cl, _, _, err := b.ensureRunning(home)
	if err != nil {
		return err
	}
	return fn(cl)
}

// attachHeartbeat is the heartbeat goroutine of one attach.
type attachHeartbeat struct {
	done chan struct{}
	quit chan struct{}
	// lost is set when the server answered that the lease no longer exists.
	lost atomic.Bool
}

func (h *attachHeartbeat) stop() {
	close(h.quit)
	<-h.done
}

// heartbeat calls agent.attach.heartbeat every max(ttl/2, 1 s) until stopped or the
// lease is gone. A failed call is retried at the next tick.
func (a *app) heartbeat(home string, lease api.AttachPrepareResult) *attachHeartbeat {
	h := &attachHeartbeat{done: make(chan struct{}), quit: make(chan struct{})}
	every := max(time.Duration(lease.TTLMS)*time.Millisecond/2, time.Second)
	go func() {
		defer close(h.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-h.quit:
				return
			case <-a.ctx.Done():
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(a.ctx, every)
			var res api.HeartbeatResult
			err := a.leaseCall(ctx, home, func(cl *socketapi.Client) (err error) {
				res, err = cl.AttachHeartbeat(ctx, lease.LeaseID)
				return err
			})
			cancel()
			if err == nil && !res.OK {
				h.lost.Store(true)
				return
			}
		}
	}()
	return h
}

// runAttach runs the attach command on the CLI's terminal and returns its exit status.
// When it fails within [fleet.AttachRefusal] and there is a fallback, the fallback runs
// instead (docs/decisions.md D6). An error means the command could not be started.
func (a *app) runAttach(primary, fallback []string) (int, error) {
	start := time.Now()
	code, err := a.runForeground(primary)
	if err == nil && code != 0 && len(fallback) > 0 && time.Since(start) < fleet.AttachRefusal && a.ctx.Err() == nil {
		return a.runForeground(fallback)
	}
	return code, err
}

// runForeground runs argv with the CLI's stdio (a terminal is inherited as it is) and
// waits for it. SIGINT and SIGTERM (which cancel the CLI's context) and SIGHUP are
// forwarded to it; one that outlives [attachSignalGrace] is killed. A command ended by
// signal n exits 128+n.
func (a *app) runForeground(argv []string) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.env.Stdin, a.env.Stdout, a.env.Stderr
	if env := a.env.Environ(); env != nil {
		cmd.Env = env
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	waited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(waited)
	}()
	ctxDone := a.ctx.Done()
	var kill <-chan time.Time
	forward := func(sig os.Signal) {
		_ = cmd.Process.Signal(sig)
		if kill == nil {
			kill = time.After(attachSignalGrace)
		}
	}
	for {
		select {
		case <-waited:
			return fleet.ExitStatus(cmd.ProcessState), nil
		case <-ctxDone:
			ctxDone = nil
			sig := os.Signal(syscall.SIGTERM)
			if in := interruptOf(a.ctx); in != nil {
				sig = in.Signal
			}
			forward(sig)
		case s := <-hup:
			forward(s)
		case <-kill:
			_ = cmd.Process.Kill()
		}
	}
}

// runOnHost is `orcr agent attach <host>:<path>` (docs/fleet.md §4.10): the member runs
// herdr's attach for this terminal and relays it over the fleet. The terminal is put in
// raw mode (herdr's detach key, ctrl+b q, goes through to the member's attach), its
// size follows SIGWINCH, and the exit status is the member's command's.
func (c *agentAttachCmd) runOnHost(a *app, host, target string) error {
	fm, err := a.fleetMember()
	if err != nil {
		return err
	}
	t := fleet.TTY{In: a.env.Stdin, Out: a.env.Stdout}
	var opened api.AttachPrepareResult
	restore := func() {}
	t.Opened = func(r api.AttachPrepareResult) {
		opened = r
		if !c.Quiet && !a.json && a.stderrIsTTY() {
			a.stderr("%s", detachHint(qualify(host, r.Path), a.env.Getenv("TMUX") != ""))
		}
		if f, ok := a.env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			if st, err := term.MakeRaw(int(f.Fd())); err == nil {
				restore = func() { _ = term.Restore(int(f.Fd()), st) }
			}
		}
	}
	if f, ok := a.env.Stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.Cols, t.Rows, _ = term.GetSize(int(f.Fd()))
		resize := make(chan [2]int, 1)
		winch := make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		defer signal.Stop(winch)
		go func() {
			for range winch {
				if c, r, err := term.GetSize(int(f.Fd())); err == nil {
					select {
					case resize <- [2]int{c, r}:
					default:
					}
				}
			}
		}()
		t.Resize = resize
	}
	code, werr := fm.Attach(a.ctx, host, target, c.Takeover, t)
	restore()
	if werr != nil {
		return werr
	}
	if a.json {
		a.printOKValue(attachResult{UUID: opened.UUID, Path: opened.Path, Attached: true, Takeover: opened.Takeover, Host: host})
	} else if !c.Quiet {
		a.stdout("detached %s", qualify(host, opened.Path))
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}
