package provider_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// contractBuiltin looks up one of the built-ins of docs/providers.md §12 with no config.
func contractBuiltin(t *testing.T, name string) provider.Provider {
	t.Helper()
	p, err := provider.Lookup(name, provider.Options{})
	if err != nil {
		t.Fatalf("Lookup(%s): %v", name, err)
	}
	return p
}

func TestContractBuiltinsArgv(t *testing.T) {
	tests := []struct {
		name, model, effort    string
		launch, approvals      []string
		resumeKind             string
		resumeValue, resumeArg []string // the pointer's value and the argv's tail
	}{
		{"pi", "standin/gpt-5-standin", "high",
			[]string{"pi", "--model", "standin/gpt-5-standin", "--thinking", "high"},
			[]string{"pi", "--model", "standin/gpt-5-standin", "--thinking", "high"},
			// the located session file is the pointer (docs/providers.md §12.1)
			provider.SessionKindPath, []string{"/h/.pi/agent/sessions/--w--/s.jsonl"}, []string{"--session", "/h/.pi/agent/sessions/--w--/s.jsonl"}},
		{"qwen", "gpt-5-standin", "",
			[]string{"qwen", "--approval-mode", "yolo", "-m", "gpt-5-standin"},
			[]string{"qwen", "--approval-mode", "default", "-m", "gpt-5-standin"},
			provider.SessionKindID, []string{"5f1c"}, []string{"--resume", "5f1c"}},
		{"gemini", "gemini-2.5-flash", "",
			[]string{"gemini", "--approval-mode", "yolo", "-m", "gemini-2.5-flash"},
			[]string{"gemini", "--approval-mode", "default", "-m", "gemini-2.5-flash"},
			// the sessionId of the transcript's header (docs/providers.md §12.2)
			provider.SessionKindID, []string{"8d3e0c2a-41f7-4b9e-a6d2-0e5f7c1b9a34"}, []string{"--resume", "8d3e0c2a-41f7-4b9e-a6d2-0e5f7c1b9a34"}},
		{"opencode", "standin/gpt-5-standin", "",
			[]string{"opencode", "--auto", "-m", "standin/gpt-5-standin"},
			[]string{"opencode", "-m", "standin/gpt-5-standin"},
			provider.SessionKindID, []string{"ses_3a1b"}, []string{"--session", "ses_3a1b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := contractBuiltin(t, tc.name)
			r, err := p.Route(nil, tc.model, tc.effort)
			if err != nil {
				t.Fatal(err)
			}
			argv, _ := p.LaunchArgv(r)
			if !slices.Equal(argv, tc.launch) {
				t.Errorf("LaunchArgv = %q, want %q", argv, tc.launch)
			}
			r.Approvals = true
			argv, _ = p.LaunchArgv(r)
			if !slices.Equal(argv, tc.approvals) {
				t.Errorf("LaunchArgv with approvals = %q, want %q", argv, tc.approvals)
			}
			r.Approvals = false
			argv, err = p.ResumeArgv(r, tc.resumeKind, tc.resumeValue[0])
			if err != nil || !slices.Equal(argv, append(slices.Clone(tc.launch), tc.resumeArg...)) {
				t.Errorf("ResumeArgv = %q, %v; want the launch argv then %q", argv, err, tc.resumeArg)
			}
			if _, err := p.ResumeArgv(r, tc.resumeKind, "-x"); !wire.Is(err, wire.InvalidRequest, wire.ReasonNotResumable) {
				t.Errorf("a flag-like session id resumed: %v", err)
			}
		})
	}
}

func TestContractBuiltinsRouting(t *testing.T) {
	for _, name := range provider.ContractBuiltins() {
		p := contractBuiltin(t, name)
		// Any model goes: the CLIs take whatever their configured endpoint serves.
		r, err := p.Route(nil, "some/model-7", "")
		if err != nil || r.Model != "some/model-7" || r.Provider != name {
			t.Errorf("%s: Route(some/model-7) = %+v, %v", name, r, err)
		}
		// No model anywhere: the flag is left out and the CLI's own default holds.
		r, err = p.Route(nil, "", "")
		argv, _ := p.LaunchArgv(r)
		if err != nil || r.Model != "" || slices.Contains(argv, "-m") || slices.Contains(argv, "--model") {
			t.Errorf("%s: Route() = %+v, %v, argv %q", name, r, err, argv)
		}
		// defaults.providers.<name> wins over the CLI's default.
		cfg := config.Default()
		cfg.Defaults.Providers[name] = config.Route{Model: "cfg-model", Effort: "low"}
		if r, err := p.Route(cfg, "", ""); err != nil || r.Model != "cfg-model" {
			t.Errorf("%s: Route with defaults = %+v, %v", name, r, err)
		}
	}
	pi := contractBuiltin(t, "pi")
	if _, err := pi.Route(nil, "m", "max"); !wire.Is(err, wire.InvalidRequest, wire.ReasonInvalidEffort) {
		t.Errorf("pi took --thinking max: %v", err)
	}
	for _, level := range provider.PiThinkingLevels {
		if _, err := pi.Route(nil, "m", level); err != nil {
			t.Errorf("pi refused --thinking %s: %v", level, err)
		}
	}
}

