package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// oldTranscript is the transcript.jsonl of an earlier mock: two turns of session
// s-old, a blank line, and a last line without its newline.
const oldTranscript = `{"type":"user","role":"user","kind":"text","text":"say=one","timestamp":"2026-01-02T03:04:05.000000001Z","session_id":"s-old","message":{"role":"user","content":"say=one"}}
{"type":"assistant","role":"assistant","kind":"text","text":"one\nDONE","timestamp":"2026-01-02T03:04:05.000000002Z","session_id":"s-old","message":{"role":"assistant","content":"one\nDONE"}}

{"type":"user","role":"user","kind":"text","text":"say=two","timestamp":"2026-01-02T03:04:06.000000001Z","session_id":"s-old","message":{"role":"user","content":"say=two"}}
{"type":"assistant","role":"assistant","kind":"text","text":"two\nDONE","timestamp":"2026-01-02T03:04:06.000000002Z","session_id":"s-old","message":{"role":"assistant","content":"two\nDONE"}}`

// writeOld writes oldTranscript to a fresh file and returns its path.
func writeOld(t *testing.T) string {
	t.Helper()
	path := filepath.Join(shortDir(t), "transcript.jsonl")
	if err := os.WriteFile(path, []byte(oldTranscript), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --resume copies the old entries before the first report, takes their session id,
// says so on screen, and the next turn appends after them.
func TestResume(t *testing.T) {
	t.Parallel()
	for _, form := range []string{"--resume <path>", "--resume=<path>"} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			src := writeOld(t)
			args := []string{"--resume", src}
			if strings.Contains(form, "=") {
				args = []string{"--resume=" + src}
			}
			m := startReadyArgs(t, args)
			first := m.herdr.Calls()[0]
			if first.TranscriptLines != 4 {
				t.Errorf("transcript had %d lines at the first report, want the 4 copied", first.TranscriptLines)
			}
			if got := first.Params["agent_session_id"]; got != "s-old" {
				t.Errorf("first report agent_session_id: got %v, want s-old", got)
			}
			b, err := os.ReadFile(filepath.Join(m.dataDir, "transcript.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(oldTranscript, "\n\n", "\n") + "\n"
			if diff := cmp.Diff(want, string(b)); diff != "" {
				t.Errorf("copied transcript mismatch (-want +got):\n%s", diff)
			}
			waitFor(t, 5*time.Second, func() bool {
				return strings.Contains(m.output(), "resumed 4 entries from "+src)
			}, "the resumed line on screen")

			m.send("say=three\r")
			m.waitStates("idle", "working", "idle")
			lines := m.waitTranscript(6)
			checkTurn(t, lines[4:], "say=three", "three\nDONE")
			for _, l := range lines {
				if l.SessionID != "s-old" {
					t.Errorf("line %q: session_id %q, want s-old", l.Text, l.SessionID)
				}
			}
			if lines[1].Text != "one\nDONE" || lines[3].Text != "two\nDONE" {
				t.Errorf("copied entries changed: %+v", lines[:4])
			}
		})
	}
}

// ORCR_MOCK_SESSION_ID wins over the resumed transcript's session id.
func TestResumeKeepsSessionIDKnob(t *testing.T) {
	t.Parallel()
	m := startReadyArgs(t, []string{"--resume", writeOld(t)}, "ORCR_MOCK_SESSION_ID=s-env")
	if got := m.herdr.Calls()[0].Params["agent_session_id"]; got != "s-env" {
		t.Errorf("first report agent_session_id: got %v, want s-env", got)
	}
	m.send("say=next\r")
	m.waitStates("idle", "working", "idle")
	if lines := m.waitTranscript(6); lines[4].SessionID != "s-env" || lines[3].SessionID != "s-old" {
		t.Errorf("session ids: new %q (want s-env), copied %q (want s-old)", lines[4].SessionID, lines[3].SessionID)
	}
}

// A transcript that cannot be read is shown and logged; the mock starts fresh.
func TestResumeMissingFile(t *testing.T) {
	t.Parallel()
	src := filepath.Join(shortDir(t), "gone.jsonl")
	m := startReadyArgs(t, []string{"--resume", src})
	waitFor(t, 5*time.Second, func() bool {
		o := m.output()
		return strings.Contains(o, "cannot resume: open "+src) && strings.Contains(o, "starting a fresh session") &&
			strings.Contains(o, defaultBanner)
	}, "the resume error and the banner on screen")
	b, _ := os.ReadFile(filepath.Join(m.dataDir, "mock.log"))
	if !strings.Contains(string(b), "resume: open "+src) {
		t.Errorf("mock.log lacks the resume error:\n%s", b)
	}
	m.send("say=fresh\r")
	m.waitStates("idle", "working", "idle")
	lines := m.waitTranscript(2)
	checkTurn(t, lines, "say=fresh", "fresh\nDONE")
	if lines[0].SessionID != "mock_session" {
		t.Errorf("session_id %q, want mock_session", lines[0].SessionID)
	}
}

// Any other command line is a usage error: exit 2, usage on stderr, nothing started.
func TestBadArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown flag", []string{"--bogus"}, `unexpected arguments ["--bogus"]`},
		{"positional", []string{"hello"}, `unexpected arguments ["hello"]`},
		{"resume without a path", []string{"--resume"}, "--resume needs a transcript path"},
		{"resume with an empty path", []string{"--resume", ""}, "--resume needs a transcript path"},
		{"resume= with an empty path", []string{"--resume="}, "--resume needs a transcript path"},
		{"resume with two paths", []string{"--resume", "a", "b"}, `unexpected arguments ["--resume" "a" "b"]`},
		{"single dash", []string{"-resume", "a"}, `unexpected arguments ["-resume" "a"]`},
		{"help", []string{"--help"}, `unexpected arguments ["--help"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(shortDir(t), "d")
			cmd := exec.Command(mockBin, tc.args...)
			cmd.Env = []string{"ORCR_AGENT_DATA_DIR=" + dir}
			cmd.Stdin = strings.NewReader("say=never\n")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("orcr-mock-agent %q: got %v, want exit status 2", tc.args, err)
			}
			want := "orcr-mock-agent: " + tc.msg + "\n" + usage
			if got := stderr.String(); got != want {
				t.Errorf("orcr-mock-agent %q stderr: got %q, want %q", tc.args, got, want)
			}
			if stdout.Len() != 0 {
				t.Errorf("orcr-mock-agent %q stdout: got %q, want nothing", tc.args, stdout.String())
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("orcr-mock-agent %q made its data dir: %v", tc.args, err)
			}
		})
	}
}
