package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// resolveHome resolves the home without touching it (server stop, server logs).
func (a *app) resolveHome() (string, error) {
	return config.ResolveHome(a.env.Getenv)
}

// prepareHome is the ensure step of docs/cli.md §1.3: resolve, create + safety-check the
// home, load the config (warnings to stderr). A config or home error aborts before the
// server is contacted (environment_error, exit 2). logs/ and data/ are the server's to
// create, once it has checked its config (a refused start creates nothing).
func (a *app) prepareHome() (string, error) {
	home, _, err := a.prepareHomeConfig()
	return home, err
}

// prepareHomeConfig is [app.prepareHome] that also returns the loaded config. The
// first success is kept for the rest of the invocation, so its warnings are said once.
func (a *app) prepareHomeConfig() (string, *config.Config, error) {
	if a.loaded != nil {
		return a.home, a.loaded, nil
	}
	home, err := a.resolveHome()
	if err != nil {
		return "", nil, err
	}
	if err := config.EnsureHomeDir(home); err != nil {
		return "", nil, err
	}
	cfg, warnings, err := config.Load(home, a.env.Getenv)
	if err != nil {
		return "", nil, err
	}
	for _, w := range warnings {
		a.stderr("warning: %s", w)
	}
	a.home, a.loaded = home, cfg
	return home, cfg, nil
}

// fleetDefaultHost is this home's fleet.default_host ("" without a fleet or a default:
// this host).
func (a *app) fleetDefaultHost() (string, error) {
	_, cfg, err := a.prepareHomeConfig()
	if err != nil || !cfg.Fleet.On {
		return "", err
	}
	return cfg.Fleet.DefaultHost, nil
}

// clientFor is the typed client of home's server. It carries the caller identity of
// ORCR_ID / ORCR_PATH (docs/cli.md §2.1), which the client fills into every agent verb.
// A blocking verb whose server goes away starts one the same way (c.Spawn) and says so on
// stderr when it goes on (docs/cli.md §1.3).
func (a *app) clientFor(home string) *socketapi.Client {
	c := socketapi.FromGetenv(a.env.Getenv)
	c.Socket = config.NewPaths(home).Socket
	c.Spawn = func() (socketapi.Spawned, error) { return socketapi.Spawned{}, a.env.Spawn(home) }
	if a.env.spawnDetached != nil {
		c.Spawn = func() (socketapi.Spawned, error) { return a.env.spawnDetached(home) }
	}
	c.OnResume = func(method string, pid int) {
		a.stderr("note: the orcr server went away during %s; resumed with the server now answering (pid %d)", method, pid)
	}
	if a.progress != "" {
		c.OnProgress = a.progressPrinter()
	}
	return c
}

// progressEvery paces the progress lines of a bulk verb; a call shorter than it shows
// none.
const progressEvery = time.Second

// progressPrinter shows a bulk verb's progress frames on stderr ("killed 120 of 1000"),
// at most one line a second and none in the call's first second; stdout keeps only the
// result (docs/cli.md §1.3).
func (a *app) progressPrinter() func(string, wire.Progress) {
	start := time.Now()
	var last time.Time
	var mu sync.Mutex
	return func(_ string, p wire.Progress) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if now.Sub(start) < progressEvery || now.Sub(last) < progressEvery {
			return
		}
		last = now
		a.stderr("%s %d of %d", a.progress, p.Done, p.Total)
	}
}

// ensureRunning auto-starts the server of home (docs/protocol.md §1.7) and returns the
// client, the outcome (socketapi.Started or socketapi.AlreadyRunning) and the pid of the
// server that answered.
func (a *app) ensureRunning(home string) (*socketapi.Client, string, int, error) {
	return a.ensureRunningCtx(a.ctx, home)
}

