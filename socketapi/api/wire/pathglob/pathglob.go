// Package pathglob is the whole-segment pattern grammar of agent paths and selectors
// (docs/cli.md §3.2, §3.5): segments, joining a selector under a scope, and [Pattern].
// It depends on nothing but the wire errors, so configuration validates patterns
// (notify rules, docs/notify.md) without the store, in clients and the server alike;
// package agentpath re-exports it.
package pathglob

import (
	"fmt"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Whole-segment wildcards (docs/cli.md §3.5).
const (
	Star     = "*"  // exactly one segment
	StarStar = "**" // one or more segments
)

// Pattern is a compiled, scope-joined selector: a sequence of segments each of which is a
// literal, [Star] or [StarStar]. It matches whole paths segment by segment: anchored at
// both ends, "_" literal, no partial-segment wildcards. A Pattern is immutable and safe
// for concurrent use.
type Pattern struct {
	src  string
	segs []string
	wild bool
}

// Compile joins selector under scope ("" = none; a leading "/" makes the selector
// absolute) and compiles it. Errors (invalid_request):
//   - empty_selector: selector is "";
//   - empty_pattern: nothing is left after the leading "/" (selector "/" with any scope);
//   - invalid_pattern: a segment containing "*" that is not exactly "*" or "**"
//     ("phase_*", "***");
//   - invalid_segment: any other segment outside [a-z0-9_]{1,64}, including the empty
//     segments of "a//b" or a trailing "/".
//
// Depth and total length are not enforced on selectors. {rand} is not expanded (its
// braces make it an invalid segment).
func Compile(scope, selector string) (*Pattern, error) {
	if selector == "" {
		return nil, wire.Invalid(wire.ReasonEmptySelector, "selector is empty")
	}
	src := Join(scope, selector)
	if src == "" {
		return nil, wire.Invalid(wire.ReasonEmptyPattern, fmt.Sprintf("selector %q names no path", selector))
	}
	p := &Pattern{src: src, segs: strings.Split(src, "/")}
	for _, s := range p.segs {
		switch {
		case s == Star || s == StarStar:
			p.wild = true
		case strings.Contains(s, "*"):
			return nil, wire.Invalid(wire.ReasonInvalidPattern,
				fmt.Sprintf("invalid pattern segment %q in %q: wildcards are whole segments (\"*\" or \"**\")", s, src))
		case !ValidSegment(s):
			return nil, InvalidSegment(src, s)
		}
	}
	return p, nil
}

// HasWildcardSegment reports whether selector has a segment that is exactly "*" or "**"
// (what exact-target verbs reject with wildcard_not_allowed). It does not validate.
func HasWildcardSegment(selector string) bool {
	for s := range strings.SplitSeq(selector, "/") {
		if s == Star || s == StarStar {
			return true
		}
	}
	return false
}

// String returns the scope-joined pattern text (no leading "/").
func (p *Pattern) String() string { return p.src }

// HasWildcard reports whether any segment is "*" or "**".
func (p *Pattern) HasWildcard() bool { return p.wild }

// Literal returns the path the pattern names when it has no wildcard, else "". A
// wildcard-free pattern matches exactly that path.
func (p *Pattern) Literal() string {
	if p.wild {
		return ""
	}
	return p.src
}

// LiteralPrefix returns the leading literal segments followed by "/" ("a/b/" for
// "a/b/*/c"), "" when the first segment is a wildcard, or the whole path when there is no
// wildcard. Every path p matches starts with it, so it can narrow candidates in SQL by
// equality on a prefix (substr), never by LIKE.
func (p *Pattern) LiteralPrefix() string {
	if !p.wild {
		return p.src
	}
	var b strings.Builder
	for _, s := range p.segs {
		if s == Star || s == StarStar {
			break
		}
		b.WriteString(s)
		b.WriteByte('/')
	}
	return b.String()
}

// Match reports whether path (absolute, no leading "/") matches the whole pattern: each
// literal segment equals the path segment at its position, "*" consumes exactly one
// segment and "**" one or more. A path with an empty segment ("", "a//b", "a/") never
// matches.
func (p *Pattern) Match(path string) bool {
	if !p.wild {
		return path == p.src
	}
	if path == "" {
		return false
	}
	segs := strings.Split(path, "/")
	for _, s := range segs {
		if s == "" {
			return false
		}
	}
	// reach[j]: the pattern segments seen so far match segs[:j]. O(len(p.segs)·len(segs)).
	n := len(segs)
	reach := make([]bool, n+1)
	next := make([]bool, n+1)
	reach[0] = true
	for _, ps := range p.segs {
		clear(next)
		switch ps {
		case StarStar:
			seen := false
			for j := 1; j <= n; j++ {
				seen = seen || reach[j-1]
				next[j] = seen
			}
		case Star:
			for j := 0; j < n; j++ {
				next[j+1] = reach[j]
			}
		default:
			for j := 0; j < n; j++ {
				next[j+1] = reach[j] && segs[j] == ps
			}
		}
		reach, next = next, reach
	}
	return reach[n]
}

// MaxSegmentLen is the longest segment, in characters (docs/cli.md §3.2).
const MaxSegmentLen = 64

// ValidSegment reports whether s satisfies segment = [a-z0-9_]{1,64}.
func ValidSegment(s string) bool {
	if len(s) == 0 || len(s) > MaxSegmentLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// InvalidSegment is the invalid_segment error for segment seg of path p.
func InvalidSegment(p, seg string) error {
	return wire.Invalid(wire.ReasonInvalidSegment,
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
