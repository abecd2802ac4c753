package provider

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/config"
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
