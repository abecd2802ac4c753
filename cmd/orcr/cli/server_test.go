package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/tests/poll"
)

func TestExitCodeMapping(t *testing.T) {
	t.Parallel()
	for _, ci := range wire.Codes {
		t.Run(string(ci.Code), func(t *testing.T) {
			h := newHarness(t)
			canned := wire.New(ci.Code, "canned "+string(ci.Code), "reason", "because", "target", "a/b")
			startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) { return nil, canned })

			got := h.run(t, "api", "snapshot")
			if got.code != ci.Exit {
				t.Errorf("exit: got %d, want %d", got.code, ci.Exit)
			}
			want := "error: " + string(ci.Code) + ": canned " + string(ci.Code) + ` ({"reason":"because","target":"a/b"})` + "\n"
			if got.stderr != want || got.stdout != "" {
				t.Errorf("human: got stdout %q stderr %q, want stderr %q", got.stdout, got.stderr, want)
			}

			got = h.run(t, "api", "snapshot", "--json")
			if got.code != ci.Exit {
				t.Errorf("--json exit: got %d, want %d", got.code, ci.Exit)
			}
			wantLine := `{"ok":false,"error":{"code":"` + string(ci.Code) + `","message":"canned ` + string(ci.Code) + `","details":{"reason":"because","target":"a/b"}}}` + "\n"
			if got.stdout != wantLine || got.stderr != "" {
				t.Errorf("--json: got stdout %q stderr %q, want %q", got.stdout, got.stderr, wantLine)
			}
		})
	}
}

func TestServerStopNotRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	home := filepath.Join(h.home, "absent")
	h.vars["ORCR_HOME"] = home

	got := h.run(t, "server", "stop")
	if got.code != 0 || got.stdout != "server not_running\n" {
		t.Errorf("server stop: got exit %d stdout %q, want 0 %q", got.code, got.stdout, "server not_running\n")
	}
	got = h.run(t, "server", "stop", "--json")
	if want := `{"ok":true,"result":{"status":"not_running"}}` + "\n"; got.code != 0 || got.stdout != want {
		t.Errorf("server stop --json: got exit %d stdout %q, want 0 %q", got.code, got.stdout, want)
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("server stop created the home %s", home)
	}
}

func TestServerStopRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) {
		return map[string]any{"status": "stopping"}, nil
	})
	got := h.run(t, "server", "stop")
	if got.code != 0 || got.stdout != "server stopped\n" {
		t.Errorf("server stop: got exit %d stdout %q, want 0 %q", got.code, got.stdout, "server stopped\n")
	}
	if reqs := f.requests(); len(reqs) != 1 || reqs[0].Method != "server.stop" {
		t.Errorf("server stop sent %+v, want one server.stop", reqs)
	}
}

