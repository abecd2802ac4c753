package provider

import "github.com/orcr-go/orcr/socketapi/api/wire"

// notResumable is the invalid_request not_resumable error of [Provider.ResumeArgv]
// (docs/providers.md §3.7, §4.7, §8): display is the provider's display name, why says
// what is wrong with the pointer.
func notResumable(display, kind, value, why string) error {
	return wire.Invalid(wire.ReasonNotResumable,
		"cannot resume a "+display+" conversation from agent_session {kind: `"+kind+"`, value: `"+value+"`}: "+why,
		"kind", kind, "value", value)
}

// noPointer is the why of a pointer without a kind: herdr reported no agent_session.
const noPointer = "herdr reports no agent_session for the agent"

// validSessionID reports whether id is a session id orcr passes to a CLI: not empty,
// only ASCII letters, digits, '_' and '-', and not starting with '-' (the CLI would
// read it as a flag).
func validSessionID(id string) bool {
	if id == "" || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isUUID reports whether s is a UUID in its 36-character text form
// (8-4-4-4-12 hex digits, either case).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
