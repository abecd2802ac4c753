package provider

import (
	"os"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Provider names.
const (
	Claude = "claude"
	Codex  = "codex"
	Mock   = config.MockProvider // "mock", the test-only provider (docs/providers.md §8)
)

// Environment variables of the server read for the mock provider (docs/cli.md §7.5).
const (
	// EnvAllowMock set to exactly "1" enables the mock provider.
	EnvAllowMock = "ORCR_ALLOW_MOCK_PROVIDER"
	// EnvMockBin is the mock agent binary: the whole argv of a mock pane.
	EnvMockBin = "ORCR_MOCK_AGENT_BIN"
	// EnvMockLoginScreen is a phrase that makes a mock screen holding it a login
	// screen (docs/providers.md §5.2), for tests.
	EnvMockLoginScreen = "ORCR_MOCK_LOGIN_SCREEN"
	// MockEnvPrefix is the prefix of the server variables copied into a mock pane.
	MockEnvPrefix = "ORCR_MOCK_"
)

// Kinds of herdr's agent_session pointer (docs/herdr.md §5.3): a session id or a
// transcript file.
const (
	SessionKindID   = "id"
	SessionKindPath = "path"
)

// Transcript formats (docs/providers.md §2 transcript_format): which adapter parses a
// provider's native files.
const (
	FormatClaude = "claude"
	FormatCodex  = "codex"
)

// MockTranscriptFile is the mock's transcript, relative to the agent's data dir
// (docs/providers.md §8).
const MockTranscriptFile = "transcript.jsonl"

// builtins are the providers shipped with orcr, sorted: claude and codex compiled in,
// the rest contract values (docs/providers.md §12).
var builtins = []string{Claude, Codex, Gemini, Opencode, Pi, Qwen}

// Known returns the built-in providers (the orcr layer exists for them), sorted:
// claude, codex, gemini, opencode, pi, qwen. The mock is never listed. The slice is a
// fresh copy.
func Known() []string { return append([]string(nil), builtins...) }

// IsBuiltin reports whether name is a built-in provider.
func IsBuiltin(name string) bool { return slices.Contains(builtins, name) }

// Route is a resolved and validated model/effort pair of one provider. It is what the
// agent row stores and what [Provider.LaunchArgv] maps to flags.
type Route struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Effort   string `json:"effort"`
	// Approvals launches the provider without its permission bypass, so it asks before
	// risky tool calls ([Provider.ApproveKeys], docs/remote.md §7). [Provider.Route]
	// never sets it: the caller does, from remote.approvals at the agent's start.
	Approvals bool `json:"approvals,omitempty"`
}

// Transcript says where and in which format a provider's native transcript lives
// (docs/providers.md §3.6, §4.6, §8).
type Transcript struct {
	// Format is [FormatClaude] or [FormatCodex]: the adapter that parses the files.
	Format string
	// DataDirFile, when not empty, is the transcript's path relative to the agent's data
	// dir, used regardless of herdr's agent_session (the mock: [MockTranscriptFile]).
	// Empty means the file is located from agent_session.
	DataDirFile string
}

