package tests

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/socketapi/api"
)

// TestQuotaCodexLive: the real codex against the model stand-in, whose answer carries
// the quota windows' x-codex-* headers (quota=96,40 reset=600): codex reports them in
// its token_count event, orcr records them at the turn's completion (`orcr usage
// --quota --json`: primary 96% of 300 minutes, secondary 40% of 10080, both resetting
// with the headers' reset) and, the primary window being past quota.pause_at (0.95),
// pauses codex until its reset (server.status paused, source quota): the next codex
// agent stays queued (docs/usage.md §7). The windows and the pause are the account's
// the agents run under: the test's CODEX_HOME, whose login is an API key (§7.3).
func TestQuotaCodexLive(t *testing.T) {
	t.Parallel() // mostly waits (codex's TUI booting): see main_test.go
	heavy(t)
	model := startModel(t)
	h, _, work := realHome(t, `{"timings": {"max_starting": "90s"}}`, model)
	before := time.Now()
	runAgent(t, h, "-a", provider.Codex, "--path", "q/cx", "--cwd", work, "-p", "say=quota-first quota=96,40 reset=600")
	waitTurn(t, h, "q/cx")
	after := time.Now()

	r := h.run("usage", "--quota", "--json")
	var env struct {
		Result api.UsageResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); r.exit != 0 || err != nil {
		t.Fatalf("orcr usage --quota --json: %+v (%v)", r, err)
	}
	ws := env.Result.Quota
	account, err := filepath.Abs(h.envValue("CODEX_HOME"))
	if err != nil || h.envValue("CODEX_HOME") == "" {
		t.Fatalf("the test's CODEX_HOME %q: %v", h.envValue("CODEX_HOME"), err)
	}
	if len(ws) != 2 {
		t.Fatalf("quota windows %+v, want codex's primary and secondary", ws)
	}
	// The reset is the headers' (unix seconds): 600 s after the answer.
	lo, hi := before.Add(600*time.Second).Unix()*1000-1000, after.Add(600*time.Second).UnixMilli()+1000
	for i, want := range []api.QuotaWindow{
		{Provider: provider.Codex, Window: "primary", UsedPercent: 96, WindowMinutes: 300},
		{Provider: provider.Codex, Window: "secondary", UsedPercent: 40, WindowMinutes: 10080},
	} {
		got := ws[i]
		if got.Provider != want.Provider || got.Account != account || got.Window != want.Window ||
			math.Abs(got.UsedPercent-want.UsedPercent) > 0.01 || got.WindowMinutes != want.WindowMinutes {
			t.Errorf("window %d: %+v, want %+v", i, got, want)
		}
		if got.ResetsAt < lo || got.ResetsAt > hi {
			t.Errorf("window %s resets at %d, want within [%d, %d]", got.Window, got.ResetsAt, lo, hi)
		}
	}

	_, res, _ := h.run("server", "status", "--json").envelope(t)
	paused, _ := res["paused"].([]any)
	if len(paused) != 1 {
		t.Fatalf("server.status paused %v, want codex", res["paused"])
	}
	p := paused[0].(map[string]any)
	if p["provider"] != provider.Codex || p["account"] != account || p["source"] != "quota" || int64(p["until"].(float64)) != ws[0].ResetsAt {
		t.Errorf("pause %v, want codex's account %s until the primary window's reset %d, source quota", p, account, ws[0].ResetsAt)
	}
	if q, _ := res["quota"].([]any); len(q) != 2 {
		t.Errorf("server.status quota %v, want the two windows", res["quota"])
	}

	runAgent(t, h, "-a", provider.Codex, "--path", "q/next", "--cwd", work, "-p", "say=later")
	if rows := h.lsRows(t, "q/next"); len(rows) != 1 || rows[0].Status != "queued" {
		t.Errorf("the next codex agent while codex is paused: %+v, want queued", rows)
	}
	h.run("agent", "kill", "-y", "q/cx", "q/next")
}
