package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.uber.org/goleak"

	"github.com/orcr-go/orcr/tests/poll"
)

// mockBin is the binary built by TestMain.
var mockBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mockbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mockBin = filepath.Join(dir, "orcr-mock-agent")
	out, err := exec.Command("go", "build", "-race", "-o", mockBin, ".").CombinedOutput()
	if err != nil {
		// -race needs cgo; fall back to a plain build.
		out, err = exec.Command("go", "build", "-o", mockBin, ".").CombinedOutput()
	}
	if err != nil {
		os.RemoveAll(dir)
		fmt.Fprintf(os.Stderr, "building orcr-mock-agent: %v\n%s", err, out)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// waitFor is [poll.Eventually] with a formatted description of what it waits for.
func waitFor(t *testing.T, d time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	poll.Eventually(t, d, fmt.Sprintf(msg, args...), cond)
}

// shortDir makes a temporary directory with a short path, removed when the test
// ends: a socket path under t.TempDir() can pass the Unix limit of 104-108 bytes.
func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "m")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// herdrCallRecord is one request received by the fake herdr.
type herdrCallRecord struct {
	Method string
	Params map[string]any
	// TranscriptLines is how many lines transcript.jsonl had when the
	// request arrived.
	TranscriptLines int
}

// fakeHerdr is a minimal herdr socket: one request per connection, every
// request answered with an ok result and recorded.
type fakeHerdr struct {
	ln         net.Listener
	transcript string

	mu    sync.Mutex
	calls []herdrCallRecord
}

func newFakeHerdr(t *testing.T, socket, transcript string) *fakeHerdr {
	t.Helper()
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	h := &fakeHerdr{ln: ln, transcript: transcript}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return h
}

func (h *fakeHerdr) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return
	}
	var req struct {
		ID     string         `json:"id"`
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		fmt.Fprintf(c, `{"id":"","error":{"code":"invalid_request","message":"%v"}}`+"\n", err)
		return
	}
	h.mu.Lock()
	h.calls = append(h.calls, herdrCallRecord{req.Method, req.Params, countLines(h.transcript)})
	h.mu.Unlock()
	resp, _ := json.Marshal(map[string]any{"id": req.ID, "result": map[string]any{"type": "ok"}})
	c.Write(append(resp, '\n'))
}

// countLines counts the lines of a file (0 if it is missing).
func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

// Calls returns a copy of the recorded requests.
func (h *fakeHerdr) Calls() []herdrCallRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

// States returns the states of the recorded pane.report_agent requests.
func (h *fakeHerdr) States() []string {
	var s []string
	for _, c := range h.Calls() {
		if c.Method == "pane.report_agent" {
			st, _ := c.Params["state"].(string)
			s = append(s, st)
		}
	}
	return s
}

// mockProc is one orcr-mock-agent running in a PTY.
type mockProc struct {
	t       *testing.T
	dir     string
	dataDir string
	herdr   *fakeHerdr
	pty     *os.File
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error

	outMu sync.Mutex
	out   bytes.Buffer
}

// startMock runs the mock in a PTY with a fake herdr and the given extra
// environment ("K=V").
func startMock(t *testing.T, env ...string) *mockProc {
	t.Helper()
	return startMockArgs(t, nil, env...)
}

// startMockArgs is [startMock] with a command line.
func startMockArgs(t *testing.T, args []string, env ...string) *mockProc {
	t.Helper()
	dir := shortDir(t)
	m := &mockProc{t: t, dir: dir, dataDir: filepath.Join(dir, "d"), exited: make(chan struct{})}
	socket := filepath.Join(dir, "h.sock")
	m.herdr = newFakeHerdr(t, socket, filepath.Join(m.dataDir, "transcript.jsonl"))

	m.cmd = exec.Command(mockBin, args...)
	m.cmd.Dir = dir
	m.cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"HERDR_ENV=1",
		"HERDR_SOCKET_PATH=" + socket,
		"HERDR_PANE_ID=w1:p1",
		"ORCR_AGENT_DATA_DIR=" + m.dataDir,
		"ORCR_PATH=/team/worker",
	}, env...)
	var err error
	m.pty, err = pty.StartWithSize(m.cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := m.pty.Read(buf)
			m.outMu.Lock()
			m.out.Write(buf[:n])
			m.outMu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		m.waitErr = m.cmd.Wait()
		close(m.exited)
	}()
	t.Cleanup(func() {
		if !m.hasExited() {
			m.cmd.Process.Kill()
		}
		<-m.exited
		m.pty.Close()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(m.dataDir, "mock.log"))
			t.Logf("mock.log:\n%s\nherdr calls: %+v", log, m.herdr.Calls())
		}
	})
	return m
}