// Provider is one provider integration module (docs/providers.md §2). Every method that
// takes a *config.Config accepts nil for the built-in defaults ([config.Default]).
type Provider interface {
	// Name is the provider name: the row's agent column and the key under
	// concurrency.*, defaults.providers.* and integrations.*.
	Name() string

	// Route resolves model and effort (a non-empty argument wins, then
	// defaults.providers.<name> of cfg, else environment_error config_invalid) and
	// validates the pair: invalid_request with reason invalid_model or invalid_effort.
	// For codex it consults the model catalogue, which may fail with environment_error
	// model_catalog_unavailable. The mock accepts any pair and defaults to mock/medium.
	Route(cfg *config.Config, model, effort string) (Route, error)

	// LaunchArgv returns the pane's argv for r. An empty r.Model or r.Effort omits
	// that flag (a lifecycle-only plan); r.Approvals omits the permission-bypass flag
	// (claude [ClaudeBypassFlag], codex [CodexBypassFlag], the mock
	// [MockSkipPermissionsFlag]). The mock fails with server_error mock_bin_unset when
	// no binary is configured. The slice is fresh.
	LaunchArgv(r Route) ([]string, error)

	// ResumeArgv returns the pane's argv that starts the TUI again continuing the
	// conversation herdr's agent_session pointer {kind, value} names (docs/herdr.md
	// §5.3, docs/providers.md §3.7, §4.7, §8), with r's flags as [Provider.LaunchArgv]
	// has them. kind is [SessionKindID] or [SessionKindPath]. A pointer that names no
	// conversation this provider can resume (a kind it does not take, an empty or
	// malformed id, a file not named like its transcripts) is invalid_request with
	// reason not_resumable and details kind and value. Nothing is read from disk: a
	// well-formed pointer to a conversation that does not exist is left to the TUI.
	// The mock fails like LaunchArgv when no binary is configured. The slice is fresh.
	ResumeArgv(r Route, kind, value string) ([]string, error)

	// Env returns the extra pane environment taken from serverEnv ("KEY=VALUE"
	// entries as in os.Environ; nil means os.Environ()). Only the mock has any: every
	// ORCR_MOCK_* variable. The result is never nil.
	Env(serverEnv []string) map[string]string

	// Preflight refuses a launch of r the provider is known to refuse outright in the
	// server's circumstances (euid, the server's environment as for Env), before
	// anything is created: claude's permission bypass as root without IS_SANDBOX is
	// environment_error provider_refuses_root (docs/providers.md §3.2). nil for the rest.
	Preflight(r Route, euid int, serverEnv []string) error

	// Startup is the recipe applied before and while delivering input (docs/providers.md §5).
	Startup(cfg *config.Config) Startup

	// SubmitConfirm is the confirmation part of [Provider.Startup].
	SubmitConfirm(cfg *config.Config) SubmitConfirm

	// Shutdown is the graceful shutdown recipe of one pane (docs/lifecycle.md §15.2).
	Shutdown(cfg *config.Config) Shutdown

	// InterruptKeys are the keys that stop the running turn cooperatively
	// (docs/decisions.md D6). The slice is fresh.
	InterruptKeys() []string

	// ApproveKeys are the keys that answer the provider's permission prompt with yes:
	// the pending tool call runs (docs/providers.md §2.2). Only an agent launched with
	// [Route.Approvals] asks. The slice is fresh.
	ApproveKeys() []string

	// DenyKeys are the keys that answer the permission prompt with no: the call is
	// rejected and the model gets an error result (docs/providers.md §2.2). The slice
	// is fresh.
	DenyKeys() []string

	// ModelSwitch returns the text that switches the running TUI to model, typed and
	// submitted like a prompt before the next waking input (remote set_model,
	// docs/decisions.md D7, docs/providers.md §2.2). ok is false when the provider has
	// no such recipe (codex), and for a model that is blank or holds a control
	// character.
	ModelSwitch(model string) (text string, ok bool)

	// Tuning is the provider's completion/submit tuning: the built-in values with
	// integrations.<name> overrides of cfg applied (docs/providers.md §2.1).
	Tuning(cfg *config.Config) config.Tuning

	// Transcript says how the native transcript is found and parsed.
	Transcript() Transcript
}

// Options configures [Lookup]. The zero value knows only claude and codex, with the
// process-wide [DefaultCodexCatalog].
type Options struct {
	// AllowMock enables the mock provider. It is also enabled when Getenv is set and
	// returns "1" for [EnvAllowMock].
	AllowMock bool
	// MockBin is the mock agent binary. When empty and Getenv is set, Getenv(EnvMockBin)
	// is used.
	MockBin string
	// Getenv looks up the server's environment; nil means it is not consulted.
	Getenv func(string) string
	// CodexCatalog is the codex model catalogue; nil means [DefaultCodexCatalog].
	CodexCatalog *CodexCatalog
	// Declared are the providers declared in config (providers.<name>,
	// docs/providers.md §11); the built-ins and the mock win over them.
	Declared map[string]config.ProviderSpec
}

