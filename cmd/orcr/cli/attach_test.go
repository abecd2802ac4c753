package cli_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// attachFake is a fake server answering the three attach methods: prepare with
// command and fallback, heartbeat with heartbeatOK.
type attachFake struct {
	mu          sync.Mutex
	calls       []request
	heartbeatOK bool
}

func (f *attachFake) start(t *testing.T, h *harness, command, fallback []string) {
	t.Helper()
	startFake(t, h.home, func(method string, p map[string]any) (any, *wire.Error) {
		f.mu.Lock()
		f.calls = append(f.calls, request{method, p})
		ok := f.heartbeatOK
		f.mu.Unlock()
		switch method {
		case "agent.attach.prepare":
			res := map[string]any{"uuid": "0190-1", "path": "w1", "lease_id": "lease-1", "takeover": p["takeover"] == true,
				"ttl_ms": 1000, "command": command}
			if fallback != nil {
				res["fallback_command"] = fallback
			}
			return res, nil
		case "agent.attach.heartbeat":
			return map[string]any{"ok": ok}, nil
		case "agent.attach.release":
			return map[string]any{"released": true}, nil
		}
		return nil, wire.Invalid("not_implemented", method+" is not implemented")
	})
}

// methods returns the methods called, heartbeats counted as one "heartbeat×n" entry.
func (f *attachFake) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if c.Method != "agent.attach.heartbeat" {
			out = append(out, c.Method)
		} else if len(out) == 0 || out[len(out)-1] != "heartbeat" {
			out = append(out, "heartbeat")
		}
	}
	return out
}

func (f *attachFake) param(method, key string) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c.Method == method {
			return c.Params[key]
		}
	}
	return nil
}

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

// docs/cli.md §5.6: prepare, run the command on the CLI's terminal while heartbeating
// every max(ttl/2, 1 s), release when it exits, print `detached <path>`, exit with the
// command's status.
func TestAgentAttach(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		command   []string
		fallback  []string
		hbOK      bool
		wantCode  int
		wantOut   string
		wantErr   string
		wantCalls string
	}{
		{name: "heartbeats while attached", args: []string{"w1"}, command: sh("sleep 1.4; echo attached"), hbOK: true,
			wantOut: "attached\ndetached w1\n", wantCalls: "agent.attach.prepare heartbeat agent.attach.release"},
		{name: "exit status passed through", args: []string{"w1"}, command: sh("exit 3"),
			wantCode: 3, wantOut: "detached w1\n", wantCalls: "agent.attach.prepare agent.attach.release"},
		{name: "fallback when herdr refuses the pane id", args: []string{"w1"}, command: sh("echo refused >&2; exit 1"),
			fallback: sh("echo by terminal"), wantOut: "by terminal\ndetached w1\n", wantErr: "refused\n",
			wantCalls: "agent.attach.prepare agent.attach.release"},
		{name: "json", args: []string{"w1", "--takeover", "--json"}, command: sh("true"),
			wantOut:   `{"ok":true,"result":{"uuid":"0190-1","path":"w1","attached":true,"takeover":true}}` + "\n",
			wantCalls: "agent.attach.prepare agent.attach.release"},
		{name: "command cannot run", args: []string{"w1"}, command: []string{"/nonexistent/herdr", "attach"},
			wantCode: 2, wantErr: "error: environment_error: cannot run herdr's attach command",
			wantCalls: "agent.attach.prepare agent.attach.release"},
		{name: "empty command", args: []string{"w1"}, command: []string{},
			wantCode: 1, wantErr: "error: server_error: the server returned an empty attach command",
			wantCalls: "agent.attach.prepare agent.attach.release"},
		{name: "lease lost", args: []string{"w1"}, command: sh("sleep 1.4"), hbOK: false,
			wantOut: "detached w1\n", wantErr: "warning: the attach lease of w1 ran out during the session",
			wantCalls: "agent.attach.prepare heartbeat agent.attach.release"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			f := &attachFake{heartbeatOK: tc.hbOK}
			f.start(t, h, tc.command, tc.fallback)
			got := h.run(t, append([]string{"agent", "attach"}, tc.args...)...)
			if got.code != tc.wantCode || got.stdout != tc.wantOut || !strings.HasPrefix(got.stderr, tc.wantErr) {
				t.Errorf("agent attach %v: got exit %d stdout %q stderr %q, want exit %d stdout %q stderr starting %q",
					tc.args, got.code, got.stdout, got.stderr, tc.wantCode, tc.wantOut, tc.wantErr)
			}
			if calls := strings.Join(f.methods(), " "); calls != tc.wantCalls {
				t.Errorf("methods: got %s, want %s", calls, tc.wantCalls)
			}
			if pid := f.param("agent.attach.prepare", "client_pid"); pid != float64(4242) {
				t.Errorf("prepare client_pid: got %v, want the CLI's pid 4242", pid)
			}
			if id := f.param("agent.attach.release", "lease_id"); id != "lease-1" {
				t.Errorf("release lease_id: got %v, want lease-1", id)
			}
		})
	}
}

// A command that ran longer than the refusal window is not retried with the fallback,
// whatever its status.
func TestAgentAttachNoFallbackAfterARealSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := &attachFake{heartbeatOK: true}
	f.start(t, h, sh("sleep 2.2; exit 4"), sh("echo fallback"))
	start := time.Now()
	got := h.run(t, "agent", "attach", "w1")
	if got.code != 4 || got.stdout != "detached w1\n" {
		t.Errorf("got %+v after %v, want exit 4 and no fallback", got, time.Since(start))
	}
}

// An interrupt (SIGINT through cli.NotifyContext) is forwarded to the attach command;
// once it has exited the lease is released and the CLI reports the interrupt.
func TestAgentAttachInterrupted(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := &attachFake{heartbeatOK: true}
	f.start(t, h, sh("trap 'echo got INT; exit 9' INT; while :; do sleep 0.05; done"), nil)
	var out, errb syncBuffer
	var prepared time.Time
	got, _ := runInterrupted(t, h.env(&out, &errb), &out, &errb, func() bool {
		if prepared.IsZero() && len(f.methods()) > 0 {
			prepared = time.Now()
		}
		return !prepared.IsZero() && time.Since(prepared) > 300*time.Millisecond // the trap is set
	}, "agent", "attach", "w1")
	if got.code != 130 || !strings.HasPrefix(got.stdout, "got INT\n") || !strings.Contains(got.stderr, "interrupted by SIGINT") {
		t.Errorf("got %+v, want the command to see SIGINT, then exit 130", got)
	}
	if calls := strings.Join(f.methods(), " "); calls != "agent.attach.prepare agent.attach.release" {
		t.Errorf("methods: got %s, want prepare then release", calls)
	}
}
