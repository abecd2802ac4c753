package agentpath_test

import (
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store/agentpath"
)

var patternReasons = map[string]bool{
	"empty_selector": true, "empty_pattern": true, "invalid_pattern": true, "invalid_segment": true,
}

var creationReasons = map[string]bool{
	"name_required": true, "name_and_path": true, "invalid_name": true, "empty_path": true,
	"path_too_long": true, "path_too_deep": true, "invalid_segment": true, "reserved_name": true,
}

// checkInvalid fails unless err is an invalid_request whose reason is in reasons.
func checkInvalid(t *testing.T, what string, err error, reasons map[string]bool) {
	t.Helper()
	pe, ok := wire.As(err)
	if !ok || pe.Code != wire.InvalidRequest || !reasons[pe.Reason()] {
		t.Fatalf("%s: got error %#v, want invalid_request with a listed reason", what, err)
	}
}

func FuzzCompilePattern(f *testing.F) {
	for _, s := range [][2]string{
		{"", "review/*"}, {"review", "**"}, {"a", "/x/**/y"}, {"", "phase_*"}, {"", ""}, {"x", "/"},
		{"", "a//b"}, {"", "***"}, {"", "a_b"}, {"Bad", "x"}, {"", "é/*"}, {"", "*/*/*/*/*/*/*/*/*/*"},
	} {
		f.Add(s[0], s[1], "review/a_b/c")
	}
	f.Fuzz(func(t *testing.T, scope, selector, path string) {
		p, err := agentpath.CompilePattern(scope, selector)
		if err != nil {
			checkInvalid(t, "CompilePattern", err, patternReasons)
			return
		}
		p.Match(path) // never panics
		if lit := p.Literal(); !p.HasWildcard() {
			if !p.Match(lit) {
				t.Fatalf("%q does not match its own literal %q", p, lit)
			}
			if path != lit && p.Match(path) {
				t.Fatalf("wildcard-free %q matched %q", p, path)
			}
		}
		if p.Match(path) && !strings.HasPrefix(path, p.LiteralPrefix()) {
			t.Fatalf("%q matched %q without its literal prefix %q", p, path, p.LiteralPrefix())
		}
	})
}

func FuzzCreation(f *testing.F) {
	for _, s := range [][3]string{
		{"", "worker", ""}, {"review", "", "a/b"}, {"review", "", "/idle/x"}, {"", "", ""},
		{"", "a", "b"}, {"", "w_{rand}", ""}, {"s", "", "{rand}/{rand}"}, {"", "", "/"},
		{"", "a/b", ""}, {"", "", strings.Repeat("a/", 130)}, {"idle", "x", ""}, {"", "Ü", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, scope, name, path string) {
		got, err := agentpath.Creation(scope, name, path, nil)
		if err != nil {
			checkInvalid(t, "Creation", err, creationReasons)
			return
		}
		if err := agentpath.ValidatePath(got); err != nil {
			t.Fatalf("Creation(%q, %q, %q) = %q, which fails ValidatePath: %v", scope, name, path, got, err)
		}
		if agentpath.IsReservedLevel1(agentpath.FirstSegment(got)) {
			t.Fatalf("Creation(%q, %q, %q) = %q starts with a reserved name", scope, name, path, got)
		}
		if strings.Contains(got, agentpath.RandPlaceholder) {
			t.Fatalf("Creation(%q, %q, %q) = %q kept a {rand}", scope, name, path, got)
		}
	})
}
