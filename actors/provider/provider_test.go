package provider_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func i64(v int64) *int64 { return &v }

func mustLookup(tb testing.TB, name string, o provider.Options) provider.Provider {
	tb.Helper()
	p, err := provider.Lookup(name, o)
	if err != nil {
		tb.Fatalf("Lookup(%q): %v", name, err)
	}
	return p
}

func TestKnown(t *testing.T) {
	got := provider.Known()
	if diff := cmp.Diff([]string{"claude", "codex", "gemini", "opencode", "pi", "qwen"}, got); diff != "" {
		t.Fatalf("Known() mismatch (-want +got):\n%s", diff)
	}
	got[0] = "mutated"
	if provider.Known()[0] != "claude" {
		t.Errorf("Known() returned a shared slice")
	}
}

func TestLookup(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	missingOrcr := func(p string) map[string]any {
		return map[string]any{"provider": p, "missing": []string{"orcr"},
			"fix": "provider `" + p + "` is not built into this orcr release; built-in providers: claude, codex, gemini, opencode, pi, qwen"}
	}
	tests := []struct {
		name    string
		prov    string
		opts    provider.Options
		wantErr map[string]any // nil = success
	}{
		{"claude", "claude", provider.Options{}, nil},
		{"codex", "codex", provider.Options{}, nil},
		{"mock disabled", "mock", provider.Options{}, missingOrcr("mock")},
		{"mock allowed by flag", "mock", provider.Options{AllowMock: true}, nil},
		{"mock allowed by env", "mock", provider.Options{Getenv: env(map[string]string{"ORCR_ALLOW_MOCK_PROVIDER": "1"})}, nil},
		{"mock env not exactly 1", "mock", provider.Options{Getenv: env(map[string]string{"ORCR_ALLOW_MOCK_PROVIDER": "true"})}, missingOrcr("mock")},
		{"gemini", "gemini", provider.Options{}, nil},
		{"opencode", "opencode", provider.Options{}, nil},
		{"pi", "pi", provider.Options{}, nil},
		{"qwen", "qwen", provider.Options{}, nil},
		{"unknown provider", "kimi", provider.Options{AllowMock: true}, missingOrcr("kimi")},
		{"case matters", "Claude", provider.Options{}, missingOrcr("Claude")},
		{"empty name", "", provider.Options{}, missingOrcr("")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := provider.Lookup(tc.prov, tc.opts)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Lookup(%q): %v", tc.prov, err)
				}
				if p.Name() != tc.prov {
					t.Errorf("Lookup(%q).Name(): got %q", tc.prov, p.Name())
				}
				return
			}
			wantWireError(t, "Lookup("+tc.prov+")", err, wire.IntegrationMissing,
				"provider `"+tc.prov+"` is not fully supported: missing [orcr] integration", tc.wantErr)
		})
	}
}

func TestOptionsHasOrcr(t *testing.T) {
	tests := []struct {
		name string
		opts provider.Options
		want bool
	}{
		{"claude", provider.Options{}, true},
		{"codex", provider.Options{}, true},
		{"mock", provider.Options{}, false},
		{"mock", provider.Options{AllowMock: true}, true},
		{"gemini", provider.Options{}, true},
		{"kimi", provider.Options{AllowMock: true}, false},
	}
	for _, tc := range tests {
		if got := tc.opts.HasOrcr(tc.name); got != tc.want {
			t.Errorf("Options{AllowMock:%v}.HasOrcr(%q): got %v, want %v", tc.opts.AllowMock, tc.name, got, tc.want)
		}
	}
}