// OptionsFromEnv returns Options reading the mock switches through getenv (nil means
// os.Getenv), with the process-wide codex catalogue.
func OptionsFromEnv(getenv func(string) string) Options {
	if getenv == nil {
		getenv = os.Getenv
	}
	return Options{Getenv: getenv}
}

// MockAllowed reports whether o enables the mock provider.
func (o Options) MockAllowed() bool {
	return o.AllowMock || (o.Getenv != nil && o.Getenv(EnvAllowMock) == "1")
}

func (o Options) mockBin() string {
	if o.MockBin == "" && o.Getenv != nil {
		return o.Getenv(EnvMockBin)
	}
	return o.MockBin
}

// HasOrcr reports whether orcr has an integration module for name under o: the
// built-ins always, the mock only when o allows it, a declared provider always.
func (o Options) HasOrcr(name string) bool {
	return IsBuiltin(name) || (name == Mock && o.MockAllowed()) || o.isDeclared(name)
}

// isDeclared reports whether name is a declared provider (never a built-in or the mock).
func (o Options) isDeclared(name string) bool {
	_, ok := o.Declared[name]
	return ok && !IsBuiltin(name) && name != Mock
}

// Lookup returns the integration module of name: a built-in, the mock when o allows
// it, else a provider declared in o.Declared (docs/providers.md §11). A name without one
// is integration_missing with missing ["orcr"] (docs/providers.md §1.2).
func Lookup(name string, o Options) (Provider, error) {
	switch {
	case name == Claude:
		return claude{common{Claude}}, nil
	case name == Codex:
		cat := o.CodexCatalog
		if cat == nil {
			cat = DefaultCodexCatalog
		}
		return codex{common{Codex}, cat}, nil
	case IsBuiltin(name):
		sp, _ := contractSpec(name)
		return declared{common{name}, sp}, nil
	case name == Mock && o.MockAllowed():
		login := ""
		if o.Getenv != nil {
			login = strings.ToLower(strings.TrimSpace(o.Getenv(EnvMockLoginScreen)))
		}
		return mock{common{Mock}, o.mockBin(), login}, nil
	case o.isDeclared(name):
		return declared{common{name}, o.Declared[name]}, nil
	}
	return nil, missingError(name, []string{LayerOrcr})
}

// cfgOrDefault returns cfg, or the built-in configuration when cfg is nil.
func cfgOrDefault(cfg *config.Config) *config.Config {
	if cfg == nil {
		return config.Default()
	}
	return cfg
}

// joinList renders a list for an error message: "a, b, c".
func joinList(s []string) string { return strings.Join(s, ", ") }

// invalidModel is the invalid_request invalid_model error of docs/providers.md §3.1/§4.1.
func invalidModel(provider, display, model string, valid []string) error {
	return wire.Invalid(wire.ReasonInvalidModel,
		"invalid "+display+" model `"+model+"`; valid models: "+joinList(valid),
		"provider", provider, "model", model, "valid_models", append([]string{}, valid...))
}

// invalidEffort is the invalid_request invalid_effort error of docs/providers.md §3.1/§4.1.
func invalidEffort(provider, display, model, effort string, valid []string) error {
	return wire.Invalid(wire.ReasonInvalidEffort,
		"invalid effort `"+effort+"` for "+display+" model `"+model+"`; valid efforts: "+joinList(valid),
		"provider", provider, "model", model, "effort", effort, "valid_efforts", append([]string{}, valid...))
}

// envMap parses os.Environ-style entries; later entries win.
func envMap(env []string, keep func(k string) bool) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || !keep(k) {
			continue
		}
		m[k] = v
	}
	return m
}
