package agentpath_test

import (
	"strings"
	"testing"

	"github.com/orcr-go/orcr/store/agentpath"
	"pgregory.net/rapid"
)

func TestCompilePatternErrors(t *testing.T) {
	tests := []struct {
		name, scope, sel string
		want             string // compiled pattern text when no error
		wantErr          errShape
	}{
		{name: "empty", sel: "", wantErr: invalid("empty_selector")},
		{name: "empty with scope", scope: "review", sel: "", wantErr: invalid("empty_selector")},
		{name: "slash only", sel: "/", wantErr: invalid("empty_pattern")},
		{name: "slash only with scope", scope: "review", sel: "/", wantErr: invalid("empty_pattern")},
		{name: "partial star", sel: "phase_*", wantErr: invalid("invalid_pattern")},
		{name: "star prefix", sel: "review/*x", wantErr: invalid("invalid_pattern")},
		{name: "triple star", sel: "***", wantErr: invalid("invalid_pattern")},
		{name: "uppercase", sel: "Review/*", wantErr: invalid("invalid_segment")},
		{name: "dash", sel: "a-b", wantErr: invalid("invalid_segment")},
		{name: "empty segment", sel: "a//b", wantErr: invalid("invalid_segment")},
		{name: "trailing slash", sel: "a/", wantErr: invalid("invalid_segment")},
		{name: "rand not expanded", sel: "x_{rand}", wantErr: invalid("invalid_segment")},
		{name: "segment too long", sel: strings.Repeat("a", 65), wantErr: invalid("invalid_segment")},
		{name: "relative joins scope", scope: "review", sel: "*", want: "review/*"},
		{name: "absolute ignores scope", scope: "review", sel: "/x/**", want: "x/**"},
		{name: "no scope", sel: "**", want: "**"},
		{name: "depth not enforced", sel: "a/b/c/d/e/f/g/h/i/j", want: "a/b/c/d/e/f/g/h/i/j"},
		{name: "length not enforced", sel: strings.Repeat("abcdefgh/", 40) + "*", want: strings.Repeat("abcdefgh/", 40) + "*"},
		{name: "reserved names selectable", sel: "unmanaged/**", want: "unmanaged/**"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := agentpath.CompilePattern(tc.scope, tc.sel)
			checkErr(t, "CompilePattern", err, tc.wantErr)
			if err == nil && p.String() != tc.want {
				t.Errorf("CompilePattern(%q, %q): got %q, want %q", tc.scope, tc.sel, p.String(), tc.want)
			}
		})
	}
}

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"review/*", "review/a", true},
		{"review/*", "review", false},
		{"review/*", "review/a/b", false},
		{"review/*", "reviewer/x", false},
		{"review/**", "review/a", true},
		{"review/**", "review/a/b/c", true},
		{"review/**", "review", false},
		{"review/**", "reviewer/a", false},
		{"a/**/b", "a/b", false},
		{"a/**/b", "a/x/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/**/b", "a/b/b", true},
		{"**", "a", true},
		{"**", "a/b/c", true},
		{"*", "a", true},
		{"*", "a/b", false},
		{"*/*", "a/b", true},
		{"**/**", "a", false},
		{"**/**", "a/b", true},
		{"**/x", "x", false},
		{"**/x", "a/x", true},
		{"*/**", "a", false},
		{"a_b", "a_b", true},
		{"a_b", "axb", false},
		{"a_b/*", "axb/c", false},
		{"a/b", "a_b", false},
		{"a/b", "a/b/c", false},
		{"a/b", "a", false},
		{"**", "", false},
		{"*", "", false},
		{"**", "a//b", false},
		{"*/*", "a/", false},
	}
	for _, tc := range tests {
		p, err := agentpath.CompilePattern("", tc.pattern)
		if err != nil {
			t.Fatalf("CompilePattern(%q): %v", tc.pattern, err)
		}
		if got := p.Match(tc.path); got != tc.want {
			t.Errorf("Pattern(%q).Match(%q): got %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestPatternAccessors(t *testing.T) {
	tests := []struct {
		sel                string
		wild               bool
		literal, litPrefix string
	}{
		{"a/b", false, "a/b", "a/b"},
		{"a/b/*", true, "", "a/b/"},
		{"a/*/c", true, "", "a/"},
		{"**/c", true, "", ""},
		{"*", true, "", ""},
	}
	for _, tc := range tests {
		p, err := agentpath.CompilePattern("", tc.sel)
		if err != nil {
			t.Fatalf("CompilePattern(%q): %v", tc.sel, err)
		}
		if got := p.HasWildcard(); got != tc.wild {
			t.Errorf("%q.HasWildcard(): got %v, want %v", tc.sel, got, tc.wild)
		}
		if got := p.Literal(); got != tc.literal {
			t.Errorf("%q.Literal(): got %q, want %q", tc.sel, got, tc.literal)
		}
		if got := p.LiteralPrefix(); got != tc.litPrefix {
			t.Errorf("%q.LiteralPrefix(): got %q, want %q", tc.sel, got, tc.litPrefix)
		}
	}
}

func TestHasWildcardSegment(t *testing.T) {
	tests := []struct {
		sel  string
		want bool
	}{
		{"a/*", true}, {"**", true}, {"/x/**/y", true}, {"phase_*", false}, {"a/b", false}, {"***", false},
	}
	for _, tc := range tests {
		if got := agentpath.HasWildcardSegment(tc.sel); got != tc.want {
			t.Errorf("HasWildcardSegment(%q): got %v, want %v", tc.sel, got, tc.want)
		}
	}
}

// Generators: a small alphabet so literal segments collide often, with "_" in it so the
// "_ is literal" property has something to bite on.
var (
	genSegment = rapid.StringMatching(`[ab_]{1,3}`)
	genPath    = rapid.Custom(func(t *rapid.T) []string {
		return rapid.SliceOfN(genSegment, 1, 6).Draw(t, "segs")
	})
	genPatternSegs = rapid.Custom(func(t *rapid.T) []string {
		return rapid.SliceOfN(rapid.OneOf(genSegment, rapid.Just("*"), rapid.Just("**")), 1, 5).Draw(t, "pattern")
	})
)

// refMatch is the obvious exponential reference: segment-wise backtracking.
func refMatch(pat, path []string) bool {
	if len(pat) == 0 {
		return len(path) == 0
	}
	switch pat[0] {
	case "**":
		for k := 1; k <= len(path); k++ {
			if refMatch(pat[1:], path[k:]) {
				return true
			}
		}
		return false
	case "*":
		return len(path) > 0 && refMatch(pat[1:], path[1:])
	default:
		return len(path) > 0 && path[0] == pat[0] && refMatch(pat[1:], path[1:])
	}
}

func mustCompile(t interface{ Fatalf(string, ...any) }, sel string) *agentpath.Pattern {
	p, err := agentpath.CompilePattern("", sel)
	if err != nil {
		t.Fatalf("CompilePattern(%q): %v", sel, err)
	}
	return p
}

// TestPropMatchesSegmentwiseReference: Match agrees with segment-wise backtracking, so a
// match never crosses or splits a segment boundary.
func TestPropMatchesSegmentwiseReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pat := genPatternSegs.Draw(t, "pat")
		path := genPath.Draw(t, "path")
		p := mustCompile(t, strings.Join(pat, "/"))
		if got, want := p.Match(strings.Join(path, "/")), refMatch(pat, path); got != want {
			t.Fatalf("Pattern(%q).Match(%q): got %v, want %v", p, strings.Join(path, "/"), got, want)
		}
	})
}