func TestOptionsFromEnv(t *testing.T) {
	env := map[string]string{"ORCR_ALLOW_MOCK_PROVIDER": "1", "ORCR_MOCK_AGENT_BIN": "/opt/mock"}
	o := provider.OptionsFromEnv(func(k string) string { return env[k] })
	p := mustLookup(t, "mock", o)
	argv, err := p.LaunchArgv(provider.Route{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/opt/mock", "--skip-permissions"}, argv); diff != "" {
		t.Errorf("mock argv from env (-want +got):\n%s", diff)
	}
	// An explicit MockBin wins over the environment.
	o.MockBin = "/explicit"
	argv, _ = mustLookup(t, "mock", o).LaunchArgv(provider.Route{})
	if diff := cmp.Diff([]string{"/explicit", "--skip-permissions"}, argv); diff != "" {
		t.Errorf("explicit mock argv (-want +got):\n%s", diff)
	}
}

func TestRouteClaude(t *testing.T) {
	noDefaults := config.Default()
	delete(noDefaults.Defaults.Providers, "claude")
	custom := config.Default()
	custom.Defaults.Providers["claude"] = config.Route{Model: "opus", Effort: "max"}
	badDefault := config.Default()
	badDefault.Defaults.Providers["claude"] = config.Route{Model: "gpt-4", Effort: "low"}

	validModels := []string{"sonnet", "opus", "fable", "haiku"}
	validEfforts := []string{"low", "medium", "high", "xhigh", "max", "ultracode"}
	tests := []struct {
		name          string
		cfg           *config.Config
		model, effort string
		want          provider.Route
		wantCode      wire.Code
		wantMsg       string
		wantDetails   map[string]any
	}{
		{name: "built-in defaults", cfg: config.Default(),
			want: provider.Route{Provider: "claude", Model: "sonnet", Effort: "medium"}},
		{name: "nil config means defaults", cfg: nil,
			want: provider.Route{Provider: "claude", Model: "sonnet", Effort: "medium"}},
		{name: "config defaults", cfg: custom,
			want: provider.Route{Provider: "claude", Model: "opus", Effort: "max"}},
		{name: "request overrides config", cfg: custom, model: "haiku", effort: "ultracode",
			want: provider.Route{Provider: "claude", Model: "haiku", Effort: "ultracode"}},
		{name: "request model only", cfg: custom, model: "fable",
			want: provider.Route{Provider: "claude", Model: "fable", Effort: "max"}},
		{name: "request effort only", cfg: config.Default(), effort: "xhigh",
			want: provider.Route{Provider: "claude", Model: "sonnet", Effort: "xhigh"}},
		{name: "no model configured", cfg: noDefaults, effort: "low",
			wantCode:    wire.EnvironmentError,
			wantMsg:     "no model configured for provider `claude`; set defaults.providers.claude.model",
			wantDetails: map[string]any{"cause": "config_invalid", "provider": "claude"}},
		{name: "no effort configured", cfg: noDefaults, model: "opus",
			wantCode:    wire.EnvironmentError,
			wantMsg:     "no effort configured for provider `claude`; set defaults.providers.claude.effort",
			wantDetails: map[string]any{"cause": "config_invalid", "provider": "claude"}},
		{name: "invalid model", cfg: config.Default(), model: "gpt-5",
			wantCode: wire.InvalidRequest,
			wantMsg:  "invalid Claude model `gpt-5`; valid models: sonnet, opus, fable, haiku",
			wantDetails: map[string]any{"reason": "invalid_model", "provider": "claude", "model": "gpt-5",
				"valid_models": validModels}},
		{name: "invalid configured model", cfg: badDefault,
			wantCode: wire.InvalidRequest,
			wantMsg:  "invalid Claude model `gpt-4`; valid models: sonnet, opus, fable, haiku",
			wantDetails: map[string]any{"reason": "invalid_model", "provider": "claude", "model": "gpt-4",
				"valid_models": validModels}},
		{name: "model checked before effort", cfg: config.Default(), model: "Opus", effort: "huge",
			wantCode: wire.InvalidRequest,
			wantMsg:  "invalid Claude model `Opus`; valid models: sonnet, opus, fable, haiku",
			wantDetails: map[string]any{"reason": "invalid_model", "provider": "claude", "model": "Opus",
				"valid_models": validModels}},
		{name: "invalid effort", cfg: config.Default(), model: "opus", effort: "huge",
			wantCode: wire.InvalidRequest,
			wantMsg:  "invalid effort `huge` for Claude model `opus`; valid efforts: low, medium, high, xhigh, max, ultracode",
			wantDetails: map[string]any{"reason": "invalid_effort", "provider": "claude", "model": "opus",
				"effort": "huge", "valid_efforts": validEfforts}},
	}
	p := mustLookup(t, "claude", provider.Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.Route(tc.cfg, tc.model, tc.effort)
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("Route(%q, %q): %v", tc.model, tc.effort, err)
				}
				if got != tc.want {
					t.Errorf("Route(%q, %q): got %+v, want %+v", tc.model, tc.effort, got, tc.want)
				}
				return
			}
			wantWireError(t, "Route", err, tc.wantCode, tc.wantMsg, tc.wantDetails)
		})
	}
}

