package agentpath

import (
	"fmt"
	"strings"

	"github.com/orcr-go/orcr/socketapi/wire"
)

// Grammar limits (docs/cli.md §3.2).
const (
	MaxSegmentLen = 64  // characters per segment
	MaxPathLen    = 256 // characters (bytes) per effective path
	MaxDepth      = 8   // segments per effective path
)

// details.reason values of the invalid_request errors this package returns
// (docs/protocol.md §9.3), plus the state_conflict reason of the run barrier.
const (
	ReasonNameRequired       = "name_required"
	ReasonNameAndPath        = "name_and_path"
	ReasonInvalidName        = "invalid_name"
	ReasonEmptyPath          = "empty_path"
	ReasonPathTooLong        = "path_too_long"
	ReasonPathTooDeep        = "path_too_deep"
	ReasonInvalidSegment     = "invalid_segment"
	ReasonReservedName       = "reserved_name"
	ReasonEmptySelector      = "empty_selector"
	ReasonInvalidPattern     = "invalid_pattern"
	ReasonEmptyPattern       = "empty_pattern"
	ReasonWildcardNotAllowed = "wildcard_not_allowed"
	ReasonTargetRequired     = "target_required"
	ReasonRunStopping        = "run_stopping" // state_conflict
)

// Reserved level-1 names: no user-created path may start with one of them (docs/lifecycle.md
// §2.5). Deeper segments with these names are fine.
var reservedLevel1 = map[string]bool{"idle": true, "unmanaged": true}

// IsReservedLevel1 reports whether name is a reserved first segment ("idle", "unmanaged").
func IsReservedLevel1(name string) bool { return reservedLevel1[name] }

// ValidSegment reports whether s satisfies segment = [a-z0-9_]{1,64}.
func ValidSegment(s string) bool {
	if len(s) == 0 || len(s) > MaxSegmentLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !segmentByte(s[i]) {
			return false
		}
	}
	return true
}

func segmentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// ValidatePath checks an effective path (absolute, no leading "/") against the grammar
// and limits in the order of docs/cli.md §3.2: empty_path, then path_too_long {path, len},
// then path_too_deep {path, segments}, then invalid_segment (which also covers a leading
// or trailing "/" and "//"). It does not check reserved names.
func ValidatePath(p string) error {
	if p == "" {
		return wire.Invalid(ReasonEmptyPath, "path is empty")
	}
	if len(p) > MaxPathLen {
		return wire.Invalid(ReasonPathTooLong,
			fmt.Sprintf("path %q is %d characters long; the limit is %d", p, len(p), MaxPathLen),
			"path", p, "len", len(p))
	}
	segs := strings.Split(p, "/")
	if len(segs) > MaxDepth {
		return wire.Invalid(ReasonPathTooDeep,
			fmt.Sprintf("path %q has %d segments; the limit is %d", p, len(segs), MaxDepth),
			"path", p, "segments", len(segs))
	}
	for _, s := range segs {
		if !ValidSegment(s) {
			return invalidSegment(p, s)
		}
	}
	return nil
}

func invalidSegment(p, seg string) error {
	return wire.Invalid(ReasonInvalidSegment,
		fmt.Sprintf("invalid segment %q in %q: segments are 1-%d characters of [a-z0-9_]", seg, p, MaxSegmentLen))
}

// Join resolves a user-supplied path or selector against a scope: a leading "/" makes it
// absolute (the slash is stripped and scope ignored); otherwise it is appended to scope
// with a "/" (or returned as is when scope is empty). Join does not validate.
func Join(scope, s string) string {
	if rest, ok := strings.CutPrefix(s, "/"); ok {
		return rest
	}
	if scope == "" {
		return s
	}
	return scope + "/" + s
}

// FirstSegment returns the part of p before the first "/" (all of p when there is none).
func FirstSegment(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}
