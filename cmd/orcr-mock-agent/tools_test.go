package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/orcr-go/orcr/actors/provider"
	adapter "github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/herdr/herdrtest"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want cmdLine
	}{
		{nil, cmdLine{}},
		{[]string{"--skip-permissions"}, cmdLine{skipPermissions: true}},
		{[]string{"--resume", "/t.jsonl"}, cmdLine{resumeFrom: "/t.jsonl"}},
		{[]string{"--resume=/t.jsonl"}, cmdLine{resumeFrom: "/t.jsonl"}},
		{[]string{"--skip-permissions", "--resume", "/t.jsonl"}, cmdLine{resumeFrom: "/t.jsonl", skipPermissions: true}},
		{[]string{"--resume", "/t.jsonl", "--skip-permissions"}, cmdLine{resumeFrom: "/t.jsonl", skipPermissions: true}},
		{[]string{"--resume=/t.jsonl", "--skip-permissions"}, cmdLine{resumeFrom: "/t.jsonl", skipPermissions: true}},
		{[]string{"--resume", "--skip-permissions"}, cmdLine{resumeFrom: "--skip-permissions"}},
	}
	for _, tc := range tests {
		got, err := parseArgs(tc.args)
		if err != nil || got != tc.want {
			t.Errorf("parseArgs(%q): got %+v, %v; want %+v, nil", tc.args, got, err, tc.want)
		}
	}
}

// toolIDPattern is the shape of the mock's tool-call ids.
var toolIDPattern = regexp.MustCompile(`^toolu_mock_[0-9a-f]{8}_[0-9]+$`)

// tools reads the mock's transcript through the claude adapter's tool parser,
// checking every call id's shape.
func (m *mockProc) tools() []adapter.ToolEvent {
	m.t.Helper()
	evs, err := adapter.ReadTools(filepath.Join(m.dataDir, "transcript.jsonl"), adapter.FormatClaude)
	if err != nil {
		m.t.Fatal(err)
	}
	for _, e := range evs {
		if !toolIDPattern.MatchString(e.CallID) {
			m.t.Errorf("tool event %+v: call id not like toolu_mock_<hex>_<n>", e)
		}
	}
	return evs
}

// wantTools checks the tool events of the transcript against want, call ids aside,
// and that each result answers the call before it.
func (m *mockProc) wantTools(want ...adapter.ToolEvent) []adapter.ToolEvent {
	m.t.Helper()
	got := m.tools()
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(adapter.ToolEvent{}, "CallID")); d != "" {
		m.t.Fatalf("tool events (-want +got):\n%s", d)
	}
	for i := 1; i < len(got); i += 2 {
		if got[i].CallID != got[i-1].CallID {
			m.t.Errorf("result %+v does not answer call %+v", got[i], got[i-1])
		}
	}
	return got
}

// entries reads the mock's transcript through the claude adapter.
func (m *mockProc) entries() []adapter.Entry {
	m.t.Helper()
	es, err := adapter.Read(filepath.Join(m.dataDir, "transcript.jsonl"), adapter.FormatClaude)
	if err != nil {
		m.t.Fatal(err)
	}
	return es
}

// wantEntries checks role/kind/text/tool of the transcript's entries.
func (m *mockProc) wantEntries(want ...adapter.Entry) {
	m.t.Helper()
	if d := cmp.Diff(want, m.entries(), cmpopts.IgnoreFields(adapter.Entry{}, "Timestamp")); d != "" {
		m.t.Errorf("transcript entries (-want +got):\n%s", d)
	}
}

func entry(role, kind, text, tool string) adapter.Entry {
	return adapter.Entry{Role: role, Kind: kind, Text: text, Tool: tool}
}