func TestRouteCodex(t *testing.T) {
	noDefaults := config.Default()
	delete(noDefaults.Defaults.Providers, "codex")
	custom := config.Default()
	custom.Defaults.Providers["codex"] = config.Route{Model: "gpt-5.5-codex", Effort: "low"}
	validModels := []string{"gpt-5.6-luna", "gpt-5.5-codex", "codex-mini"}

	tests := []struct {
		name          string
		cfg           *config.Config
		model, effort string
		want          provider.Route
		wantCode      wire.Code
		wantMsg       string
		wantDetails   map[string]any
		wantNoFetch   bool
	}{
		{name: "built-in defaults", cfg: config.Default(),
			want: provider.Route{Provider: "codex", Model: "gpt-5.6-luna", Effort: "high"}},
		{name: "config defaults", cfg: custom,
			want: provider.Route{Provider: "codex", Model: "gpt-5.5-codex", Effort: "low"}},
		{name: "request overrides", cfg: custom, model: "gpt-5.6-luna", effort: "xhigh",
			want: provider.Route{Provider: "codex", Model: "gpt-5.6-luna", Effort: "xhigh"}},
		{name: "model without effort list accepts any effort", model: "codex-mini", effort: "whatever",
			want: provider.Route{Provider: "codex", Model: "codex-mini", Effort: "whatever"}},
		{name: "config_invalid before the catalogue", cfg: noDefaults, wantNoFetch: true,
			wantCode:    wire.EnvironmentError,
			wantMsg:     "no model configured for provider `codex`; set defaults.providers.codex.model",
			wantDetails: map[string]any{"cause": "config_invalid", "provider": "codex"}},
		{name: "invalid model", model: "gpt-4o", effort: "high",
			wantCode: wire.InvalidRequest,
			wantMsg:  "invalid Codex model `gpt-4o`; valid models: gpt-5.6-luna, gpt-5.5-codex, codex-mini",
			wantDetails: map[string]any{"reason": "invalid_model", "provider": "codex", "model": "gpt-4o",
				"valid_models": validModels}},
		{name: "effort of another model", model: "gpt-5.5-codex", effort: "xhigh",
			wantCode: wire.InvalidRequest,
			wantMsg:  "invalid effort `xhigh` for Codex model `gpt-5.5-codex`; valid efforts: low, medium, high",
			wantDetails: map[string]any{"reason": "invalid_effort", "provider": "codex", "model": "gpt-5.5-codex",
				"effort": "xhigh", "valid_efforts": []string{"low", "medium", "high"}}},
		{name: "effort of a dropped duplicate", model: "gpt-5.6-luna", effort: "minimal",
			wantCode: wire.InvalidRequest,
			wantMsg:  "invalid effort `minimal` for Codex model `gpt-5.6-luna`; valid efforts: low, medium, high, xhigh",
			wantDetails: map[string]any{"reason": "invalid_effort", "provider": "codex", "model": "gpt-5.6-luna",
				"effort": "minimal", "valid_efforts": []string{"low", "medium", "high", "xhigh"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat := newFakeCatalog(t, "codex_model_list.jsonl")
			p := mustLookup(t, "codex", provider.Options{CodexCatalog: cat.CodexCatalog})
			got, err := p.Route(tc.cfg, tc.model, tc.effort)
			if n := cat.Calls.Load(); (n == 0) != tc.wantNoFetch {
				t.Errorf("catalogue fetched %d times; want fetch = %v", n, !tc.wantNoFetch)
			}
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("Route(%q, %q): %v", tc.model, tc.effort, err)
				}
				if got != tc.want {
					t.Errorf("Route(%q, %q): got %+v, want %+v", tc.model, tc.effort, got, tc.want)
				}
				return
			}
			wantWireError(t, "Route", err, tc.wantCode, tc.wantMsg, tc.wantDetails)
		})
	}
}

func TestRouteCodexCatalogUnavailable(t *testing.T) {
	for _, fixture := range []string{"codex_model_list_error.jsonl", "codex_model_list_empty.jsonl", "codex_model_list_no_answer.jsonl"} {
		t.Run(fixture, func(t *testing.T) {
			cat := newFakeCatalog(t, fixture)
			p := mustLookup(t, "codex", provider.Options{CodexCatalog: cat.CodexCatalog})
			_, err := p.Route(nil, "gpt-5.6-luna", "high")
			wantWireError(t, "Route", err, wire.EnvironmentError, "",
				map[string]any{"cause": "model_catalog_unavailable"})
		})
	}
}

