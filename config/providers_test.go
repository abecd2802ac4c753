package config_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// qwenByConfig is the worked example of docs/providers.md §11.5.
const qwenByConfig = `{"providers": {"qwen-local": {
  "command": "qwen",
  "args": ["--auth-type", "openai"],
  "model_args": ["-m", "{model}"],
  "bypass_args": ["--approval-mode", "yolo"],
  "resume_args": ["--resume", "{session}"],
  "env": {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"},
  "models": ["qwen3-coder-plus", "gpt-5-standin"], "default_model": "qwen3-coder-plus",
  "screens": {"ready": ["Type your message"], "blocked": ["Allow execution of"], "limit": ["usage limit"]},
  "session": "herdr",
  "transcript": {"format": "none"},
  "keys": {"approve": ["Enter"], "deny": ["Escape"]},
  "shutdown": {"line": "/quit", "grace": "2s"}
}}}`

func TestProvidersSectionParsesTheContract(t *testing.T) {
	cfg, warns, err := config.Parse([]byte(qwenByConfig), noEnv)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v %v", err, warns)
	}
	p, ok := cfg.Providers["qwen-local"]
	if !ok {
		t.Fatalf("providers: %v", cfg.Providers)
	}
	if p.Command != "qwen" || strings.Join(p.ModelArgs, " ") != "-m {model}" || p.DefaultModel != "qwen3-coder-plus" ||
		p.Env["OPENAI_BASE_URL"] == "" || !p.NeedsHerdr() || p.Transcript.Format != config.TranscriptNone {
		t.Errorf("spec = %+v", p)
	}
	if p.Shutdown.Line != "/quit" || strings.Join(p.Shutdown.Keys, ",") != "Enter" || p.Shutdown.Grace != 2*time.Second {
		t.Errorf("shutdown = %+v", p.Shutdown)
	}
	if len(p.Screens.Ready) != 1 || !p.Screens.Ready[0].MatchString(">   TYPE YOUR MESSAGE or @path") {
		t.Errorf("ready screens are case-insensitive regexes: %v", p.Screens.Ready)
	}
	if p.Keys.Submit != "Enter" || strings.Join(p.Keys.Interrupt, ",") != "Escape" || p.Keys.Clear != nil {
		t.Errorf("keys = %+v", p.Keys)
	}
	if cfg.TuningFor("qwen-local").TranscriptSettle != 0 {
		t.Error("a provider without a transcript must not wait for one to settle")
	}
}

