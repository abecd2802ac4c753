package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// TestCatalogueCoverage: every socket method is reachable from a real CLI verb, and
// every verb either maps to catalogue methods or is local-only.
func TestCatalogueCoverage(t *testing.T) {
	t.Parallel()
	verbs := cli.Verbs()
	table := cli.VerbMethods()
	local := cli.LocalVerbs()
	for _, spec := range api.Methods {
		m := spec.Info()
		if !slices.Contains(verbs, m.CLI) {
			t.Errorf("method %s: CLI verb %q is not a command of the kong tree", m.Name, m.CLI)
			continue
		}
		if !slices.Contains(table[m.CLI], m.Name) && !slices.Contains(local, m.CLI) {
			t.Errorf("method %s: verb %q does not list it (lists %v)", m.Name, m.CLI, table[m.CLI])
		}
	}
	for _, v := range verbs {
		methods, remote := table[v]
		isLocal := slices.Contains(local, v)
		if remote == isLocal {
			t.Errorf("verb %q: talks to the server=%v, local=%v; want exactly one", v, remote, isLocal)
		}
		for _, name := range methods {
			if _, ok := api.Lookup(name); !ok {
				t.Errorf("verb %q maps to %q, which is not in socketapi.Methods", v, name)
			}
		}
	}
	for v := range table {
		if !slices.Contains(verbs, v) {
			t.Errorf("verb table names %q, which is not a command", v)
		}
	}
	want := []string{
		"agent adopt", "agent ask", "agent attach", "agent kill", "agent logs", "agent ls", "agent run", "agent send", "agent token", "agent wait",
		"api schema", "api snapshot",
		"budget extend", "budget ls",
		"dashboard",
		"fleet call", "fleet events", "fleet members", "fleet token",
		"loop create", "loop logs", "loop ls", "loop pause", "loop resume", "loop rm", "loop run ls", "loop run start", "loop run stop",
		"mcp serve", "mcp token",
		"provider check", "provider ls",
		"scaffold",
		"server disable", "server enable", "server logs", "server restart", "server start", "server status", "server stop",
		"skill install", "skill show",
		"statusline",
		"top",
		"usage",
	}
	if diff := cmp.Diff(want, verbs); diff != "" {
		t.Errorf("command tree (-want +got):\n%s", diff)
	}
}