// toolTurn is what the transcript holds for one tool turn of prompt calling name:
// its call and result (ok, text), and its entries: the prompt, the tool_use, the
// tool_result and the response resp.
func toolTurn(prompt, name string, ok bool, text, resp string) ([]adapter.ToolEvent, []adapter.Entry) {
	args, _ := json.Marshal(map[string]string{"prompt": prompt})
	return []adapter.ToolEvent{
			{Kind: adapter.ToolCall, Name: name, Args: args},
			{Kind: adapter.ToolResult, OK: ok, Text: text},
		}, []adapter.Entry{
			entry("user", "text", prompt, ""),
			entry("assistant", "tool_use", "", name),
			entry("user", "tool_result", text, ""),
			entry("assistant", "text", resp, ""),
		}
}

// wantToolTurn checks that the transcript holds exactly the tool turn of toolTurn
// followed by the entries more, and returns its tool events.
func (m *mockProc) wantToolTurn(prompt, name string, ok bool, text, resp string, more ...adapter.Entry) []adapter.ToolEvent {
	m.t.Helper()
	evs, es := toolTurn(prompt, name, ok, text, resp)
	m.wantEntries(append(es, more...)...)
	return m.wantTools(evs...)
}

// With --skip-permissions the tool runs at once: no blocked report, and the turn's
// lines are user, tool_use, tool_result, assistant.
func TestToolSkipPermissions(t *testing.T) {
	t.Parallel()
	m := startReadyArgs(t, []string{"--skip-permissions"})
	m.send("@tool=Bash say=ran\r")
	m.waitStates("idle", "working", "idle")
	m.wantToolTurn("@tool=Bash say=ran", "Bash", true, "ok: Bash", "ran\nDONE")
	if last := m.herdr.Calls()[2]; last.TranscriptLines != 4 {
		t.Errorf("transcript had %d lines at the final idle report, want 4", last.TranscriptLines)
	}
	if strings.Contains(m.output(), "Allow tool") {
		t.Errorf("a permission prompt was shown with --skip-permissions")
	}
}

// Without --skip-permissions the call parks on the prompt and reports blocked; Enter
// approves, the turn then finishes as usual.
func TestToolApprove(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("tool=Write say=written\r")
	m.waitStates("idle", "working", "blocked")
	evs, _ := toolTurn("tool=Write say=written", "Write", true, "", "")
	if p := adapter.PendingCalls(m.wantTools(evs[0])); len(p) != 1 {
		t.Errorf("pending calls while parked: %+v, want the one call", p)
	}
	waitFor(t, 5*time.Second, func() bool {
		return strings.Contains(m.output(), "Allow tool Write? [Enter] yes  [Esc] no")
	}, "the permission prompt on screen")
	// Typed text while parked stays in the input box; clearing it leaves the box
	// empty, and Enter then approves.
	m.send("not yet\x15")
	time.Sleep(100 * time.Millisecond) // separate reads: Enter apart from the text, as orcr sends them
	m.send("\r")
	m.waitStates("idle", "working", "blocked", "working", "idle")
	got := m.wantToolTurn("tool=Write say=written", "Write", true, "ok: Write", "written\nDONE")
	if p := adapter.PendingCalls(got); len(p) != 0 {
		t.Errorf("pending calls after the verdict: %+v", p)
	}
}

// ESC at the prompt denies: an error result, and the turn completes with a response
// saying so (no INTERRUPTED). The agent takes the next prompt normally.
func TestToolDeny(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("tool=Bash rm -rf /\r")
	m.waitStates("idle", "working", "blocked")
	m.send("\x1b")
	m.waitStates("idle", "working", "blocked", "working", "idle")
	m.wantToolTurn("tool=Bash rm -rf /", "Bash", false, "denied by user", "DENIED: Bash\nDONE")
	if lines := m.transcript(); lines[3].Interrupted {
		t.Errorf("a denied turn was marked interrupted: %+v", lines[3])
	}
	m.send("say=next\r")
	m.waitStates("idle", "working", "blocked", "working", "idle", "working", "idle")
	if es := m.entries(); len(es) != 6 || es[5].Text != "next\nDONE" {
		t.Errorf("entries after the next prompt: %+v", es)
	}
}