func TestContractBuiltinsKeysAndShutdown(t *testing.T) {
	tests := []struct {
		name                     string
		approve, deny, interrupt []string
		line                     string
		keys                     []string
	}{
		{"pi", []string{"Enter"}, []string{"Escape"}, []string{"Escape"}, "", []string{"ctrl+d"}},
		{"qwen", []string{"Enter"}, []string{"Escape"}, []string{"Escape"}, "/quit", []string{"Enter"}},
		{"gemini", []string{"Enter"}, []string{"Escape"}, []string{"Escape"}, "/quit", []string{"Enter"}},
		{"opencode", []string{"Enter"}, []string{"right", "right", "Enter"}, []string{"Escape", "Escape"}, "", []string{"ctrl+c"}},
	}
	for _, tc := range tests {
		p := contractBuiltin(t, tc.name)
		if !slices.Equal(p.ApproveKeys(), tc.approve) || !slices.Equal(p.DenyKeys(), tc.deny) || !slices.Equal(p.InterruptKeys(), tc.interrupt) {
			t.Errorf("%s: approve %q deny %q interrupt %q", tc.name, p.ApproveKeys(), p.DenyKeys(), p.InterruptKeys())
		}
		sd := p.Shutdown(nil)
		if sd.Line != tc.line || !slices.Equal(sd.Keys, tc.keys) || sd.Grace != config.Default().TuningFor(tc.name).ShutdownGrace {
			t.Errorf("%s: Shutdown = %+v", tc.name, sd)
		}
		if _, ok := p.ModelSwitch("x"); ok {
			t.Errorf("%s: a model switch recipe", tc.name)
		}
	}
}

// fixture is one recorded screen of testdata/screens/<cli>/ (docs/providers.md §10.2).
type fixture struct{ cli, file, want, screen string }

func screenFixtures(t *testing.T) []fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "screens", "*", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no screen fixtures: %v", err)
	}
	var out []fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		head, screen, ok := strings.Cut(string(data), "\n--\n")
		if !ok {
			t.Fatalf("%s: no `--` line", p)
		}
		f := fixture{cli: filepath.Base(filepath.Dir(p)), file: filepath.Base(p), screen: screen}
		for _, l := range strings.Split(head, "\n") {
			if v, ok := strings.CutPrefix(l, "want: "); ok {
				f.want = v
			}
		}
		out = append(out, f)
	}
	return out
}

// TestContractScreensMatchFixtures checks every recorded screen against the shipped
// rules: the first rule that matches is the one its `want` names (idle and done are the
// ready screen, setup is no rule but the startup gate's trust question).
func TestContractScreensMatchFixtures(t *testing.T) {
	rule := map[string]string{"idle": provider.ScreenReady, "done": provider.ScreenReady, "working": provider.ScreenWorking,
		"blocked": provider.ScreenBlocked, "limit": provider.ScreenLimit, "login": provider.ScreenLogin, "setup": ""}
	seen := map[string]bool{}
	for _, f := range screenFixtures(t) {
		want, ok := rule[f.want]
		if !ok {
			t.Fatalf("%s/%s: unknown want %q", f.cli, f.file, f.want)
		}
		p := contractBuiltin(t, f.cli)
		spec, _ := provider.Spec(p)
		if got := provider.ClassifyScreen(spec, f.screen); got != want {
			t.Errorf("%s/%s (want %s): classified %q, want %q", f.cli, f.file, f.want, got, want)
		}
		_, cause := p.Startup(nil).Gate(f.screen)
		switch {
		case f.want == "login" && cause != wire.CauseProviderLoginRequired,
			f.want == "setup" && cause != wire.CauseProviderTrustRequired,
			f.want != "login" && f.want != "setup" && cause != "":
			t.Errorf("%s/%s (want %s): startup gate cause %q", f.cli, f.file, f.want, cause)
		}
		seen[f.cli] = true
	}
	for _, name := range provider.ContractBuiltins() {
		if !seen[name] {
			t.Errorf("no screen fixture for %s", name)
		}
	}
}

// TestContractFormatsAreAdapters keeps config's transcript formats, the built-ins'
// formats and the adapters of actors/transcript one list.
func TestContractFormatsAreAdapters(t *testing.T) {
	got := slices.DeleteFunc(slices.Clone(config.TranscriptFormats), func(f string) bool { return f == config.TranscriptNone })
	slices.Sort(got)
	if !slices.Equal(got, transcript.Formats()) {
		t.Errorf("config.TranscriptFormats %q, transcript.Formats() %q", got, transcript.Formats())
	}
	for _, name := range provider.ContractBuiltins() {
		tr := contractBuiltin(t, name).Transcript()
		if tr.Format != name || !transcript.KnownFormat(tr.Format) || tr.DataDirFile != "" {
			t.Errorf("%s: Transcript() = %+v", name, tr)
		}
		if !slices.Contains(config.ReservedProviders, name) {
			t.Errorf("%s can be declared in config over the built-in", name)
		}
	}
}

func TestContractBuiltinsCannotBeDeclared(t *testing.T) {
	for _, name := range provider.ContractBuiltins() {
		_, _, err := config.Parse([]byte(`{"providers":{"`+name+`":{"command":"x"}}}`), func(string) string { return "" })
		if !wire.Is(err, wire.EnvironmentError, wire.CauseConfigInvalid) {
			t.Errorf("providers.%s: %v, want config_invalid", name, err)
		}
	}
}
