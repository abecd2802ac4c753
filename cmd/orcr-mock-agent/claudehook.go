package main

import (
	"encoding/json"
	"io"
	"log"
)

// ClaudeSessionHook is the subcommand that makes the mock binary a claude hook.
const ClaudeSessionHook = "claude-session-hook"

// claudeHookInput is the part of the JSON claude writes to a hook's stdin that the
// session hook reads.
type claudeHookInput struct {
	SessionID string `json:"session_id"`
}

// reportSessionIDParams are the params of pane.report_agent_session with a session id.
type reportSessionIDParams struct {
	PaneID         string `json:"pane_id"`
	Source         string `json:"source"`
	Agent          string `json:"agent"`
	AgentSessionID string `json:"agent_session_id"`
}

// claudeSessionHook is `orcr-mock-agent claude-session-hook`, a command for claude's
// hooks (SessionStart, UserPromptSubmit) that stands in for herdr's claude
// integration in tests with the real claude (docs/providers.md §10): it reads the
// hook's input from stdin and reports its session id to herdr with
// pane.report_agent_session from the official source herdr:claude, through the pane's
// HERDR_SOCKET_PATH and HERDR_PANE_ID. herdr then shows agent_session {kind: "id"} for
// the pane, as it would with its own integration. It always exits 0: a failing hook
// must not get in claude's way.
func claudeSessionHook(stdin io.Reader, getenv func(string) string, logger *log.Logger) int {
	var in claudeHookInput
	if err := json.NewDecoder(stdin).Decode(&in); err != nil || in.SessionID == "" {
		logger.Printf("claude hook: no session id in the hook's input: %v", err)
		return 0
	}
	r := &reporter{socket: getenv("HERDR_SOCKET_PATH"), paneID: getenv("HERDR_PANE_ID"), agent: "claude", logf: logger}
	if r.enabled() {
		r.call("pane.report_agent_session", reportSessionIDParams{
			PaneID: r.paneID, Source: "herdr:claude", Agent: "claude", AgentSessionID: in.SessionID,
		})
	}
	return 0
}
