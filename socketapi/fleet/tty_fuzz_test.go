package fleet

import (
	"strings"
	"testing"
)

// An attach request from any client of the fleet (docs/fleet.md §4.10) is taken only
// with a session id of 16–32 hex digits, a target and a size within 1000×1000; anything
// else is refused, never a panic.
func FuzzParseAttach(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"sid":"0123456789abcdef","target":"a/b","cols":80,"rows":24}`,
		`{"sid":"0123456789abcdef","target":"a/b","cols":-1}`, `{"sid":"zz","target":"x"}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, ok := parseAttach(data)
		if !ok {
			return
		}
		if !sidRe.MatchString(req.SID) || req.Target == "" || req.Cols < 0 || req.Rows < 0 || req.Cols > 1000 || req.Rows > 1000 {
			t.Fatalf("took %+v", req)
		}
	})
}

// A session's resize header is taken only as "resize <cols> <rows>", each 1–1000.
func FuzzParseResize(f *testing.F) {
	for _, s := range []string{"resize 80 24", "resize 0 0", "resize 80", "resize a b", "resize 1001 1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		c, r, ok := parseResize(h)
		if ok && (c < 1 || r < 1 || c > 1000 || r > 1000 || !strings.HasPrefix(strings.TrimSpace(h), "resize")) {
			t.Fatalf("%q read as %d×%d", h, c, r)
		}
	})
}