// A prompt submitted while parked is queued behind the parked turn; ^C while parked
// interrupts: the call is answered as interrupted, as claude does.
func TestToolInterruptedWhileParked(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("tool=Bash say=never\r")
	m.waitStates("idle", "working", "blocked")
	m.send("say=queued\r")
	time.Sleep(100 * time.Millisecond) // separate reads: the prompt is in before the ^C, as a user types them
	m.send("\x03")
	m.waitStates("idle", "working", "blocked", "idle", "working", "idle")
	m.wantToolTurn("tool=Bash say=never", "Bash", false, "interrupted by user", "never\nINTERRUPTED",
		entry("user", "text", "say=queued", ""), entry("assistant", "text", "queued\nDONE", ""))
}

// Tool-call ids are unique in a process and differ from those of the transcript a
// mock resumes.
func TestToolIDsAreUnique(t *testing.T) {
	t.Parallel()
	first := startReadyArgs(t, []string{"--skip-permissions"})
	first.send("tool=A\r")
	first.send("tool=B\r")
	first.waitStates("idle", "working", "idle", "working", "idle")
	src := filepath.Join(first.dataDir, "transcript.jsonl")
	second := startReadyArgs(t, []string{"--skip-permissions", "--resume", src})
	second.send("tool=C\r")
	second.waitStates("idle", "working", "idle")
	evs := second.tools()
	seen := map[string]bool{}
	for _, e := range evs {
		if e.Kind == adapter.ToolCall {
			if seen[e.CallID] {
				t.Errorf("call id %s repeated in %+v", e.CallID, evs)
			}
			seen[e.CallID] = true
		}
	}
	if len(seen) != 3 {
		t.Errorf("got %d distinct calls, want 3: %+v", len(seen), evs)
	}
}

// A process killed while parked leaves the call without a result.
func TestToolKilledWhileParked(t *testing.T) {
	t.Parallel()
	m := startReady(t)
	m.send("tool=Bash\r")
	m.waitStates("idle", "working", "blocked")
	if err := m.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	m.waitExit()
	if p := adapter.PendingCalls(m.tools()); len(p) != 1 || p[0].Name != "Bash" {
		t.Errorf("pending calls after the kill: %+v, want the Bash call", p)
	}
}

// /model records the model without a turn: idle is reported, the status line shows
// it, mock.log and the transcript (as a user line, not a response) record it.
func TestModelSwitch(t *testing.T) {
	t.Parallel()
	m := startReady(t, "ORCR_MOCK_EXIT_AFTER=1")
	m.send("/model  opus-next \r")
	m.waitStates("idle", "idle")
	waitFor(t, 5*time.Second, func() bool {
		o := m.output()
		return strings.Contains(o, "[idle]  model opus-next") && strings.Contains(o, "model set to opus-next")
	}, "the model on screen")
	lines := m.waitTranscript(1)
	if l := lines[0]; l.Type != "user" || l.Kind != "text" || l.Text != "/model  opus-next" || l.Model != "opus-next" {
		t.Errorf("model line = %+v", l)
	}
	if _, ok := adapter.LastResponse(m.entries()); ok {
		t.Errorf("the model line reads as a response: %+v", m.entries())
	}
	b, _ := os.ReadFile(filepath.Join(m.dataDir, "mock.log"))
	if !strings.Contains(string(b), `model set to "opus-next"`) {
		t.Errorf("mock.log lacks the model:\n%s", b)
	}
	// Bad commands change nothing but still report idle; "/models" is a prompt, and
	// the model switches did not count as turns for ORCR_MOCK_EXIT_AFTER.
	m.send("/model\r")
	m.send("\x1b[200~/model a\nb\x1b[201~\r")
	m.waitStates("idle", "idle", "idle", "idle")
	waitFor(t, 5*time.Second, func() bool { return strings.Contains(m.output(), "usage: /model <name>") }, "the usage line")
	m.send("/models\r")
	m.waitExit()
	lines = m.transcript()
	if len(lines) != 3 || lines[2].Text != "RESPONSE: /models\nDONE" {
		t.Errorf("transcript = %+v", lines)
	}
	if !strings.Contains(m.output(), "model opus-next") {
		t.Errorf("the bad commands changed the model")
	}
}

