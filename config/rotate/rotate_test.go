package rotate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/config/rotate"
)

// contents reads path and its rotated siblings .1 … .4 ("-" for a missing file).
func contents(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, p := range []string{path, path + ".1", path + ".2", path + ".3", path + ".4"} {
		b, err := os.ReadFile(p)
		switch {
		case os.IsNotExist(err):
			out = append(out, "-")
		case err != nil:
			t.Fatal(err)
		default:
			out = append(out, string(b))
		}
	}
	return out
}

func TestRotation(t *testing.T) {
	cases := []struct {
		name     string
		maxBytes int64
		maxFiles int
		writes   []string
		want     []string // path, .1, .2, .3, .4
	}{
		{"fits", 10, 2, []string{"ab\n", "cd\n"}, []string{"ab\ncd\n", "-", "-", "-", "-"}},
		{"exactly full", 6, 2, []string{"ab\n", "cd\n"}, []string{"ab\ncd\n", "-", "-", "-", "-"}},
		{"next write would pass", 6, 2, []string{"ab\n", "cd\n", "e\n"}, []string{"e\n", "ab\ncd\n", "-", "-", "-"}},
		{"oldest dropped", 3, 2, []string{"a\n", "b\n", "c\n", "d\n"}, []string{"d\n", "c\n", "b\n", "-", "-"}},
		{"oversized write lands whole", 3, 2, []string{"a\n", "toolong\n", "b\n"}, []string{"b\n", "toolong\n", "a\n", "-", "-"}},
		{"no rotated files kept", 3, 0, []string{"a\n", "b\n"}, []string{"b\n", "-", "-", "-", "-"}},
		{"no bound", 0, 2, []string{"a\n", "b\n", "c\n"}, []string{"a\nb\nc\n", "-", "-", "-", "-"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.log")
			f, err := rotate.Open(path, tc.maxBytes, tc.maxFiles)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.writes {
				if n, err := f.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q): got %d, %v", w, n, err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, contents(t, path)); diff != "" {
				t.Errorf("files after %q (-want +got):\n%s", tc.writes, diff)
			}
		})
	}
}

// An existing file is appended to, and counts towards the bound.
func TestOpenAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := rotate.Open(path, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new\n"))
	f.Close()
	if got, want := strings.Join(contents(t, path)[:2], "|"), "new\n|old\n"; got != want {
		t.Errorf("files: got %q, want %q", got, want)
	}
	if _, err := f.Write([]byte("x")); err == nil {
		t.Errorf("Write after Close: got no error")
	}
}