// TestRequestParams checks the method and params each request-only verb sends, and
// that caller identity is forwarded exactly where docs/cli.md §2.1 says.
func TestRequestParams(t *testing.T) {
	t.Parallel()
	caller := map[string]any{"caller_id": "0190-abc", "caller_path": "review/worker"}
	with := func(p map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range p {
			out[k] = v
		}
		for k, v := range caller {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		args   []string
		stdin  string
		method string
		params map[string]any
	}{
		{[]string{"agent", "run", "--name", "w1", "-a", "codex", "-p", "hi", "--timeout", "5m"}, "", "agent.run",
			with(map[string]any{"name": "w1", "agent": "codex", "prompt": "hi", "timeout": "5m", "gc": "auto", "cwd": "/work/dir"})},
		{[]string{"agent", "run", "--path", "/a/b", "--gc", "never", "--cwd", "sub", "--model", "m", "--effort", "high"}, "", "agent.run",
			with(map[string]any{"path": "/a/b", "gc": "never", "cwd": "/work/dir/sub", "model": "m", "effort": "high"})},
		// --worktree takes its branch only when a value follows it.
		{[]string{"agent", "run", "--name", "w", "--worktree", "--keep-worktree"}, "", "agent.run",
			with(map[string]any{"name": "w", "gc": "auto", "cwd": "/work/dir", "worktree": true, "keep_worktree": true})},
		{[]string{"agent", "run", "--worktree", "feat/x", "--name", "w"}, "", "agent.run",
			with(map[string]any{"name": "w", "gc": "auto", "cwd": "/work/dir", "worktree": true, "worktree_branch": "feat/x"})},
		{[]string{"agent", "run", "--name", "w", "--worktree=fix"}, "", "agent.run",
			with(map[string]any{"name": "w", "gc": "auto", "cwd": "/work/dir", "worktree": true, "worktree_branch": "fix"})},
		{[]string{"agent", "run", "--name", "w", "--worktree"}, "", "agent.run",
			with(map[string]any{"name": "w", "gc": "auto", "cwd": "/work/dir", "worktree": true})},
		// agent ask runs its agent (gc immediate), then asks about it by uuid (the second
		// request, checked below), so that it can resume across a restart.
		{[]string{"agent", "ask", "--name", "q", "-p", "-", "--timeout", "5m"}, "from\nstdin\n", "agent.run",
			with(map[string]any{"name": "q", "prompt": "from\nstdin\n", "cwd": "/work/dir", "gc": "immediate", "timeout": "5m"})},
		// agent ask takes run's worktree flags, sent as run's params.
		{[]string{"agent", "ask", "--name", "q", "--worktree", "--keep-worktree"}, "", "agent.run",
			with(map[string]any{"name": "q", "cwd": "/work/dir", "gc": "immediate", "worktree": true, "keep_worktree": true})},
		{[]string{"agent", "ask", "--worktree", "feat/x", "--name", "q"}, "", "agent.run",
			with(map[string]any{"name": "q", "cwd": "/work/dir", "gc": "immediate", "worktree": true, "worktree_branch": "feat/x"})},
		{[]string{"agent", "ask", "--name", "q", "--worktree=fix"}, "", "agent.run",
			with(map[string]any{"name": "q", "cwd": "/work/dir", "gc": "immediate", "worktree": true, "worktree_branch": "fix"})},
		{[]string{"agent", "send", "w1", "hello"}, "", "agent.send", with(map[string]any{"target": "w1", "prompt": "hello"})},
		{[]string{"agent", "send", "w1", "hello", "-p", "flag wins"}, "", "agent.send", with(map[string]any{"target": "w1", "prompt": "flag wins"})},
		{[]string{"agent", "send", "w1", "-"}, "piped", "agent.send", with(map[string]any{"target": "w1", "prompt": "piped"})},
		{[]string{"agent", "logs", "w1", "--tail", "3", "--last-response"}, "", "agent.logs",
			with(map[string]any{"target": "w1", "tail": float64(3), "last_response": true})},
		{[]string{"agent", "adopt", "unmanaged/work/w1_p2", "--path", "team/api"}, "", "agent.adopt",
			with(map[string]any{"target": "unmanaged/work/w1_p2", "path": "team/api"})},
		{[]string{"agent", "token", "w1", "--rotate"}, "", "agent.token", with(map[string]any{"target": "w1", "rotate": true})},
		{[]string{"agent", "ls", "review/**", "--managed", "--all", "-a", "claude", "--status", "idle"}, "", "agent.ls",
			with(map[string]any{"pattern": "review/**", "managed": true, "all": true, "agent": "claude", "status": "idle"})},
		{[]string{"loop", "create", "nightly", "*/5 * * * *", "--max-concurrency", "2", "--", "sh", "-c", "echo --json"}, "", "loop.create",
			map[string]any{"name": "nightly", "cron": "*/5 * * * *", "max_concurrency": float64(2), "overlap": "queue", "cwd": "/work/dir",
				"command": []any{"sh", "-c", "echo --json"}}},
		{[]string{"loop", "create", "once", "--once-at", "10m", "--overlap", "skip", "--timeout", "1h", "--", "true"}, "", "loop.create",
			map[string]any{"name": "once", "once_at": "10m", "max_concurrency": float64(1), "overlap": "skip", "cwd": "/work/dir",
				"timeout": "1h", "command": []any{"true"}}},
		{[]string{"loop", "pause", "a", "b"}, "", "loop.pause", map[string]any{"names": []any{"a", "b"}}},
		{[]string{"loop", "resume", "a"}, "", "loop.resume", map[string]any{"names": []any{"a"}}},
		{[]string{"loop", "rm", "a", "--kill-active"}, "", "loop.rm", with(map[string]any{"names": []any{"a"}, "kill_active": true})},
		{[]string{"loop", "ls", "--all"}, "", "loop.ls", map[string]any{"all": true}},
		{[]string{"loop", "logs", "a", "--run", "r12345", "--source", "command", "--tail", "2"}, "", "loop.logs",
			map[string]any{"name": "a", "run": "r12345", "source": "command", "tail": float64(2)}},
		{[]string{"loop", "run", "start", "a"}, "", "loop.run.start", map[string]any{"name": "a"}},
		{[]string{"loop", "run", "stop", "a", "r12345"}, "", "loop.run.stop", map[string]any{"name": "a", "run": "r12345"}},
		{[]string{"loop", "run", "ls", "a", "--status", "ok"}, "", "loop.run.ls", map[string]any{"name": "a", "status": "ok"}},
		{[]string{"api", "snapshot"}, "", "api.snapshot", map[string]any{}},
		{[]string{"dashboard", "--rotate"}, "", "dashboard.login", map[string]any{"rotate": true}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			h := newHarness(t)
			h.vars["ORCR_ID"], h.vars["ORCR_PATH"] = "0190-abc", "review/worker"
			h.stdin = tc.stdin
			f := startFake(t, h.home, func(m string, _ map[string]any) (any, *wire.Error) {
				if m == "agent.run" {
					return map[string]any{"agent": map[string]any{"uuid": "0190-run"}}, nil
				}
				return map[string]any{}, nil
			})
			got := h.run(t, append([]string{"--json"}, tc.args...)...)
			if got.code != 0 {
				t.Fatalf("exit %d: %s %s", got.code, got.stdout, got.stderr)
			}
			reqs := f.requests()
			if tc.args[1] == "ask" {
				want := map[string]any{"resume": "0190-run"}
				if timeout, ok := tc.params["timeout"]; ok {
					want["timeout"] = timeout
				}
				if len(reqs) != 2 || reqs[1].Method != "agent.ask" || cmp.Diff(with(want), reqs[1].Params) != "" {
					t.Fatalf("got requests %+v, want agent.run, then agent.ask %v", reqs, with(want))
				}
				reqs = reqs[:1]
			}
			if len(reqs) != 1 {
				t.Fatalf("got %d requests %+v, want 1", len(reqs), reqs)
			}
			if reqs[0].Method != tc.method {
				t.Errorf("method: got %s, want %s", reqs[0].Method, tc.method)
			}
			if diff := cmp.Diff(tc.params, reqs[0].Params); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientSideChecks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args   []string
		reason string
	}{
		{[]string{"agent", "run"}, "name_required"},
		{[]string{"agent", "run", "--name", "a", "--path", "b"}, "name_required"},
		{[]string{"agent", "ask", "-p", "x"}, "name_required"},
		{[]string{"agent", "send", "w1"}, "prompt_required"},
		{[]string{"agent", "ls", "--managed", "--unmanaged"}, "conflicting_flags"},
		{[]string{"loop", "create", "a", "--", "true"}, "cadence_required"},
		{[]string{"loop", "create", "a", "* * * * *", "--once-at", "1m", "--", "true"}, "cadence_required"},
		{[]string{"loop", "create", "a", "* * * * *"}, "cli_parse"},
	}
	for _, tc := range cases {
		h := newHarness(t)
		f := startFake(t, h.home, nil)
		got := h.run(t, append([]string{"--json"}, tc.args...)...)
		env := decodeEnvelope(t, got.stdout)
		if got.code != 1 || env.Error == nil || env.Error.Reason() != tc.reason {
			t.Errorf("orcr %v: got exit %d %s, want 1 %s", tc.args, got.code, got.stdout, tc.reason)
		}
		if n := len(f.requests()); n != 0 {
			t.Errorf("orcr %v: sent %d requests, want none", tc.args, n)
		}
	}
}

func TestAgentWaitExit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		result string
		want   int
	}{
		{"all ok", `{"targets":[{"path":"a","ok":true,"reason":"turn_complete"}],"all_ok":true,"timed_out":false}`, 0},
		{"blocked", `{"targets":[{"path":"a","ok":false,"reason":"killed"},{"path":"b","ok":false,"reason":"blocked:question"}],"all_ok":false}`, 4},
		{"dead", `{"targets":[{"path":"a","ok":false,"reason":"wait_timeout"},{"path":"b","ok":false,"reason":"timeout"}],"all_ok":false,"timed_out":true}`, 5},
		{"wait timeout", `{"targets":[{"path":"a","ok":false,"reason":"wait_timeout"}],"all_ok":false,"timed_out":true}`, 3},
		{"otherwise", `{"targets":[],"all_ok":false,"timed_out":false}`, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) { return json.RawMessage(tc.result), nil })
			got := h.run(t, "agent", "wait", "a", "b", "--json")
			if got.code != tc.want {
				t.Errorf("exit: got %d, want %d", got.code, tc.want)
			}
			if env := decodeEnvelope(t, got.stdout); !env.OK {
				t.Errorf("got %s, want a success envelope", got.stdout)
			}
		})
	}
	h := newHarness(t)
	startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) {
		return json.RawMessage(`{"targets":[{"path":"z","ok":true,"reason":"completed"},{"path":"a","ok":false,"reason":"killed"}],"all_ok":false}`), nil
	})
	got := h.run(t, "agent", "wait", "**")
	if want := "a  killed\nz  completed\n"; got.stdout != want || got.code != 5 {
		t.Errorf("human wait: got %q exit %d, want %q exit 5", got.stdout, got.code, want)
	}
}