// ensureRunningCtx is [app.ensureRunning] bounded by ctx instead of the invocation's
// context (an MCP tool call's auto-start ends with the call).
func (a *app) ensureRunningCtx(ctx context.Context, home string) (*socketapi.Client, string, int, error) {
	c := a.clientFor(home)
	outcome, pid, err := c.EnsureRunning(ctx, c.Spawn)
	if err != nil {
		return nil, "", 0, err
	}
	return c, outcome, pid, nil
}

// connect is the full preamble of every verb in the first row of docs/cli.md §1.3.
func (a *app) connect() (*socketapi.Client, error) {
	home, err := a.prepareHome()
	if err != nil {
		return nil, err
	}
	c, _, _, err := a.ensureRunning(home)
	return c, err
}

// invoke connects (auto-starting) and calls method m of the table with req through the
// typed client: the typed result, and the result as the server sent it (--json prints
// that).
func invoke[Req, Res any](a *app, m *api.Method[Req, Res], req Req) (Res, json.RawMessage, error) {
	c, err := a.connect()
	if err != nil {
		var zero Res
		return zero, nil, err
	}
	return socketapi.InvokeRaw(a.ctx, c, m, req)
}

// invokeResuming is invoke for a blocking verb: when the server goes away before the
// answer, a server is got back (auto-started, socketapi.Resuming) and the request made
// by next for that attempt (0 first) is sent to it.
func invokeResuming[Req, Res any](a *app, m *api.Method[Req, Res], next func(attempt int) Req) (Res, json.RawMessage, error) {
	return invokeResumingCtx(a.ctx, a, m, next)
}

// invokeResumingCtx is invokeResuming within ctx.
func invokeResumingCtx[Req, Res any](ctx context.Context, a *app, m *api.Method[Req, Res], next func(attempt int) Req) (Res, json.RawMessage, error) {
	c, err := a.connect()
	if err != nil {
		var zero Res
		return zero, nil, err
	}
	type reply struct {
		res Res
		raw json.RawMessage
	}
	r, err := socketapi.Resuming(ctx, c, m.Name, func(attempt int) (reply, error) {
		res, raw, err := socketapi.InvokeRaw(ctx, c, m, next(attempt))
		return reply{res, raw}, err
	})
	return r.res, r.raw, err
}

// request invokes m and prints the result: with --json the envelope of the raw result,
// else human renders the typed result (nil human prints it as indented JSON).
func request[Req, Res any](a *app, m *api.Method[Req, Res], req Req, human func(Res) error) error {
	return requestAt(a, "", m, req, human)
}

// SpawnDetached starts `<os.Executable()> server start --foreground` in a new session
// (setsid) with stdio on /dev/null and environ plus ORCR_HOME=home, and returns without
// waiting. A pipe on the child's descriptor 3 (see [startReportFlag]) carries the error
// the child fails to start with; a goroutine reaps the child should it exit while this
// process lives and then delivers that error, or the exit status of a child that died
// without one, on Spawned.Exited (nil for a clean exit: a losing start racer).
func SpawnDetached(home string, environ []string) (socketapi.Spawned, error) {
	exe, err := os.Executable()
	if err != nil {
		return socketapi.Spawned{}, fmt.Errorf("cannot locate the orcr executable: %w", err)
	}
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		exe = abs
	}
	report, w, err := os.Pipe()
	if err != nil {
		return socketapi.Spawned{}, err
	}
	cmd := exec.Command(exe, "server", "start", "--foreground", startReportFlag+"=3")
	cmd.Env = append(append([]string(nil), environ...), "ORCR_HOME="+home)
	// nil Stdin/Stdout/Stderr are connected to the null device by os/exec.
	cmd.ExtraFiles = []*os.File{w} // descriptor 3 in the child
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		report.Close()
		return socketapi.Spawned{}, err
	}
	exited := make(chan error, 1)
	go func() {
		// EOF comes when the child exits (or closes the descriptor).
		b, _ := io.ReadAll(io.LimitReader(report, maxStartReport))
		report.Close()
		exited <- startFailure(b, cmd.Wait())
	}()
	return socketapi.Spawned{PID: cmd.Process.Pid, Exited: exited}, nil
}