func TestServerStart(t *testing.T) {
	t.Parallel()
	t.Run("already running", func(t *testing.T) {
		h := newHarness(t)
		startFake(t, h.home, nil)
		got := h.run(t, "server", "start", "--json")
		if want := `{"ok":true,"result":{"status":"already_running","pid":1}}` + "\n"; got.code != 0 || got.stdout != want {
			t.Errorf("got exit %d stdout %q, want 0 %q", got.code, got.stdout, want)
		}
		got = h.run(t, "server", "start")
		if want := "server already running (pid 1)\n"; got.code != 0 || got.stdout != want {
			t.Errorf("got exit %d stdout %q, want 0 %q", got.code, got.stdout, want)
		}
	})
	t.Run("spawns", func(t *testing.T) {
		h := newHarness(t)
		var spawned []string
		h.spawn = func(home string) error {
			spawned = append(spawned, home)
			startFake(t, home, nil)
			return nil
		}
		got := h.run(t, "server", "start")
		if got.code != 0 || got.stdout != "server started\n" {
			t.Errorf("got exit %d stdout %q stderr %q, want 0 %q", got.code, got.stdout, got.stderr, "server started\n")
		}
		if len(spawned) != 1 || spawned[0] != h.home {
			t.Errorf("spawned %v, want [%s]", spawned, h.home)
		}
	})
	t.Run("spawn fails", func(t *testing.T) {
		h := newHarness(t)
		got := h.run(t, "--json", "server", "start")
		env := decodeEnvelope(t, got.stdout)
		if got.code != 2 || env.Error == nil || env.Error.Cause() != "server_start_failed" {
			t.Errorf("got exit %d %q, want 2 server_start_failed", got.code, got.stdout)
		}
	})
	t.Run("foreground", func(t *testing.T) {
		h := newHarness(t)
		var opts cli.ServeOptions
		h.serve = func(ctx context.Context, o cli.ServeOptions) (string, error) {
			opts = o
			o.Warnf("unknown key %q", "x")
			return "started", nil
		}
		got := h.run(t, "server", "start", "--foreground")
		if got.code != 0 || got.stdout != "server started\n" || got.stderr != "warning: unknown key \"x\"\n" {
			t.Errorf("got %+v", got)
		}
		if opts.Home != h.home || opts.Getenv("ORCR_HOME") != h.home {
			t.Errorf("Serve got home %q, want %q", opts.Home, h.home)
		}
	})
	t.Run("foreground fails", func(t *testing.T) {
		h := newHarness(t)
		h.serve = func(ctx context.Context, o cli.ServeOptions) (string, error) {
			return "", wire.Env("store_locked", "locked")
		}
		if got := h.run(t, "server", "start", "--foreground"); got.code != 2 {
			t.Errorf("got exit %d, want 2", got.code)
		}
	})
}

func TestConfigErrorsAbortBeforeServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := startFake(t, h.home, nil)
	if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := h.run(t, "--json", "server", "status")
	env := decodeEnvelope(t, got.stdout)
	if got.code != 2 || env.Error == nil || env.Error.Cause() != "config_invalid" {
		t.Errorf("got exit %d %q, want 2 config_invalid", got.code, got.stdout)
	}
	if reqs := f.requests(); len(reqs) != 0 {
		t.Errorf("the server was contacted: %+v", reqs)
	}

	if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte(`{"bogus_key": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got = h.run(t, "--json", "api", "snapshot")
	if got.code != 0 || !strings.HasPrefix(got.stderr, "warning: ") {
		t.Errorf("got exit %d stderr %q, want 0 and a warning line", got.code, got.stderr)
	}
	decodeEnvelope(t, got.stdout)
}

func TestUnsafeHome(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if err := os.Chmod(h.home, 0o777); err != nil {
		t.Fatal(err)
	}
	got := h.run(t, "--json", "api", "snapshot")
	env := decodeEnvelope(t, got.stdout)
	if got.code != 2 || env.Error == nil || env.Error.Cause() != "unsafe_home" {
		t.Errorf("got exit %d %q, want 2 unsafe_home", got.code, got.stdout)
	}
}

const statusJSON = `{"version":"0.1.0","protocol":1,"pid":77,"uptime_ms":5,
 "socket":"/h/orcr.sock","store":"/h/orcr.db",
 "herdr":{"bin":"/bin/herdr","reachable":true,"version":null,"protocol":null,"socket":null,"session":"orcr","session_running":false},
 "integrations":{"codex":{"orcr":true,"herdr":false},"claude":{"orcr":true,"herdr":true}},
 "counts":{"live":3,"queued":1,"starting":1,"blocked":0,"stalled":1,"unmanaged":2,"unmarked_panes":0,"unknown_marked_panes":4},
 "stalled":[{"uuid":"0190a0b2-0000-7000-8000-000000000001","path":"fix/tests","stalled_at":1700000000000}],
 "paused":[{"provider":"claude","since":1700000000000,"until":1700003600000,"agent_uuid":"0190a0b2-0000-7000-8000-000000000002","source":"reset","message":"usage limit reached"},
  {"provider":"codex","account":"ada@example.com","since":1700000000000,"until":1700003600000,"source":"quota"}],
 "quota":[{"provider":"codex","account":"","window":"primary","used_percent":96,"window_minutes":300,"resets_at":1700003600000,"observed_at":1700000000000,"state":"paused"},
  {"provider":"codex","account":"work","window":"secondary","used_percent":12.25,"window_minutes":0,"resets_at":0,"observed_at":1700000000000,"state":"ok"}],
 "loops_firing":false,
 "loops":[{"name":"nightly","status":"active","next_fire_at":1700000000000},{"name":"once","status":"paused","next_fire_at":null}],
 "drift":{"lost":1,"repaired":2,"unknown_marked_panes":4,"unmarked_panes":0},
 "retention":{"ended_for_ms":604800000,"ended_max":null,"trimmed_total":12,"last_trim_at":1700000000000},
 "remote":{"listening":true,"address":"127.0.0.1:7788","tls":false,"connections":3,"replays_active":1,"replays_waiting":0,"replays_peak":4},
 "fleet":{"host":"web","hub":false,"connection":"reconnecting","url":null,"published":40,"lag":3,"last_publish_at":1700000000000,"error":"nats: timeout"},
 "notify":[{"name":"desk","type":"herdr","pending":0,"delivered":5,"failed":0,"dropped":0,"last_error":null,"last_error_at":null,"last_delivered_at":1700000000000,"next_attempt_at":null},
  {"name":"hook","type":"webhook","pending":2,"delivered":1,"failed":1,"dropped":3,"last_error":"HTTP 503","last_error_at":1700000000000,"last_delivered_at":null,"next_attempt_at":1700000004000}]}`

func TestServerStatus(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := startFake(t, h.home, func(method string, _ map[string]any) (any, *wire.Error) {
		return json.RawMessage(statusJSON), nil
	})
	got := h.run(t, "server", "status")
	want := `orcr server
  version   "0.1.0"
  protocol  1
  socket    "/h/orcr.sock"
  store     "/h/orcr.db"
  herdr     reachable=true session="orcr" running=false
  counts    live=3 queued=1 starting=1 blocked=0 stalled=1 unmanaged=2 unmarked_panes=0 unknown_marked_panes=4
    stalled fix/tests stalled_at=1700000000000
  paused    claude until=1700003600000 (2023-11-14T23:13:20Z) source=reset agent=0190a0b2-0000-7000-8000-000000000002
  paused    codex/ada@example.com until=1700003600000 (2023-11-14T23:13:20Z) source=quota agent=
  quota     codex primary used=96.0% state=paused resets=` + time.UnixMilli(1700003600000).Local().Format("2006-01-02 15:04:05") + `
  quota     codex/work secondary used=12.2% state=ok resets=-
  drift     lost=1 repaired=2
  retention ended_for=7d ended_max=off trimmed_total=12 last_trim_at=1700000000000
  remote    listening="127.0.0.1:7788" tls=false connections=3 replays=1 waiting=0
  fleet     host="web" hub=false connection=reconnecting url=- published=40 lag=3 last_publish_at=1700000000000
      error="nats: timeout"
  integrations
    claude   orcr=ok herdr=ok
    codex    orcr=ok herdr=missing
  loops     firing_durable=false
    nightly          status=active next_fire_at=1700000000000
    once             status=paused next_fire_at=-
  notify
    desk             herdr   pending=0 delivered=5 failed=0 dropped=0 next_attempt_at=-
    hook             webhook pending=2 delivered=1 failed=1 dropped=3 next_attempt_at=1700000004000
      last_error="HTTP 503"
`
	if got.code != 0 {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	if diff := cmp.Diff(want, got.stdout); diff != "" {
		t.Errorf("server status (-want +got):\n%s", diff)
	}
	if reqs := f.requests(); len(reqs) != 1 || reqs[0].Method != "server.status" {
		t.Errorf("requests: got %+v, want one server.status", reqs)
	}

	got = h.run(t, "server", "status", "--json")
	env := decodeEnvelope(t, got.stdout)
	var gotRes, wantRes any
	_ = json.Unmarshal(env.Result, &gotRes)
	_ = json.Unmarshal([]byte(statusJSON), &wantRes)
	if diff := cmp.Diff(wantRes, gotRes); diff != "" || !env.OK {
		t.Errorf("server status --json (-want +got):\n%s", diff)
	}
}

func TestServerStatusNoIntegrations(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) {
		return map[string]any{"integrations": map[string]any{}, "loops": []any{}}, nil
	})
	got := h.run(t, "server", "status")
	if !strings.Contains(got.stdout, "\n  integrations (none)\n  loops     firing_durable=null\n") {
		t.Errorf("got %q", got.stdout)
	}
}

func writeLog(t *testing.T, home, content string) string {
	t.Helper()
	dir := filepath.Join(home, "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "server.log")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestServerLogs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	got := h.run(t, "server", "logs", "--json")
	if want := `{"ok":true,"result":{"lines":[]}}` + "\n"; got.code != 0 || got.stdout != want {
		t.Errorf("missing log: got exit %d %q, want %q", got.code, got.stdout, want)
	}

	writeLog(t, h.home, `{"ts":1,"level":"info","msg":"a"}`+"\n"+"not json\n"+`{"ts":3, "level":"warn","msg":"c"}`+"\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"server", "logs"}, `{"ts":1,"level":"info","msg":"a"}` + "\nnot json\n" + `{"ts":3, "level":"warn","msg":"c"}` + "\n"},
		{[]string{"server", "logs", "--tail", "2"}, "not json\n" + `{"ts":3, "level":"warn","msg":"c"}` + "\n"},
		{[]string{"server", "logs", "--tail", "0"}, ""},
		{[]string{"server", "logs", "--tail", "9"}, `{"ts":1,"level":"info","msg":"a"}` + "\nnot json\n" + `{"ts":3, "level":"warn","msg":"c"}` + "\n"},
		{[]string{"server", "logs", "--tail", "2", "--json"}, `{"ok":true,"result":{"lines":[{"raw":"not json"},{"ts":3,"level":"warn","msg":"c"}]}}` + "\n"},
	}
	for _, tc := range cases {
		got := h.run(t, tc.args...)
		if got.code != 0 || got.stdout != tc.want {
			t.Errorf("orcr %v: got exit %d %q, want 0 %q", tc.args, got.code, got.stdout, tc.want)
		}
	}
}

func TestServerLogsFollow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	path := writeLog(t, h.home, "one\ntwo\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- cli.Run(ctx, []string{"server", "logs", "--follow", "--tail", "1", "--json"}, h.env(&out, &errb))
	}()

	poll.Eventually(t, 10*time.Second, "the first followed line", func() bool { return out.String() != "" })
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"msg":"three"}` + "\npart"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	poll.Eventually(t, 10*time.Second, "line \"three\" in the followed output", func() bool { return strings.Contains(out.String(), "three") })

	// Truncation restarts from the beginning.
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 10*time.Second, "the raw line in the followed output", func() bool { return strings.Contains(out.String(), `"raw":"x"`) })
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit: got %d, want 0", code)
	}
	want := `{"ok":true,"result":{"line":{"raw":"two"}}}` + "\n" +
		`{"ok":true,"result":{"line":{"msg":"three"}}}` + "\n" +
		`{"ok":true,"result":{"line":{"raw":"x"}}}` + "\n"
	if got := out.String(); got != want {
		t.Errorf("follow output:\n got %q\nwant %q", got, want)
	}
}

// A start that the server refuses for its config (here remote.listen on every interface
// without TLS, docs/remote.md §1) creates nothing: the CLI's ensure step creates and
// checks the home only, and leaves logs/ and data/ to the server, which makes them once
// its config passed.
func TestServerStartRefusedCreatesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if err := os.MkdirAll(h.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte(`{"remote": {"listen": "0.0.0.0:0"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h.spawn = func(string) error { return wire.Env("config_invalid", "remote.listen is not a loopback address") }
	if got := h.run(t, "server", "start"); got.code != 2 {
		t.Errorf("server start: exit %d %q %q, want 2", got.code, got.stdout, got.stderr)
	}
	for _, name := range []string{"logs", "data"} {
		if _, err := os.Stat(filepath.Join(h.home, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the refused start created %s (%v)", name, err)
		}
	}
}
