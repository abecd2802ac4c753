package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// ClaudeModels and ClaudeEfforts are claude's fixed routing lists (docs/providers.md §3.1);
// any effort goes with any model. Callers must not modify them.
var (
	ClaudeModels  = []string{"sonnet", "opus", "fable", "haiku"}
	ClaudeEfforts = []string{"low", "medium", "high", "xhigh", "max", "ultracode"}
)

// ClaudeBypassFlag is the permission-bypass flag of every claude launch without
// [Route.Approvals] (§3.2).
const ClaudeBypassFlag = "--dangerously-skip-permissions"

// claude is the claude integration module (docs/providers.md §3). Tuning, startup,
// shutdown (no line: the pane is closed at once, §3.5) and interrupt come from common.
type claude struct{ common }

// Transcript is the claude format, located from agent_session (§3.6).
func (claude) Transcript() Transcript { return Transcript{Format: FormatClaude} }

// Route resolves the pair through config and checks it against the fixed lists.
func (claude) Route(cfg *config.Config, model, effort string) (Route, error) {
	r, err := cfgOrDefault(cfg).ResolveRoute(Claude, model, effort)
	if err != nil {
		return Route{}, err
	}
	if !slices.Contains(ClaudeModels, r.Model) {
		return Route{}, invalidModel(Claude, "Claude", r.Model, ClaudeModels)
	}
	if !slices.Contains(ClaudeEfforts, r.Effort) {
		return Route{}, invalidEffort(Claude, "Claude", r.Model, r.Effort, ClaudeEfforts)
	}
	return Route{Provider: Claude, Model: r.Model, Effort: r.Effort}, nil
}

// LaunchArgv is `claude [--dangerously-skip-permissions] [--model <m>] [--effort <e>]`,
// the bypass flag left out for r.Approvals.
func (claude) LaunchArgv(r Route) ([]string, error) {
	argv := []string{Claude}
	if !r.Approvals {
		argv = append(argv, ClaudeBypassFlag)
	}
	if r.Model != "" {
		argv = append(argv, "--model", r.Model)
	}
	if r.Effort != "" {
		argv = append(argv, "--effort", r.Effort)
	}
	return argv, nil
}

// ClaudeSandboxEnv is the variable with which claude accepts its permission bypass as
// root (§3.2). orcr never sets it: an operator who sets it in the server's environment
// has declared the machine a sandbox, and orcr passes it on to claude's panes.
const ClaudeSandboxEnv = "IS_SANDBOX"

// ClaudeSandboxValue is the only value of [ClaudeSandboxEnv] claude 2.1.328 takes:
// "yes", "true", "01" or " 1" make it refuse the bypass as if the variable were unset.
const ClaudeSandboxValue = "1"

// Env passes [ClaudeSandboxEnv] on from the server's environment when it is set there.
func (claude) Env(serverEnv []string) map[string]string {
	if serverEnv == nil {
		serverEnv = os.Environ()
	}
	return envMap(serverEnv, func(k string) bool { return k == ClaudeSandboxEnv })
}

// Preflight refuses a launch with [ClaudeBypassFlag] by a root server whose
// environment does not have [ClaudeSandboxEnv]=[ClaudeSandboxValue]: claude 2.1.328
// exits at once then ("cannot be used with root/sudo privileges"), which orcr would only
// see as a pane gone before the first prompt (§3.2). The panes run as the server's user:
// herdr's socket is private to that user.
func (c claude) Preflight(r Route, euid int, serverEnv []string) error {
	v, set := c.Env(serverEnv)[ClaudeSandboxEnv]
	if r.Approvals || euid != 0 || v == ClaudeSandboxValue {
		return nil
	}
	msg := "claude refuses " + ClaudeBypassFlag + " when it runs as root: on a machine that is a sandbox set " +
		ClaudeSandboxEnv + "=" + ClaudeSandboxValue + " in the orcr server's environment (orcr passes it on to claude's panes), or run orcr and herdr as another user"
	details := []any{"provider", Claude, "flag", ClaudeBypassFlag, "env", ClaudeSandboxEnv}
	if set && v != "" {
		msg = "claude takes only " + ClaudeSandboxEnv + "=" + ClaudeSandboxValue + ", not " + ClaudeSandboxEnv + "=" + v + ": " + msg
		details = append(details, "value", v)
	}
	return wire.Env(wire.CauseProviderRefusesRoot, msg, details...)
}