// TestPropNoCrossSegmentMatch: a path built from the same characters as a matching path
// but with two neighbouring segments merged (concatenated, or joined by "_") does not match
// a wildcard-free pattern, and a "*" never stands for two segments.
func TestPropNoCrossSegmentMatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		path := rapid.SliceOfN(genSegment, 2, 6).Draw(t, "path")
		i := rapid.IntRange(0, len(path)-2).Draw(t, "i")
		sep := rapid.SampledFrom([]string{"", "_"}).Draw(t, "sep")
		merged := append(append(append([]string{}, path[:i]...), path[i]+sep+path[i+1]), path[i+2:]...)
		lit := mustCompile(t, strings.Join(path, "/"))
		if lit.Match(strings.Join(merged, "/")) {
			t.Fatalf("%q matched the re-segmented %q", lit, strings.Join(merged, "/"))
		}
		// One "*" in place of segments i and i+1 never matches the original path.
		star := append(append(append([]string{}, path[:i]...), "*"), path[i+2:]...)
		sp := mustCompile(t, strings.Join(star, "/"))
		if sp.Match(strings.Join(path, "/")) {
			t.Fatalf("%q matched %q: one * consumed two segments", sp, strings.Join(path, "/"))
		}
	})
}

// TestPropUnderscoreLiteral: replacing an "_" in the path by any other segment character
// breaks a wildcard-free match ("_" is not a wildcard).
func TestPropUnderscoreLiteral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		path := genPath.Draw(t, "path")
		joined := strings.Join(path, "/")
		idx := strings.Index(joined, "_")
		if idx < 0 {
			path = append(path, "_")
			joined += "/_"
			idx = len(joined) - 1
		}
		repl := rapid.SampledFrom([]string{"a", "z", "0", "9"}).Draw(t, "repl")
		other := joined[:idx] + repl + joined[idx+1:]
		p := mustCompile(t, joined)
		if !p.Match(joined) || p.Match(other) {
			t.Fatalf("%q: Match(self)=%v Match(%q)=%v, want true, false", joined, p.Match(joined), other, p.Match(other))
		}
	})
}