func TestRouteMock(t *testing.T) {
	withRoute := config.Default()
	withRoute.Defaults.Providers["mock"] = config.Route{Model: "m1", Effort: "e1"}
	tests := []struct {
		name          string
		cfg           *config.Config
		model, effort string
		want          provider.Route
	}{
		{"built-in default", config.Default(), "", "", provider.Route{Provider: "mock", Model: "mock", Effort: "medium"}},
		{"nil config", nil, "", "", provider.Route{Provider: "mock", Model: "mock", Effort: "medium"}},
		{"config route", withRoute, "", "", provider.Route{Provider: "mock", Model: "m1", Effort: "e1"}},
		{"request wins", withRoute, "anything", "goes", provider.Route{Provider: "mock", Model: "anything", Effort: "goes"}},
		{"no validation", config.Default(), "opus", "ultracode!", provider.Route{Provider: "mock", Model: "opus", Effort: "ultracode!"}},
	}
	p := mustLookup(t, "mock", provider.Options{AllowMock: true})
	for _, tc := range tests {
		got, err := p.Route(tc.cfg, tc.model, tc.effort)
		if err != nil {
			t.Fatalf("%s: Route: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: Route(%q, %q): got %+v, want %+v", tc.name, tc.model, tc.effort, got, tc.want)
		}
	}
}

func TestLaunchArgv(t *testing.T) {
	opts := provider.Options{AllowMock: true, MockBin: "/usr/local/bin/orcr-mock-agent"}
	tests := []struct {
		prov  string
		route provider.Route
		want  []string
	}{
		{"claude", provider.Route{Model: "opus", Effort: "high"},
			[]string{"claude", "--dangerously-skip-permissions", "--model", "opus", "--effort", "high"}},
		{"claude", provider.Route{Model: "sonnet"},
			[]string{"claude", "--dangerously-skip-permissions", "--model", "sonnet"}},
		{"claude", provider.Route{Effort: "max"},
			[]string{"claude", "--dangerously-skip-permissions", "--effort", "max"}},
		{"claude", provider.Route{},
			[]string{"claude", "--dangerously-skip-permissions"}},
		{"codex", provider.Route{Model: "gpt-5.6-luna", Effort: "high"},
			[]string{"codex", "--dangerously-bypass-approvals-and-sandbox", "--model", "gpt-5.6-luna", "-c", "model_reasoning_effort=high"}},
		{"codex", provider.Route{Model: "gpt-5.5-codex"},
			[]string{"codex", "--dangerously-bypass-approvals-and-sandbox", "--model", "gpt-5.5-codex"}},
		{"codex", provider.Route{Effort: "low"},
			[]string{"codex", "--dangerously-bypass-approvals-and-sandbox", "-c", "model_reasoning_effort=low"}},
		{"codex", provider.Route{},
			[]string{"codex", "--dangerously-bypass-approvals-and-sandbox"}},
		{"codex", provider.Route{Model: "gpt-5.6-luna", Approvals: true},
			[]string{"codex", "--model", "gpt-5.6-luna"}},
		{"codex", provider.Route{Approvals: true},
			[]string{"codex"}},
		{"claude", provider.Route{Model: "opus", Effort: "high", Approvals: true},
			[]string{"claude", "--model", "opus", "--effort", "high"}},
		{"claude", provider.Route{Approvals: true},
			[]string{"claude"}},
		{"mock", provider.Route{Model: "mock", Effort: "medium"},
			[]string{"/usr/local/bin/orcr-mock-agent", "--skip-permissions"}},
		{"mock", provider.Route{},
			[]string{"/usr/local/bin/orcr-mock-agent", "--skip-permissions"}},
		{"mock", provider.Route{Model: "mock", Approvals: true},
			[]string{"/usr/local/bin/orcr-mock-agent"}},
	}
	for _, tc := range tests {
		got, err := mustLookup(t, tc.prov, opts).LaunchArgv(tc.route)
		if err != nil {
			t.Fatalf("%s LaunchArgv(%+v): %v", tc.prov, tc.route, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s LaunchArgv(%+v) mismatch (-want +got):\n%s", tc.prov, tc.route, diff)
		}
	}
}

func TestMockBinUnset(t *testing.T) {
	p := mustLookup(t, "mock", provider.Options{AllowMock: true, Getenv: func(string) string { return "" }})
	_, err := p.LaunchArgv(provider.Route{Model: "mock", Effort: "medium"})
	wantWireError(t, "mock LaunchArgv", err, wire.ServerError, "", map[string]any{"cause": "mock_bin_unset"})
	if got := wire.From(err, "x").Code.Exit(); got != 1 {
		t.Errorf("mock_bin_unset exit code: got %d, want 1", got)
	}
}

func TestEnv(t *testing.T) {
	serverEnv := []string{
		"HOME=/home/u",
		"ORCR_MOCK_TURN_MS=250",
		"ORCR_MOCK_BANNER=hello=world",
		"ORCR_MOCK_AGENT_BIN=/bin/mock",
		"ORCR_MOCKING=no",
		"ORCR_ALLOW_MOCK_PROVIDER=1",
		"ORCR_MOCK_EMPTY=",
		"malformed",
		"ORCR_MOCK_TURN_MS=300",
	}
	tests := []struct {
		prov string
		want map[string]string
	}{
		{"claude", map[string]string{}},
		{"codex", map[string]string{}},
		{"mock", map[string]string{
			"ORCR_MOCK_TURN_MS":   "300",
			"ORCR_MOCK_BANNER":    "hello=world",
			"ORCR_MOCK_AGENT_BIN": "/bin/mock",
			"ORCR_MOCK_EMPTY":     "",
		}},
	}
	for _, tc := range tests {
		got := mustLookup(t, tc.prov, provider.Options{AllowMock: true}).Env(serverEnv)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s Env mismatch (-want +got):\n%s", tc.prov, diff)
		}
	}
}

