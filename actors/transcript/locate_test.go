package transcript_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// created is the agent's created_at in the identity-gate cases.
var created = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// touch creates path (and its parents) with mtime at.
func touch(t testing.TB, path string, at time.Time) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestClaudeProjectSlug(t *testing.T) {
	for in, want := range map[string]string{
		"/srv/code/my.proj":      "-srv-code-my-proj",
		"/home/ann/Go_src/x-y 2": "-home-ann-Go-src-x-y-2",
		"/tmp/café":              "-tmp-caf-",
		"":                       "",
	} {
		if got := transcript.ClaudeProjectSlug(in); got != want {
			t.Errorf("ClaudeProjectSlug(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestLocate(t *testing.T) {
	const sid = "5f2d9a7e-1c3b-4e8a-9d6f-2b7c4a1e8f30"
	const cwd = "/srv/code/my.proj"
	before, after := created.Add(-time.Hour), created.Add(time.Minute)
	claudeFile := func(home, project string) string {
		return filepath.Join(home, ".claude", "projects", project, sid+".jsonl")
	}
	codexFile := func(home, day, stamp string) string {
		return filepath.Join(home, ".codex", "sessions", "2026", "03", day, "rollout-"+stamp+"-"+sid+".jsonl")
	}
	for _, tc := range []struct {
		name string
		// setup builds the files under home and returns the locator and the wanted
		// path (empty when an error is wanted).
		setup      func(t *testing.T, home string) (transcript.Locator, string)
		wantCause  string
		candidates func(home string) []string
	}{
		{
			name: "mock data dir file",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				p := touch(t, filepath.Join(home, "data", "transcript.jsonl"), before)
				return transcript.Locator{DataDir: filepath.Join(home, "data"), DataDirFile: "transcript.jsonl",
					Format: transcript.FormatClaude, SessionKind: "id", SessionValue: "ignored"}, p
			},
		},
		{
			name: "mock without data dir",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				return transcript.Locator{DataDirFile: "transcript.jsonl", SessionValue: sid}, ""
			},
			wantCause: wire.CauseNoSession,
		},
		{
			name: "mock file missing",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				return transcript.Locator{DataDir: home, DataDirFile: "transcript.jsonl"}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "no session",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, claudeFile(home, transcript.ClaudeProjectSlug(cwd)), after)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, Cwd: cwd, SessionKind: "id"}, ""
			},
			wantCause: wire.CauseNoSession,
		},
		{
			name: "path session",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				p := touch(t, filepath.Join(home, "elsewhere", "t.jsonl"), before)
				return transcript.Locator{Home: home, Format: transcript.FormatCodex, SessionKind: "path", SessionValue: p, CreatedAt: created}, p
			},
		},
		{
			name: "relative path session is taken from cwd",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				p := touch(t, filepath.Join(home, "proj", "logs", "t.jsonl"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, Cwd: filepath.Join(home, "proj"),
					SessionKind: "path", SessionValue: "logs/t.jsonl"}, p
			},
		},
		{
			name: "path session missing",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, SessionKind: "path", SessionValue: filepath.Join(home, "nope.jsonl")}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "path session is a directory",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, SessionKind: "path", SessionValue: home}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "claude cwd project wins over others",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				p := touch(t, claudeFile(home, "-srv-code-my-proj"), before)
				touch(t, claudeFile(home, "-srv-code-other"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, Cwd: cwd, SessionKind: "id", SessionValue: sid, CreatedAt: created}, p
			},
		},
		{
			name: "claude config dir replaces home/.claude",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, claudeFile(home, transcript.ClaudeProjectSlug(cwd)), after)
				dir := filepath.Join(home, "cfg")
				p := touch(t, filepath.Join(dir, "projects", transcript.ClaudeProjectSlug(cwd), sid+".jsonl"), before)
				return transcript.Locator{Home: home, ClaudeDir: dir, Format: transcript.FormatClaude, Cwd: cwd, SessionKind: "id", SessionValue: sid, CreatedAt: created}, p
			},
		},
		{
			name: "codex home replaces home/.codex",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, filepath.Join(home, ".codex", "sessions", "2026", "rollout-x-"+sid+".jsonl"), after)
				dir := filepath.Join(home, "ch")
				p := touch(t, filepath.Join(dir, "sessions", "2026", "rollout-x-"+sid+".jsonl"), before)
				return transcript.Locator{CodexHome: dir, Format: transcript.FormatCodex, SessionKind: "id", SessionValue: sid, CreatedAt: created}, p
			},
		},
		{
			name: "claude single file in another project",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				p := touch(t, claudeFile(home, "-srv-code-moved"), before)
				touch(t, filepath.Join(home, ".claude", "projects", "-srv-code-moved", "other-session.jsonl"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, Cwd: cwd, SessionKind: "id", SessionValue: sid, CreatedAt: created}, p
			},
		},
		{
			name: "claude several, one at or after created_at",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, claudeFile(home, "-a"), before)
				p := touch(t, claudeFile(home, "-b"), created)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, Cwd: cwd, SessionKind: "id", SessionValue: sid, CreatedAt: created}, p
			},
		},
		{
			name: "claude several, all fresh",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, claudeFile(home, "-b"), after)
				touch(t, claudeFile(home, "-a"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, Cwd: cwd, SessionValue: sid, CreatedAt: created}, ""
			},
			wantCause: wire.CauseAmbiguous,
			candidates: func(home string) []string {
				return []string{claudeFile(home, "-a"), claudeFile(home, "-b")}
			},
		},
		{
			name: "claude several, none fresh",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, claudeFile(home, "-a"), before)
				touch(t, claudeFile(home, "-b"), before)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, SessionValue: sid, CreatedAt: created}, ""
			},
			wantCause: wire.CauseAmbiguous,
			candidates: func(home string) []string {
				return []string{claudeFile(home, "-a"), claudeFile(home, "-b")}
			},
		},
		{
			name: "claude missing",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, filepath.Join(home, ".claude", "projects", "-x", "other.jsonl"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, Cwd: cwd, SessionValue: sid, CreatedAt: created}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "claude no projects dir",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, Cwd: cwd, SessionValue: sid}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "session id with a path separator matches nothing",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, filepath.Join(home, ".claude", "secret.jsonl"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatClaude, SessionValue: "../../secret"}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "codex one rollout",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				p := touch(t, codexFile(home, "04", "2026-03-04T14-20-11"), before)
				touch(t, filepath.Join(home, ".codex", "sessions", "2026", "03", "04", "rollout-2026-03-04T15-00-00-another.jsonl"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatCodex, SessionKind: "id", SessionValue: sid, CreatedAt: created}, p
			},
		},
		{
			name: "codex name must end in -<id>.jsonl",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, filepath.Join(home, ".codex", "sessions", "2026", "03", "04", "rollout-x-"+sid+".jsonl.bak"), after)
				touch(t, filepath.Join(home, ".codex", "sessions", "2026", "03", "04", "rollout-x"+sid+".jsonl"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatCodex, SessionValue: sid, CreatedAt: created}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "codex several, created_at picks",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, codexFile(home, "01", "2026-03-01T10-00-00"), before)
				p := touch(t, codexFile(home, "02", "2026-03-02T09-00-00"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatCodex, SessionValue: sid, CreatedAt: created}, p
			},
		},
		{
			name: "codex several, ambiguous",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				touch(t, codexFile(home, "02", "2026-03-02T09-00-00"), after)
				touch(t, codexFile(home, "03", "2026-03-03T09-00-00"), after)
				return transcript.Locator{Home: home, Format: transcript.FormatCodex, SessionValue: sid, CreatedAt: created}, ""
			},
			wantCause: wire.CauseAmbiguous,
			candidates: func(home string) []string {
				return []string{codexFile(home, "02", "2026-03-02T09-00-00"), codexFile(home, "03", "2026-03-03T09-00-00")}
			},
		},
		{
			name: "codex symlinks are not followed",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				target := touch(t, filepath.Join(home, "archive", "2026", "rollout-old-"+sid+".jsonl"), after)
				sessions := filepath.Join(home, ".codex", "sessions")
				if err := os.MkdirAll(sessions, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Dir(target), filepath.Join(sessions, "linked-dir")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(sessions, "rollout-link-"+sid+".jsonl")); err != nil {
					t.Fatal(err)
				}
				return transcript.Locator{Home: home, Format: transcript.FormatCodex, SessionValue: sid, CreatedAt: created}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "codex no sessions dir",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				return transcript.Locator{Home: home, Format: transcript.FormatCodex, SessionValue: sid}, ""
			},
			wantCause: wire.CauseNotFound,
		},
		{
			name: "unknown format",
			setup: func(t *testing.T, home string) (transcript.Locator, string) {
				return transcript.Locator{Home: home, Format: "aider", SessionValue: sid}, ""
			},
			wantCause: wire.CauseReadError,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			l, want := tc.setup(t, home)
			got, err := transcript.Locate(l)
			if tc.wantCause == "" {
				if err != nil || got != want {
					t.Fatalf("Locate: got %q, %v; want %q, nil", got, err, want)
				}
				return
			}
			if !wire.Is(err, wire.TranscriptUnavailable, tc.wantCause) {
				t.Fatalf("Locate: got %q, %v; want transcript_unavailable %s", got, err, tc.wantCause)
			}
			if got != "" {
				t.Errorf("Locate: got path %q with an error", got)
			}
			pe, _ := wire.As(err)
			var wantCands []string
			if tc.candidates != nil {
				wantCands = tc.candidates(home)
			}
			gotCands, _ := pe.Details["candidates"].([]string)
			if d := cmp.Diff(wantCands, gotCands); d != "" {
				t.Errorf("Locate: details.candidates (-want +got):\n%s", d)
			}
		})
	}
}

// An unreadable codex sessions root is read_error, not a silent not_found.
func TestLocateUnreadableRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any directory")
	}
	home := t.TempDir()
	sessions := filepath.Join(home, ".codex", "sessions")
	touch(t, filepath.Join(sessions, "2026", "rollout-x-s1.jsonl"), created)
	if err := os.Chmod(sessions, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sessions, 0o755) })
	_, err := transcript.Locate(transcript.Locator{Home: home, Format: transcript.FormatCodex, SessionValue: "s1"})
	if !wire.Is(err, wire.TranscriptUnavailable, wire.CauseReadError) {
		t.Errorf("Locate: got %v, want transcript_unavailable read_error", err)
	}
}

func TestUnavailable(t *testing.T) {
	err := transcript.Unavailable(wire.CauseAmbiguous, "two files", "candidates", []string{"a", "b"})
	if err.Code != wire.TranscriptUnavailable || err.Cause() != wire.CauseAmbiguous || err.Message != "two files" {
		t.Errorf("Unavailable: got %+v", err)
	}
	if d := cmp.Diff([]string{"a", "b"}, err.Details["candidates"]); d != "" {
		t.Errorf("Unavailable: candidates (-want +got):\n%s", d)
	}
}
