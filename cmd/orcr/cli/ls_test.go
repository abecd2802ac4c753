package cli_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

func TestRenderLs(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_000_000_000)
	claude := "claude"
	changed := now.Add(-125 * time.Second).UnixMilli()
	rows := []cli.LsRow{
		{UUID: "0190abcd-1111-7000-8000-000000000000", Path: "review/worker", Status: "working", Agent: &claude,
			CreatedAt: now.Add(-3 * time.Hour).UnixMilli(), LastStatusChangeAt: &changed},
		{UUID: "0190abce-2222", Path: "review/queued", Status: "queued", CreatedAt: now.Add(-7 * time.Second).UnixMilli(), LastStatusChangeAt: &changed},
		{UUID: "0190abcf-3333", Path: "review/stuck", Status: "working", Agent: &claude, Stalled: true,
			CreatedAt: now.Add(-3 * time.Hour).UnixMilli(), LastStatusChangeAt: &changed},
	}
	got := cli.RenderLs(rows, nil, now)
	want := "PATH                                     UUID     STATUS    AGENT    SINCE\n" +
		"review/worker                            0190abcd working   claude   2m05s\n" +
		"review/queued                            0190abce queued    -           7s\n" +
		"review/stuck                             0190abcf working!  claude   2m05s\n"
	if got != want {
		t.Errorf("renderLs:\ngot:\n%s\nwant:\n%s", got, want)
	}
	if got := cli.RenderLs(nil, nil, now); got != "no agents\n" {
		t.Errorf("empty: got %q", got)
	}
	for d, want := range map[time.Duration]string{59 * time.Second: "59s", time.Minute: "1m", 3 * time.Hour: "3h", 50 * time.Hour: "2d"} {
		if got := cli.FormatAge(d); got != want {
			t.Errorf("cli.FormatAge(%v): got %q, want %q", d, got, want)
		}
	}
}

// A WORKTREE column follows SINCE only when some listed row has a worktree: the branch
// while it is ready, with the state in parentheses otherwise, "-" for a row without
// one. A table with no worktree keeps its old layout byte for byte.
func TestRenderLsWorktree(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_000_000_000)
	mock := "mock"
	row := func(path, uuid string, wt *cli.LsWorktree) cli.LsRow {
		return cli.LsRow{UUID: uuid, Path: path, Status: "idle", Agent: &mock, CreatedAt: now.Add(-time.Minute).UnixMilli(), Worktree: wt}
	}
	wt := func(branch, state string) *cli.LsWorktree {
		return &cli.LsWorktree{Path: "/h/data/x/worktree", Branch: branch, Repo: "/r/.git", State: state}
	}
	const header = "PATH                                     UUID     STATUS    AGENT    SINCE"
	tests := []struct {
		name string
		rows []cli.LsRow
		want []string
	}{
		{"no worktree: no column", []cli.LsRow{row("plain", "01900000-aaaa", nil), row("other", "01910000-aaaa", nil)}, []string{
			header,
			"plain                                    01900000 idle      mock        1m",
			"other                                    01910000 idle      mock        1m",
		}},
		{"ready shows the branch, no worktree a dash", []cli.LsRow{row("plain", "01900000-aaaa", nil), row("wt/one", "01910000-aaaa", wt("orcr/wt-one", "ready"))}, []string{
			header + " WORKTREE",
			"plain                                    01900000 idle      mock        1m -",
			"wt/one                                   01910000 idle      mock        1m orcr/wt-one",
		}},
		{"other states in parentheses", []cli.LsRow{
			row("a", "01900000-aaaa", wt("feat", "pending")),
			row("b", "01910000-aaaa", wt("orcr/b", "kept")),
			row("c", "01920000-aaaa", wt("orcr/c", "removed")),
		}, []string{
			header + " WORKTREE",
			"a                                        01900000 idle      mock        1m feat (pending)",
			"b                                        01910000 idle      mock        1m orcr/b (kept)",
			"c                                        01920000 idle      mock        1m orcr/c (removed)",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Split(strings.TrimSuffix(cli.RenderLs(tc.rows, nil, now), "\n"), "\n")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("renderLs (-want +got):\n%s", diff)
			}
		})
	}
}