// agent wait --any: the exit code is the first settled target's alone, and the human
// output names it on the first line, then the rest by path.
func TestAgentWaitAny(t *testing.T) {
	t.Parallel()
	const pending = `{"uuid":"p","path":"a","ok":false,"reason":"pending"}`
	cases := []struct {
		name   string
		result string
		lines  string
		want   int
	}{
		{"first ok, the rest pending", `{"targets":[` + pending + `,{"uuid":"f","path":"m","ok":true,"reason":"turn_complete"}],"all_ok":false,"first_settled":"f"}`,
			"m  turn_complete\na  pending\n", 0},
		// Another settled target does not change the code: b is killed (5), the first is ok.
		{"first ok, another dead", `{"targets":[{"uuid":"k","path":"b","ok":false,"reason":"killed"},{"uuid":"f","path":"c","ok":true,"reason":"completed"}],"all_ok":false,"first_settled":"f"}`,
			"c  completed\nb  killed\n", 0},
		{"first blocked", `{"targets":[` + pending + `,{"uuid":"f","path":"b","ok":false,"reason":"blocked:limit"}],"all_ok":false,"first_settled":"f"}`,
			"b  blocked:limit\na  pending\n", 4},
		{"first dead", `{"targets":[` + pending + `,{"uuid":"f","path":"b","ok":false,"reason":"canceled"}],"all_ok":false,"first_settled":"f"}`,
			"b  canceled\na  pending\n", 5},
		{"timed out with none settled", `{"targets":[{"uuid":"p","path":"a","ok":false,"reason":"wait_timeout"}],"all_ok":false,"timed_out":true}`,
			"a  wait_timeout\n", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			f := startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) { return json.RawMessage(tc.result), nil })
			got := h.run(t, "agent", "wait", "--any", "a", "b")
			if got.stdout != tc.lines || got.code != tc.want {
				t.Errorf("agent wait --any: got %q exit %d, want %q exit %d", got.stdout, got.code, tc.lines, tc.want)
			}
			if reqs := f.requests(); len(reqs) != 1 || reqs[0].Params["any"] != true {
				t.Errorf("requests: got %+v, want one agent.wait with any: true", reqs)
			}
			if got := h.run(t, "agent", "wait", "--any", "a", "b", "--json"); got.code != tc.want || !decodeEnvelope(t, got.stdout).OK {
				t.Errorf("agent wait --any --json: got %s exit %d, want a success envelope, exit %d", got.stdout, got.code, tc.want)
			}
		})
	}
}