// The mock provider's recipes drive this program through herdr (the stand-in): its
// argv with approvals asks, ApproveKeys and DenyKeys sent by pane.send_keys answer
// the prompt, ModelSwitch typed and submitted switches the model; its argv without
// approvals never asks.
func TestProviderRecipesInStandIn(t *testing.T) {
	t.Parallel()
	f := herdrtest.Start(t, herdrtest.Options{})
	r := herdr.NewRemote(f.Sessions["default"].SocketPath())
	ctx := context.Background()
	prov, err := provider.Lookup(provider.Mock, provider.Options{AllowMock: true, MockBin: mockBin})
	if err != nil {
		t.Fatal(err)
	}
	dataDir := shortDir(t)
	start := func(label string, approvals bool) (string, *mockProc) {
		argv, err := prov.LaunchArgv(provider.Route{Provider: provider.Mock, Approvals: approvals})
		if err != nil {
			t.Fatal(err)
		}
		ws, err := r.WorkspaceCreate(ctx, label, "")
		if err != nil {
			t.Fatal(err)
		}
		_, pane, err := r.LayoutApply(ctx, ws.Workspace.WorkspaceID, label, argv, "", label,
			map[string]string{"ORCR_AGENT_DATA_DIR": filepath.Join(dataDir, label)})
		if err != nil {
			t.Fatal(err)
		}
		return pane, &mockProc{t: t, dataDir: filepath.Join(dataDir, label)}
	}
	status := func(pane string) herdr.Status {
		p, err := r.PaneGet(ctx, pane)
		if err != nil {
			t.Fatal(err)
		}
		return p.AgentStatus
	}
	waitStatus := func(pane string, want herdr.Status) {
		t.Helper()
		waitFor(t, 10*time.Second, func() bool { return status(pane) == want }, "pane %s %s", pane, want)
	}
	prompt := func(pane, text string) {
		t.Helper()
		if err := r.SendText(ctx, pane, text); err != nil {
			t.Fatal(err)
		}
		if err := r.SendKeys(ctx, pane, provider.KeyEnter); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(pane string, keys []string) {
		t.Helper()
		if err := r.SendKeys(ctx, pane, keys...); err != nil {
			t.Fatal(err)
		}
	}

	asks, am := start("asks", true)
	waitStatus(asks, herdr.StatusIdle)
	prompt(asks, "tool=Bash say=approved")
	waitStatus(asks, herdr.StatusBlocked)
	keys(asks, prov.ApproveKeys())
	am.waitTranscript(4)
	waitStatus(asks, herdr.StatusIdle)
	prompt(asks, "tool=Bash say=never")
	waitStatus(asks, herdr.StatusBlocked)
	keys(asks, prov.DenyKeys())
	am.waitTranscript(8)
	waitStatus(asks, herdr.StatusIdle)
	text, ok := prov.ModelSwitch("mock-2")
	if !ok {
		t.Fatal("the mock has no model switch")
	}
	prompt(asks, text)
	lines := am.waitTranscript(9)
	if lines[8].Model != "mock-2" {
		t.Errorf("model line: %+v", lines[8])
	}
	evs := am.tools()
	if len(evs) != 4 || !evs[1].OK || evs[1].Text != "ok: Bash" || evs[3].OK || evs[3].Text != "denied by user" {
		t.Errorf("tool events with approvals: %+v", evs)
	}
	if es := am.entries(); es[3].Text != "approved\nDONE" || es[7].Text != "DENIED: Bash\nDONE" {
		t.Errorf("responses: %q, %q", es[3].Text, es[7].Text)
	}

	bypass, bm := start("bypass", false)
	waitStatus(bypass, herdr.StatusIdle)
	prompt(bypass, "tool=Bash say=ran")
	bm.waitTranscript(4)
	if evs := bm.tools(); len(evs) != 2 || !evs[1].OK {
		t.Errorf("tool events without approvals: %+v", evs)
	}
}
