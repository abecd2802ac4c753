package provider

import (
	"slices"

	"github.com/orcr-go/orcr/config"
)

// ClaudeModels and ClaudeEfforts are claude's fixed routing lists (docs/providers.md §3.1);
// any effort goes with any model. Callers must not modify them.
var (
	ClaudeModels  = []string{"sonnet", "opus", "fable", "haiku"}
	ClaudeEfforts = []string{"low", "medium", "high", "xhigh", "max", "ultracode"}
)

// ClaudeBypassFlag is the permission-bypass flag of every claude launch (§3.2).
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

// LaunchArgv is `claude --dangerously-skip-permissions [--model <m>] [--effort <e>]`.
func (claude) LaunchArgv(r Route) ([]string, error) {
	argv := []string{Claude, ClaudeBypassFlag}
	if r.Model != "" {
		argv = append(argv, "--model", r.Model)
	}
	if r.Effort != "" {
		argv = append(argv, "--effort", r.Effort)
	}
	return argv, nil
}