func TestMockEnvDefaultsToProcessEnv(t *testing.T) {
	t.Setenv("ORCR_MOCK_FROM_PROCESS", "yes")
	got := mustLookup(t, "mock", provider.Options{AllowMock: true}).Env(nil)
	if got["ORCR_MOCK_FROM_PROCESS"] != "yes" {
		t.Errorf("mock Env(nil): got %v, want ORCR_MOCK_FROM_PROCESS=yes from os.Environ", got)
	}
}

// multiLineClear is the shared clear recipe of docs/providers.md §5.1.
var multiLineClear = []string{"ctrl+e", "ctrl+u",
	"backspace", "ctrl+e", "ctrl+u", "backspace", "ctrl+e", "ctrl+u", "backspace", "ctrl+e", "ctrl+u", "backspace", "ctrl+e", "ctrl+u",
	"backspace", "ctrl+e", "ctrl+u", "backspace", "ctrl+e", "ctrl+u", "backspace", "ctrl+e", "ctrl+u", "backspace", "ctrl+e", "ctrl+u"}

func TestRecipes(t *testing.T) {
	real := provider.Startup{
		SessionPoll: 150 * time.Millisecond, SessionWait: 3 * time.Second,
		ReadyBudget: 8 * time.Second, ReadyPoll: 400 * time.Millisecond,
		Paste: true, ClearKeys: multiLineClear,
		EnterDelay: time.Second, SubmitKey: "Enter",
		Confirm: provider.SubmitConfirm{Budget: 20 * time.Second, Attempts: 6, Poll: 400 * time.Millisecond,
			RetypeDelay: 300 * time.Millisecond, ProbeMaxChars: 60},
	}
	codexStartup := real
	codexStartup.LoginScreens = []string{"sign in with chatgpt", "sign in with device code", "finish signing in via your browser"}
	codexStartup.SetupScreens = []string{"approaching rate limits"}
	claudeStartup := real
	claudeStartup.LoginScreens = []string{"do you want to use this api key"}
	claudeStartup.TrustScreens = []string{"is this a project you created or one you trust", "yes, i trust this folder"}
	claudeStartup.SetupScreens = []string{"make auto mode your default permission mode"}
	claudeStartup.GateSettle = 2 * time.Second // its auto-mode question comes after its input box (§5.2)
	mockStartup := provider.Startup{
		SessionPoll: 150 * time.Millisecond, SessionWait: 3 * time.Second,
		ReadyBudget: 0, ReadyPoll: 400 * time.Millisecond,
		Paste: true, ClearKeys: multiLineClear,
		EnterDelay: 0, SubmitKey: "Enter",
		Confirm: provider.SubmitConfirm{Budget: 0, Attempts: 0, Poll: 400 * time.Millisecond,
			RetypeDelay: 300 * time.Millisecond, ProbeMaxChars: 60},
	}
	tests := []struct {
		prov          string
		startup       provider.Startup
		shutdown      provider.Shutdown
		transcript    provider.Transcript
		approve, deny []string
	}{
		{"claude", claudeStartup, provider.Shutdown{}, provider.Transcript{Format: "claude"},
			[]string{"Enter"}, []string{"Escape"}},
		{"codex", codexStartup, provider.Shutdown{}, provider.Transcript{Format: "codex"},
			[]string{"y"}, []string{"n"}},
		{"mock", mockStartup,
			provider.Shutdown{Line: "/quit", Keys: []string{"Enter"}, Grace: 400 * time.Millisecond},
			provider.Transcript{Format: "claude", DataDirFile: "transcript.jsonl"},
			[]string{"Enter"}, []string{"Escape"}},
	}
	for _, tc := range tests {
		p := mustLookup(t, tc.prov, provider.Options{AllowMock: true})
		if diff := cmp.Diff(tc.startup, p.Startup(nil)); diff != "" {
			t.Errorf("%s Startup mismatch (-want +got):\n%s", tc.prov, diff)
		}
		if diff := cmp.Diff(tc.startup.Confirm, p.SubmitConfirm(config.Default())); diff != "" {
			t.Errorf("%s SubmitConfirm mismatch (-want +got):\n%s", tc.prov, diff)
		}
		if got, want := p.SubmitConfirm(nil).Enabled(), tc.prov != "mock"; got != want {
			t.Errorf("%s SubmitConfirm.Enabled(): got %v, want %v", tc.prov, got, want)
		}
		if diff := cmp.Diff(tc.shutdown, p.Shutdown(nil)); diff != "" {
			t.Errorf("%s Shutdown mismatch (-want +got):\n%s", tc.prov, diff)
		}
		if got, want := p.Shutdown(nil).HasLine(), tc.prov == "mock"; got != want {
			t.Errorf("%s Shutdown.HasLine(): got %v, want %v", tc.prov, got, want)
		}
		if diff := cmp.Diff([]string{"Escape"}, p.InterruptKeys()); diff != "" {
			t.Errorf("%s InterruptKeys mismatch (-want +got):\n%s", tc.prov, diff)
		}
		if diff := cmp.Diff(tc.approve, p.ApproveKeys()); diff != "" {
			t.Errorf("%s ApproveKeys mismatch (-want +got):\n%s", tc.prov, diff)
		}
		if diff := cmp.Diff(tc.deny, p.DenyKeys()); diff != "" {
			t.Errorf("%s DenyKeys mismatch (-want +got):\n%s", tc.prov, diff)
		}
		if diff := cmp.Diff(tc.transcript, p.Transcript()); diff != "" {
			t.Errorf("%s Transcript mismatch (-want +got):\n%s", tc.prov, diff)
		}
		if diff := cmp.Diff(config.BuiltinTuning(tc.prov), p.Tuning(nil)); diff != "" {
			t.Errorf("%s Tuning(nil) mismatch (-want +got):\n%s", tc.prov, diff)
		}
	}
}