// startReady starts the mock and waits for its first idle report.
func startReady(t *testing.T, env ...string) *mockProc {
	t.Helper()
	return startReadyArgs(t, nil, env...)
}

// startReadyArgs is [startReady] with a command line.
func startReadyArgs(t *testing.T, args []string, env ...string) *mockProc {
	t.Helper()
	m := startMockArgs(t, args, env...)
	waitFor(t, 10*time.Second, func() bool { return len(m.herdr.States()) >= 1 }, "the start-up idle report")
	if got := m.herdr.States(); got[0] != "idle" {
		t.Fatalf("first report = %q, want idle", got[0])
	}
	return m
}

func (m *mockProc) send(s string) {
	m.t.Helper()
	if _, err := m.pty.Write([]byte(s)); err != nil {
		m.t.Fatalf("writing to pty: %v", err)
	}
}

func (m *mockProc) output() string {
	m.outMu.Lock()
	defer m.outMu.Unlock()
	return m.out.String()
}

func (m *mockProc) hasExited() bool {
	select {
	case <-m.exited:
		return true
	default:
		return false
	}
}

// transcript parses transcript.jsonl.
func (m *mockProc) transcript() []transcriptLine {
	m.t.Helper()
	b, err := os.ReadFile(filepath.Join(m.dataDir, "transcript.jsonl"))
	if err != nil {
		return nil
	}
	var lines []transcriptLine
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var tl transcriptLine
		if err := json.Unmarshal(l, &tl); err != nil {
			m.t.Fatalf("bad transcript line %q: %v", l, err)
		}
		lines = append(lines, tl)
	}
	return lines
}

// waitTranscript waits until the transcript has at least n lines.
func (m *mockProc) waitTranscript(n int) []transcriptLine {
	m.t.Helper()
	waitFor(m.t, 10*time.Second, func() bool { return len(m.transcript()) >= n }, "%d transcript lines", n)
	return m.transcript()
}

// waitStates waits until the report sequence equals want.
func (m *mockProc) waitStates(want ...string) {
	m.t.Helper()
	waitFor(m.t, 10*time.Second, func() bool { return len(m.herdr.States()) >= len(want) }, "states %v", want)
	if got := m.herdr.States(); !slices.Equal(got, want) {
		m.t.Fatalf("states = %v, want %v", got, want)
	}
}

// waitExit waits for the process to end.
func (m *mockProc) waitExit() {
	m.t.Helper()
	waitFor(m.t, 10*time.Second, m.hasExited, "the process to exit")
}

func checkTurn(t *testing.T, lines []transcriptLine, prompt, response string) {
	t.Helper()
	if len(lines) != 2 {
		t.Fatalf("got %d transcript lines, want 2: %+v", len(lines), lines)
	}
	u, a := lines[0], lines[1]
	if u.Type != "user" || u.Role != "user" || u.Kind != "text" || u.Text != prompt || u.Message.Content != prompt || u.Message.Role != "user" {
		t.Errorf("user line = %+v, want user text %q", u, prompt)
	}
	if a.Type != "assistant" || a.Role != "assistant" || a.Kind != "text" || a.Text != response || a.Message.Content != response {
		t.Errorf("assistant line = %+v, want assistant text %q", a, response)
	}
	for _, l := range lines {
		if _, err := time.Parse(time.RFC3339Nano, l.Timestamp); err != nil {
			t.Errorf("bad timestamp %q: %v", l.Timestamp, err)
		}
	}
}

