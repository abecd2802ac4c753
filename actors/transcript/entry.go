package transcript

import (
	"strings"

	"github.com/orcr-go/orcr/socketapi/api"
)

// Entry kinds (docs/providers.md §6.1).
const (
	KindText       = "text"
	KindThinking   = "thinking"
	KindToolUse    = "tool_use"
	KindToolResult = "tool_result"
	KindOther      = "other"
)

// Common roles. Providers may report others (codex "developer", "system"); they are
// passed through unchanged.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool" // codex's tool results (docs/providers.md §4.6)
)

// Entry is one transcript entry in the common shape of docs/providers.md §6.1: the wire
// type of the agent.logs result (docs/protocol.md §5.11).
type Entry = api.LogEntry

// LastResponse returns the text of the last entry with role assistant, kind text and
// text that is not blank (only white space), verbatim, and true; or "", false when
// there is none. When one assistant message has several text blocks this is the last
// block, not their concatenation (docs/providers.md §3.6, kept for compatibility).
func LastResponse(entries []Entry) (string, bool) { return lastText(entries, RoleAssistant) }

// LastPrompt returns the text of the last entry with role user and kind text that is
// not blank, and true; or "", false when there is none. Recovery reads it as evidence
// that a prompt a crash cut off reached the agent (docs/lifecycle.md §13.1).
func LastPrompt(entries []Entry) (string, bool) { return lastText(entries, RoleUser) }

// lastText is the text of the last entry of role with kind text that is not blank.
func lastText(entries []Entry, role string) (string, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Role == role && e.Kind == KindText && strings.TrimSpace(e.Text) != "" {
			return e.Text, true
		}
	}
	return "", false
}
