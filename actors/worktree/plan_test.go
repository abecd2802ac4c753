package worktree

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultBranch(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"fix", "orcr/fix"},
		{"review/one", "orcr/review-one"},
		{"/ci/a_b/c", "orcr/ci-a_b-c"},
	} {
		if got := DefaultBranch(tc.path); got != tc.want {
			t.Errorf("DefaultBranch(%q): got %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestDecide(t *testing.T) {
	const root, own = "/h/data", "/h/data/x/u2/worktree"
	kept := Entry{Path: "/h/data/x/u1/worktree", Branch: "feat"}
	mainCheckout := Entry{Path: "/src/app", Branch: "main"}
	holder := Holder{UUID: "u1", Path: "x", Worktree: kept.Path, Branch: "feat"}
	for _, tc := range []struct {
		name    string
		in      Input
		want    Plan
		inUse   bool
		outside bool
	}{
		{name: "new branch", in: Input{Branch: "feat", Entries: []Entry{mainCheckout}},
			want: Plan{Path: own, Create: true, NewBranch: true}},
		{name: "existing branch, not checked out", in: Input{Branch: "feat", BranchExists: true, Entries: []Entry{mainCheckout}},
			want: Plan{Path: own, Create: true}},
		{name: "kept worktree reused", in: Input{Branch: "feat", BranchExists: true, Entries: []Entry{mainCheckout, kept}},
			want: Plan{Path: kept.Path}},
		{name: "prunable record ignored", in: Input{Branch: "feat", BranchExists: true,
			Entries: []Entry{{Path: kept.Path, Branch: "feat", Prunable: true}}},
			want: Plan{Path: own, Create: true}},
		{name: "checked out by the user", in: Input{Branch: "main", BranchExists: true, Entries: []Entry{mainCheckout}}, outside: true},
		{name: "checked out next to the data dir", in: Input{Branch: "feat", BranchExists: true,
			Entries: []Entry{{Path: "/h/database/w", Branch: "feat"}}}, outside: true},
		{name: "branch held by a live agent", in: Input{Branch: "feat", Holders: []Holder{holder}}, inUse: true},
		{name: "worktree held by an agent that switched branch", in: Input{Branch: "feat", BranchExists: true,
			Entries: []Entry{kept}, Holders: []Holder{{UUID: "u1", Path: "x", Worktree: kept.Path, Branch: "other"}}}, inUse: true},
		{name: "other branches held", in: Input{Branch: "feat", Holders: []Holder{{Branch: "other", Worktree: "/h/data/y/worktree"}}},
			want: Plan{Path: own, Create: true, NewBranch: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Own, tc.in.DataRoot = own, root
			got, err := Decide(tc.in)
			var iu *InUseError
			var co *CheckedOutError
			switch {
			case tc.inUse:
				if !errors.As(err, &iu) {
					t.Fatalf("Decide: got %v, %v; want an InUseError", got, err)
				}
			case tc.outside:
				if !errors.As(err, &co) {
					t.Fatalf("Decide: got %v, %v; want a CheckedOutError", got, err)
				}
			case err != nil:
				t.Fatalf("Decide: %v", err)
			default:
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Errorf("Decide (-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestParseList(t *testing.T) {
	out := "worktree /src/app\nHEAD 47cc\nbranch refs/heads/main\n\nworktree /h/data/a/u/worktree\nHEAD 47cc\nbranch refs/heads/orcr/a\n\n" +
		"worktree /gone\nHEAD 47cc\ndetached\nprunable gitdir file points to non-existent location\n\n"
	want := []Entry{{Path: "/src/app", Branch: "main"}, {Path: "/h/data/a/u/worktree", Branch: "orcr/a"}, {Path: "/gone", Prunable: true}}
	if d := cmp.Diff(want, parseList(out)); d != "" {
		t.Errorf("parseList (-want +got):\n%s", d)
	}
}