func TestTuningOverrides(t *testing.T) {
	cfg := config.Default()
	cfg.Integrations["claude"] = config.TuningOverride{SubmitConfirmMS: i64(0), SubmitAttempts: i64(2), SubmitReadyMS: i64(1234),
		SubmitEnterDelayMS: i64(250)}
	cfg.Integrations["mock"] = config.TuningOverride{ShutdownGraceMS: i64(50), IdleStableMS: i64(10)}
	opts := provider.Options{AllowMock: true}

	claude := mustLookup(t, "claude", opts)
	want := config.BuiltinTuning("claude")
	want.SubmitConfirm, want.SubmitAttempts, want.SubmitReady, want.SubmitEnterDelay = 0, 2, 1234*time.Millisecond, 250*time.Millisecond
	if diff := cmp.Diff(want, claude.Tuning(cfg)); diff != "" {
		t.Errorf("claude Tuning mismatch (-want +got):\n%s", diff)
	}
	st := claude.Startup(cfg)
	if st.ReadyBudget != 1234*time.Millisecond || st.EnterDelay != 250*time.Millisecond || st.Confirm.Budget != 0 || st.Confirm.Attempts != 2 ||
		st.Confirm.Enabled() {
		t.Errorf("claude Startup with overrides: got %+v", st)
	}
	// codex is untouched by claude's overrides.
	if diff := cmp.Diff(config.BuiltinTuning("codex"), mustLookup(t, "codex", opts).Tuning(cfg)); diff != "" {
		t.Errorf("codex Tuning mismatch (-want +got):\n%s", diff)
	}
	mock := mustLookup(t, "mock", opts)
	if got := mock.Shutdown(cfg).Grace; got != 50*time.Millisecond {
		t.Errorf("mock Shutdown(cfg).Grace: got %v, want 50ms (shutdown_grace_ms override)", got)
	}
	if got := mock.Tuning(cfg).IdleStable; got != 10*time.Millisecond {
		t.Errorf("mock Tuning(cfg).IdleStable: got %v, want 10ms", got)
	}
}

func TestArgvIsFresh(t *testing.T) {
	p := mustLookup(t, "claude", provider.Options{})
	a, _ := p.LaunchArgv(provider.Route{Model: "opus"})
	a[0] = "mutated"
	b, _ := p.LaunchArgv(provider.Route{Model: "opus"})
	if b[0] != "claude" {
		t.Errorf("LaunchArgv shares its slice: got %q", b[0])
	}
	for name, keys := range map[string]func() []string{
		"InterruptKeys": p.InterruptKeys, "ApproveKeys": p.ApproveKeys, "DenyKeys": p.DenyKeys,
	} {
		k := keys()
		want := k[0]
		k[0] = "mutated"
		if keys()[0] != want {
			t.Errorf("%s shares its slice", name)
		}
	}
}

