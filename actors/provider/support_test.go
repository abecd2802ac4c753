package provider_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestCheckSupport(t *testing.T) {
	const (
		fixHerdrClaude = "run `herdr integration install claude` to install its Herdr integration"
		fixOrcrKimi    = "provider `kimi` is not built into this orcr release; built-in providers: claude, codex, gemini, opencode, pi, qwen"
		fixBothKimi    = fixOrcrKimi + "; its Herdr integration is also not installed"
		fixBothMock    = "provider `mock` is not built into this orcr release; built-in providers: claude, codex, gemini, opencode, pi, qwen; its Herdr integration is also not installed"
	)
	installed := map[string]bool{"codex": true, "kimi": true, "claude": false}
	tests := []struct {
		name       string
		prov       string
		orcrHas    bool
		herdr      map[string]bool
		wantLayers []string // nil = supported
		wantFix    string
	}{
		{"both layers", "codex", true, installed, nil, ""},
		{"herdr reports not installed", "claude", true, installed, []string{"herdr"}, fixHerdrClaude},
		{"herdr does not know it", "claude", true, map[string]bool{}, []string{"herdr"}, fixHerdrClaude},
		{"herdr status failed (nil map)", "claude", true, nil, []string{"herdr"}, fixHerdrClaude},
		{"no orcr module", "kimi", false, installed, []string{"orcr"}, fixOrcrKimi},
		{"neither layer", "kimi", false, map[string]bool{}, []string{"orcr", "herdr"}, fixBothKimi},
		{"mock allowed bypasses herdr", "mock", true, nil, nil, ""},
		{"mock not allowed", "mock", false, nil, []string{"orcr", "herdr"}, fixBothMock},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := provider.CheckSupport(tc.prov, tc.orcrHas, tc.herdr)
			if tc.wantLayers == nil {
				if err != nil {
					t.Fatalf("CheckSupport(%q): got %v, want nil", tc.prov, err)
				}
				return
			}
			wantMsg := "provider `" + tc.prov + "` is not fully supported: missing [" + strings.Join(tc.wantLayers, ", ") + "] integration"
			wantWireError(t, "CheckSupport("+tc.prov+")", err, wire.IntegrationMissing, wantMsg,
				map[string]any{"provider": tc.prov, "missing": tc.wantLayers, "fix": tc.wantFix})
			if got := wire.From(err, "").Code.Exit(); got != 2 {
				t.Errorf("integration_missing exit: got %d, want 2", got)
			}
			if got := provider.FixText(tc.prov, tc.wantLayers); got != tc.wantFix {
				t.Errorf("FixText(%q, %v): got %q, want %q", tc.prov, tc.wantLayers, got, tc.wantFix)
			}
		})
	}
}

func TestCheckSupportJSON(t *testing.T) {
	err := provider.CheckSupport("claude", true, nil)
	pe, _ := wire.As(err)
	got, _ := json.Marshal(pe)
	want := `{"code":"integration_missing","message":"provider ` + "`claude`" + ` is not fully supported: missing [herdr] integration",` +
		`"details":{"fix":"run ` + "`herdr integration install claude`" + ` to install its Herdr integration","missing":["herdr"],"provider":"claude"}}`
	if string(got) != want {
		t.Errorf("integration_missing JSON:\n got %s\nwant %s", got, want)
	}
}

func TestHerdrInstalledAndIntegrations(t *testing.T) {
	out := []byte(`claude: current (v3) (/home/u/.claude/hooks/herdr-agent-state.sh)
codex: not installed (/home/u/.codex/herdr-agent-state.sh)
pi: outdated (v1 < v2) (/home/u/.pi/agent/extensions/herdr.ts)
antigravity-cli: not installed (/home/u/.gemini/antigravity)
`)
	rows, err := herdr.ParseIntegrationStatus(out)
	if err != nil {
		t.Fatal(err)
	}
	inst := provider.HerdrInstalled(rows)
	wantInst := map[string]bool{"claude": true, "codex": false, "pi": true, "antigravity-cli": false}
	if diff := cmp.Diff(wantInst, inst); diff != "" {
		t.Errorf("HerdrInstalled mismatch (-want +got):\n%s", diff)
	}
	got := provider.Integrations(inst)
	want := map[string]provider.Integration{
		"claude":          {Orcr: true, Herdr: true, Supported: true},
		"codex":           {Orcr: true, Herdr: false},
		"pi":              {Orcr: true, Herdr: true, Supported: true},
		"antigravity-cli": {Orcr: false, Herdr: false},
		// gemini and pi need no herdr integration; opencode and qwen do (docs/providers.md §12).
		"gemini": {Orcr: true, Supported: true}, "opencode": {Orcr: true}, "qwen": {Orcr: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Integrations mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"antigravity-cli", "claude", "codex", "gemini", "opencode", "pi", "qwen"}, provider.IntegrationNames(got)); diff != "" {
		t.Errorf("IntegrationNames mismatch (-want +got):\n%s", diff)
	}
	js, _ := json.Marshal(got["claude"])
	if string(js) != `{"orcr":true,"herdr":true,"supported":true}` {
		t.Errorf("Integration JSON: got %s", js)
	}
}

func TestIntegrationsWithoutHerdr(t *testing.T) {
	got := provider.Integrations(provider.HerdrInstalled(nil))
	// Without herdr only the providers that need no herdr integration can run.
	want := map[string]provider.Integration{"claude": {Orcr: true}, "codex": {Orcr: true},
		"gemini": {Orcr: true, Supported: true}, "opencode": {Orcr: true}, "pi": {Orcr: true, Supported: true}, "qwen": {Orcr: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Integrations(nil) mismatch (-want +got):\n%s", diff)
	}
}
