package main

import (
	"encoding/json"
	"io"
	"log"
	"time"
)

// CodexSessionHook is the subcommand that makes the mock binary a codex hook.
const CodexSessionHook = "codex-session-hook"

// codexHookInput is the part of the JSON codex writes to a hook's stdin that the
// session hook reads (codex 0.169.0's SessionStart: session_id, transcript_path,
// hook_event_name, source "startup" or "resume", …).
type codexHookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`
}

// reportCodexSessionParams are the params of the codex hook's
// pane.report_agent_session: the session id (herdr keeps the id, kind "id"), a seq
// from the clock so that a later session in the same pane replaces an earlier one,
// and how the session started.
type reportCodexSessionParams struct {
	PaneID             string `json:"pane_id"`
	Source             string `json:"source"`
	Agent              string `json:"agent"`
	Seq                uint64 `json:"seq"`
	AgentSessionID     string `json:"agent_session_id"`
	SessionStartSource string `json:"session_start_source,omitempty"`
}

// codexSessionHook is `orcr-mock-agent codex-session-hook`, a command for codex's
// SessionStart hook (CODEX_HOME/hooks.json with `[features] hooks = true` in
// config.toml) that does what herdr's codex integration does (docs/providers.md §8):
// on SessionStart only, with a transcript path and a session id, it reports the id to
// herdr with pane.report_agent_session from the official source herdr:codex, through
// the pane's HERDR_SOCKET_PATH and HERDR_PANE_ID, unless HERDR_ENV is not 1 or the
// process runs inside another codex conversation (a CODEX_THREAD_ID that is not this
// session). It always exits 0: a failing hook must not get in codex's way.
func codexSessionHook(stdin io.Reader, getenv func(string) string, logger *log.Logger) int {
	var in codexHookInput
	if err := json.NewDecoder(stdin).Decode(&in); err != nil {
		logger.Printf("codex hook: unreadable input: %v", err)
		return 0
	}
	if in.HookEventName != "" && in.HookEventName != "SessionStart" || in.SessionID == "" || in.TranscriptPath == "" {
		return 0
	}
	if getenv("HERDR_ENV") != "1" {
		return 0
	}
	if th := getenv("CODEX_THREAD_ID"); th != "" && th != in.SessionID {
		return 0
	}
	start := ""
	if in.HookEventName == "SessionStart" {
		start = in.Source
	}
	r := &reporter{socket: getenv("HERDR_SOCKET_PATH"), paneID: getenv("HERDR_PANE_ID"), agent: "codex", logf: logger}
	if r.enabled() {
		r.call("pane.report_agent_session", reportCodexSessionParams{
			PaneID: r.paneID, Source: "herdr:codex", Agent: "codex", Seq: uint64(time.Now().UnixNano()),
			AgentSessionID: in.SessionID, SessionStartSource: start,
		})
	}
	return 0
}
