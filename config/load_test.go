package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/config"
)

func TestDefault(t *testing.T) {
	got := config.Default()
	want := &config.Config{
		Defaults: config.Defaults{
			Agent: "claude",
			Providers: map[string]config.Route{
				"claude": {Model: "sonnet", Effort: "medium"},
				"codex":  {Model: "gpt-5.6-luna", Effort: "high"},
			},
		},
		Herdr:       config.Herdr{Bin: "", Session: "orcr"},
		Concurrency: config.Concurrency{Max: 25, Caps: map[string]int{"claude": 10}},
		Timings: config.Timings{
			IdleAfter: 5 * time.Minute, KillAfter: 10 * time.Minute, GCTick: 30 * time.Second,
			MaxStarting: 2 * time.Minute, AttachLeaseTTL: 30 * time.Second, LoopTick: time.Second,
			RunTermGrace: 10 * time.Second, StallAfter: 10 * time.Minute, LimitBackoff: 15 * time.Minute,
		},
		Logs:         config.Logs{MaxBytes: 10485760, MaxFiles: 5},
		Integrations: map[string]config.TuningOverride{},
		Remote: config.Remote{
			Heartbeat: 20 * time.Second, ReplayLimit: 10000, MaxConcurrentReplays: 4, OutboundQueue: 1024,
		},
		Notify:    config.Notify{MaxAttempts: 10, QueueLimit: 10000, RetryInitial: time.Second, RetryMax: 5 * time.Minute},
		Routing:   config.Routing{Fallback: map[string]string{}},
		Prices:    config.BuiltinPrices(),
		Quota:     config.Quota{PauseAt: 0.95, WarnAt: 0.8},
		Providers: map[string]config.ProviderSpec{},
		Retention: config.Retention{EndedFor: 7 * 24 * time.Hour, EndedMax: 10000},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Default() mismatch (-want +got):\n%s", diff)
	}
	// Each call returns independent maps.
	got.Defaults.Providers["x"] = config.Route{}
	if _, ok := config.Default().Defaults.Providers["x"]; ok {
		t.Errorf("Default(): maps are shared between calls")
	}
}

