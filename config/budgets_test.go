package config_test

import (
	"testing"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Budget rules: the defaults (per total, warn_at 0.8), every match key, a cost and a token
// limit, and each bad entry refused as config_invalid with the field named.
func TestBudgetRules(t *testing.T) {
	cfg, warns, err := parse(t, `{"budgets": {
		"fleet": {"limit": "20usd", "per": "day", "interrupt": true},
		"turncap": {"limit": "50k", "per": "turn"},
		"review": {"path": "review/**", "provider": "claude", "loop": "nightly", "limit": "500k", "per": "agent", "warn_at": 0.5, "bogus": 1},
		"weekly": {"loop": "nightly", "provider": "codex", "limit": "70%", "window": "7d"}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 {
		t.Errorf("warnings %q, want the unknown key", warns)
	}
	want := []config.BudgetRule{
		{Name: "fleet", Limit: api.BudgetLimit{CostMicros: 20_000_000}, Per: api.BudgetPerDay, WarnAt: 0.8, Interrupt: true},
		{Name: "review", Path: "review/**", Provider: "claude", Loop: "nightly", Limit: api.BudgetLimit{Tokens: 500_000},
			Per: api.BudgetPerAgent, WarnAt: 0.5},
		{Name: "turncap", Limit: api.BudgetLimit{Tokens: 50_000}, Per: api.BudgetPerTurn, WarnAt: 0.8},
		{Name: "weekly", Provider: "codex", Loop: "nightly", Limit: api.BudgetLimit{Centipercent: 7000}, Per: api.BudgetTotal,
			WarnAt: 0.8, Window: api.BudgetWindow7d},
	}
	if len(cfg.Budgets) != len(want) {
		t.Fatalf("budgets %+v, want %+v", cfg.Budgets, want)
	}
	for i := range want {
		if cfg.Budgets[i] != want[i] {
			t.Errorf("budget %d = %+v, want %+v", i, cfg.Budgets[i], want[i])
		}
	}
	for src, msg := range map[string]string{
		`{"budgets": {"b": {}}}`:                                                  "`budgets.b.limit` is required: a cost (\"2usd\"), a token count (\"500k\") or a quota percent (\"90%\") with its window",
		`{"budgets": {"b": {"limit": "90%"}}}`:                                    "`budgets.b.window` must be one of 5h, 7d with a quota percent limit (got \"\")",
		`{"budgets": {"b": {"limit": "90%", "window": "1d"}}}`:                    "`budgets.b.window` must be one of 5h, 7d with a quota percent limit (got \"1d\")",
		`{"budgets": {"b": {"limit": "1k", "window": "5h"}}}`:                     "`budgets.b.window` needs a quota percent limit (\"90%\")",
		`{"budgets": {"b": {"limit": "90%", "window": "5h", "per": "day"}}}`:      "`budgets.b.per`: a quota percent budget counts the window's period, not a per",
		`{"budgets": {"b": {"limit": "90%", "window": "5h", "interrupt": true}}}`: "`budgets.b.interrupt`: a quota percent budget pauses at turn boundaries only",
		`{"budgets": {"b": {"limit": "2eur"}}}`: "`budgets.b.limit`: budget \"2eur\" is neither a cost (2usd, 0.5usd), " +
			"a token count (500k, 1.5m, 20000) nor a quota percent (90%)",
		`{"budgets": {"b": {"limit": "0usd"}}}`:                   "`budgets.b.limit`: budget \"0usd\" is neither a cost (2usd, 0.5usd), a token count (500k, 1.5m, 20000) nor a quota percent (90%)",
		`{"budgets": {"b": {"limit": "1k", "per": "week"}}}`:      "`budgets.b.per` must be one of turn, agent, day, total (got \"week\")",
		`{"budgets": {"b": {"limit": "1k", "interrupt": "yes"}}}`: "`budgets.b.interrupt` must be a boolean",
		`{"budgets": {"b": {"limit": "1k", "per": "turn", "interrupt": true}}}`: "`budgets.b.interrupt` needs per day or total: " +
			"a per turn budget counts one agent's turns, and the turn that reaches its limit has completed",
		`{"budgets": {"b": {"limit": "1k", "per": "agent", "interrupt": true}}}`: "`budgets.b.interrupt` needs per day or total: " +
			"a per agent budget counts one agent's turns, and the turn that reaches its limit has completed",
		`{"budgets": {"b": {"limit": "1k", "warn_at": 1.5}}}`: "`budgets.b.warn_at` must be a fraction above 0 and at most 1 (0.8 = at 80% of the limit)",
		`{"budgets": {"b": {"limit": "1k", "warn_at": "x"}}}`: "`budgets.b.warn_at` must be a fraction above 0 and at most 1 (0.8 = at 80% of the limit)",
		`{"budgets": {"b": {"limit": "1k", "provider": 3}}}`:  "`budgets.b.provider` must be a string",
		`{"budgets": {"a/b": {"limit": "1k"}}}`:               "`budgets.a/b`: a budget name is one path segment (letters, digits, `-`, `_`, `.`)",
		`{"budgets": {"b": 1}}`:                               "`budgets.b` must be a JSON object",
	} {
		_, _, err := parse(t, src, nil)
		checkEnvErr(t, src, err, wire.CauseConfigInvalid, msg)
	}
	_, _, err = parse(t, `{"budgets": {"b": {"limit": "1k", "path": "a//b"}}}`, nil)
	checkEnvErr(t, "bad path", err, wire.CauseConfigInvalid, "")
}

// The budget amounts agent.run --budget and budget.extend --by take.
func TestParseBudget(t *testing.T) {
	for in, want := range map[string]api.BudgetLimit{
		"2usd": {CostMicros: 2_000_000}, "0.25USD": {CostMicros: 250_000}, "$3": {CostMicros: 3_000_000},
		"500k": {Tokens: 500_000}, "1.5m": {Tokens: 1_500_000}, "20000": {Tokens: 20_000},
		"90%": {Centipercent: 9000}, "70.5%": {Centipercent: 7050}, "100%": {Centipercent: 10000},
	} {
		if got, err := api.ParseBudget(in); err != nil || got != want {
			t.Errorf("ParseBudget(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "usd", "-1usd", "0", "1e3", "2eur", "k", "inf", "0.0000001usd", "2e12", "0%", "100.01%", "%", "-5%"} {
		_, err := api.ParseBudget(in)
		if pe, ok := wire.As(err); !ok || pe.Code != wire.InvalidRequest || pe.Reason() != wire.ReasonInvalidBudget {
			t.Errorf("ParseBudget(%q) = %v, want invalid_budget", in, err)
		}
	}
}
