package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/herdr/herdrtest"
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
		{"skip-permissions twice", []string{"--skip-permissions", "--skip-permissions"},
			`unexpected arguments ["--skip-permissions" "--skip-permissions"]`},
		{"resume twice", []string{"--resume", "a", "--resume=b"}, `unexpected arguments ["--resume" "a" "--resume=b"]`},
		{"skip-permissions with a value", []string{"--skip-permissions=true"}, `unexpected arguments ["--skip-permissions=true"]`},
		{"skip-permissions and a positional", []string{"--skip-permissions", "hello"},
			`unexpected arguments ["--skip-permissions" "hello"]`},
		{"skip-permissions and resume without a path", []string{"--skip-permissions", "--resume"}, "--resume needs a transcript path"},
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

// ORCR_MOCK_SESSION_SOURCE sends one pane.report_agent_session, with the transcript's
// absolute path and no id, right after the first idle report.
func TestSessionReport(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_SESSION_SOURCE=herdr:mock")
	waitFor(t, 5*time.Second, func() bool { return len(m.herdr.Calls()) >= 2 }, "the session report")
	calls := m.herdr.Calls()
	if calls[0].Method != "pane.report_agent" || calls[1].Method != "pane.report_agent_session" {
		t.Fatalf("herdr calls: got %s, %s; want pane.report_agent, pane.report_agent_session", calls[0].Method, calls[1].Method)
	}
	want := map[string]any{
		"pane_id": "w1:p1", "source": "herdr:mock", "agent": "mock",
		"agent_session_path": filepath.Join(m.dataDir, "transcript.jsonl"),
	}
	if diff := cmp.Diff(want, calls[1].Params); diff != "" {
		t.Errorf("pane.report_agent_session params mismatch (-want +got):\n%s", diff)
	}
	// Turns report as before, from the state source, and never the session again.
	m.send("say=hi\r")
	m.waitStates("idle", "working", "idle")
	m.send("/quit\r")
	m.waitExit()
	var sessions int
	for _, c := range m.herdr.Calls() {
		if c.Method == "pane.report_agent_session" {
			sessions++
		} else if c.Params["source"] != "orcr:mock" {
			t.Errorf("%s source: got %v, want orcr:mock", c.Method, c.Params["source"])
		}
	}
	if sessions != 1 {
		t.Errorf("got %d session reports, want 1", sessions)
	}
}

// A relative data dir still gives herdr an absolute transcript path.
func TestSessionReportRelativeDataDir(t *testing.T) {
	t.Parallel()
	m := startMock(t, "ORCR_AGENT_DATA_DIR=d", "ORCR_MOCK_SESSION_SOURCE=herdr:mock", "ORCR_MOCK_AGENT=claude")
	waitFor(t, 10*time.Second, func() bool { return len(m.herdr.Calls()) >= 2 }, "the session report")
	c := m.herdr.Calls()[1]
	path, _ := c.Params["agent_session_path"].(string)
	if c.Method != "pane.report_agent_session" || c.Params["agent"] != "claude" || !filepath.IsAbs(path) {
		t.Fatalf("second call: got %s %v, want pane.report_agent_session with agent claude and an absolute path", c.Method, c.Params)
	}
	got, err1 := os.Stat(path)
	want, err2 := os.Stat(filepath.Join(m.dataDir, "transcript.jsonl"))
	if err1 != nil || err2 != nil || !os.SameFile(got, want) {
		t.Errorf("agent_session_path %q is not d/transcript.jsonl (%v, %v)", path, err1, err2)
	}
}

// Without a transcript there is no session to report.
func TestSessionReportNoTranscript(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_SESSION_SOURCE=herdr:mock", "ORCR_MOCK_NO_TRANSCRIPT=1")
	m.send("say=x\r")
	m.waitStates("idle", "working", "idle")
	for _, c := range m.herdr.Calls() {
		if c.Method == "pane.report_agent_session" {
			t.Errorf("session report without a transcript: %v", c.Params)
		}
	}
}

// In the herdr stand-in, the session report of source herdr:mock gives the pane
// agent_session {kind: "path"} naming the transcript, and the mock's own state
// reports (source orcr:mock, with agent_session_id) leave it alone. A mock started
// with ResumeArgv's --resume from that pointer continues the conversation.
func TestSessionPointerInStandIn(t *testing.T) {
	t.Parallel()
	f := herdrtest.Start(t, herdrtest.Options{})
	r := herdr.NewRemote(f.Sessions["default"].SocketPath())
	ctx := context.Background()
	dataDir := shortDir(t)
	start := func(label string, args []string) string {
		ws, err := r.WorkspaceCreate(ctx, label, "")
		if err != nil {
			t.Fatal(err)
		}
		_, pane, err := r.LayoutApply(ctx, ws.Workspace.WorkspaceID, label, append([]string{mockBin}, args...), "", label,
			map[string]string{"ORCR_AGENT_DATA_DIR": filepath.Join(dataDir, label), "ORCR_MOCK_SESSION_SOURCE": "herdr:mock"})
		if err != nil {
			t.Fatal(err)
		}
		return pane
	}
	session := func(pane string) *herdr.AgentSession {
		agents, err := r.AgentList(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range agents {
			if a.PaneID == pane {
				return a.AgentSession
			}
		}
		return nil
	}
	status := func(pane string) herdr.Status {
		p, err := r.PaneGet(ctx, pane)
		if err != nil {
			t.Fatal(err)
		}
		return p.AgentStatus
	}

	user := start("user", nil)
	tpath := filepath.Join(dataDir, "user", "transcript.jsonl")
	want := &herdr.AgentSession{Source: "herdr:mock", Agent: "mock", Kind: "path", Value: tpath}
	waitFor(t, 10*time.Second, func() bool { return session(user) != nil }, "agent_session of the user's pane")
	if diff := cmp.Diff(want, session(user)); diff != "" {
		t.Fatalf("agent_session mismatch (-want +got):\n%s", diff)
	}
	if err := r.SendText(ctx, user, "say=first"); err != nil {
		t.Fatal(err)
	}
	if err := r.SendKeys(ctx, user, "Enter"); err != nil {
		t.Fatal(err)
	}
	um := &mockProc{t: t, dataDir: filepath.Join(dataDir, "user")}
	um.waitTranscript(2)
	waitFor(t, 10*time.Second, func() bool { return status(user) == herdr.StatusIdle }, "the user's turn to end")
	if diff := cmp.Diff(want, session(user)); diff != "" {
		t.Errorf("agent_session after a turn mismatch (-want +got):\n%s", diff)
	}

	// The pointer resumes: a new mock continues the conversation.
	resumed := start("adopted", []string{"--resume", session(user).Value})
	am := &mockProc{t: t, dataDir: filepath.Join(dataDir, "adopted")}
	waitFor(t, 10*time.Second, func() bool { return session(resumed) != nil }, "agent_session of the adopted pane")
	if got := session(resumed).Value; got != filepath.Join(dataDir, "adopted", "transcript.jsonl") {
		t.Errorf("adopted agent_session value: got %q", got)
	}
	if err := r.SendText(ctx, resumed, "say=second"); err != nil {
		t.Fatal(err)
	}
	if err := r.SendKeys(ctx, resumed, "Enter"); err != nil {
		t.Fatal(err)
	}
	lines := am.waitTranscript(4)
	if lines[1].Text != "first\nDONE" || lines[3].Text != "second\nDONE" {
		t.Errorf("adopted transcript: %+v", lines)
	}
}
