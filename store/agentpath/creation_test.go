package agentpath_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/store/agentpath"
)

func TestCreation(t *testing.T) {
	seg64 := strings.Repeat("a", 64)
	long := strings.Repeat("abcdefghij/", 23) + "abc" // 256 characters, 24 segments
	nine := "a/b/c/d/e/f/g/h/i"
	tests := []struct {
		name            string
		scope, nm, path string
		want            string
		wantErr         errShape
	}{
		{name: "neither", wantErr: invalid("name_required")},
		{name: "both", nm: "a", path: "b", wantErr: invalid("name_and_path")},
		{name: "name at root", nm: "worker", want: "worker"},
		{name: "name in scope", scope: "review", nm: "child", want: "review/child"},
		{name: "name with slash", scope: "review", nm: "a/b", wantErr: invalid("invalid_name")},
		{name: "name with leading slash", nm: "/abs", wantErr: invalid("invalid_name")},
		{name: "name trailing slash", nm: "a/", wantErr: invalid("invalid_name")},
		{name: "relative path joins scope", scope: "nightly/r82c9s", path: "a/b", want: "nightly/r82c9s/a/b"},
		{name: "relative path no scope", path: "a/b", want: "a/b"},
		{name: "absolute path ignores scope", scope: "review", path: "/top/x", want: "top/x"},
		{name: "absolute nests inside self", scope: "review", path: "/review/worker/child", want: "review/worker/child"},
		{name: "only slash", path: "/", wantErr: invalid("empty_path")},
		{name: "only slash with scope", scope: "review", path: "/", wantErr: invalid("empty_path")},
		{name: "double leading slash", path: "//a", wantErr: invalid("invalid_segment")},
		{name: "trailing slash", path: "a/", wantErr: invalid("invalid_segment")},
		{name: "empty inner segment", path: "a//b", wantErr: invalid("invalid_segment")},
		{name: "uppercase", nm: "Worker", wantErr: invalid("invalid_segment")},
		{name: "dash", nm: "my-worker", wantErr: invalid("invalid_segment")},
		{name: "dot", path: "a/b.c", wantErr: invalid("invalid_segment")},
		{name: "space", nm: "a b", wantErr: invalid("invalid_segment")},
		{name: "non-ascii", nm: "é", wantErr: invalid("invalid_segment")},
		{name: "star is not a name", path: "a/*", wantErr: invalid("invalid_segment")},
		{name: "underscore and digits", path: "a_1/_/9", want: "a_1/_/9"},
		{name: "segment 64", nm: seg64, want: seg64},
		{name: "segment 65", nm: seg64 + "a", wantErr: invalid("invalid_segment")},
		{name: "invalid scope segment", scope: "Bad", nm: "x", wantErr: invalid("invalid_segment")},
		{name: "256 chars too deep", path: long, wantErr: invalid("path_too_deep", "path", long, "segments", 24)},
		{name: "257 chars", path: long + "d", wantErr: invalid("path_too_long", "path", long+"d", "len", 257)},
		{name: "length before depth and segments", path: strings.Repeat("A/", 200),
			wantErr: invalid("path_too_long", "path", strings.Repeat("A/", 200), "len", 400)},
		{name: "depth before segments", path: "A/b/c/d/e/f/g/h/i",
			wantErr: invalid("path_too_deep", "path", "A/b/c/d/e/f/g/h/i", "segments", 9)},
		{name: "8 segments", path: "a/b/c/d/e/f/g/h", want: "a/b/c/d/e/f/g/h"},
		{name: "9 segments", path: nine, wantErr: invalid("path_too_deep", "path", nine, "segments", 9)},
		{name: "depth counts scope", scope: "a/b/c/d/e/f/g", path: "h/i",
			wantErr: invalid("path_too_deep", "path", nine, "segments", 9)},
		{name: "length counts scope", scope: strings.Repeat("s", 64) + "/" + strings.Repeat("s", 64) + "/" + strings.Repeat("s", 64),
			nm: seg64, wantErr: invalid("path_too_long", "path", strings.Repeat("s", 64)+"/"+strings.Repeat("s", 64)+"/"+strings.Repeat("s", 64)+"/"+seg64, "len", 259)},
		{name: "reserved idle", nm: "idle", wantErr: invalid("reserved_name", "name", "idle")},
		{name: "reserved unmanaged path", path: "unmanaged/x/y", wantErr: invalid("reserved_name", "name", "unmanaged")},
		{name: "reserved absolute", scope: "review", path: "/idle/x", wantErr: invalid("reserved_name", "name", "idle")},
		{name: "reserved via scope", scope: "idle", nm: "x", wantErr: invalid("reserved_name", "name", "idle")},
		{name: "reserved only at level 1", scope: "review", nm: "idle", want: "review/idle"},
		{name: "unmanaged deeper ok", path: "a/unmanaged", want: "a/unmanaged"},
		{name: "idle prefix is not reserved", nm: "idler", want: "idler"},
		{name: "grammar before reserved", path: "idle/B", wantErr: invalid("invalid_segment")},
		{name: "rand in name", scope: "fan", nm: "w_{rand}", want: "fan/w_r0001"},
		{name: "rand twice independent", path: "{rand}/x_{rand}", want: "r0001/x_r0002"},
		{name: "rand does not touch scope", scope: "a", nm: "{rand}{rand}", want: "a/r0001r0002"},
		{name: "rand before name check", nm: "{rand}/x", wantErr: invalid("invalid_name")},
		{name: "rand placeholder broken", nm: "{rand", wantErr: invalid("invalid_segment")},
		{name: "rand reserved", path: "idle{rand}", want: "idler0001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := agentpath.Creation(tc.scope, tc.nm, tc.path, fixedRand("r0001", "r0002"))
			checkErr(t, "Creation", err, tc.wantErr)
			if got != tc.want {
				t.Errorf("Creation(%q, %q, %q): got %q, want %q", tc.scope, tc.nm, tc.path, got, tc.want)
			}
		})
	}
}