func TestModelSwitch(t *testing.T) {
	tests := []struct {
		prov, model string
		want        string
		ok          bool
	}{
		{"claude", "opus", "/model opus", true},
		{"claude", "claude-opus-4-1", "/model claude-opus-4-1", true},
		{"mock", "mock", "/model mock", true},
		{"mock", "any model at all", "/model any model at all", true},
		{"codex", "gpt-5.6-luna", "", false},
		{"claude", "", "", false},
		{"mock", " \t", "", false},
		{"mock", "two\nlines", "", false},
		{"claude", "opus\x1b[201~", "", false},
		{"mock", "del\x7f", "", false},
		{"mock", "c1\u009b", "", false},
	}
	for _, tc := range tests {
		got, ok := mustLookup(t, tc.prov, provider.Options{AllowMock: true}).ModelSwitch(tc.model)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s ModelSwitch(%q): got %q, %v; want %q, %v", tc.prov, tc.model, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRouteJSON(t *testing.T) {
	for _, tc := range []struct {
		r    provider.Route
		want string
	}{
		{provider.Route{Provider: "claude", Model: "opus", Effort: "high"}, `{"provider":"claude","model":"opus","effort":"high"}`},
		{provider.Route{Provider: "mock", Approvals: true}, `{"provider":"mock","model":"","effort":"","approvals":true}`},
	} {
		got, err := json.Marshal(tc.r)
		if err != nil || string(got) != tc.want {
			t.Errorf("json.Marshal(%+v): got %s, %v; want %s", tc.r, got, err, tc.want)
		}
	}
}

func TestGate(t *testing.T) {
	codex := mustLookup(t, "codex", provider.Options{}).Startup(nil)
	claude := mustLookup(t, "claude", provider.Options{}).Startup(nil)
	mock := mustLookup(t, "mock", provider.Options{AllowMock: true, Getenv: func(k string) string {
		if k == provider.EnvMockLoginScreen {
			return "  Log In Here "
		}
		return ""
	}}).Startup(nil)
	const login, trust = wire.CauseProviderLoginRequired, wire.CauseProviderTrustRequired
	tests := []struct {
		name          string
		st            provider.Startup
		screen        string
		phrase, cause string
	}{
		{"codex first screen", codex, "  Welcome to Codex\n> 1. Sign in with ChatGPT\n  2. Sign in with Device Code\n", "sign in with chatgpt", login},
		{"codex browser sign-in", codex, "  Finish signing in via your browser\n", "finish signing in via your browser", login},
		{"codex ready composer", codex, "› Explain this codebase\n  gpt-5.6-luna high · ~/src\n", "", ""},
		{"codex empty screen", codex, "", "", ""},
		{"codex model offer after its limit", codex, "■ You’ve hit your usage limit.\n\n  Approaching rate limits\n  Switch to gpt-6-luna for lower credit usage?\n› 1. Switch to gpt-6-luna\n", "approaching rate limits", wire.CauseProviderSetupRequired},
		{"codex has no trust screen", codex, "Yes, I trust this folder", "", ""},
		// claude 2.1.328's screens (docs/providers.md §5.2).
		{"claude trust question", claude, " Accessing workspace:\n\n /tmp/p\n\n Quick safety check: Is this a project you created or one you trust? (Like your own\n ❯ No, exit\n   Yes, I trust this folder\n", "is this a project you created or one you trust", trust},
		{"claude trust question wrapped by a narrow pane", claude, " Quick safety check: Is this a project you\n created or one you\n trust?", "is this a project you created or one you trust", trust},
		{"claude api key question", claude, "  Detected a custom API key in your environment\n  Do you want to use this API key?\n    Yes\n  ❯ No (recommended)\n", "do you want to use this api key", login},
		{"claude auto-mode question", claude, "  Make auto mode your default permission mode?\n\n  Auto mode lets Claude handle permission prompts automatically.\n  ❯ Yes, set auto mode as my default permission mode\n    No, keep manual mode\n", "make auto mode your default permission mode", wire.CauseProviderSetupRequired},
		{"claude manual mode input box", claude, "❯ \n  ⏸ manual mode on · ? for shortcuts\n", "", ""},
		{"claude ready input box", claude, "❯ \n  ⏵⏵ bypass permissions on (shift+tab to cycle)\n", "", ""},
		{"claude has no codex sign-in", claude, "Sign in with ChatGPT", "", ""},
		{"mock phrase from the environment, any case", mock, "PLEASE LOG IN HERE", "log in here", login},
		{"mock other screen", mock, "orcr-mock-agent ready", "", ""},
	}
	for _, tc := range tests {
		if phrase, cause := tc.st.Gate(tc.screen); phrase != tc.phrase || cause != tc.cause {
			t.Errorf("%s: Gate(%q) = %q, %q; want %q, %q", tc.name, tc.screen, phrase, cause, tc.phrase, tc.cause)
		}
	}
	if m := mustLookup(t, "mock", provider.Options{AllowMock: true}).Startup(nil); len(m.LoginScreens)+len(m.TrustScreens) != 0 {
		t.Errorf("mock without %s: LoginScreens %q TrustScreens %q", provider.EnvMockLoginScreen, m.LoginScreens, m.TrustScreens)
	}
}

// TestPreflight: claude's bypass is refused up front for a root server without
// IS_SANDBOX (docs/providers.md §3.2), and IS_SANDBOX reaches claude's panes.
func TestPreflight(t *testing.T) {
	claude := mustLookup(t, "claude", provider.Options{})
	bypass := provider.Route{Provider: "claude", Model: "sonnet", Effort: "high"}
	approvals := bypass
	approvals.Approvals = true
	sandbox := []string{"PATH=/bin", "IS_SANDBOX=1"}
	for _, tc := range []struct {
		name    string
		r       provider.Route
		euid    int
		env     []string
		refused bool
	}{
		{"root with the bypass", bypass, 0, []string{"PATH=/bin"}, true},
		{"root with the bypass, IS_SANDBOX empty", bypass, 0, []string{"IS_SANDBOX="}, true},
		{"root with the bypass, IS_SANDBOX=yes", bypass, 0, []string{"IS_SANDBOX=yes"}, true},
		{"root with the bypass, IS_SANDBOX=true", bypass, 0, []string{"IS_SANDBOX=true"}, true},
		{"root with the bypass on a sandbox", bypass, 0, sandbox, false},
		{"root with approvals", approvals, 0, []string{"PATH=/bin"}, false},
		{"a user with the bypass", bypass, 1000, []string{"PATH=/bin"}, false},
	} {
		err := claude.Preflight(tc.r, tc.euid, tc.env)
		if !tc.refused {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.name, err)
			}
			continue
		}
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.EnvironmentError || we.Details["cause"] != wire.CauseProviderRefusesRoot ||
			!strings.Contains(we.Message, "IS_SANDBOX=1") {
			t.Errorf("%s: %v, want environment_error %s naming IS_SANDBOX=1", tc.name, err, wire.CauseProviderRefusesRoot)
		}
		if v := strings.TrimPrefix(tc.env[0], "IS_SANDBOX="); v != tc.env[0] && v != "" &&
			(we.Details["value"] != v || !strings.Contains(we.Message, "not IS_SANDBOX="+v)) {
			t.Errorf("%s: %v, want the refused value %q named", tc.name, err, v)
		}
	}
	if got := claude.Env(sandbox); len(got) != 1 || got["IS_SANDBOX"] != "1" {
		t.Errorf("claude pane env from %q: %v, want IS_SANDBOX only", sandbox, got)
	}
	for _, name := range []string{"codex", "mock"} {
		p := mustLookup(t, name, provider.Options{AllowMock: true, MockBin: "/bin/true"})
		if err := p.Preflight(provider.Route{Provider: name}, 0, nil); err != nil {
			t.Errorf("%s preflight as root: %v", name, err)
		}
		if _, ok := p.Env(sandbox)["IS_SANDBOX"]; ok {
			t.Errorf("%s passes IS_SANDBOX on", name)
		}
	}
}

// WithClaudeStatusLine puts claude's --settings with orcr's status line right after the
// binary, the orcr path shell-quoted (docs/providers.md §3.2).
func TestWithClaudeStatusLine(t *testing.T) {
	got := provider.WithClaudeStatusLine([]string{"claude", provider.ClaudeBypassFlag, "--model", "opus"}, "/opt/it's/orcr")
	want := []string{"claude", "--settings",
		`{"statusLine":{"command":"'/opt/it'\\''s/orcr' statusline","padding":0,"type":"command"}}`,
		provider.ClaudeBypassFlag, "--model", "opus"}
	if !slices.Equal(got, want) {
		t.Errorf("WithClaudeStatusLine = %q, want %q", got, want)
	}
	if got := provider.WithClaudeStatusLine([]string{"claude"}, ""); !slices.Equal(got, []string{"claude"}) {
		t.Errorf("without an orcr binary: %q", got)
	}
}
