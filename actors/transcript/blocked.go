package transcript

import "strings"

// Blocked kinds (docs/providers.md §7; the row's blocked_kind).
const (
	BlockedLogin    = "login"
	BlockedLimit    = "limit"
	BlockedQuestion = "question"
	BlockedUnknown  = "unknown"
	// BlockedPermission is not from the pane's title: orcr sets it for an agent with the
	// approvals row mounted whose transcript's last tool call has no result yet.
	BlockedPermission = "permission"
)

// blockedRules are tried in order; the first rule with a matching word wins.
var blockedRules = []struct {
	kind  string
	words []string
}{
	{BlockedLogin, []string{"login", "sign in", "auth"}},
	{BlockedLimit, []string{"limit", "quota", "usage"}},
	{BlockedQuestion, []string{"?", "question", "permission"}},
}

// ClassifyBlocked is the best-effort blocked classification of docs/providers.md §7. Its
// input is what §7 names: the pane's herdr title and name (pass them in that order;
// empty parts are fine). The parts are joined with a space and lowercased, and the first
// matching rule wins: "login", "sign in" or "auth" → [BlockedLogin]; "limit", "quota"
// or "usage" → [BlockedLimit]; "?", "question" or "permission" → [BlockedQuestion];
// otherwise [BlockedUnknown]. Matching is by substring, so "author" counts as login —
// the reference's behaviour. Screen text or transcripts are not consulted by the spec;
// a caller may still pass any text and gets the same rules applied.
func ClassifyBlocked(parts ...string) string {
	s := strings.ToLower(strings.Join(parts, " "))
	for _, r := range blockedRules {
		for _, w := range r.words {
			if strings.Contains(s, w) {
				return r.kind
			}
		}
	}
	return BlockedUnknown
}
