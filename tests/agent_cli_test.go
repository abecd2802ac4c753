package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// herdrHome is a throwaway orcr home whose auto-started server uses the herdr stand-in
// (a private herdr config dir) and the mock provider. The stand-in's owned session is
// stopped at cleanup, after the server, which ends every pane process.
func herdrHome(t testing.TB, configJSON string) (*home, string) {
	t.Helper()
	b := sockettest.BuildBinaries(t)
	// The test's temporary directories are removed by the cleanup TempDir registers at
	// its first call: called here first, that removal runs after herdr's stop below
	// (cleanups run last-registered first), so no pane process still writes into a
	// directory being removed (a provider writes its state when it exits).
	t.TempDir()
	xdg, err := os.MkdirTemp("", "x")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop := exec.Command(b.HerdrBin, "session", "stop", "orcr")
		stop.Env = append(os.Environ(), "XDG_CONFIG_HOME="+xdg)
		stop.Run()
		sock := filepath.Join(xdg, "herdr", "sessions", "orcr", "herdr.sock")
		// Best effort at cleanup, not an assertion: a socket left behind is removed
		// below, and the panes' processes (they carry herdr's XDG_CONFIG_HOME) get
		// 10 s to exit after herdr's SIGHUP before they are killed.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(sock); err != nil {
				break
			}
		}
		sockettest.EndProcsWithEnv("XDG_CONFIG_HOME="+xdg, 10*time.Second)
		os.RemoveAll(xdg)
	})
	h := newHome(t, "ORCR_HERDR_BIN="+b.HerdrBin, "ORCR_ALLOW_MOCK_PROVIDER=1",
		"ORCR_MOCK_AGENT_BIN="+b.MockAgent, "XDG_CONFIG_HOME="+xdg,
		"ORCR_ID=", "ORCR_PATH=") // never run as some outer agent's child
	if configJSON != "" {
		mustMkdir(t, h.dir, 0o700)
		if err := os.WriteFile(filepath.Join(h.dir, "config.json"), []byte(configJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return h, filepath.Join(xdg, "herdr", "sessions", "orcr", "herdr.sock")
}

// jsonRun runs `orcr <args> --json`, checks that it printed exactly one envelope that
// validates against the schema (method's result schema for ok:true) and that it exited
// with want, and returns the decoded envelope.
func (h *home) jsonRun(t testing.TB, method string, want int, args ...string) (ok bool, res, errObj map[string]any) {
	t.Helper()
	r := h.run(append(args, "--json")...)
	ok, res, errObj = r.envelope(t)
	v, err := sockettest.SchemaValidator()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Envelope(method, []byte(strings.TrimSpace(r.stdout))); err != nil {
		t.Errorf("orcr %v: %v", args, err)
	}
	if r.exit != want {
		t.Fatalf("orcr %v: exit %d, want %d (stdout %q stderr %q)", args, r.exit, want, r.stdout, r.stderr)
	}
	return ok, res, errObj
}

type cliRow struct {
	UUID        string  `json:"uuid"`
	Path        string  `json:"path"`
	Status      string  `json:"status"`
	PaneID      *string `json:"pane_id"`
	ExitReason  *string `json:"exit_reason"`
	ExitDetail  string  `json:"exit_detail"` // why it ended, in words
	ScreenAt    *int64  `json:"screen_at"`   // when the kept last screen was read
	EndedAt     *int64  `json:"ended_at"`
	Stalled     bool    `json:"stalled"`
	Agent       *string `json:"agent"`       // the provider
	RoutedFrom  *string `json:"routed_from"` // the provider it was queued for (routing.fallback)
	BlockedKind *string `json:"blocked_kind"`
}

func (h *home) lsRows(t testing.TB, args ...string) []cliRow {
	t.Helper()
	_, res, _ := h.jsonRun(t, "agent.ls", 0, append([]string{"agent", "ls"}, args...)...)
	b, _ := json.Marshal(res["agents"])
	var rows []cliRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("agent ls rows: %v", err)
	}
	return rows
}

func errDetail(e map[string]any, key string) any {
	d, _ := e["details"].(map[string]any)
	return d[key]
}

// Acceptance 8: `--json` output of run, send, kill and ls is one envelope valid against
// the schema, and exit codes follow docs/cli.md §1.6; the human `agent run` prints
// `<path> <uuid>`.
func TestAgentVerbsJSONAndExitCodes(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, "")

	ok, res, _ := h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "cli/one", "-p", "say=hi")
	agent, _ := res["agent"].(map[string]any)
	if !ok || agent["path"] != "cli/one" || res["permissions"] != "bypass" {
		t.Fatalf("agent run --json: %v", res)
	}
	one := agent["uuid"].(string)

	r := h.run("agent", "run", "-a", "mock", "--path", "cli/two")
	if r.exit != 0 || !regexp.MustCompile(`^cli/two [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\n$`).MatchString(r.stdout) {
		t.Errorf("human agent run: exit %d stdout %q stderr %q, want `cli/two <uuid v7>`", r.exit, r.stdout, r.stderr)
	}

	// The path is taken: state_conflict path_in_use (exit 7), naming the occupant.
	ok, _, e := h.jsonRun(t, "agent.run", 7, "agent", "run", "-a", "mock", "--path", "cli/one")
	if ok || e["code"] != "state_conflict" || errDetail(e, "reason") != "path_in_use" {
		t.Errorf("second run on cli/one: %v", e)
	}
	if occ, _ := errDetail(e, "occupant").(map[string]any); occ == nil || occ["uuid"] != one {
		t.Errorf("path_in_use does not name the occupant %s: %v", one, e)
	}

	poll.Eventually(t, 30*time.Second, "cli/one to get its pane and turn", func() bool {
		rows := h.lsRows(t, "cli/one")
		return len(rows) == 1 && rows[0].PaneID != nil && (rows[0].Status == "working" || rows[0].Status == "idle")
	})
	ok, res, _ = h.jsonRun(t, "agent.send", 0, "agent", "send", "cli/one", "say=again")
	if !ok || res["uuid"] != one || res["input_seq"] != float64(2) || res["path"] != "cli/one" {
		t.Errorf("agent send --json: %v, want input_seq 2 on %s", res, one)
	}
	ok, _, e = h.jsonRun(t, "agent.send", 6, "agent", "send", "cli/nope", "x")
	if ok || e["code"] != "not_found" {
		t.Errorf("send to a missing agent: %v", e)
	}

	rows := h.lsRows(t)
	if len(rows) != 2 || rows[0].Path != "cli/one" || rows[1].Path != "cli/two" {
		t.Errorf("agent ls --json: %+v, want cli/one and cli/two in tree order", rows)
	}

	ok, res, _ = h.jsonRun(t, "agent.kill", 0, "agent", "kill", "cli/*")
	if killed, _ := res["killed"].([]any); !ok || len(killed) != 2 || res["all_killed"] != true {
		t.Errorf("agent kill cli/*: %v", res)
	}
	// Matched, but everything skipped (already ended): ok:true envelope, exit 7.
	ok, res, _ = h.jsonRun(t, "agent.kill", 7, "agent", "kill", "cli/one")
	if skipped, _ := res["skipped"].([]any); !ok || len(skipped) != 1 || len(res["killed"].([]any)) != 0 {
		t.Errorf("kill of an ended agent: %v", res)
	}
	ok, _, e = h.jsonRun(t, "agent.kill", 6, "agent", "kill", "nothing/here")
	if ok || e["code"] != "not_found" {
		t.Errorf("kill with no match: %v", e)
	}
	for _, r := range h.lsRows(t, "--all") {
		if r.Status != "ended" || r.ExitReason == nil || *r.ExitReason != "killed" {
			t.Errorf("after kill: %+v", r)
		}
	}
}