// The UUID column shows each row's shortest prefix (at least 8 characters) that neither
// another listed row nor an unlisted agent shares, and widens to the longest.
func TestRenderLsUUIDPrefixes(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_000_000_000)
	row := func(path, uuid string) cli.LsRow {
		return cli.LsRow{UUID: uuid, Path: path, Status: "idle", CreatedAt: now.UnixMilli()}
	}
	tests := []struct {
		name   string
		uuids  []string // one row each, paths a, b, c, …
		others []string
		want   []string // the UUID column, header first
	}{
		{"distinct minutes keep 8", []string{"01900000-aaaa-7000-8000-000000000000", "01910000-aaaa-7000-8000-000000000000"}, nil,
			[]string{"UUID    ", "01900000", "01910000"}},
		{"same minute goes past the dash", []string{"01900000-1234-7000-8000-000000000001", "01900000-1299-7000-8000-000000000002"}, nil,
			[]string{"UUID        ", "01900000-123", "01900000-129"}},
		{"same millisecond", []string{
			"01900000-1234-7000-8000-000000000001",
			"01900000-1234-7abc-8000-000000000001",
			"01900000-1235-7000-8000-000000000001",
		}, nil, []string{"UUID            ", "01900000-1234-70", "01900000-1234-7a", "01900000-1235   "}},
		{"differ in the last character", []string{
			"01900000-0000-7000-8000-00000000000a",
			"01900000-0000-7000-8000-00000000000b",
		}, nil, []string{"UUID                                ", "01900000-0000-7000-8000-00000000000a", "01900000-0000-7000-8000-00000000000b"}},
		{"an unlisted agent lengthens one prefix", []string{"01900000-aaaa-7000-8000-000000000000", "01910000-aaaa-7000-8000-000000000000"},
			[]string{"01900000-aab"}, []string{"UUID        ", "01900000-aaa", "01910000    "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rows []cli.LsRow
			for i, u := range tc.uuids {
				rows = append(rows, row(string(rune('a'+i)), u))
			}
			lines := strings.Split(strings.TrimSuffix(cli.RenderLs(rows, tc.others, now), "\n"), "\n")
			var got []string
			for _, l := range lines {
				// PATH is 40 wide plus a space; the UUID column ends before " STATUS"/" idle".
				rest := l[41:]
				got = append(got, rest[:len(tc.want[0])])
				if next := rest[len(tc.want[0]):]; !strings.HasPrefix(next, " STATUS") && !strings.HasPrefix(next, " idle") {
					t.Errorf("line %q: the UUID column is not %d wide", l, len(tc.want[0]))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("UUID column:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// End to end: the prefixes `orcr agent ls` shows are unique among every agent row,
// ended ones included, and each one names its agent when given back as a target.
func TestAgentLsPrefixesResolve(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	c := srv.Client(t)
	for _, a := range []struct{ uuid, path, status string }{
		{"01900000-1234-7000-8000-000000000001", "fan/a", "idle"},
		{"01900000-1234-7abc-8000-000000000002", "fan/b", "working"},
		{"01900000-2222-7000-8000-000000000003", "fan/c", "idle"},
		{"01900001-aaaa-7000-8000-000000000004", "solo", "idle"},
		{"01900001-aaab-7000-8000-000000000005", "done", "ended"}, // not listed; shares 12 characters with solo
		{"01900002-0000-7000-8000-000000000006", "lone", "idle"},
	} {
		if err := c.Call(context.Background(), "__debug.set_agent", map[string]any{"uuid": a.uuid, "path": a.path, "status": a.status}, nil); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t)
	h.vars["ORCR_HOME"] = srv.Home
	got := h.run(t, "agent", "ls")
	if got.code != 0 {
		t.Fatalf("orcr agent ls: exit %d %s", got.code, got.stderr)
	}
	// None of these rows has a worktree: the header is the old one, with no WORKTREE.
	lines := strings.Split(strings.TrimSpace(got.stdout), "\n")
	if f := strings.Fields(lines[0]); !slices.Equal(f, []string{"PATH", "UUID", "STATUS", "AGENT", "SINCE"}) {
		t.Errorf("orcr agent ls header without worktrees: got %q, want PATH UUID STATUS AGENT SINCE", lines[0])
	}
	shown := map[string]string{}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		shown[f[0]] = f[1]
	}
	want := map[string]string{
		"fan/a": "01900000-1234-70", "fan/b": "01900000-1234-7a", "fan/c": "01900000-2",
		"solo": "01900001-aaaa", "lone": "01900002",
	}
	if diff := cmp.Diff(want, shown); diff != "" {
		t.Errorf("orcr agent ls UUID column (-want +got):\n%s\n%s", diff, got.stdout)
	}
	targets := map[string]string{"01900002-": "lone"} // a dash forces the uuid reading of a hex word
	for path, prefix := range shown {
		targets[prefix] = path
	}
	for prefix, path := range targets {
		got := h.run(t, "--json", "agent", "ls", prefix)
		var r struct{ Agents []struct{ Path string } }
		if env := decodeEnvelope(t, got.stdout); !env.OK || json.Unmarshal(env.Result, &r) != nil || len(r.Agents) != 1 || r.Agents[0].Path != path {
			t.Errorf("orcr agent ls %s: got %s, want the agent at %s", prefix, got.stdout, path)
		}
	}
}

// What `agent ask --worktree` says on stderr after the answer: nothing when the worktree
// went with the agent, where it is otherwise.
func TestAskWorktreeNote(t *testing.T) {
	t.Parallel()
	wt := func(state string) *cli.LsWorktree {
		return &cli.LsWorktree{Path: "/h/data/a/u/worktree", Branch: "orcr/a", State: state}
	}
	for _, tc := range []struct {
		wt   *cli.LsWorktree
		want string
	}{
		{nil, ""},
		{wt("removed"), ""},
		{wt("unused"), ""},
		{wt("kept"), "worktree kept: /h/data/a/u/worktree (branch orcr/a)"},
		{wt("dirty"), "worktree kept, it has uncommitted changes: /h/data/a/u/worktree (branch orcr/a)"},
		{wt("failed"), "worktree kept, git could not remove it (see the server log): /h/data/a/u/worktree (branch orcr/a)"},
		{wt("removing"), "worktree removing: /h/data/a/u/worktree (branch orcr/a)"},
	} {
		if got := cli.AskWorktreeNote(tc.wt); got != tc.want {
			t.Errorf("AskWorktreeNote(%+v) = %q, want %q", tc.wt, got, tc.want)
		}
	}
}
