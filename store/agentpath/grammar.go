package agentpath

import (
	"fmt"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/api/wire/pathglob"
)

// Grammar limits (docs/cli.md §3.2).
const (
	MaxSegmentLen = pathglob.MaxSegmentLen // characters per segment
	MaxPathLen    = 256                    // characters (bytes) per effective path
	MaxDepth      = 8                      // segments per effective path
)

// Reserved level-1 names: no user-created path may start with one of them (docs/lifecycle.md
// §2.5). Deeper segments with these names are fine.
var reservedLevel1 = map[string]bool{"idle": true, "unmanaged": true}

// IsReservedLevel1 reports whether name is a reserved first segment ("idle", "unmanaged").
func IsReservedLevel1(name string) bool { return reservedLevel1[name] }

// ValidSegment reports whether s satisfies segment = [a-z0-9_]{1,64}.
func ValidSegment(s string) bool { return pathglob.ValidSegment(s) }

// ValidatePath checks an effective path (absolute, no leading "/") against the grammar
// and limits in the order of docs/cli.md §3.2: empty_path, then path_too_long {path, len},
// then path_too_deep {path, segments}, then invalid_segment (which also covers a leading
// or trailing "/" and "//"). It does not check reserved names.
func ValidatePath(p string) error {
	if p == "" {
		return wire.Invalid(wire.ReasonEmptyPath, "path is empty")
	}
	if len(p) > MaxPathLen {
		return wire.Invalid(wire.ReasonPathTooLong,
			fmt.Sprintf("path %q is %d characters long; the limit is %d", p, len(p), MaxPathLen),
			"path", p, "len", len(p))
	}
	segs := strings.Split(p, "/")
	if len(segs) > MaxDepth {
		return wire.Invalid(wire.ReasonPathTooDeep,
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

func invalidSegment(p, seg string) error { return pathglob.InvalidSegment(p, seg) }

// Join resolves a user-supplied path or selector against a scope: a leading "/" makes it
// absolute (the slash is stripped and scope ignored); otherwise it is appended to scope
// with a "/" (or returned as is when scope is empty). Join does not validate.
func Join(scope, s string) string { return pathglob.Join(scope, s) }

// FirstSegment returns the part of p before the first "/" (all of p when there is none).
func FirstSegment(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}
