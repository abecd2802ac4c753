package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// runStdin is h.run with stdin and extra environment.
func (h *home) runStdin(stdin string, env []string, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.orcr, args...)
	cmd.Env = append(append([]string{}, h.env...), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	exit := 0
	if ee, ok := err.(*exec.ExitError); ok {
		exit = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("orcr %v: %v", args, err)
	}
	return result{exit: exit, stdout: out.String(), stderr: errb.String()}
}

// TestStatuslineRecordsClaudeQuota: `orcr statusline`, the status line orcr gives its
// claude panes (docs/usage.md §7.1), fed the JSON claude passes a status line (a whole
// one, testdata): with no server it prints its line, exits 0 and starts none; with one
// it records claude's five_hour and seven_day windows (`usage --quota --json`), emits
// quota.warned once per window and period (85% → 90%: one), and at 96% ≥ quota.pause_at
// pauses claude until the five_hour reset (server.status paused, source quota), the
// pause the admission queue holds claude's starts on; bad params are refused.
func TestStatuslineRecordsClaudeQuota(t *testing.T) {
	t.Parallel()
	full, err := os.ReadFile(filepath.Join("..", "actors", "transcript", "testdata", "claude", "statusline.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	at := func(used string) string {
		return strings.Replace(string(full), `"used_percentage":96`, `"used_percentage":`+used, 1)
	}
	// The pane's claude runs under a subscription login (docs/usage.md §7.3): its
	// windows and pause are that account's.
	claudeDir := filepath.Join(h.dir, "claude-config")
	login, err := os.ReadFile(filepath.Join("..", "actors", "transcript", "testdata", "account", "claude_subscription.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(claudeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claudeDir, ".claude.json"), login, 0o600); err != nil {
		t.Fatal(err)
	}
	idEnv := []string{"ORCR_PATH=team/a", "CLAUDE_CONFIG_DIR=" + claudeDir}

	r := h.runStdin(at("85"), idEnv, "statusline")
	if r.exit != 0 || !strings.HasPrefix(r.stdout, "orcr team/a · 5h 85% (") || !strings.Contains(r.stdout, " · 7d 42% (") {
		t.Fatalf("statusline without a server: %+v", r)
	}
	if len(h.serverPIDs()) != 0 {
		t.Fatalf("statusline started a server")
	}
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %+v", r)
	}
	for _, used := range []string{"85", "90", "96"} {
		if r := h.runStdin(at(used), idEnv, "statusline"); r.exit != 0 || r.stderr != "" ||
			!strings.HasPrefix(r.stdout, "orcr team/a · 5h "+used+"% (") {
			t.Fatalf("statusline at %s%%: %+v", used, r)
		}
	}

	r = h.run("usage", "--quota", "--json")
	var env struct {
		Result api.UsageResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); r.exit != 0 || err != nil {
		t.Fatalf("orcr usage --quota --json: %+v (%v)", r, err)
	}
	ws := env.Result.Quota
	want := []api.QuotaWindow{
		{Provider: "claude", Account: "ada@example.com", Window: "five_hour", UsedPercent: 96, WindowMinutes: 300, ResetsAt: 4102444800000, State: api.QuotaPaused},
		{Provider: "claude", Account: "ada@example.com", Window: "seven_day", UsedPercent: 41.5, WindowMinutes: 10080, ResetsAt: 4102963200000, State: api.QuotaOK},
	}
	if len(ws) != 2 {
		t.Fatalf("quota windows %+v, want claude's two", ws)
	}
	for i := range want {
		got := ws[i]
		got.ObservedAt = 0
		if got != want[i] {
			t.Errorf("window %d: %+v, want %+v", i, got, want[i])
		}
	}

	_, res, _ := h.run("server", "status", "--json").envelope(t)
	paused, _ := res["paused"].([]any)
	if len(paused) != 1 {
		t.Fatalf("server.status paused %v, want claude", res["paused"])
	}
	if p := paused[0].(map[string]any); p["provider"] != "claude" || p["account"] != "ada@example.com" || p["source"] != "quota" || int64(p["until"].(float64)) != 4102444800000 {
		t.Errorf("pause %v, want ada's claude account until the five_hour reset, source quota", p)
	}

	// The events: quota.warned once for five_hour (85 crossed 80; 90 and 96 in the same
	// period do not warn again), none for seven_day, then provider.paused.
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": 0})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var warned []string
	for {
		f, err := st.Next()
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		var e struct{ Kind, Window string }
		json.Unmarshal(f.Event, &e)
		if e.Kind == "quota.warned" {
			warned = append(warned, e.Window)
		}
		if e.Kind == "provider.paused" {
			break
		}
	}
	if len(warned) != 1 || warned[0] != "five_hour" {
		t.Errorf("quota.warned for %v before the pause, want five_hour once", warned)
	}

	// A window whose reset is past reads as reset, 0% used, however full its last
	// report was: it is only re-read at the provider's next report (docs/usage.md §7.2).
	past := time.Now().Add(-time.Minute).UnixMilli()
	if err := c.Call(ctx, "quota.record", map[string]any{"provider": "codex", "windows": []any{
		map[string]any{"window": "primary", "used_percent": 99, "resets_at": past}}}, nil); err != nil {
		t.Fatalf("quota.record codex: %v", err)
	}
	_, res, _ = h.run("server", "status", "--json").envelope(t)
	var sq struct {
		Quota []api.QuotaWindow `json:"quota"`
	}
	b, _ := json.Marshal(res)
	json.Unmarshal(b, &sq)
	if len(sq.Quota) != 3 || sq.Quota[2].Provider != "codex" || sq.Quota[2].State != api.QuotaReset || sq.Quota[2].UsedPercent != 0 {
		t.Errorf("server.status quota %+v, want codex primary reset at 0%%", sq.Quota)
	}
	if r := h.run("usage", "--quota"); r.exit != 0 || !regexp.MustCompile(`(?m)^codex\s+primary\s+0\.0% reset `).MatchString(r.stdout) {
		t.Errorf("orcr usage --quota:\n%s\nwant codex primary 0.0%% reset", r.stdout)
	}

	// Bad params are refused and change nothing.
	err = c.Call(ctx, "quota.record", map[string]any{"provider": "claude", "windows": []any{map[string]any{"window": "five_hour", "used_percent": 101}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "used_percent") {
		t.Errorf("quota.record at 101%%: %v, want invalid_quota", err)
	}
}