func TestSayHello(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_ID=1234", "ORCR_MOCK_FLAVOUR=vanilla")
	m.send("say=hello\r")
	m.waitStates("idle", "working", "idle")
	lines := m.waitTranscript(2)
	checkTurn(t, lines, "say=hello", "hello\nDONE")
	if lines[1].SessionID != "mock_session" {
		t.Errorf("session_id = %q, want mock_session", lines[1].SessionID)
	}

	for _, c := range m.herdr.Calls() {
		want := map[string]any{"pane_id": "w1:p1", "source": "orcr:mock", "agent": "mock", "agent_session_id": "mock_session"}
		for k, v := range want {
			if c.Params[k] != v {
				t.Errorf("%s param %s = %v, want %v", c.Method, k, c.Params[k], v)
			}
		}
	}
	// The transcript is complete before idle is reported.
	if calls := m.herdr.Calls(); calls[2].TranscriptLines != 2 {
		t.Errorf("transcript had %d lines at the final idle report, want 2", calls[2].TranscriptLines)
	}

	b, err := os.ReadFile(filepath.Join(m.dataDir, "mock_env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]string
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"ORCR_ID": "1234", "ORCR_MOCK_FLAVOUR": "vanilla", "ORCR_AGENT_DATA_DIR": m.dataDir,
		"ORCR_PATH": "/team/worker", "HERDR_PANE_ID": "w1:p1",
	} {
		if env[k] != v {
			t.Errorf("mock_env.json[%s] = %q, want %q", k, env[k], v)
		}
	}
	if _, ok := env["PATH"]; ok {
		t.Errorf("mock_env.json holds PATH: %v", env)
	}
	waitFor(t, 5*time.Second, func() bool {
		o := m.output()
		return strings.Contains(o, defaultBanner) && strings.Contains(o, "/team/worker") &&
			strings.Contains(o, "> say=hello") && strings.Contains(o, "DONE")
	}, "banner, path and conversation on screen")
}

func TestToolGaps(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("tool_gaps=2 gap_ms=50 turn_ms=20 say=gaps\r")
	m.waitStates("idle", "working", "idle", "working", "idle", "working", "idle")
	checkTurn(t, m.waitTranscript(2), "tool_gaps=2 gap_ms=50 turn_ms=20 say=gaps", "gaps\nDONE")
}

func TestToolGapsFromEnv(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_TOOL_GAPS=1", "ORCR_MOCK_GAP_MS=30")
	m.send("plain prompt\r")
	m.waitStates("idle", "working", "idle", "working", "idle")
	checkTurn(t, m.waitTranscript(2), "plain prompt", "RESPONSE: plain prompt\nDONE")
}

func TestBlock(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("@block say=q\r")
	m.waitStates("idle", "working", "blocked")
	checkTurn(t, m.waitTranscript(2), "@block say=q", "q\nDONE")
	// ESC leaves the blocked state.
	m.send("\x1b")
	m.waitStates("idle", "working", "blocked", "idle")
}

// no_working: herdr sees only the final state, even across tool gaps; the
// transcript is complete when it is reported.
func TestNoWorking(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("no_working tool_gaps=2 gap_ms=20 turn_ms=10 say=quiet\r")
	m.waitStates("idle", "idle")
	checkTurn(t, m.waitTranscript(2), "no_working tool_gaps=2 gap_ms=20 turn_ms=10 say=quiet", "quiet\nDONE")
	if n := m.herdr.Calls()[1].TranscriptLines; n != 2 {
		t.Errorf("transcript had %d lines at the final idle report, want 2", n)
	}
	m.send("@no_working block say=q\r")
	m.waitStates("idle", "idle", "blocked")
}

func TestBlockFromEnv(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_BLOCK=1")
	m.send("hi\r")
	m.waitStates("idle", "working", "blocked")
}

func TestEscInterrupts(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("turn_ms=60000 say=never\r")
	m.waitStates("idle", "working")
	// An escape sequence (arrow up) is not an interrupt.
	m.send("\x1b[A")
	m.send("\x1b")
	m.waitStates("idle", "working", "idle")
	lines := m.waitTranscript(2)
	checkTurn(t, lines, "turn_ms=60000 say=never", "never\nINTERRUPTED")
	if !lines[1].Interrupted {
		t.Errorf("assistant line not marked interrupted: %+v", lines[1])
	}
	// The agent still works afterwards.
	m.send("say=after\r")
	m.waitStates("idle", "working", "idle", "working", "idle")
	if lines := m.waitTranscript(4); lines[3].Text != "after\nDONE" {
		t.Errorf("second response = %q", lines[3].Text)
	}
}

func TestArrowKeyDoesNotInterrupt(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("turn_ms=400 say=kept\r")
	m.waitStates("idle", "working")
	m.send("\x1b[A\x1b[B")
	m.waitStates("idle", "working", "idle")
	checkTurn(t, m.waitTranscript(2), "turn_ms=400 say=kept", "kept\nDONE")
}

func TestQuit(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("/quit\r")
	m.waitExit()
	if m.waitErr != nil {
		t.Errorf("exit: %v", m.waitErr)
	}
	calls := m.herdr.Calls()
	if last := calls[len(calls)-1]; last.Method != "pane.release_agent" || last.Params["source"] != "orcr:mock" || last.Params["agent"] != "mock" || last.Params["pane_id"] != "w1:p1" {
		t.Errorf("last herdr call = %+v, want pane.release_agent", last)
	}
}

// ORCR_MOCK_QUIT_DELAY_MS: "/quit" shows "quitting" and the process lives on, until a
// terminating signal ends it at once.
func TestQuitDelayEndsAtASignal(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_QUIT_DELAY_MS=600000")
	m.send("/quit\r")
	waitFor(t, 10*time.Second, func() bool { return strings.Contains(m.output(), "quitting") }, "the quitting line")
	if m.hasExited() {
		t.Fatal("the mock exited at once despite its quit delay")
	}
	m.cmd.Process.Signal(syscall.SIGHUP)
	m.waitExit()
}

func TestQuitDuringTurn(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("turn_ms=60000\r")
	m.waitStates("idle", "working")
	m.send("/quit\r")
	m.waitExit()
	if lines := m.transcript(); len(lines) != 2 || !lines[1].Interrupted {
		t.Errorf("transcript = %+v, want an interrupted turn", lines)
	}
}

func TestTwoCallDelivery(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("say=two")
	time.Sleep(time.Second) // orcr's pause between text and Enter
	m.send("\r")
	m.waitStates("idle", "working", "idle")
	checkTurn(t, m.waitTranscript(2), "say=two", "two\nDONE")
}

func TestBracketedPaste(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	waitFor(t, 5*time.Second, func() bool { return strings.Contains(m.output(), "\x1b[?2004h") }, "bracketed paste to be enabled")
	m.send("\x1b[200~line one\r\nsay=pasted\x1b[201~")
	m.send("\r")
	m.waitStates("idle", "working", "idle")
	checkTurn(t, m.waitTranscript(2), "line one\nsay=pasted", "pasted\nDONE")
}

// orcr's delivery (docs/lifecycle.md §9.1): the paste a delivery left open is closed,
// ^E ^U clear the whole box, every line of it, and the next paste is the prompt.
func TestClearKeysEmptyTheBox(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("\x1b[200~left\nover\nfrom before")
	m.send("\x1b[201~\x05\x15")
	m.send("\x1b[200~say=clean\x1b[201~")
	m.send("\r")
	m.waitStates("idle", "working", "idle")
	checkTurn(t, m.waitTranscript(2), "say=clean", "clean\nDONE")
}

// digest answers with the byte count and SHA-256 of a pasted prompt of megabytes.
func TestDigestOfALargePaste(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	prompt := "digest\n" + strings.Repeat("€ and <more>\tline\n", 100000) + "end"
	m.send("\x1b[200~" + prompt + "\x1b[201~")
	m.send("\r")
	// The final report comes after the transcript lines are written.
	m.waitStates("idle", "working", "idle")
	lines := m.transcript()
	sum := sha256.Sum256([]byte(prompt))
	want := fmt.Sprintf("bytes=%d sha256=%x\nDONE", len(prompt), sum)
	if len(lines) != 2 || lines[0].Text != prompt || lines[1].Text != want {
		t.Fatalf("transcript: %d lines; want the %d-byte prompt answered %q", len(lines), len(prompt), want)
	}
	if out := m.output(); len(out) > 1<<20 {
		t.Errorf("the screen output was %d bytes for one prompt: redraws are not bounded", len(out))
	}
}

func TestEditingKeys(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("junk\x15say=abX\x7fc\r")
	m.waitStates("idle", "working", "idle")
	checkTurn(t, m.waitTranscript(2), "say=abc", "abc\nDONE")
}

func TestQueuedPrompts(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("turn_ms=300 say=one\r")
	m.waitStates("idle", "working")
	m.send("say=two\r\r  \r")
	m.waitStates("idle", "working", "idle", "working", "idle")
	lines := m.waitTranscript(4)
	if lines[1].Text != "one\nDONE" || lines[3].Text != "two\nDONE" {
		t.Errorf("transcript = %+v", lines)
	}
}

func TestDropFirstSends(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_DROP_FIRST_SENDS=2")
	m.send("\rsay=a\r")
	m.send("say=b\r")
	m.send("say=c\r")
	m.waitStates("idle", "working", "idle")
	checkTurn(t, m.waitTranscript(2), "say=c", "c\nDONE")
}

func TestExitAfter(t *testing.T) {
	t.Parallel()
	for _, env := range []string{"ORCR_MOCK_EXIT_AFTER=2", "ORCR_MOCK_ONCE=1"} {
		t.Run(env, func(t *testing.T) {
			t.Parallel()
			m := startReady(t, env)
			turns := 2
			if env == "ORCR_MOCK_ONCE=1" {
				turns = 1
			}
			for i := range turns {
				m.send(fmt.Sprintf("say=t%d\r", i))
			}
			m.waitExit()
			if lines := m.transcript(); len(lines) != 2*turns {
				t.Errorf("got %d transcript lines, want %d", len(lines), 2*turns)
			}
		})
	}
}

func TestLateTranscript(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_LATE_TRANSCRIPT_MS=300")
	m.send("say=late\r")
	m.waitStates("idle", "working", "idle")
	if n := m.herdr.Calls()[2].TranscriptLines; n != 0 {
		t.Errorf("transcript had %d lines at the idle report, want 0", n)
	}
	checkTurn(t, m.waitTranscript(2), "say=late", "late\nDONE")
}

func TestDelayWorking(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_DELAY_WORKING_MS=300")
	sent := time.Now()
	m.send("say=slow\r")
	m.waitStates("idle", "working", "idle")
	if d := time.Since(sent); d < 300*time.Millisecond {
		t.Errorf("turn took %v, want at least the 300 ms delay", d)
	}
}

func TestWriteDirective(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("say=filed @write=out/r.txt\r")
	m.send("say=evil write=../escape.txt\r")
	m.waitStates("idle", "working", "idle", "working", "idle")
	b, err := os.ReadFile(filepath.Join(m.dataDir, "out", "r.txt"))
	if err != nil || string(b) != "filed\nDONE" {
		t.Errorf("out/r.txt = %q, %v; want the response", b, err)
	}
	if _, err := os.Stat(filepath.Join(m.dir, "escape.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("write= escaped the data dir: %v", err)
	}
}

func TestNoReportNoTranscript(t *testing.T) {
	t.Parallel()
	m := startMock(t, "ORCR_MOCK_NO_REPORT=1", "ORCR_MOCK_NO_TRANSCRIPT=1", "ORCR_MOCK_BANNER=custom banner here")
	waitFor(t, 10*time.Second, func() bool { return strings.Contains(m.output(), "custom banner here") }, "the banner")
	m.send("say=x write=w.txt\r")
	waitFor(t, 10*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(m.dataDir, "w.txt"))
		return err == nil
	}, "the turn to finish")
	m.send("/quit\r")
	m.waitExit()
	if calls := m.herdr.Calls(); len(calls) != 0 {
		t.Errorf("herdr calls with reporting off: %+v", calls)
	}
	if _, err := os.Stat(filepath.Join(m.dataDir, "transcript.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("transcript.jsonl exists with ORCR_MOCK_NO_TRANSCRIPT: %v", err)
	}
}

func TestMockSocketOverrides(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	other := newFakeHerdr(t, filepath.Join(dir, "o.sock"), "")
	m := startMock(t, "ORCR_MOCK_HERDR_SOCKET="+filepath.Join(dir, "o.sock"), "ORCR_MOCK_PANE_ID=w9:p9",
		"ORCR_MOCK_AGENT=claude", "ORCR_MOCK_SESSION_ID=s-1")
	waitFor(t, 10*time.Second, func() bool { return len(other.Calls()) >= 1 }, "a report on the override socket")
	c := other.Calls()[0]
	if c.Params["pane_id"] != "w9:p9" || c.Params["agent"] != "claude" || c.Params["agent_session_id"] != "s-1" {
		t.Errorf("report params = %v", c.Params)
	}
	if n := len(m.herdr.Calls()); n != 0 {
		t.Errorf("HERDR_SOCKET_PATH got %d calls despite the override", n)
	}
}

func TestHerdrUnreachable(t *testing.T) {
	t.Parallel()
	m := startMock(t, "HERDR_SOCKET_PATH=/nonexistent/h.sock")
	m.send("say=alone\r")
	checkTurn(t, m.waitTranscript(2), "say=alone", "alone\nDONE")
	waitFor(t, 5*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(m.dataDir, "mock.log"))
		return strings.Contains(string(b), "herdr pane.report_agent:")
	}, "the herdr failure in mock.log")
	m.send("/quit\r")
	m.waitExit()
	if m.waitErr != nil {
		t.Errorf("exit: %v", m.waitErr)
	}
}