// ClaudeTrustScreens are phrases of claude's question whether to trust the working
// directory, shown in a directory no trusted directory contains (§5.2). claude
// 2.1.328 asks "Is this a project you created or one you trust?" with "No, exit"
// selected, so a typed prompt's Enter would end it.
var ClaudeTrustScreens = []string{"is this a project you created or one you trust", "yes, i trust this folder"}

// ClaudeLoginScreens are phrases of claude's screens that need a human's say on
// credentials (§5.2): 2.1.328 asks whether to use an ANTHROPIC_API_KEY it has not
// been told about, with "No (recommended)" selected.
var ClaudeLoginScreens = []string{"do you want to use this api key"}

// ClaudeSetupScreens are phrases of claude's one-time questions about its settings
// (§5.2): 2.1.328 started in its manual permission mode (a user's `defaultMode`, or
// any mode but auto) first asks "Make auto mode your default permission mode?" with
// "Yes" selected, so a typed prompt's Enter would switch the user's default to auto
// mode, in which claude runs the calls it deems harmless without asking.
var ClaudeSetupScreens = []string{"make auto mode your default permission mode"}

// Startup is the shared recipe (§5) with claude's login, trust and setup screens.
func (c claude) Startup(cfg *config.Config) Startup {
	st := c.common.Startup(cfg)
	st.LoginScreens = append([]string(nil), ClaudeLoginScreens...)
	st.TrustScreens = append([]string(nil), ClaudeTrustScreens...)
	st.SetupScreens = append([]string(nil), ClaudeSetupScreens...)
	return st
}

// ClaudeResumeFlag is the flag that makes claude continue a session (§3.7).
const ClaudeResumeFlag = "--resume"

// ResumeArgv is LaunchArgv(r) followed by `--resume <session id>` (§3.7). The id is
// value for kind "id"; for kind "path" it is the file's base name without ".jsonl"
// (claude keeps ~/.claude/projects/<project>/<session id>.jsonl). It must pass
// [validSessionID].
func (c claude) ResumeArgv(r Route, kind, value string) ([]string, error) {
	var id string
	switch kind {
	case SessionKindID:
		id = value
		if !validSessionID(id) {
			return nil, notResumable("Claude", kind, value,
				"a Claude session id is ASCII letters, digits, `_` and `-`, not starting with `-`")
		}
	case SessionKindPath:
		base := filepath.Base(value)
		id = strings.TrimSuffix(base, ".jsonl")
		if id == base || !validSessionID(id) {
			return nil, notResumable("Claude", kind, value,
				"a Claude transcript is named <session id>.jsonl, the id ASCII letters, digits, `_` and `-`, not starting with `-`")
		}
	case "":
		return nil, notResumable("Claude", kind, value, noPointer)
	default:
		return nil, notResumable("Claude", kind, value, "the kind must be `id` or `path`")
	}
	argv, err := c.LaunchArgv(r)
	if err != nil {
		return nil, err
	}
	return append(argv, ClaudeResumeFlag, id), nil
}

// ApproveKeys is ["Enter"]: claude's permission dialog has its first option, "Yes",
// selected (§3.8).
func (claude) ApproveKeys() []string { return []string{KeyEnter} }

// DenyKeys is ["Escape"], the dialog's "No" (§3.8).
func (claude) DenyKeys() []string { return []string{KeyEscape} }

// ModelSwitch is "/model <model>" (§3.8).
func (claude) ModelSwitch(model string) (string, bool) { return slashModel(model) }

// ClaudeSettingsFlag is claude's flag that adds a settings source (a file or a JSON
// object) above the user's own for one session.
const ClaudeSettingsFlag = "--settings"

// WithClaudeStatusLine is claude's argv with orcr's status line (docs/providers.md §3.8):
// `--settings {"statusLine":{"type":"command","command":"'<orcr>' statusline"}}` after
// the binary, so claude passes orcr the quota windows it shows a status line
// (docs/usage.md §7.1). It takes the place of the user's own status line in orcr's
// claude panes only. argv without a binary is returned as it is.
func WithClaudeStatusLine(argv []string, orcrBin string) []string {
	if len(argv) == 0 || orcrBin == "" {
		return argv
	}
	settings, _ := json.Marshal(map[string]any{"statusLine": map[string]any{
		"type": "command", "command": shellQuote(orcrBin) + " statusline", "padding": 0}})
	return append([]string{argv[0], ClaudeSettingsFlag, string(settings)}, argv[1:]...)
}

// shellQuote quotes s for a POSIX shell (claude runs a status line through one).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
