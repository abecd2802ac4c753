package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// --since takes a duration back from now, today, a date or an RFC 3339 time; anything
// else is invalid_request bad_since.
func TestParseSince(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 12, 5, 20, 30, 0, 0, loc)
	for in, want := range map[string]time.Time{
		"24h":                  now.Add(-24 * time.Hour),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"90m":                  now.Add(-90 * time.Minute),
		"today":                time.Date(2026, 12, 5, 0, 0, 0, 0, loc),
		"2026-12-01":           time.Date(2026, 12, 1, 0, 0, 0, 0, loc),
		"2026-12-01T10:00:00Z": time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
		"":                     time.UnixMilli(0),
	} {
		if got, err := parseSince(in, now); err != nil || got != want.UnixMilli() {
			t.Errorf("parseSince(%q) = %d, %v; want %d", in, got, err, want.UnixMilli())
		}
	}
	for _, in := range []string{"0h", "-1d", "h", "yesterday", "2026-13-01", "1y", "99999999999w"} {
		if _, err := parseSince(in, now); err == nil {
			t.Errorf("parseSince(%q): no error", in)
		} else if pe, ok := wire.As(err); !ok || pe.Details["reason"] != "bad_since" {
			t.Errorf("parseSince(%q): %v, want bad_since", in, err)
		}
	}
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"24h", "today", "2026-12-01", "2026-12-01T10:00:00Z", "7d", "x", "-1s", "1e9h"} {
		f.Add(s)
	}
	now := time.Date(2026, 12, 5, 20, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSince(s, now)
		if err == nil && got > now.UnixMilli() && !strings.Contains(s, "T") && !strings.Contains(s, "-") {
			t.Fatalf("parseSince(%q) = %d, after now", s, got)
		}
	})
}

// The usage table: a header naming the grouping, one row per group ("-" for no key),
// TOTAL, and a cost marked * with the unpriced models said below.
func TestRenderUsage(t *testing.T) {
	t.Parallel()
	r := api.UsageResult{By: "model", Rows: []api.UsageRow{
		{Key: "claude-sonnet-4-5", UsageSum: api.UsageSum{Turns: 2, InputTokens: 11, OutputTokens: 22, CacheReadTokens: 33, CacheWriteTokens: 44, CostUSD: 1.5}},
		{Key: "", UsageSum: api.UsageSum{Turns: 1, InputTokens: 12345, UnpricedTurns: 1}},
	}, Total: api.UsageSum{Turns: 3, InputTokens: 12356, OutputTokens: 22, CacheReadTokens: 33, CacheWriteTokens: 44, CostUSD: 1.5, UnpricedTurns: 1},
		UnpricedModels: []string{""}}
	want := `MODEL              TURNS     INPUT    OUTPUT CACHE_READ CACHE_WRITE REASONING       COST
claude-sonnet-4-5      2        11        22         33          44         0      $1.50
-                      1     12.3k         0          0           0         0     $0.00*
TOTAL                  3     12.4k        22         33          44         0     $1.50*
* 1 turns of models without a price (no model named): their tokens are counted, their cost is not (config prices)
`
	if got := renderUsage(r); got != want {
		t.Errorf("renderUsage:\n%s\nwant\n%s", got, want)
	}
}

func TestRenderQuota(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1796472000000)
	reset := now.Add(90 * time.Minute)
	ws := []api.QuotaWindow{
		{Provider: "codex", Window: "primary", UsedPercent: 96, WindowMinutes: 300, ResetsAt: reset.UnixMilli(), ObservedAt: now.Add(-5 * time.Second).UnixMilli()},
		{Provider: "codex", Account: "work", Window: "secondary", UsedPercent: 12.25, ObservedAt: now.UnixMilli(), State: api.QuotaOK},
		// A window whose reset passed after the server judged it reads as reset.
		{Provider: "claude", Window: "five_hour", UsedPercent: 99, ResetsAt: now.Add(-time.Minute).UnixMilli(),
			ObservedAt: now.Add(-time.Hour).UnixMilli(), State: api.QuotaPaused},
	}
	want := "PROVIDER   WINDOW       USED STATE    LENGTH RESETS              OBSERVED\n" +
		"codex      primary     96.0% ok       5h0m0s " + reset.Local().Format("2006-01-02 15:04:05") + " 5s ago\n" +
		"codex/work secondary   12.2% ok            - -                   0s ago\n" +
		"claude     five_hour    0.0% reset         - " + now.Add(-time.Minute).Local().Format("2006-01-02 15:04:05") + " 1h0m0s ago\n"
	if got := renderQuota(ws, now); got != want {
		t.Errorf("renderQuota:\n%s\nwant:\n%s", got, want)
	}
	if got := renderQuota(nil, now); !strings.HasPrefix(got, "no quota window reported yet") {
		t.Errorf("renderQuota(none) = %q", got)
	}
}

// agent ls --usage reads each row's usage: tokens and cost beside the row, "-" for an
// agent that reported nothing, * when a turn had no price.
func TestLsUsageColumns(t *testing.T) {
	t.Parallel()
	rows := []api.AgentRow{
		{UUID: "u1", Path: "a", Status: api.StatusIdle, Usage: &api.AgentUsage{Turns: 2, Tokens: 12345, CostUSD: 1.5}},
		{UUID: "u2", Path: "b", Status: api.StatusIdle},
		{UUID: "u3", Path: "c", Status: api.StatusIdle, Usage: &api.AgentUsage{Turns: 1, Tokens: 7, UnpricedTurns: 1}},
	}
	lines := strings.Split(strings.TrimSpace(withUsageColumns(renderLs(rows, nil, time.Now()), rows)), "\n")
	if len(lines) != 4 {
		t.Fatalf("table:\n%s", strings.Join(lines, "\n"))
	}
	for i, want := range [][]string{{"TOKENS", "COST"}, {"12.3k", "$1.50"}, {"-", "-"}, {"7", "$0.00*"}} {
		f := strings.Fields(lines[i])
		if got := f[len(f)-2:]; got[0] != want[0] || got[1] != want[1] {
			t.Errorf("line %d %q: ends %v, want %v", i, lines[i], got, want)
		}
	}
}