func TestCreationRandDefault(t *testing.T) {
	re := regexp.MustCompile(`^fan/w_([a-z0-9]{5})_([a-z0-9]{5})$`)
	seen := map[string]bool{}
	for range 50 {
		got, err := agentpath.Creation("fan", "w_{rand}_{rand}", "", nil)
		if err != nil {
			t.Fatalf("Creation with default rand: %v", err)
		}
		m := re.FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("Creation with default rand: got %q, want fan/w_<5>_<5>", got)
		}
		seen[m[1]] = true
		seen[m[2]] = true
	}
	// 100 draws from 36^5 values: collisions are possible but many would mean the
	// occurrences are not independent.
	if len(seen) < 90 {
		t.Errorf("default rand: got %d distinct tokens out of 100, want ≥ 90", len(seen))
	}
}

func TestRandToken(t *testing.T) {
	counts := map[rune]int{}
	for range 2000 {
		tok := agentpath.RandToken()
		if len(tok) != agentpath.RandLen {
			t.Fatalf("RandToken: got %q, want %d chars", tok, agentpath.RandLen)
		}
		for _, c := range tok {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
				t.Fatalf("RandToken: got %q, want only [a-z0-9]", tok)
			}
			counts[c]++
		}
	}
	if len(counts) != 36 {
		t.Errorf("RandToken: got %d distinct characters over 10000 draws, want 36", len(counts))
	}
}

func TestExpandRand(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"none", "plain", "plain"},
		{"one", "a{rand}b", "aXb"},
		{"adjacent", "{rand}{rand}", "XY"},
		{"nested braces", "{{rand}}", "{X}"},
		{"partial", "{ran}", "{ran}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := agentpath.ExpandRand(tc.in, fixedRand("X", "Y")); got != tc.want {
				t.Errorf("ExpandRand(%q): got %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestValidatePath(t *testing.T) {
	tests := []struct {
		path    string
		wantErr errShape
	}{
		{"a", errShape{}},
		{"idle", errShape{}}, // reserved names are Creation's concern
		{"", invalid("empty_path")},
		{"/a", invalid("invalid_segment")},
		{"a/", invalid("invalid_segment")},
		{"a/-", invalid("invalid_segment")},
	}
	for _, tc := range tests {
		checkErr(t, "ValidatePath("+tc.path+")", agentpath.ValidatePath(tc.path), tc.wantErr)
	}
}