func TestAgentKill(t *testing.T) {
	t.Parallel()
	killResult := `{"killed":[],"skipped":[{"uuid":"u","path":"x","reason":"force_required"}],"all_killed":false}`
	t.Run("all skipped exits 7", func(t *testing.T) {
		h := newHarness(t)
		startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) { return json.RawMessage(killResult), nil })
		got := h.run(t, "agent", "kill", "x")
		if got.code != 7 || got.stdout != "skipped x (force_required)\n" {
			t.Errorf("got exit %d %q", got.code, got.stdout)
		}
	})
	// A kill asks for progress: the frames show on stderr once it has run a second,
	// and --json prints only the final envelope on stdout.
	t.Run("progress on stderr, result alone on stdout", func(t *testing.T) {
		h := newHarness(t)
		startFakeWith(t, h.home, func(string, map[string]any) (any, *wire.Error) {
			return json.RawMessage(`{"killed":[{"uuid":"u","path":"x"},{"uuid":"v","path":"y"}],"skipped":[],"all_killed":true}`), nil
		}, func(method string, id json.RawMessage, progress bool, write func(any)) {
			if !progress {
				t.Errorf("%s did not ask for progress", method)
				return
			}
			for done := range 3 {
				write(wire.ProgressFrame{ID: id, Progress: wire.Progress{Done: done, Total: 2}})
				time.Sleep(600 * time.Millisecond) // the server at work between frames
			}
		})
		got := h.run(t, "agent", "kill", "x", "y", "--json")
		if got.code != 0 || strings.Count(got.stdout, "\n") != 1 || !decodeEnvelope(t, got.stdout).OK {
			t.Errorf("stdout %q exit %d, want one success envelope", got.stdout, got.code)
		}
		if !strings.Contains(got.stderr, "killed 1 of 2\n") && !strings.Contains(got.stderr, "killed 2 of 2\n") {
			t.Errorf("stderr %q, want a progress line", got.stderr)
		}
		if strings.Contains(got.stderr, "killed 0 of 2") {
			t.Errorf("stderr %q: a line in the call's first second", got.stderr)
		}
	})
	t.Run("tty declined", func(t *testing.T) {
		h := newHarness(t)
		h.tty, h.stdin = true, "n\n"
		f := startFake(t, h.home, func(_ string, p map[string]any) (any, *wire.Error) {
			return json.RawMessage(`{"preview":true,"targets":[{"uuid":"u","path":"x","status":"idle","managed":true}]}`), nil
		})
		got := h.run(t, "agent", "kill", "x")
		if got.code != 0 || got.stderr != "Matched 1 agent(s):\n  x [idle]\nKill these 1 agent(s)? [y/N] aborted\n" {
			t.Errorf("got %+v", got)
		}
		if reqs := f.requests(); len(reqs) != 1 || reqs[0].Params["preview"] != true {
			t.Errorf("requests: %+v, want only the preview", reqs)
		}
	})
	t.Run("tty accepted", func(t *testing.T) {
		h := newHarness(t)
		h.tty, h.stdin = true, " yes \n"
		f := startFake(t, h.home, func(_ string, p map[string]any) (any, *wire.Error) {
			if p["preview"] == true {
				return json.RawMessage(`{"preview":true,"targets":[{"uuid":"u","path":"x","status":"idle","managed":true}]}`), nil
			}
			return json.RawMessage(`{"killed":[{"uuid":"u","path":"x"}],"skipped":[],"all_killed":true}`), nil
		})
		got := h.run(t, "agent", "kill", "x")
		if got.code != 0 || got.stdout != "killed x\n" {
			t.Errorf("got %+v", got)
		}
		if n := len(f.requests()); n != 2 {
			t.Errorf("got %d requests, want preview + kill", n)
		}
	})
}

