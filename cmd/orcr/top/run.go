package top

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// fps bounds how often the terminal is repainted (Bubble Tea's renderer ticks at it and
// writes only what changed); the tree itself changes at most once per frameBudget.
const fps = 30

// Reconnect backoff of the watch: from the first retry to the longest wait.
const (
	retryFirst = 250 * time.Millisecond
	retryMax   = 2 * time.Second
)

// ClientActions are the actions of the keys on the Go SDK client cl; self is the orcr
// binary `a` runs as `orcr agent attach <uuid>`.
func ClientActions(cl *socketapi.Client, self string) Actions {
	return Actions{
		Send: func(ctx context.Context, host, uuid, prompt string) (api.SendResult, error) {
			return onHost(ctx, cl, host, api.AgentSend, api.SendRequest{Target: uuid, Prompt: prompt}, cl.Send)
		},
		Kill: func(ctx context.Context, host string, targets []string) (api.KillResult, error) {
			return onHost(ctx, cl, host, api.AgentKill, api.KillRequest{Targets: targets}, cl.Kill)
		},
		Wait: func(ctx context.Context, host string, targets []string) (api.WaitResult, error) {
			// Locally the SDK's wait, which rides over a restart of the server.
			return onHost(ctx, cl, host, api.AgentWait, api.WaitRequest{Targets: targets}, cl.Wait)
		},
		Detail: func(ctx context.Context, host, uuid string) ([]api.LogEntry, *api.Response, error) {
			bound := 5 * time.Second
			if host != "" {
				bound = memberLsBound // the member's own bound and the way back
			}
			ctx, cancel := context.WithTimeout(ctx, bound)
			defer cancel()
			logs := func(req api.LogsRequest) (api.LogsResult, error) {
				return onHost(ctx, cl, host, api.AgentLogs, req, cl.Logs)
			}
			tail := 6
			entries, err := logs(api.LogsRequest{Target: uuid, Tail: &tail})
			if err != nil {
				return nil, nil, err
			}
			last, err := logs(api.LogsRequest{Target: uuid, LastResponse: true})
			if err != nil {
				// No final response yet is no error for the pane: the entries still show.
				return entries.Entries, nil, nil
			}
			return entries.Entries, last.Response, nil
		},
		Attach: func(target string) *exec.Cmd {
			// --quiet: top's detail pane gives the detach hint and its status line the
			// outcome, so the attach prints neither on the terminal top hands it.
			c := exec.Command(self, "agent", "attach", "--quiet", target)
			c.Env = os.Environ()
			return c
		},
	}
}

// Run shows the dashboard on the terminal (in, out) until q, Ctrl-C, SIGTERM or ctx
// ends, restoring the terminal on every one of them. The watch reader runs beside the
// program: the snapshot, then every event, then — when the watch ends (server stopping,
// cursor expired, connection dropped) — "reconnecting…" and a fresh watch.open with
// backoff, for as long as the program runs; with cfg.Fleet the fleet reader
// ([FeedFleet]) beside it. It never starts a server: a server someone stopped stays
// stopped until they start it.
func Run(ctx context.Context, cl *socketapi.Client, cfg Config, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := NewModel(cfg)
	// No signal handler of bubbletea's own: SIGINT and SIGTERM are the CLI's
	// (cli.NotifyContext), which cancels ctx with the signal as its cause, and that ends
	// the program. With both handlers a SIGTERM raced: when bubbletea's quit won, top
	// returned before the cause was set and exited 0 instead of 143.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithFPS(fps), tea.WithoutSignalHandler()}
	if cfg.NoColor {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(m, opts...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if cfg.Fleet {
			fleetDone := make(chan struct{})
			go func() {
				defer close(fleetDone)
				FeedFleet(ctx, cl, p.Send)
			}()
			defer func() { <-fleetDone }()
		}
		Feed(ctx, cl, p.Send)
	}()
	_, err := p.Run()
	cancel()
	<-done
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// statusEvery is how often top reads server.status again for its header: quota windows
// are recorded without an event of their own (docs/top.md §5).
const statusEvery = 5 * time.Second

// Feed reads watches of cl into send until ctx ends: snapshotMsg at each (re)open, an
// eventMsg per event, lostMsg when a watch ends or cannot open, and statusMsg every
// statusEvery. Each opened watch is a new generation, so events of a dead watch are
// never applied on top of a fresh snapshot.
func Feed(ctx context.Context, cl *socketapi.Client, send func(tea.Msg)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		t := time.NewTicker(statusEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			s, err := cl.Status(sctx)
			cancel()
			if err == nil {
				send(statusMsg{status: s})
			}
		}
	})
	gen, attempt := 0, 0
	wait := retryFirst
	for ctx.Err() == nil {
		w, err := cl.OpenWatch(ctx)
		if err != nil {
			attempt++
			send(lostMsg{gen: gen, err: err, attempt: attempt})
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(wait*2, retryMax)
			continue
		}
		attempt, wait = 0, retryFirst
		gen++
		var st *api.StatusResult
		sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
		if s, err := cl.Status(sctx); err == nil {
			st = &s
		}
		scancel()
		send(snapshotMsg{gen: gen, snap: w.Snapshot, status: st})
		for {
			ev, err := w.Next()
			if err != nil {
				w.Close()
				if ctx.Err() == nil {
					send(lostMsg{gen: gen, err: err})
				}
				break
			}
			send(eventMsg{gen: gen, ev: ev})
		}
	}
}