// keys.clear replaces the shared clear recipe (docs/providers.md §11.1).
func TestProvidersSectionClearKeys(t *testing.T) {
	cfg, _, err := config.Parse([]byte(`{"providers":{"tool":{"command":"/opt/tool","keys":{"clear":["ctrl+a","ctrl+k"]}}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Providers["tool"].Keys.Clear, ","); got != "ctrl+a,ctrl+k" {
		t.Errorf("keys.clear = %q", got)
	}
}

func TestProvidersSectionDefaults(t *testing.T) {
	cfg, _, err := config.Parse([]byte(`{"providers":{"tool":{"command":"/opt/tool"}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Providers["tool"]
	if p.Status != config.StatusHerdr || p.Session != config.SessionNone || p.NeedsHerdr() || p.Transcript.Format != config.TranscriptNone ||
		p.Keys.Clear != nil {
		t.Errorf("defaults = %+v", p)
	}
}

func TestProvidersSectionRefusesBadContracts(t *testing.T) {
	for _, c := range []struct{ name, entry, field string }{
		{"missing command", `{"args":["x"]}`, "providers.p.command"},
		{"blank command", `{"command":"  "}`, "providers.p.command"},
		{"unknown key", `{"command":"x","modle_args":["{model}"]}`, "providers.p.modle_args"},
		{"unknown nested key", `{"command":"x","screens":{"readdy":["a"]}}`, "providers.p.screens.readdy"},
		{"bad regex", `{"command":"x","screens":{"ready":["(a"]}}`, "providers.p.screens.ready"},
		{"empty regex", `{"command":"x","screens":{"login":[""]}}`, "providers.p.screens.login"},
		{"model args without placeholder", `{"command":"x","model_args":["-m"]}`, "providers.p.model_args"},
		{"wrong placeholder", `{"command":"x","model_args":["-m","{effort}"]}`, "providers.p.model_args"},
		{"placeholder in args", `{"command":"x","args":["{model}"]}`, "providers.p.args"},
		{"placeholder in approval args", `{"command":"x","approval_args":["{model}"]}`, "providers.p.approval_args"},
		{"resume without session", `{"command":"x","resume_args":["-r","{session}"]}`, "providers.p.resume_args"},
		{"default model not listed", `{"command":"x","models":["a"],"default_model":"b"}`, "providers.p.default_model"},
		{"unknown status", `{"command":"x","status":"hooks"}`, "providers.p.status"},
		{"status screen without working", `{"command":"x","status":"screen","screens":{"ready":["a"]}}`, "providers.p.screens"},
		{"bad session", `{"command":"x","session":"maybe"}`, "providers.p.session"},
		{"transcript session of a format naming none", `{"command":"x","session":"transcript","transcript":{"format":"claude"}}`, "providers.p.session"},
		{"transcript session without a transcript", `{"command":"x","session":"transcript"}`, "providers.p.session"},
		{"bad format", `{"command":"x","transcript":{"format":"kimi"}}`, "providers.p.transcript.format"},
		{"data file without format", `{"command":"x","transcript":{"data_dir_file":"t.jsonl"}}`, "providers.p.transcript.data_dir_file"},
		{"data file outside", `{"command":"x","transcript":{"format":"claude","data_dir_file":"../t.jsonl"}}`, "providers.p.transcript.data_dir_file"},
		{"env not string", `{"command":"x","env":{"A":1}}`, "providers.p.env.A"},
		{"two-line shutdown", `{"command":"x","shutdown":{"line":"a\nb"}}`, "providers.p.shutdown.line"},
		{"bad grace", `{"command":"x","shutdown":{"grace":"soon"}}`, "providers.p.shutdown.grace"},
		{"empty approve", `{"command":"x","keys":{"approve":[]}}`, "providers.p.keys.approve"},
		{"blank clear key", `{"command":"x","keys":{"clear":["ctrl+u",""]}}`, "providers.p.keys.clear"},
		{"not an object", `"x"`, "providers.p"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := `{"providers":{"p":` + c.entry + `}}`
			checkFieldInvalid(t, src, c.field)
		})
	}
}

func TestProvidersSectionRefusesBuiltinAndBadNames(t *testing.T) {
	for _, name := range []string{"claude", "codex", "mock", "gemini", "opencode", "pi", "qwen", "Qwen", "a b", "-x"} {
		b, _ := json.Marshal(name)
		checkFieldInvalid(t, `{"providers":{`+string(b)+`:{"command":"x"}}}`, "providers."+name)
	}
}

func checkFieldInvalid(t *testing.T, src, field string) {
	t.Helper()
	cfg, _, err := config.Parse([]byte(src), noEnv)
	pe, ok := wire.As(err)
	if cfg != nil || !ok || !wire.Is(err, wire.EnvironmentError, wire.CauseConfigInvalid) {
		t.Fatalf("Parse(%s) = %v, %v; want config_invalid", src, cfg, err)
	}
	if got, _ := pe.Details["field"].(string); got != field || !strings.Contains(pe.Message, field) {
		t.Errorf("Parse(%s): field %q, message %q; want field %q named", src, got, pe.Message, field)
	}
}

// FuzzProviderSpec feeds arbitrary JSON as one declared provider: the result is either
// config_invalid naming a field of that provider, or a spec whose invariants hold.
func FuzzProviderSpec(f *testing.F) {
	for _, s := range []string{`{"command":"x"}`, `{}`, `[]`, `{"command":"x","model_args":["{model}"],"screens":{"ready":["a+"]}}`,
		`{"command":"x","session":"herdr","resume_args":["{session}{model}"]}`, `{"command":"x","shutdown":{"line":"/q","grace":"1s"}}`,
		`{"command":"x","transcript":{"format":"claude","data_dir_file":"a/../b"}}`, `{"command":"x","env":{"=":"1"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, entry []byte) {
		src := append(append([]byte(`{"providers":{"p":`), entry...), "}}"...)
		cfg, _, err := config.Parse(src, noEnv)
		if err != nil {
			pe, ok := wire.As(err)
			if !ok || !wire.Is(err, wire.EnvironmentError, wire.CauseConfigInvalid) {
				t.Fatalf("Parse(%q): %v, want config_invalid", src, err)
			}
			if f, _ := pe.Details["field"].(string); f != "" && !strings.HasPrefix(f, "providers.") {
				t.Fatalf("Parse(%q): field %q outside the providers section", src, f)
			}
			return
		}
		p, ok := cfg.Providers["p"]
		if !ok {
			return // entry was not one JSON value and the document still parsed: impossible, but not this test's
		}
		if strings.TrimSpace(p.Command) == "" || p.Status != config.StatusHerdr || (p.Session != config.SessionHerdr && p.Session != config.SessionNone) {
			t.Fatalf("Parse(%q): accepted %+v", src, p)
		}
		if len(p.ResumeArgs) > 0 && !strings.Contains(strings.Join(p.ResumeArgs, " "), config.PlaceholderSession) {
			t.Fatalf("Parse(%q): resume args %v without {session}", src, p.ResumeArgs)
		}
		if p.Env == nil {
			t.Fatalf("Parse(%q): nil env", src)
		}
	})
}

// approval_args are kept apart from bypass_args: the CLI's asking mode, passed only to
// an agent started with approvals (docs/providers.md §11.1).
func TestProvidersSectionApprovalArgs(t *testing.T) {
	cfg, _, err := config.Parse([]byte(`{"providers":{"p":{"command":"x","bypass_args":["--yolo"],"approval_args":["--ask"]}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Providers["p"]; strings.Join(p.ApprovalArgs, " ") != "--ask" || strings.Join(p.BypassArgs, " ") != "--yolo" {
		t.Errorf("approval_args %q, bypass_args %q", p.ApprovalArgs, p.BypassArgs)
	}
}

// A status read from the screen is accepted with its ready and working rules
// (docs/providers.md §11.4).
func TestProvidersSectionStatusScreen(t *testing.T) {
	cfg, _, err := config.Parse([]byte(`{"providers":{"tui":{"command":"tui","status":"screen",
		"screens":{"ready":["\\[idle\\]"],"working":["\\[working\\]"]}}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Providers["tui"]; p.Status != config.StatusScreen || len(p.Screens.Working) != 1 {
		t.Errorf("spec = %+v", p)
	}
}

// session `transcript` (docs/providers.md §11.1): a pi or gemini transcript names its
// conversation, so resume_args need no herdr pointer and the herdr layer is not needed.
func TestProvidersSessionTranscript(t *testing.T) {
	cfg, _, err := config.Parse([]byte(`{"providers": {"pi-local": {"command": "pi",
  "resume_args": ["--session", "{session}"], "session": "transcript", "transcript": {"format": "pi"}}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Providers["pi-local"]
	if p.Session != config.SessionTranscript || p.NeedsHerdr() || len(p.ResumeArgs) != 2 {
		t.Errorf("spec = %+v", p)
	}
}