func TestLoadMissingFile(t *testing.T) {
	home := t.TempDir()
	cfg, warns, err := config.Load(home, noEnv)
	if err != nil {
		t.Fatalf("Load(missing): got error %v, want nil", err)
	}
	if warns != nil {
		t.Errorf("Load(missing): got warnings %q, want none", warns)
	}
	if diff := cmp.Diff(config.Default(), cfg); diff != "" {
		t.Errorf("Load(missing) mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadMissingFileAppliesEnv(t *testing.T) {
	cfg, _, err := config.Load(t.TempDir(), env(map[string]string{"ORCR_HERDR_SESSION": "alt", "ORCR_HERDR_BIN": "/opt/herdr"}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.Herdr.Session != "alt" || cfg.HerdrBinEnv != "/opt/herdr" {
		t.Errorf("Load(missing, env): got session %q bin env %q, want alt /opt/herdr", cfg.Herdr.Session, cfg.HerdrBinEnv)
	}
}

func TestLoadReadsFile(t *testing.T) {
	home := t.TempDir()
	src := `{"herdr":{"session":"work"},"timing":{}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, warns, err := config.Load(home, noEnv)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.Herdr.Session != "work" {
		t.Errorf("Load: got session %q, want work", cfg.Herdr.Session)
	}
	want := []string{"unknown config key `timing` (did you mean `timings`?); ignoring"}
	if diff := cmp.Diff(want, warns); diff != "" {
		t.Errorf("Load warnings (-want +got):\n%s", diff)
	}
}

func TestLoadReadError(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.json")
	if err := os.Mkdir(path, 0o700); err != nil { // a directory cannot be read as a file
		t.Fatal(err)
	}
	cfg, warns, err := config.Load(home, noEnv)
	checkEnvErr(t, "Load(config.json is a dir)", err, "config_invalid", "")
	if cfg != nil || warns != nil {
		t.Errorf("Load(error): got cfg %v warnings %v, want nil", cfg, warns)
	}
	if msg := err.Error(); !strings.Contains(msg, "cannot read "+path+": ") {
		t.Errorf("Load(error): got %q, want it to contain %q", msg, "cannot read "+path+": ")
	}
}

// TestParseErrors covers every row of docs/config.md §1.7.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		msg  string
	}{
		// top level
		{"top array", `[]`, "config.json must be a JSON object"},
		{"top number", `1`, "config.json must be a JSON object"},
		{"top string", `"x"`, "config.json must be a JSON object"},
		{"top null", `null`, "config.json must be a JSON object"},
		// sections not objects
		{"defaults array", `{"defaults":[]}`, "`defaults` must be a JSON object"},
		{"herdr string", `{"herdr":"x"}`, "`herdr` must be a JSON object"},
		{"concurrency number", `{"concurrency":3}`, "`concurrency` must be a JSON object"},
		{"timings null", `{"timings":null}`, "`timings` must be a JSON object"},
		{"logs bool", `{"logs":true}`, "`logs` must be a JSON object"},
		{"integrations array", `{"integrations":[]}`, "`integrations` must be a JSON object"},
		{"providers not object", `{"defaults":{"providers":[]}}`, "`defaults.providers` must be a JSON object"},
		{"provider route not object", `{"defaults":{"providers":{"claude":"opus"}}}`, "`defaults.providers.claude` must be a JSON object"},
		{"integration entry not object", `{"integrations":{"claude":5}}`, "`integrations.claude` must be a JSON object"},
		{"routing fallback not object", `{"routing":{"fallback":["codex"]}}`, "`routing.fallback` must be a JSON object"},
		{"routing fallback number", `{"routing":{"fallback":{"claude":1}}}`, "`routing.fallback.claude` must be a string"},
		{"routing fallback blank", `{"routing":{"fallback":{"claude":" "}}}`, "`routing.fallback.claude` must name a provider"},
		{"routing fallback self", `{"routing":{"fallback":{"claude":"claude"}}}`, "`routing.fallback.claude` must name another provider than `claude`"},
		{"quota pause_at zero", `{"quota":{"pause_at":0}}`, "`quota.pause_at` must be a fraction above 0 and at most 1 (got 0)"},
		{"quota pause_at a percent", `{"quota":{"pause_at":95}}`, "`quota.pause_at` must be a fraction above 0 and at most 1 (got 95)"},
		{"quota pause_at string", `{"quota":{"pause_at":"95%"}}`, "`quota.pause_at` must be a number"},
		{"quota warn_at above 1", `{"quota":{"warn_at":1.5}}`, "`quota.warn_at` must be a fraction above 0 and at most 1 (got 1.5)"},
		{"retention not object", `{"retention":"7d"}`, "`retention` must be a JSON object"},
		{"retention ended_for short", `{"retention":{"ended_for":"500ms"}}`, "retention.ended_for must be at least 1s or \"off\" (got \"500ms\")"},
		{"retention ended_for bad", `{"retention":{"ended_for":"7 days"}}`, "retention.ended_for: invalid duration \"7 days\": unknown unit \" days\" (want <positive integer><ms|s|m|h|d>, e.g. 30s)"},
		{"retention ended_for number", `{"retention":{"ended_for":7}}`, "`retention.ended_for` must be a string"},
		{"retention ended_max zero", `{"retention":{"ended_max":0}}`, "`retention.ended_max` must be an integer from 1 to 4294967295, or \"off\""},
		{"retention ended_max string", `{"retention":{"ended_max":"10"}}`, "`retention.ended_max` must be an integer from 1 to 4294967295, or \"off\""},
		{"retention ended_max float", `{"retention":{"ended_max":1.5}}`, "`retention.ended_max` must be an integer from 1 to 4294967295, or \"off\""},
		// string keys
		{"agent number", `{"defaults":{"agent":1}}`, "`defaults.agent` must be a string"},
		{"agent null", `{"defaults":{"agent":null}}`, "`defaults.agent` must be a string"},
		{"model bool", `{"defaults":{"providers":{"claude":{"model":true}}}}`, "`defaults.providers.claude.model` must be a string"},
		{"effort null", `{"defaults":{"providers":{"codex":{"effort":null}}}}`, "`defaults.providers.codex.effort` must be a string"},
		{"herdr bin number", `{"herdr":{"bin":5}}`, "`herdr.bin` must be a string"},
		{"herdr session array", `{"herdr":{"session":[]}}`, "`herdr.session` must be a string"},
		{"timing number", `{"timings":{"gc_tick":30}}`, "`timings.gc_tick` must be a string"},
		// integer keys: wrong type
		{"max string", `{"concurrency":{"max":"5"}}`, "`concurrency.max` must be a non-negative integer"},
		{"max float", `{"concurrency":{"max":5.0}}`, "`concurrency.max` must be a non-negative integer"},
		{"max exponent", `{"concurrency":{"max":1e3}}`, "`concurrency.max` must be a non-negative integer"},
		{"max negative", `{"concurrency":{"max":-1}}`, "`concurrency.max` must be a non-negative integer"},
		{"max bool", `{"concurrency":{"max":true}}`, "`concurrency.max` must be a non-negative integer"},
		{"cap float", `{"concurrency":{"claude":1.5}}`, "`concurrency.claude` must be a non-negative integer"},
		{"cap null", `{"concurrency":{"codex":null}}`, "`concurrency.codex` must be a non-negative integer"},
		{"max_bytes string", `{"logs":{"max_bytes":"10"}}`, "`logs.max_bytes` must be a non-negative integer"},
		{"max_files negative", `{"logs":{"max_files":-3}}`, "`logs.max_files` must be a non-negative integer"},
		{"integration float", `{"integrations":{"claude":{"idle_stable_ms":2.5}}}`, "`integrations.claude.idle_stable_ms` must be a non-negative integer"},
		{"integration string", `{"integrations":{"mock":{"submit_attempts":"6"}}}`, "`integrations.mock.submit_attempts` must be a non-negative integer"},
		{"integration negative", `{"integrations":{"codex":{"shutdown_grace_ms":-1}}}`, "`integrations.codex.shutdown_grace_ms` must be a non-negative integer"},
		// integer keys: too large
		{"max 2^32", `{"concurrency":{"max":4294967296}}`, "`concurrency.max` is too large"},
		{"cap beyond u64", `{"concurrency":{"codex":99999999999999999999}}`, "`concurrency.codex` is too large"},
		{"max_files 2^32", `{"logs":{"max_files":4294967296}}`, "`logs.max_files` is too large"},
		{"max_bytes 2^63", `{"logs":{"max_bytes":9223372036854775808}}`, "`logs.max_bytes` is too large"},
		{"integration 2^63", `{"integrations":{"claude":{"submit_ready_ms":9223372036854775808}}}`, "`integrations.claude.submit_ready_ms` is too large"},
		// provider routes
		{"new provider model only", `{"defaults":{"providers":{"gemini":{"model":"pro"}}}}`, "defaults.providers.gemini requires non-empty model and effort"},
		{"new provider empty", `{"defaults":{"providers":{"gemini":{}}}}`, "defaults.providers.gemini requires non-empty model and effort"},
		{"patch blanks model", `{"defaults":{"providers":{"claude":{"model":""}}}}`, "defaults.providers.claude requires non-empty model and effort"},
		{"patch whitespace effort", `{"defaults":{"providers":{"codex":{"effort":"  "}}}}`, "defaults.providers.codex requires non-empty model and effort"},
		// session names
		{"session empty", `{"herdr":{"session":""}}`, "herdr.session `` is not a valid session name (use 1–64 letters, digits, `_`, `-`, `.`)"},
		{"session dot", `{"herdr":{"session":"."}}`, "herdr.session `.` is not a valid session name (use 1–64 letters, digits, `_`, `-`, `.`)"},
		{"session dotdot", `{"herdr":{"session":".."}}`, "herdr.session `..` is not a valid session name (use 1–64 letters, digits, `_`, `-`, `.`)"},
		{"session space", `{"herdr":{"session":"a b"}}`, "herdr.session `a b` is not a valid session name (use 1–64 letters, digits, `_`, `-`, `.`)"},
		{"session slash", `{"herdr":{"session":"a/b"}}`, "herdr.session `a/b` is not a valid session name (use 1–64 letters, digits, `_`, `-`, `.`)"},
		{"session non-ascii", `{"herdr":{"session":"é"}}`, "herdr.session `é` is not a valid session name (use 1–64 letters, digits, `_`, `-`, `.`)"},
		{"session 65", `{"herdr":{"session":"` + strings.Repeat("a", 65) + `"}}`, "herdr.session `" + strings.Repeat("a", 65) + "` is not a valid session name (use 1–64 letters, digits, `_`, `-`, `.`)"},
		{"session default", `{"herdr":{"session":"default"}}`, "herdr.session `default` is reserved for the user's default herdr session; choose another name"},
		// ranges
		{"max zero", `{"concurrency":{"max":0}}`, "concurrency.max must be >= 1"},
		{"cap zero", `{"concurrency":{"claude":0}}`, "concurrency.claude must be >= 1"},
		{"cap negative zero", `{"concurrency":{"claude":-0}}`, "concurrency.claude must be >= 1"},
		{"max_bytes zero", `{"logs":{"max_bytes":0}}`, "logs.max_bytes must be >= 1"},
		{"max_files zero", `{"logs":{"max_files":0}}`, "logs.max_files must be >= 1"},
		// durations
		{"duration zero", `{"timings":{"idle_after":"0s"}}`, `timings.idle_after: invalid duration "0s": must be greater than zero (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
		{"duration no unit", `{"timings":{"kill_after":"5"}}`, `timings.kill_after: invalid duration "5": missing unit (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
		{"duration unknown unit", `{"timings":{"gc_tick":"5w"}}`, `timings.gc_tick: invalid duration "5w": unknown unit "w" (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
		{"duration decimal", `{"timings":{"max_starting":"1.5m"}}`, `timings.max_starting: invalid duration "1.5m": decimals are not allowed (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
		{"duration compound", `{"timings":{"attach_lease_ttl":"1h30m"}}`, `timings.attach_lease_ttl: invalid duration "1h30m": compound durations are not allowed (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
		{"duration empty", `{"timings":{"loop_tick":""}}`, `timings.loop_tick: invalid duration "": empty (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
		{"duration negative", `{"timings":{"run_term_grace":"-10s"}}`, `timings.run_term_grace: invalid duration "-10s": a sign is not allowed (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, warns, err := parse(t, tt.src, nil)
			checkEnvErr(t, "Parse("+tt.src+")", err, "config_invalid", tt.msg)
			if cfg != nil || warns != nil {
				t.Errorf("Parse(%s): got cfg %v warnings %q, want nil on error", tt.src, cfg, warns)
			}
		})
	}
}

func TestParseInvalidJSON(t *testing.T) {
	tests := []struct{ name, src string }{
		{"empty file", ``},
		{"whitespace only", "  \n"},
		{"unterminated", `{`},
		{"trailing comma", `{"defaults":{},}`},
		{"comment", "{ // hi\n}"},
		{"trailing value", `{} {}`},
		{"trailing garbage", `{}x`},
		{"single quotes", `{'a':1}`},
		{"invalid utf8", "{\"defaults\":{\"agent\":\"\xff\"}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parse(t, tt.src, nil)
			checkEnvErr(t, "Parse("+tt.src+")", err, "config_invalid", "")
			if err != nil && !strings.HasPrefix(err.Error(), "environment_error: config.json is not valid JSON: ") {
				t.Errorf("Parse(%q): got %q, want prefix %q", tt.src, err, "config.json is not valid JSON: ")
			}
		})
	}
}

// TestParseErrorOrder checks that validation stops at the first error, sections being
// processed in the order defaults, herdr, concurrency, timings, logs, integrations.
func TestParseErrorOrder(t *testing.T) {
	tests := []struct {
		name string
		src  string
		msg  string
	}{
		{"defaults before herdr", `{"herdr":{"session":"a b"},"defaults":{"agent":1}}`, "`defaults.agent` must be a string"},
		{"herdr before concurrency", `{"concurrency":{"max":0},"herdr":{"bin":1}}`, "`herdr.bin` must be a string"},
		{"concurrency before timings", `{"timings":{"gc_tick":"0s"},"concurrency":{"max":0}}`, "concurrency.max must be >= 1"},
		{"timings before logs", `{"logs":{"max_files":0},"timings":{"gc_tick":5}}`, "`timings.gc_tick` must be a string"},
		{"logs before integrations", `{"integrations":{"x":1},"logs":{"max_bytes":0}}`, "logs.max_bytes must be >= 1"},
		{"integrations before remote", `{"remote":{"heartbeat":"0s"},"integrations":[]}`, "`integrations` must be a JSON object"},
		{"agent before providers", `{"defaults":{"providers":[],"agent":false}}`, "`defaults.agent` must be a string"},
		{"bin before session", `{"herdr":{"session":"..","bin":[]}}`, "`herdr.bin` must be a string"},
		{"max before caps", `{"concurrency":{"aaa":0,"max":0}}`, "concurrency.max must be >= 1"},
		{"timings in key order", `{"timings":{"run_term_grace":"x","idle_after":"y"}}`, `timings.idle_after: invalid duration "y": must start with a positive integer (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
		{"max_bytes before max_files", `{"logs":{"max_files":0,"max_bytes":0}}`, "logs.max_bytes must be >= 1"},
		{"model before effort", `{"defaults":{"providers":{"p":{"effort":1,"model":2}}}}`, "`defaults.providers.p.model` must be a string"},
		{"caps sorted by name", `{"concurrency":{"b":0,"a":"x"}}`, "`concurrency.a` must be a non-negative integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parse(t, tt.src, nil)
			checkEnvErr(t, "Parse("+tt.src+")", err, "config_invalid", tt.msg)
		})
	}
}

// TestParseMerge covers the merge rules of docs/config.md §1.4.
func TestParseMerge(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		edit  func(c *config.Config) // applied to Default() to build the want
		warns []string
	}{
		{"empty object", `{}`, func(*config.Config) {}, nil},
		{"empty sections", `{"defaults":{},"herdr":{},"concurrency":{},"timings":{},"logs":{},"integrations":{}}`, func(*config.Config) {}, nil},
		{
			"agent any string", `{"defaults":{"agent":""}}`,
			func(c *config.Config) { c.Defaults.Agent = "" }, nil,
		},
		{
			"patch existing provider keeps effort", `{"defaults":{"providers":{"claude":{"model":"opus"}}}}`,
			func(c *config.Config) { c.Defaults.Providers["claude"] = config.Route{Model: "opus", Effort: "medium"} }, nil,
		},
		{
			"patch existing provider keeps model", `{"defaults":{"providers":{"codex":{"effort":"low"}}}}`,
			func(c *config.Config) {
				c.Defaults.Providers["codex"] = config.Route{Model: "gpt-5.6-luna", Effort: "low"}
			}, nil,
		},
		{
			"new provider with both", `{"defaults":{"providers":{"gemini":{"model":"pro","effort":"max"}}}}`,
			func(c *config.Config) { c.Defaults.Providers["gemini"] = config.Route{Model: "pro", Effort: "max"} }, nil,
		},
		{
			"herdr values", `{"herdr":{"bin":"/usr/local/bin/herdr","session":"Work_1.x-y"}}`,
			func(c *config.Config) { c.Herdr = config.Herdr{Bin: "/usr/local/bin/herdr", Session: "Work_1.x-y"} }, nil,
		},
		{
			"session 64 chars", `{"herdr":{"session":"` + strings.Repeat("z", 64) + `"}}`,
			func(c *config.Config) { c.Herdr.Session = strings.Repeat("z", 64) }, nil,
		},
		{
			"only max keeps seed unclamped", `{"concurrency":{"max":5}}`,
			func(c *config.Config) { c.Concurrency = config.Concurrency{Max: 5, Caps: map[string]int{"claude": 10}} }, nil,
		},
		{
			"any provider key discards seed", `{"concurrency":{"codex":3}}`,
			func(c *config.Config) { c.Concurrency = config.Concurrency{Max: 25, Caps: map[string]int{"codex": 3}} }, nil,
		},
		{
			"max-like key is a provider cap", `{"concurrency":{"maxx":3}}`,
			func(c *config.Config) { c.Concurrency = config.Concurrency{Max: 25, Caps: map[string]int{"maxx": 3}} }, nil,
		},
		{
			"provider names not validated", `{"concurrency":{"weird name!":2},"defaults":{"providers":{"":{"model":"m","effort":"e"}}}}`,
			func(c *config.Config) {
				c.Concurrency.Caps = map[string]int{"weird name!": 2}
				c.Defaults.Providers[""] = config.Route{Model: "m", Effort: "e"}
			}, nil,
		},
		{
			"cap equal to max not clamped", `{"concurrency":{"max":4,"claude":4}}`,
			func(c *config.Config) { c.Concurrency = config.Concurrency{Max: 4, Caps: map[string]int{"claude": 4}} }, nil,
		},
		{
			"cap above file max clamped", `{"concurrency":{"max":5,"claude":8,"codex":2}}`,
			func(c *config.Config) {
				c.Concurrency = config.Concurrency{Max: 5, Caps: map[string]int{"claude": 5, "codex": 2}}
			},
			[]string{"concurrency.claude (8) exceeds concurrency.max (5); clamping to 5"},
		},
		{
			"cap above default max clamped", `{"concurrency":{"claude":30,"codex":26}}`,
			func(c *config.Config) {
				c.Concurrency = config.Concurrency{Max: 25, Caps: map[string]int{"claude": 25, "codex": 25}}
			},
			[]string{
				"concurrency.claude (30) exceeds concurrency.max (25); clamping to 25",
				"concurrency.codex (26) exceeds concurrency.max (25); clamping to 25",
			},
		},
		{
			"max at 32-bit limit", `{"concurrency":{"max":4294967295}}`,
			func(c *config.Config) { c.Concurrency.Max = 4294967295 }, nil,
		},
		{
			"timings", `{"timings":{"idle_after":" 7m ","kill_after":"1h","gc_tick":"250ms","max_starting":"1d","attach_lease_ttl":"45s","loop_tick":"2s","run_term_grace":"03s","stall_after":"2s","limit_backoff":"1h"}}`,
			func(c *config.Config) {
				c.Timings = config.Timings{
					IdleAfter: 7 * time.Minute, KillAfter: time.Hour, GCTick: 250 * time.Millisecond,
					MaxStarting: 24 * time.Hour, AttachLeaseTTL: 45 * time.Second, LoopTick: 2 * time.Second,
					RunTermGrace: 3 * time.Second, StallAfter: 2 * time.Second, LimitBackoff: time.Hour,
				}
			}, nil,
		},
		{
			"routing fallback", `{"routing":{"fallback":{"claude":" codex "}}}`,
			func(c *config.Config) { c.Routing.Fallback = map[string]string{"claude": "codex"} }, nil,
		},
		{
			"quota pause_at", `{"quota":{"pause_at":0.8}}`,
			func(c *config.Config) { c.Quota.PauseAt = 0.8 }, nil,
		},
		{
			"quota warn_at", `{"quota":{"warn_at":0.5}}`,
			func(c *config.Config) { c.Quota.WarnAt = 0.5 }, nil,
		},
		{
			"retention", `{"retention":{"ended_for":" 1s ","ended_max":3}}`,
			func(c *config.Config) { c.Retention = config.Retention{EndedFor: time.Second, EndedMax: 3} }, nil,
		},
		{
			"retention off", `{"retention":{"ended_for":"off","ended_max":" off"}}`,
			func(c *config.Config) { c.Retention = config.Retention{} }, nil,
		},
		{
			"retention partial keeps the default", `{"retention":{"ended_max":5}}`,
			func(c *config.Config) { c.Retention.EndedMax = 5 }, nil,
		},
		{
			"partial timings keep defaults", `{"timings":{"gc_tick":"10s"}}`,
			func(c *config.Config) { c.Timings.GCTick = 10 * time.Second }, nil,
		},
		{
			"logs", `{"logs":{"max_bytes":9223372036854775807,"max_files":4294967295}}`,
			func(c *config.Config) { c.Logs = config.Logs{MaxBytes: 9223372036854775807, MaxFiles: 4294967295} }, nil,
		},
		{
			"integrations all keys", `{"integrations":{"claude":{"fast_turn_grace_ms":1,"idle_stable_ms":2,"transcript_settle_ms":0,"transcript_freshness_timeout_ms":4,"shutdown_grace_ms":5,"submit_ready_ms":6,"submit_confirm_ms":7,"submit_attempts":8,"submit_enter_delay_ms":9,"gate_settle_ms":10}}}`,
			func(c *config.Config) {
				c.Integrations["claude"] = config.TuningOverride{
					FastTurnGraceMS: ptr(1), IdleStableMS: ptr(2), TranscriptSettleMS: ptr(0), TranscriptFreshnessTimeoutMS: ptr(4),
					ShutdownGraceMS: ptr(5), SubmitReadyMS: ptr(6), SubmitConfirmMS: ptr(7), SubmitAttempts: ptr(8),
					SubmitEnterDelayMS: ptr(9), GateSettleMS: ptr(10),
				}
			}, nil,
		},
		{
			"integrations partial and empty", `{"integrations":{"codex":{"idle_stable_ms":100},"x":{}}}`,
			func(c *config.Config) {
				c.Integrations["codex"] = config.TuningOverride{IdleStableMS: ptr(100)}
				c.Integrations["x"] = config.TuningOverride{}
			}, nil,
		},
		{
			"negative zero is zero", `{"integrations":{"mock":{"submit_ready_ms":-0}}}`,
			func(c *config.Config) { c.Integrations["mock"] = config.TuningOverride{SubmitReadyMS: ptr(0)} }, nil,
		},
		{
			"duplicate key last wins", `{"herdr":{"session":"a","session":"b"}}`,
			func(c *config.Config) { c.Herdr.Session = "b" }, nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warns, err := parse(t, tt.src, nil)
			if err != nil {
				t.Fatalf("Parse(%s): got error %v, want nil", tt.src, err)
			}
			want := config.Default()
			tt.edit(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Parse(%s) mismatch (-want +got):\n%s", tt.src, diff)
			}
			if diff := cmp.Diff(tt.warns, warns); diff != "" {
				t.Errorf("Parse(%s) warnings (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func ptr(n int64) *int64 { return &n }

// TestParseWarnings covers docs/config.md §1.6.
func TestParseWarnings(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		warns []string
	}{
		{"top typo", `{"timing":{}}`, []string{"unknown config key `timing` (did you mean `timings`?); ignoring"}},
		{"top no suggestion", `{"zzzzzz":1}`, []string{"unknown config key `zzzzzz`; ignoring"}},
		{"top distance 2", `{"hrdrr":1}`, []string{"unknown config key `hrdrr` (did you mean `herdr`?); ignoring"}},
		{"top distance 3 none", `{"lg":1,"conc":1}`, []string{"unknown config key `conc`; ignoring", "unknown config key `lg` (did you mean `logs`?); ignoring"}},
		{"defaults", `{"defaults":{"agnet":"x","provider":{}}}`, []string{
			"unknown config key `defaults.agnet` (did you mean `agent`?); ignoring",
			"unknown config key `defaults.provider` (did you mean `providers`?); ignoring",
		}},
		{"provider route", `{"defaults":{"providers":{"claude":{"modle":"x","temperature":1}}}}`, []string{
			"unknown config key `defaults.providers.claude.modle` (did you mean `model`?); ignoring",
			"unknown config key `defaults.providers.claude.temperature`; ignoring",
		}},
		{"herdr", `{"herdr":{"session_name":"x","bins":"y"}}`, []string{
			"unknown config key `herdr.bins` (did you mean `bin`?); ignoring",
			"unknown config key `herdr.session_name`; ignoring",
		}},
		{"timings", `{"timings":{"gc_tik":"1s","loop_ticks":"1s","poll":"1s"}}`, []string{
			"unknown config key `timings.gc_tik` (did you mean `gc_tick`?); ignoring",
			"unknown config key `timings.loop_ticks` (did you mean `loop_tick`?); ignoring",
			"unknown config key `timings.poll`; ignoring",
		}},
		{"logs", `{"logs":{"max_file":3}}`, []string{"unknown config key `logs.max_file` (did you mean `max_files`?); ignoring"}},
		{"logs tie goes to first listed", `{"logs":{"max_bies":3}}`, []string{"unknown config key `logs.max_bies` (did you mean `max_bytes`?); ignoring"}},
		{"logs distance 3 none", `{"logs":{"max_es":3}}`, []string{"unknown config key `logs.max_es`; ignoring"}},
		{"integrations", `{"integrations":{"claude":{"submit_attempt":1,"idle_ms":1}}}`, []string{
			"unknown config key `integrations.claude.idle_ms`; ignoring",
			"unknown config key `integrations.claude.submit_attempt` (did you mean `submit_attempts`?); ignoring",
		}},
		{"submit keys are known", `{"integrations":{"codex":{"submit_ready_ms":1,"submit_confirm_ms":2,"submit_attempts":3}}}`, nil},
		{"concurrency never warns", `{"concurrency":{"mx":1,"claude":1}}`, nil},
		{"provider names never warn", `{"defaults":{"providers":{"claud":{"model":"m","effort":"e"}}},"integrations":{"claud":{}}}`, nil},
		{"unknown value type irrelevant", `{"herdr":{"sesion":[1,2]}}`, []string{"unknown config key `herdr.sesion` (did you mean `session`?); ignoring"}},
		{"remote", `{"remote":{"listn":"","heartbeat":"5s"}}`, []string{"unknown config key `remote.listn` (did you mean `listen`?); ignoring"}},
		{"processing order: top then sections", `{"timings":{"idle":"1s"},"defaults":{"agentt":"x"},"zz":0}`, []string{
			"unknown config key `zz`; ignoring",
			"unknown config key `defaults.agentt` (did you mean `agent`?); ignoring",
			"unknown config key `timings.idle`; ignoring",
		}},
		{"unicode distance in runes", `{"defaults":{"providers":{"claude":{"mödél":"x"}}}}`, []string{
			"unknown config key `defaults.providers.claude.mödél` (did you mean `model`?); ignoring",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warns, err := parse(t, tt.src, nil)
			if err != nil {
				t.Fatalf("Parse(%s): got error %v, want nil", tt.src, err)
			}
			if diff := cmp.Diff(tt.warns, warns); diff != "" {
				t.Errorf("Parse(%s) warnings (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		name   string
		key    string
		known  []string
		want   string
		wantOK bool
	}{
		{"exact distance 0", "model", []string{"model", "effort"}, "model", true},
		{"distance 1", "efort", []string{"model", "effort"}, "effort", true},
		{"distance 2", "mdel_", []string{"model", "effort"}, "model", true},
		{"distance 3", "mxxxl", []string{"model"}, "", false},
		{"tie goes to first", "ab", []string{"ac", "ad"}, "ac", true},
		{"tie goes to first reversed", "ab", []string{"ad", "ac"}, "ad", true},
		{"closer beats earlier", "adx", []string{"ac", "adx_"}, "adx_", true},
		{"empty key tie", "", []string{"ab", "cd"}, "ab", true},
		{"no known", "x", nil, "", false},
		{"runes not bytes", "ééé", []string{"eee"}, "", false},
		{"runes not bytes within 2", "éé", []string{"ee"}, "ee", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := config.Suggest(tt.key, tt.known)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Suggest(%q, %q): got (%q, %v), want (%q, %v)", tt.key, tt.known, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestParseEnv(t *testing.T) {
	tests := []struct {
		name        string
		src         string
		env         map[string]string
		wantSession string
		wantBinEnv  string
	}{
		{"no env", `{}`, nil, "orcr", ""},
		{"session override", `{"herdr":{"session":"file"}}`, map[string]string{"ORCR_HERDR_SESSION": "envsess"}, "envsess", ""},
		{"session override trimmed", `{}`, map[string]string{"ORCR_HERDR_SESSION": "  work \n"}, "work", ""},
		{"blank session ignored", `{"herdr":{"session":"file"}}`, map[string]string{"ORCR_HERDR_SESSION": " \t "}, "file", ""},
		{"session override not validated", `{}`, map[string]string{"ORCR_HERDR_SESSION": "default"}, "default", ""},
		{"session override not validated 2", `{}`, map[string]string{"ORCR_HERDR_SESSION": "a b/c"}, "a b/c", ""},
		{"bin env recorded not merged", `{}`, map[string]string{"ORCR_HERDR_BIN": "/x/herdr"}, "orcr", "/x/herdr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := parse(t, tt.src, tt.env)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if cfg.Herdr.Session != tt.wantSession {
				t.Errorf("Herdr.Session: got %q, want %q", cfg.Herdr.Session, tt.wantSession)
			}
			if cfg.HerdrBinEnv != tt.wantBinEnv {
				t.Errorf("HerdrBinEnv: got %q, want %q", cfg.HerdrBinEnv, tt.wantBinEnv)
			}
			if cfg.Herdr.Bin != "" {
				t.Errorf("Herdr.Bin: got %q, want empty (env must not be merged)", cfg.Herdr.Bin)
			}
		})
	}
}

func TestParseEnvDoesNotMaskFileError(t *testing.T) {
	_, _, err := parse(t, `{"herdr":{"session":"default"}}`, map[string]string{"ORCR_HERDR_SESSION": "ok"})
	checkEnvErr(t, "Parse(bad session, env override)", err, "config_invalid", "")
}

func TestHerdrBin(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		env       map[string]string
		bin, from string
	}{
		{"config wins", `{"herdr":{"bin":"/cfg/herdr"}}`, map[string]string{"ORCR_HERDR_BIN": "/env/herdr"}, "/cfg/herdr", "herdr.bin"},
		{"env when config empty", `{"herdr":{"bin":""}}`, map[string]string{"ORCR_HERDR_BIN": "/env/herdr"}, "/env/herdr", "ORCR_HERDR_BIN"},
		{"PATH last", `{}`, nil, "herdr", "PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := parse(t, tt.src, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			bin, from := cfg.HerdrBin()
			if bin != tt.bin || from != tt.from {
				t.Errorf("HerdrBin(): got (%q, %q), want (%q, %q)", bin, from, tt.bin, tt.from)
			}
		})
	}
}

func TestResolveRoute(t *testing.T) {
	cfg, _, err := parse(t, `{"defaults":{"providers":{"claude":{"model":"opus"}}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                    string
		provider, model, effort string
		want                    config.Route
		errMsg                  string
	}{
		{"defaults", "claude", "", "", config.Route{Model: "opus", Effort: "medium"}, ""},
		{"request wins", "claude", "haiku", "max", config.Route{Model: "haiku", Effort: "max"}, ""},
		{"mixed", "codex", "", "low", config.Route{Model: "gpt-5.6-luna", Effort: "low"}, ""},
		{"unknown provider with both", "gemini", "pro", "high", config.Route{Model: "pro", Effort: "high"}, ""},
		{"unknown provider no model", "gemini", "", "high", config.Route{}, "no model configured for provider `gemini`; set defaults.providers.gemini.model"},
		{"unknown provider no effort", "gemini", "pro", "", config.Route{}, "no effort configured for provider `gemini`; set defaults.providers.gemini.effort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cfg.ResolveRoute(tt.provider, tt.model, tt.effort)
			if tt.errMsg != "" {
				checkEnvErr(t, "ResolveRoute", err, "config_invalid", tt.errMsg)
				return
			}
			if err != nil {
				t.Fatalf("ResolveRoute(%q, %q, %q): %v", tt.provider, tt.model, tt.effort, err)
			}
			if got != tt.want {
				t.Errorf("ResolveRoute(%q, %q, %q): got %+v, want %+v", tt.provider, tt.model, tt.effort, got, tt.want)
			}
		})
	}
}

func TestProviderCap(t *testing.T) {
	cfg := config.Default()
	if n, ok := cfg.ProviderCap("claude"); n != 10 || !ok {
		t.Errorf("ProviderCap(claude): got (%d, %v), want (10, true)", n, ok)
	}
	if n, ok := cfg.ProviderCap("codex"); n != 0 || ok {
		t.Errorf("ProviderCap(codex): got (%d, %v), want (0, false)", n, ok)
	}
}

func TestEventRetention(t *testing.T) {
	tests := []struct {
		val  string
		want int
	}{
		{"", 10000}, {"abc", 10000}, {"0", 10000}, {"-5", 10000}, {"1.5", 10000},
		{"42", 42}, {" 7 ", 7}, {"1", 1}, {"99999999999999999999999", 10000},
	}
	for _, tt := range tests {
		got := config.EventRetention(env(map[string]string{"ORCR_EVENT_RETENTION": tt.val}))
		if got != tt.want {
			t.Errorf("EventRetention(%q): got %d, want %d", tt.val, got, tt.want)
		}
	}
}
