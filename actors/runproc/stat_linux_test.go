package runproc_test

import (
	"testing"

	"github.com/orcr-go/orcr/actors/runproc"
)

// The command name in /proc/<pid>/stat may hold spaces and parentheses.
func TestParseStat(t *testing.T) {
	// Fields 4 to 21, then the start time (22), then two more.
	rest := func(start string) string {
		return " 1 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 " + start + " 1000 100\n"
	}
	cases := []struct {
		line   string
		start  int64
		zombie bool
		ok     bool
	}{
		{"42 (sleep) S" + rest("12345"), 12345, false, true},
		{"42 (a b) (c) ) S" + rest("777"), 777, false, true},
		{"42 (x) Z" + rest("9"), 9, true, true},
		{"42 (x) S 1 2", 0, false, false},
		{"42 x S" + rest("9"), 0, false, false},
		{"42 (x) S" + rest("-5"), 0, false, false},
	}
	for _, tc := range cases {
		start, zombie, ok := runproc.ParseStat(tc.line)
		if start != tc.start || zombie != tc.zombie || ok != tc.ok {
			t.Errorf("ParseStat(%q): got %d, %v, %v; want %d, %v, %v", tc.line, start, zombie, ok, tc.start, tc.zombie, tc.ok)
		}
	}
}
