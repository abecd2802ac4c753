package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/tests/poll"
)

// Issue 33 item 6: a config change needs a restart, and orcr says so. After remote.listen
// is added to config.json, `server status` names the changed key and `orcr dashboard`
// says to restart; `orcr server restart` stops and starts the server (a new process that
// reads the file again) while the agent keeps running in its pane.
func TestConfigChangeSaysRestartAndRestartApplies(t *testing.T) {
	h, _ := herdrHome(t, `{"timings": {"idle_after": "1h"}}`)
	ok, res, _ := h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "rs/a")
	if !ok {
		t.Fatal("agent run failed")
	}
	uuid := res["agent"].(map[string]any)["uuid"].(string)
	poll.Eventually(t, 30*time.Second, "rs/a to get its pane", func() bool {
		rows := h.lsRows(t, "rs/a")
		return len(rows) == 1 && rows[0].PaneID != nil && rows[0].Status == "idle"
	})
	pane := *h.lsRows(t, "rs/a")[0].PaneID

	_, st, _ := h.jsonRun(t, "server.status", 0, "server", "status")
	cfg, _ := st["config"].(map[string]any)
	if cfg["changed"] != false || cfg["digest"] == nil || cfg["path"] != filepath.Join(h.dir, "config.json") {
		t.Fatalf("server status config before any change: %v", cfg)
	}
	pid := st["pid"]

	if err := os.WriteFile(filepath.Join(h.dir, "config.json"),
		[]byte(`{"timings": {"idle_after": "1h"}, "remote": {"listen": "127.0.0.1:0"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, st, _ = h.jsonRun(t, "server.status", 0, "server", "status")
	cfg, _ = st["config"].(map[string]any)
	if keys, _ := cfg["changed_keys"].([]any); cfg["changed"] != true || len(keys) != 1 || keys[0] != "remote" || cfg["error"] != nil {
		t.Errorf("server status config after adding remote.listen: %v, want changed [remote]", cfg)
	}
	r := h.run("server", "status")
	for _, want := range []string{"changed since the server started: remote", "restart the server to apply: orcr server restart",
		"remote    off (remote.listen was not set when the server started)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("server status does not say %q:\n%s", want, r.stdout)
		}
	}
	r = h.run("dashboard")
	if r.exit == 0 || !strings.Contains(r.stderr, "restart the server to apply (orcr server restart)") {
		t.Errorf("dashboard before the restart: exit %d stdout %q stderr %q, want a remote_off saying to restart", r.exit, r.stdout, r.stderr)
	}

	r = h.run("server", "restart", "--json")
	ok, res, _ = r.envelope(t)
	if r.exit != 0 || !ok || res["status"] != "restarted" || res["pid"] == pid {
		t.Fatalf("server restart: %v (old pid %v)", res, pid)
	}
	h.pids[int(pid.(float64))] = true
	_, st, _ = h.jsonRun(t, "server.status", 0, "server", "status")
	if cfg, _ = st["config"].(map[string]any); cfg["changed"] != false || st["pid"] != res["pid"] {
		t.Errorf("server status after the restart: pid %v config %v", st["pid"], cfg)
	}
	if rs, _ := st["remote"].(map[string]any); rs["listening"] != true {
		t.Errorf("remote after the restart: %v, want listening", rs)
	}
	if r := h.run("dashboard"); r.exit != 0 || !strings.HasPrefix(r.stdout, "http://127.0.0.1:") {
		t.Errorf("dashboard after the restart: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	rows := h.lsRows(t, "rs/a")
	if len(rows) != 1 || rows[0].UUID != uuid || rows[0].PaneID == nil || *rows[0].PaneID != pane || rows[0].Status != "idle" {
		t.Errorf("rs/a after the restart: %+v, want the same agent idle in pane %s", rows, pane)
	}
}

// A restart refuses a config.json a start would refuse, and stops nothing.
func TestRestartRefusesInvalidConfig(t *testing.T) {
	h := newHome(t)
	_, st, _ := h.jsonRun(t, "server.status", 0, "server", "status")
	if err := os.WriteFile(filepath.Join(h.dir, "config.json"), []byte(`{"timings": {"idle_after": "soon"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Every verb refuses the file (the CLI reads it too); over the socket, server.status
	// says a start would refuse it.
	sc := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	st2, err := sc.Status(context.Background())
	if err != nil || !st2.Config.Changed || st2.Config.Error == nil || !strings.Contains(*st2.Config.Error, "timings.idle_after") {
		t.Errorf("server.status with an invalid config on disk: %+v, %v; want changed with an error", st2.Config, err)
	}
	r := h.run("server", "restart", "--json")
	ok, _, e := r.envelope(t)
	if r.exit != 2 || ok || errDetail(e, "cause") != "config_invalid" {
		t.Errorf("server restart with an invalid config: exit %d %v", r.exit, e)
	}
	if h, err := sc.Handshake(context.Background()); err != nil || float64(h.PID) != st["pid"] {
		t.Errorf("the refused restart changed the server: pid %v (%v), was %v", h.PID, err, st["pid"])
	}
}
