package provider

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Default route of the mock when config has none (docs/providers.md §8).
const (
	MockDefaultModel  = "mock"
	MockDefaultEffort = "medium"
)

// MockShutdownLine is the line typed (then Enter) to stop the mock agent.
const MockShutdownLine = "/quit"

// mock is the test-only provider (docs/providers.md §8). It exists only when the server's
// environment has ORCR_ALLOW_MOCK_PROVIDER=1 (see [Options]).
type mock struct {
	common
	bin   string // $ORCR_MOCK_AGENT_BIN
	login string // $ORCR_MOCK_LOGIN_SCREEN, lowercased: the mock's "login screen" phrase
}

// Startup is the shared recipe (§5); with $ORCR_MOCK_LOGIN_SCREEN set in the server's
// environment, that phrase is the mock's login screen (§5.2), so tests can show one
// through ORCR_MOCK_BANNER.
func (m mock) Startup(cfg *config.Config) Startup {
	st := m.common.Startup(cfg)
	if m.login != "" {
		st.LoginScreens = []string{m.login}
	}
	return st
}

// Transcript is always <data dir>/transcript.jsonl in claude format.
func (mock) Transcript() Transcript {
	return Transcript{Format: FormatClaude, DataDirFile: MockTranscriptFile}
}

// Route bypasses validation: the request's values, else config's
// defaults.providers.mock, else mock/medium. It never fails.
func (mock) Route(cfg *config.Config, model, effort string) (Route, error) {
	def := cfgOrDefault(cfg).Defaults.Providers[Mock]
	pick := func(req, conf, builtin string) string {
		switch {
		case req != "":
			return req
		case conf != "":
			return conf
		}
		return builtin
	}
	return Route{
		Provider: Mock,
		Model:    pick(model, def.Model, MockDefaultModel),
		Effort:   pick(effort, def.Effort, MockDefaultEffort),
	}, nil
}

// MockSkipPermissionsFlag is the orcr-mock-agent flag that runs its fake tool calls
// without asking, the mock's permission bypass (§8).
const MockSkipPermissionsFlag = "--skip-permissions"

// LaunchArgv is [$ORCR_MOCK_AGENT_BIN, --skip-permissions], the flag left out for
// r.Approvals; model and effort are not passed to the program. Unset is server_error
// mock_bin_unset.
func (m mock) LaunchArgv(r Route) ([]string, error) {
	if m.bin == "" {
		return nil, wire.Internal(wire.CauseMockBinUnset,
			"the mock provider needs "+EnvMockBin+" (the orcr-mock-agent binary) in the server's environment")
	}
	if r.Approvals {
		return []string{m.bin}, nil
	}
	return []string{m.bin, MockSkipPermissionsFlag}, nil
}

// MockResumeFlag is the orcr-mock-agent flag that continues a transcript (§8).
const MockResumeFlag = "--resume"

// ResumeArgv is LaunchArgv(r) followed by `--resume <transcript>`: the mock resumes only
// from a pointer of kind "path" holding an absolute path (the transcript.jsonl of the
// mock being replaced). An unset binary is the same mock_bin_unset.
func (m mock) ResumeArgv(r Route, kind, value string) ([]string, error) {
	switch {
	case kind == "":
		return nil, notResumable("mock", kind, value, noPointer)
	case kind != SessionKindPath:
		return nil, notResumable("mock", kind, value, "the mock resumes only from a transcript path (kind `path`)")
	case !filepath.IsAbs(value):
		return nil, notResumable("mock", kind, value, "the transcript path must be absolute")
	}
	argv, err := m.LaunchArgv(r)
	if err != nil {
		return nil, err
	}
	return append(argv, MockResumeFlag, value), nil
}

// Env copies every ORCR_MOCK_* variable of the server's environment.
func (mock) Env(serverEnv []string) map[string]string {
	if serverEnv == nil {
		serverEnv = os.Environ()
	}
	return envMap(serverEnv, func(k string) bool { return strings.HasPrefix(k, MockEnvPrefix) })
}

// Shutdown types /quit, presses Enter and waits the tuning's shutdown_grace_ms (400 ms
// built in) before the close (docs/lifecycle.md §15.2: our decision replaces the
// reference's fixed 200 ms).
func (m mock) Shutdown(cfg *config.Config) Shutdown {
	return Shutdown{Line: MockShutdownLine, Keys: []string{KeyEnter}, Grace: m.Tuning(cfg).ShutdownGrace}
}

// ApproveKeys is ["Enter"]: Enter on an empty input box answers the mock's permission
// prompt with yes, as in claude's dialog (§8).
func (mock) ApproveKeys() []string { return []string{KeyEnter} }

// DenyKeys is ["Escape"]: a lone ESC answers the mock's permission prompt with no (§8).
func (mock) DenyKeys() []string { return []string{KeyEscape} }

// ModelSwitch is "/model <model>", which the mock records without starting a turn
// (§8).
func (mock) ModelSwitch(model string) (string, bool) { return slashModel(model) }