func TestAgentAskDied(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) {
		return nil, wire.Conflict("agent ended", "uuid", "u", "path", "q", "reason", "killed", "exit_reason", "killed")
	})
	if got := h.run(t, "agent", "ask", "--name", "q", "--json"); got.code != 5 {
		t.Errorf("exit: got %d, want 5", got.code)
	}
}

func TestAgentRunHuman(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tty = true
	startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) {
		return json.RawMessage(`{"agent":{"uuid":"0190-1","path":"w1","status":"queued"},"permissions":"bypass"}`), nil
	})
	got := h.run(t, "agent", "run", "--name", "w1")
	if got.code != 0 || got.stdout != "w1 0190-1\n" || !strings.HasPrefix(got.stderr, "wait: orcr agent wait w1 · ") {
		t.Errorf("got %+v", got)
	}
}

func TestNotImplementedServerAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	startFake(t, h.home, func(m string, _ map[string]any) (any, *wire.Error) {
		return nil, wire.Invalid("not_implemented", m+" is not implemented yet")
	})
	got := h.run(t, "loop", "logs", "nightly")
	if got.code != 1 || got.stderr != "error: invalid_request: loop.logs is not implemented yet ({\"reason\":\"not_implemented\"})\n" {
		t.Errorf("got %+v", got)
	}
}

func TestAgentLogsFollow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var calls atomic.Int32
	f := startFake(t, h.home, func(_ string, p map[string]any) (any, *wire.Error) {
		entries := `{"role":"user","kind":"text","text":"hi"},{"role":"assistant","kind":"tool_use","text":"x","tool":"Bash"}`
		resolved := "active"
		if calls.Add(1) > 1 {
			entries += `,{"role":"assistant","kind":"text","text":"done"}`
			resolved = "latest_ended"
		}
		return json.RawMessage(`{"uuid":"u","path":"w1","resolved":"` + resolved + `","created_at":1,"entries":[` + entries + `]}`), nil
	})
	got := h.run(t, "agent", "logs", "w1", "--follow", "--tail", "1")
	if want := "assistant [tool_use] Bash\nassistant [text] done\n"; got.code != 0 || got.stdout != want {
		t.Errorf("got exit %d %q, want 0 %q (stderr %q)", got.code, got.stdout, want, got.stderr)
	}
	for _, r := range f.requests() {
		if _, ok := r.Params["tail"]; ok {
			t.Errorf("follow request carried tail: %v", r.Params)
		}
	}

	calls.Store(0)
	got = h.run(t, "--json", "agent", "logs", "w1", "--follow", "--tail", "1")
	lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"entries":[{"role":"assistant","kind":"tool_use","text":"x","tool":"Bash"}]`) ||
		lines[1] != `{"ok":true,"result":{"entries":[{"role":"assistant","kind":"text","text":"done"}]}}` {
		t.Errorf("--json follow: got %q", got.stdout)
	}
}