// Acceptance 7 (second half): kill -9 of the server while spawns are in flight. After
// the restart (any verb auto-starts a new server), every row is either live with its
// pane or failed, there is never more than one pane per path, and panes exist only for
// live rows.
func TestKill9MidSpawnNoDuplicatePane(t *testing.T) {
	t.Parallel()
	h, sock := herdrHome(t, `{"concurrency": {"max": 8}}`)
	r := h.run("server", "status", "--json")
	if r.exit != 0 {
		t.Fatalf("server status: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	_, res, _ := r.envelope(t)
	pid := int(res["pid"].(float64))

	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": 0})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 16
	for i := range n {
		if err := c.Call(ctx, "agent.run", map[string]any{"path": fmt.Sprintf("k9/a%02d", i), "agent": "mock",
			"prompt": "say=x"}, nil); err != nil {
			t.Fatalf("agent.run %d: %v", i, err)
		}
	}
	// Strike as soon as spawns are in flight: at least two spawn intents, fewer panes
	// recorded than intents.
	requested, located := 0, 0
	for requested < 2 || located >= requested {
		f, err := st.Next()
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		var e struct{ Kind string }
		json.Unmarshal(f.Event, &e)
		switch e.Kind {
		case "agent.spawn_requested":
			requested++
		case "agent.location_changed":
			located++
		}
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	t.Logf("killed the server with %d spawn intents and %d recorded panes", requested, located)

	// Any verb brings a server back; recovery settles the rows that were starting and
	// the queue goes on promoting.
	var rows []cliRow
	// Settled: nothing starting, and nothing queued unless every slot is taken.
	poll.Eventually(t, 60*time.Second, "no row starting after the restart", func() bool {
		rows = h.lsRows(t, "--all")
		queued, holding := 0, 0
		for _, r := range rows {
			switch r.Status {
			case "starting":
				return false
			case "queued":
				queued++
			case "ended", "lost":
			default:
				holding++
			}
		}
		return queued == 0 || holding >= 8
	})
	panes, err := herdr.NewRemote(sock).PaneList(ctx, "")
	if err != nil {
		t.Fatalf("herdr pane.list: %v", err)
	}
	perLabel := map[string]int{}
	for _, p := range panes {
		if path, _ := actors.PanePath(p.Label); strings.HasPrefix(path, "k9/") {
			perLabel[path]++
		}
	}
	live := map[string]bool{}
	failed := 0
	for _, r := range rows {
		switch {
		case r.Status == "ended":
			if r.ExitReason == nil || *r.ExitReason != "failed" {
				t.Errorf("%s ended %v, want failed (or live)", r.Path, r.ExitReason)
			}
			failed++
		case r.Status == "queued":
		default:
			live[r.Path] = true
			if r.PaneID == nil {
				t.Errorf("%s is %s without a pane", r.Path, r.Status)
			}
		}
	}
	for label, k := range perLabel {
		if k > 1 {
			t.Errorf("%d panes labelled %s (duplicate)", k, label)
		}
		if !live[label] {
			t.Errorf("pane labelled %s, but that row is not live", label)
		}
	}
	for p := range live {
		if perLabel[p] != 1 {
			t.Errorf("live row %s has %d panes", p, perLabel[p])
		}
	}
	if len(rows) != n {
		t.Errorf("%d rows after the restart, want %d", len(rows), n)
	}
	t.Logf("after restart: %d live, %d failed, %d queued", len(live), failed, len(rows)-len(live)-failed)
	h.run("agent", "kill", "--json", "k9/*")
}

// A verb right after `server stop` starts a fresh server although the old one still
// holds the instance lock while its agent work winds down: `agent ls` answers promptly
// from the new server, never server_start_failed after 15 s.
func TestVerbRightAfterStop(t *testing.T) {
	h, _ := herdrHome(t, "")
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "restart/one", "-p", "say=hi")
	poll.Eventually(t, 30*time.Second, "restart/one to get its pane", func() bool {
		rows := h.lsRows(t, "restart/one")
		return len(rows) == 1 && rows[0].PaneID != nil
	})
	for i := range 3 {
		if r := h.run("server", "stop", "--json"); r.exit != 0 {
			t.Fatalf("round %d: server stop: exit %d %s", i, r.exit, r.stderr)
		}
		start := time.Now()
		rows := h.lsRows(t)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("round %d: agent ls right after server stop took %v", i, took)
		}
		if len(rows) != 1 || rows[0].Path != "restart/one" {
			t.Errorf("round %d: agent ls after restart: %+v", i, rows)
		}
	}
}

// A kill's shutdown grace ends when the provider exits, also through the pane launcher,
// which holds the pane after its provider exited (docs/lifecycle.md §8.2, §15.2): with a
// grace of two minutes the mock's `/quit` ends the agent within seconds, and its pane is
// closed.
func TestKillEndsWhenTheLaunchedProviderExits(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"integrations": {"mock": {"shutdown_grace_ms": 120000}}}`)
	if r := h.run("agent", "run", "-a", "mock", "--path", "grace/one", "-p", "say=hi"); r.exit != 0 {
		t.Fatalf("agent run: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	poll.Eventually(t, 30*time.Second, "grace/one idle", func() bool {
		rows := h.lsRows(t, "grace/one")
		return len(rows) == 1 && rows[0].Status == "idle"
	})
	began := time.Now()
	if r := h.run("agent", "kill", "-y", "grace/one"); r.exit != 0 {
		t.Fatalf("agent kill: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	if took := time.Since(began); took > 30*time.Second {
		t.Errorf("the kill took %v: it waited out the grace although the mock had quit", took)
	}
	if rows := h.lsRows(t, "--all", "grace/one"); len(rows) != 1 || rows[0].Status != "ended" {
		t.Errorf("after kill: %+v", rows)
	}
}
