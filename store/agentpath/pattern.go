package agentpath

import "github.com/orcr-go/orcr/socketapi/api/wire/pathglob"

// Whole-segment wildcards (docs/cli.md §3.5).
const (
	Star     = pathglob.Star     // exactly one segment
	StarStar = pathglob.StarStar // one or more segments
)

// Pattern is a compiled, scope-joined selector (see [pathglob.Pattern]).
type Pattern = pathglob.Pattern

// CompilePattern joins selector under scope and compiles it: [pathglob.Compile].
func CompilePattern(scope, selector string) (*Pattern, error) {
	return pathglob.Compile(scope, selector)
}

// HasWildcardSegment reports whether selector has a segment that is exactly "*" or "**"
// (what exact-target verbs reject with wildcard_not_allowed). It does not validate.
func HasWildcardSegment(selector string) bool { return pathglob.HasWildcardSegment(selector) }
