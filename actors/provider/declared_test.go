package provider_test

import (
	"slices"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// declaredCfg parses a config.json holding declarations.
func declaredCfg(t *testing.T, src string) (*config.Config, provider.Options) {
	t.Helper()
	cfg, _, err := config.Parse([]byte(src), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return cfg, provider.Options{Declared: cfg.Providers}
}

const qwenDecl = `{"providers":{"qwen-local":{"command":"qwen","args":["--auth-type","openai"],
  "model_args":["-m","{model}"],"effort_args":["--effort={effort}"],"bypass_args":["--approval-mode","yolo"],
  "resume_args":["--resume","{session}"],"env":{"OPENAI_BASE_URL":"http://127.0.0.1:1/v1"},
  "models":["a","b"],"default_model":"a","session":"herdr",
  "screens":{"login":["how would you like to authenticate"]},
  "keys":{"submit":"Enter","interrupt":["Escape","Escape"],"approve":["1"],"deny":["4"]},
  "shutdown":{"line":"/quit","grace":"750ms"}}}}`

func TestDeclaredProviderFromConfig(t *testing.T) {
	cfg, o := declaredCfg(t, qwenDecl)
	p, err := provider.Lookup("qwen-local", o)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Route(cfg, "", "high")
	if err != nil || r.Model != "a" || r.Effort != "high" || r.Provider != "qwen-local" {
		t.Fatalf("Route = %+v, %v", r, err)
	}
	argv, _ := p.LaunchArgv(r)
	want := []string{"qwen", "--auth-type", "openai", "--approval-mode", "yolo", "-m", "a", "--effort=high"}
	if !slices.Equal(argv, want) {
		t.Errorf("LaunchArgv = %q, want %q", argv, want)
	}
	r.Approvals = true
	argv, _ = p.LaunchArgv(r)
	if slices.Contains(argv, "yolo") {
		t.Errorf("approvals keeps the bypass: %q", argv)
	}
	argv, err = p.ResumeArgv(r, provider.SessionKindID, "0b7c-1")
	if err != nil || !slices.Equal(argv[len(argv)-2:], []string{"--resume", "0b7c-1"}) {
		t.Errorf("ResumeArgv = %q, %v", argv, err)
	}
	if _, err := p.ResumeArgv(r, provider.SessionKindID, "--evil"); !wire.Is(err, wire.InvalidRequest, wire.ReasonNotResumable) {
		t.Errorf("a flag-like session id resumed: %v", err)
	}
	if p.Env(nil)["OPENAI_BASE_URL"] == "" {
		t.Error("env not passed")
	}
	sd := p.Shutdown(cfg)
	if sd.Line != "/quit" || !slices.Equal(sd.Keys, []string{"Enter"}) || sd.Grace != 750*time.Millisecond {
		t.Errorf("Shutdown = %+v", sd)
	}
	if !slices.Equal(p.InterruptKeys(), []string{"Escape", "Escape"}) || !slices.Equal(p.ApproveKeys(), []string{"1"}) || !slices.Equal(p.DenyKeys(), []string{"4"}) {
		t.Error("keys not as declared")
	}
	if _, cause := p.Startup(cfg).Gate("? Get started\nHow would you like to\n  authenticate for this project?"); cause != wire.CauseProviderLoginRequired {
		t.Errorf("login screen not seen: %q", cause)
	}
	if tr := p.Transcript(); tr.Format != provider.FormatNone {
		t.Errorf("Transcript = %+v", tr)
	}
}

func TestDeclaredProviderRefusesUnlistedModel(t *testing.T) {
	cfg, o := declaredCfg(t, qwenDecl)
	p, _ := provider.Lookup("qwen-local", o)
	_, err := p.Route(cfg, "gpt-9", "")
	pe, ok := wire.As(err)
	if !ok || !wire.Is(err, wire.InvalidRequest, wire.ReasonInvalidModel) || !slices.Equal(pe.Details["valid_models"].([]string), []string{"a", "b"}) {
		t.Fatalf("Route(gpt-9) = %v", err)
	}
}

func TestDeclaredProviderSupportRule(t *testing.T) {
	_, o := declaredCfg(t, `{"providers":{"withherdr":{"command":"x","session":"herdr"},"alone":{"command":"y"}}}`)
	if err := o.Support("alone", nil); err != nil {
		t.Errorf("session none needs no herdr layer: %v", err)
	}
	err := o.Support("withherdr", nil)
	pe, ok := wire.As(err)
	if !ok || pe.Code != wire.IntegrationMissing || !slices.Equal(pe.Details["missing"].([]string), []string{provider.LayerHerdr}) {
		t.Fatalf("session herdr without herdr's integration: %v", err)
	}
	if err := o.Support("withherdr", map[string]bool{"withherdr": true}); err != nil {
		t.Errorf("with herdr's integration: %v", err)
	}
	if err := o.Support("nobody", map[string]bool{"nobody": true}); err == nil {
		t.Error("an undeclared provider passed the gate")
	}
	in := o.Integrations(nil)
	if !in["alone"].Orcr || !in["claude"].Orcr {
		t.Errorf("Integrations = %+v", in)
	}
}

// A declaration cannot take a built-in's place: Lookup keeps the built-in.
func TestBuiltinsWinOverDeclared(t *testing.T) {
	o := provider.Options{Declared: map[string]config.ProviderSpec{"claude": {Name: "claude", Command: "evil"}}}
	p, err := provider.Lookup("claude", o)
	if err != nil {
		t.Fatal(err)
	}
	if argv, _ := p.LaunchArgv(provider.Route{}); argv[0] != "claude" {
		t.Errorf("LaunchArgv = %q", argv)
	}
	if _, ok := provider.Spec(p); ok {
		t.Error("claude reported as declared")
	}
}