// TestPipedStdin covers a non-terminal stdin: lines are prompts and the end
// of input exits after the queued turns.
func TestPipedStdin(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	cmd := exec.Command(mockBin)
	cmd.Env = []string{"ORCR_AGENT_DATA_DIR=" + dir}
	cmd.Stdin = strings.NewReader("say=one turn_ms=50\n\nsecond\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(string(out), "RESPONSE: second") {
		t.Errorf("output lacks the second response: %q", out)
	}
	m := &mockProc{t: t, dataDir: dir}
	lines := m.transcript()
	if len(lines) != 4 || lines[1].Text != "one\nDONE" || lines[3].Text != "RESPONSE: second\nDONE" {
		t.Errorf("transcript = %+v", lines)
	}
}

// TestStartFail: ORCR_MOCK_START_FAIL shows its message, keeps it on screen for
// ORCR_MOCK_START_FAIL_MS, then exits with status 1 without a word to herdr, as a
// provider that refuses to start.
func TestStartFail(t *testing.T) {
	t.Parallel()
	start := time.Now()
	m := startMock(t, "ORCR_MOCK_START_FAIL=cannot start: no such model", "ORCR_MOCK_START_FAIL_MS=300")
	m.waitExit()
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("exited after %v, want the message kept on screen for 300 ms first", took)
	}
	var ee *exec.ExitError
	if !errors.As(m.waitErr, &ee) || ee.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", m.waitErr)
	}
	if out := m.output(); !strings.Contains(out, "cannot start: no such model") || strings.Contains(out, defaultBanner) {
		t.Errorf("screen output %q: want the message and no banner", out)
	}
	if calls := m.herdr.Calls(); len(calls) != 0 {
		t.Errorf("herdr calls %+v, want none", calls)
	}
}
