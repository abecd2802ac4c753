package transcript

import "strings"

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
)

// Entry is one transcript entry in the common shape of docs/providers.md §6.1, encoded as in
// the agent.logs result (docs/protocol.md §5.11): tool, timestamp and the token counts are
// omitted when absent; text is always present, possibly empty.
type Entry struct {
	Role         string `json:"role"`
	Kind         string `json:"kind"`
	Text         string `json:"text"`
	Tool         string `json:"tool,omitempty"`
	Timestamp    string `json:"timestamp,omitempty"`
	InputTokens  *int64 `json:"input_tokens,omitempty"`
	OutputTokens *int64 `json:"output_tokens,omitempty"`
}

// LastResponse returns the text of the last entry with role assistant, kind text and
// text that is not blank (only white space), verbatim, and true; or "", false when
// there is none. When one assistant message has several text blocks this is the last
// block, not their concatenation (docs/providers.md §3.6, kept for compatibility).
func LastResponse(entries []Entry) (string, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Role == RoleAssistant && e.Kind == KindText && strings.TrimSpace(e.Text) != "" {
			return e.Text, true
		}
	}
	return "", false
}