// TestPropStarCounts: prefix + "*" matches prefix plus exactly one segment; prefix + "**"
// matches prefix plus one or more (never zero).
func TestPropStarCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prefix := rapid.SliceOfN(genSegment, 0, 3).Draw(t, "prefix")
		tail := rapid.SliceOfN(genSegment, 0, 4).Draw(t, "tail")
		full := strings.Join(append(append([]string{}, prefix...), tail...), "/")
		star := mustCompile(t, strings.Join(append(append([]string{}, prefix...), "*"), "/"))
		dstar := mustCompile(t, strings.Join(append(append([]string{}, prefix...), "**"), "/"))
		if got, want := star.Match(full), len(tail) == 1; got != want {
			t.Fatalf("%q.Match(%q): got %v, want %v", star, full, got, want)
		}
		if got, want := dstar.Match(full), len(tail) >= 1; got != want {
			t.Fatalf("%q.Match(%q): got %v, want %v", dstar, full, got, want)
		}
	})
}

// TestPropLiteralMatchesExactlyItself: a wildcard-free pattern matches exactly its
// literal path.
func TestPropLiteralMatchesExactlyItself(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := strings.Join(genPath.Draw(t, "a"), "/")
		b := strings.Join(genPath.Draw(t, "b"), "/")
		p := mustCompile(t, a)
		if p.HasWildcard() || p.Literal() != a {
			t.Fatalf("%q: HasWildcard=%v Literal=%q", a, p.HasWildcard(), p.Literal())
		}
		if !p.Match(a) {
			t.Fatalf("%q did not match itself", a)
		}
		if got, want := p.Match(b), a == b; got != want {
			t.Fatalf("%q.Match(%q): got %v, want %v", a, b, got, want)
		}
	})
}

// TestPropLiteralPrefix: every path a pattern matches starts with its LiteralPrefix (so
// the SQL pre-filter never drops a match).
func TestPropLiteralPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pat := genPatternSegs.Draw(t, "pat")
		path := strings.Join(genPath.Draw(t, "path"), "/")
		p := mustCompile(t, strings.Join(pat, "/"))
		if p.Match(path) && !strings.HasPrefix(path, p.LiteralPrefix()) {
			t.Fatalf("%q matched %q which lacks its literal prefix %q", p, path, p.LiteralPrefix())
		}
	})
}
