package herdrtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/tests/poll"
)

func TestPing(t *testing.T) {
	f := start(t)
	sock := f.Sessions["default"].SocketPath()
	if want := f.ConfigDir + "/herdr.sock"; sock != want {
		t.Fatalf("socket %q, want %q", sock, want)
	}
	st, err := os.Stat(sock)
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode: %v %v", st.Mode(), err)
	}
	res := call(t, sock, "ping", map[string]any{})
	if str(res, "type") != "pong" || str(res, "version") != "0.8.2" || obj(res, "protocol") != float64(20) {
		t.Fatalf("pong: %v", res)
	}
	snap := call(t, sock, "session.snapshot", map[string]any{})
	if n := len(obj(snap, "snapshot", "workspaces").([]any)); n != 0 {
		t.Fatalf("fresh server has %d workspaces", n)
	}
}

func TestNamedSessionPathAndLiveRefusal(t *testing.T) {
	f := start(t, "orcr")
	s := f.Sessions["orcr"]
	if want := f.ConfigDir + "/sessions/orcr/herdr.sock"; s.SocketPath() != want {
		t.Fatalf("socket %q, want %q", s.SocketPath(), want)
	}
	if _, err := herdrtest.NewSession(herdrtest.Options{ConfigDir: f.ConfigDir}, "orcr"); err == nil {
		t.Fatal("second server on a live socket started")
	}
	// A stale socket file (nobody listening) is replaced.
	stale := herdrtest.SocketPath(f.ConfigDir, "stale")
	if err := os.MkdirAll(herdrtest.SessionDir(f.ConfigDir, "stale"), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	s2, err := herdrtest.NewSession(herdrtest.Options{ConfigDir: f.ConfigDir}, "stale")
	if err != nil {
		t.Fatalf("stale socket not cleaned: %v", err)
	}
	defer s2.Close()
	call(t, s2.SocketPath(), "ping", map[string]any{})
	if _, err := herdrtest.NewSession(herdrtest.Options{ConfigDir: f.ConfigDir}, "../x"); err == nil {
		t.Fatal("invalid session name accepted")
	}
}

func TestSpawnSendRead(t *testing.T) {
	f := start(t, "orcr")
	sock := f.Sessions["orcr"].SocketPath()
	if code := callErr(t, sock, "layout.apply", map[string]any{"root": map[string]any{"type": "pane", "command": []string{"/bin/cat"}}}); code != "workspace_not_found" {
		t.Fatalf("layout.apply without workspaces: %s", code)
	}
	ws, root := createWorkspace(t, sock, "default")
	if ws != "w1" || root != "w1:p1" {
		t.Fatalf("ids %s %s", ws, root)
	}
	script := `echo "env:$FOO:$HERDR_ENV:$HERDR_PANE_ID:$HERDR_WORKSPACE_ID:$HERDR_TAB_ID:$HERDR_SESSION:$TERM:$COLORTERM:$HERDR_SOCKET_PATH"; exec cat`
	pane := spawn(t, sock, ws, []string{"/bin/sh", "-c", script}, map[string]string{"FOO": "bar", "HERDR_ENV": "caller-loses"}, "proj/agent")
	if pane != "w1:p2" {
		t.Fatalf("pane id %s", pane)
	}
	wantEnv := "env:bar:1:w1:p2:w1:w1:t2:orcr:xterm-256color:truecolor:" + sock
	poll.Eventually(t, 10*time.Second, "pane environment", func() bool {
		r := call(t, sock, "pane.read", map[string]any{"pane_id": pane, "source": "recent_unwrapped"})
		return strings.Contains(str(r, "read", "text"), wantEnv)
	})
	info := call(t, sock, "pane.get", map[string]any{"pane_id": pane})
	if !strings.HasPrefix(str(info, "pane", "terminal_id"), "term_") || str(info, "pane", "label") != "proj/agent" || str(info, "pane", "tab_id") != "w1:t2" {
		t.Fatalf("pane.get: %v", info)
	}
	tabs := call(t, sock, "tab.list", map[string]any{"workspace_id": ws})
	if tl := obj(tabs, "tabs").([]any); len(tl) != 2 || str(tl[1], "label") != "proj/agent" || str(tl[0], "label") != "1" {
		t.Fatalf("tabs: %v", tabs)
	}
	call(t, sock, "pane.send_text", map[string]any{"pane_id": pane, "text": "hello world"})
	call(t, sock, "pane.send_keys", map[string]any{"pane_id": pane, "keys": []string{"Enter"}})
	text := waitScreen(t, sock, pane, "hello world\nhello world")
	if strings.Contains(text, "\x1b") {
		t.Fatalf("ANSI in text: %q", text)
	}
	call(t, sock, "pane.send_input", map[string]any{"pane_id": pane, "text": "second", "keys": []string{"enter"}})
	waitScreen(t, sock, pane, "second\nsecond")
	// recent counts the buffer's last rows, the blank ones below the text included
	// (herdr 0.8.2, herdr/testdata/live): the last 2 of this screen are empty.
	res := call(t, sock, "pane.read", map[string]any{"pane_id": pane, "source": "recent", "lines": 2})
	if r := obj(res, "read").(map[string]any); r["text"] != "" || r["truncated"] != true || r["source"] != "recent" {
		t.Fatalf("recent read lines=2: %v", r)
	}
	res = call(t, sock, "pane.read", map[string]any{"pane_id": pane, "source": "recent", "lines": 39})
	if r := obj(res, "read").(map[string]any); !strings.HasSuffix(r["text"].(string), "second\nsecond\n") || r["truncated"] != false {
		t.Fatalf("recent read of the screen's rows: %v", r)
	}
	if code := callErr(t, sock, "pane.send_keys", map[string]any{"pane_id": pane, "keys": []string{"Enter", "home"}}); code != "invalid_key" {
		t.Fatalf("home key: %s", code)
	}
	// Closing the root shell leaves only the agent pane; closing it removes the workspace.
	call(t, sock, "pane.close", map[string]any{"pane_id": root})
	call(t, sock, "pane.close", map[string]any{"pane_id": pane})
	if wl := obj(call(t, sock, "workspace.list", map[string]any{}), "workspaces").([]any); len(wl) != 0 {
		t.Fatalf("workspaces after closing every pane: %v", wl)
	}
	if code := callErr(t, sock, "pane.get", map[string]any{"pane_id": pane}); code != "pane_not_found" {
		t.Fatalf("closed pane: %s", code)
	}
}

func TestProcessExitRemovesPane(t *testing.T) {
	f := start(t)
	s := f.Sessions["default"]
	sock := s.SocketPath()
	ws, root := createWorkspace(t, sock, "work")
	pane := spawn(t, sock, ws, []string{"/bin/sh", "-c", "read x; exit 3"}, nil, "a")
	call(t, sock, "pane.close", map[string]any{"pane_id": root})
	if n := len(s.Panes()); n != 1 {
		t.Fatalf("panes: %d", n)
	}
	call(t, sock, "pane.send_keys", map[string]any{"pane_id": pane, "keys": []string{"Enter"}})
	poll.Eventually(t, 10*time.Second, "pane removal after exit", func() bool {
		r := rpc(t, sock, "pane.get", map[string]any{"pane_id": pane})
		return r.Error != nil && r.Error.Code == "pane_not_found"
	})
	if wl := obj(call(t, sock, "workspace.list", map[string]any{}), "workspaces").([]any); len(wl) != 0 {
		t.Fatalf("emptied workspace survived: %v", wl)
	}
}

func TestMoveAcrossWorkspaces(t *testing.T) {
	f := start(t)
	sock := f.Sessions["default"].SocketPath()
	home, homeRoot := createWorkspace(t, sock, "proj")
	pane := spawn(t, sock, home, []string{"/bin/cat"}, nil, "proj/a")
	call(t, sock, "pane.close", map[string]any{"pane_id": homeRoot})
	term := str(call(t, sock, "pane.get", map[string]any{"pane_id": pane}), "pane", "terminal_id")
	idle, idleRoot := createWorkspace(t, sock, "idle")
	if idle != "w2" {
		t.Fatalf("idle ws %s", idle)
	}

	res := call(t, sock, "pane.move", map[string]any{"pane_id": pane, "focus": false,
		"destination": map[string]any{"type": "new_tab", "workspace_id": idle, "label": "proj/a"}})
	mr := obj(res, "move_result")
	newID := str(mr, "pane", "pane_id")
	if obj(mr, "changed") != true || newID == pane || !strings.HasPrefix(newID, "w2:p") || str(mr, "pane", "terminal_id") != term {
		t.Fatalf("move result: %v", mr)
	}
	if str(mr, "previous_pane_id") != pane || str(mr, "closed_workspace_id") != home || str(mr, "closed_tab_id") == "" || str(mr, "created_tab", "label") != "proj/a" {
		t.Fatalf("move bookkeeping: %v", mr)
	}
	// The old id is an alias for pane.*; it answers with the new id.
	if got := str(call(t, sock, "pane.get", map[string]any{"pane_id": pane}), "pane", "pane_id"); got != newID {
		t.Fatalf("alias resolved to %q", got)
	}
	// Emptied home workspace is gone.
	if code := callErr(t, sock, "workspace.get", map[string]any{"workspace_id": home}); code != "workspace_not_found" {
		t.Fatalf("home ws: %s", code)
	}
	// The process survived the move.
	call(t, sock, "pane.send_text", map[string]any{"pane_id": newID, "text": "still here\r"})
	waitScreen(t, sock, newID, "still here\nstill here")

	// Un-park: recreate home, move back, close its root shell.
	home2, home2Root := createWorkspace(t, sock, "proj")
	if home2 == home {
		t.Fatalf("workspace id %s reused", home2)
	}
	res = call(t, sock, "pane.move", map[string]any{"pane_id": newID,
		"destination": map[string]any{"type": "new_tab", "workspace_id": home2, "label": "proj/a"}})
	back := str(res, "move_result", "pane", "pane_id")
	if !strings.HasPrefix(back, home2+":p") || str(res, "move_result", "pane", "terminal_id") != term {
		t.Fatalf("move back: %v", res)
	}
	call(t, sock, "pane.close", map[string]any{"pane_id": home2Root})
	for _, alias := range []string{pane, newID} {
		if got := str(call(t, sock, "pane.get", map[string]any{"pane_id": alias}), "pane", "pane_id"); got != back {
			t.Fatalf("alias %s -> %s", alias, got)
		}
	}
	// Same-workspace move keeps the id; same tab is a no-op.
	tabID := str(res, "move_result", "pane", "tab_id")
	res = call(t, sock, "pane.move", map[string]any{"pane_id": back,
		"destination": map[string]any{"type": "tab", "tab_id": tabID, "split": "right"}})
	if obj(res, "move_result", "changed") != false || str(res, "move_result", "reason") != "same_tab" {
		t.Fatalf("same tab: %v", res)
	}
	// Split into the idle workspace's root tab: new id, two panes there.
	idleTab := str(call(t, sock, "pane.get", map[string]any{"pane_id": idleRoot}), "pane", "tab_id")
	res = call(t, sock, "pane.move", map[string]any{"pane_id": back,
		"destination": map[string]any{"type": "tab", "tab_id": idleTab, "split": "down", "ratio": 0.25}})
	if l := obj(res, "move_result", "target_layout", "panes").([]any); len(l) != 2 {
		t.Fatalf("target layout: %v", res)
	}
	if code := callErr(t, sock, "pane.move", map[string]any{"pane_id": "w9:p9", "destination": map[string]any{"type": "new_workspace"}}); code != "pane_not_found" {
		t.Fatalf("move missing pane: %s", code)
	}
	res = call(t, sock, "pane.move", map[string]any{"pane_id": back, "destination": map[string]any{"type": "new_workspace", "label": "solo", "tab_label": "t"}})
	if str(res, "move_result", "created_workspace", "label") != "solo" || str(res, "move_result", "pane", "terminal_id") != term {
		t.Fatalf("new_workspace: %v", res)
	}
}

func TestAgentStatusRules(t *testing.T) {
	f := start(t)
	s := f.Sessions["default"]
	sock := s.SocketPath()
	ws, _ := createWorkspace(t, sock, "proj")
	pane := spawn(t, sock, ws, []string{"/bin/cat"}, nil, "proj/a")
	agents := func() []any { return obj(call(t, sock, "agent.list", map[string]any{}), "agents").([]any) }
	if n := len(agents()); n != 0 {
		t.Fatalf("plain panes listed as agents: %d", n)
	}
	report := func(source, agent, state string, extra map[string]any) {
		p := map[string]any{"pane_id": pane, "source": source, "agent": agent, "state": state}
		for k, v := range extra {
			p[k] = v
		}
		call(t, sock, "pane.report_agent", p)
	}
	report("orcr:mock", "mock", "working", map[string]any{"agent_session_id": "abc", "seq": 1})
	a := agents()
	if len(a) != 1 || str(a[0], "agent_status") != "working" || str(a[0], "agent") != "mock" || obj(a[0], "agent_session") != nil {
		t.Fatalf("after working: %v", a)
	}
	seq0 := obj(a[0], "state_change_seq").(float64)
	// Background tab (the workspace's first tab stays active): working -> idle = done.
	report("orcr:mock", "mock", "idle", map[string]any{"seq": 2})
	if st := str(agents()[0], "agent_status"); st != "done" {
		t.Fatalf("background idle: %s", st)
	}
	if seq := obj(agents()[0], "state_change_seq").(float64); seq <= seq0 {
		t.Fatalf("state_change_seq did not grow: %v", seq)
	}
	// A stale seq is ignored.
	report("orcr:mock", "mock", "working", map[string]any{"seq": 2})
	if st := str(agents()[0], "agent_status"); st != "done" {
		t.Fatalf("stale seq applied: %s", st)
	}
	// Reads never mark seen; focusing does.
	readVisible(t, sock, pane)
	if st := str(call(t, sock, "pane.get", map[string]any{"pane_id": pane}), "pane", "agent_status"); st != "done" {
		t.Fatalf("pane.get status: %s", st)
	}
	call(t, sock, "pane.focus", map[string]any{"pane_id": pane})
	if st := str(agents()[0], "agent_status"); st != "idle" {
		t.Fatalf("after focus: %s", st)
	}
	// In the visible tab, working -> idle stays idle.
	report("orcr:mock", "mock", "working", map[string]any{"seq": 3})
	report("orcr:mock", "mock", "idle", map[string]any{"seq": 4})
	if st := str(agents()[0], "agent_status"); st != "idle" {
		t.Fatalf("visible idle: %s", st)
	}
	// Official session-only source: session kept, state untouched.
	report("herdr:claude", "claude", "working", map[string]any{"agent_session_id": "sess-1"})
	a = agents()
	if str(a[0], "agent_status") != "idle" || obj(a[0], "agent_session") != nil {
		t.Fatalf("claude report for a mock pane: %v", a[0])
	}
	if code := callErr(t, sock, "pane.report_agent", map[string]any{"pane_id": pane, "source": "x", "agent": "", "state": "idle"}); code != "invalid_agent" {
		t.Fatalf("empty agent: %s", code)
	}
	call(t, sock, "pane.release_agent", map[string]any{"pane_id": pane, "source": "orcr:mock", "agent": "mock"})
	if n := len(agents()); n != 0 {
		t.Fatalf("released agent still listed")
	}
	// A claude pane: official report carries the session; state from "screen detection".
	claude := spawn(t, sock, ws, []string{"/bin/cat"}, nil, "proj/claude")
	if err := s.SetAgentStatus(claude, "claude", "working"); err != nil {
		t.Fatal(err)
	}
	call(t, sock, "pane.report_agent", map[string]any{"pane_id": claude, "source": "herdr:claude", "agent": "claude-code", "state": "idle", "agent_session_id": "uuid-1"})
	a = agents()
	if len(a) != 1 || str(a[0], "agent_status") != "working" || str(a[0], "agent") != "claude" ||
		str(a[0], "agent_session", "value") != "uuid-1" || str(a[0], "agent_session", "kind") != "id" || str(a[0], "agent_session", "source") != "herdr:claude" {
		t.Fatalf("claude agent: %v", a)
	}
	term := str(a[0], "terminal_id")
	if err := s.SetAgentStatus(term, "claude", "idle"); err != nil {
		t.Fatal(err)
	}
	if st := str(agents()[0], "agent_status"); st != "done" {
		t.Fatalf("claude background idle: %s", st)
	}
	wsInfo := call(t, sock, "workspace.get", map[string]any{"workspace_id": ws})
	if st := str(wsInfo, "workspace", "agent_status"); st != "done" {
		t.Fatalf("workspace rollup: %s", st)
	}
	snap := call(t, sock, "session.snapshot", map[string]any{})
	if n := len(obj(snap, "snapshot", "agents").([]any)); n != 1 {
		t.Fatalf("snapshot agents: %d", n)
	}
	if res := call(t, sock, "notification.show", map[string]any{"title": "hi"}); res["shown"] != false || res["reason"] != "disabled" {
		t.Fatalf("notification: %v", res)
	}
	if code := callErr(t, sock, "notification.show", map[string]any{"title": "\x07"}); code != "invalid_params" {
		t.Fatalf("empty title: %s", code)
	}
}

func TestWireErrors(t *testing.T) {
	f := start(t)
	sock := f.Sessions["default"].SocketPath()
	send := func(line string) (map[string]any, error) {
		raw, err := roundTrip(sock, []byte(line))
		if err != nil {
			return nil, err
		}
		if err := validateResponse(raw); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		return m, json.Unmarshal(raw, &m)
	}
	for _, line := range []string{
		`{"id":"a","method":"no.such","params":{}}` + "\n",
		`{"id":"a","method":"ping"}` + "\n",
		`{"id":7,"method":"ping","params":{}}` + "\n",
		`{"id":"a","method":"pane.get","params":{"pane_id":5}}` + "\n",
		`{"id":"a","method":"pane.get","params":{}}` + "\n",
		`{"id":"a","method":"pane.read","params":{"pane_id":"w1:p1","source":"all"}}` + "\n",
		`not json` + "\n",
		`[]` + "\n",
	} {
		m, err := send(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if m["id"] != "" || str(m, "error", "code") != "invalid_request" || !strings.HasPrefix(str(m, "error", "message"), "invalid request: ") {
			t.Errorf("%s -> %v", strings.TrimSpace(line), m)
		}
	}
	// Unknown keys are ignored; the id is echoed; bytes after the newline are ignored.
	m, err := send(`{"id":"k","method":"ping","params":{"x":1},"protocol":16}` + "\nGARBAGE")
	if err != nil || m["id"] != "k" || str(m, "result", "type") != "pong" {
		t.Fatalf("unknown keys: %v %v", m, err)
	}
	m, err = send(`{"id":"e","method":"pane.get","params":{"pane_id":"w9:p4"}}` + "\n")
	if err != nil || m["id"] != "e" || str(m, "error", "code") != "pane_not_found" || str(m, "error", "message") != "pane w9:p4 not found" {
		t.Fatalf("pane_not_found: %v %v", m, err)
	}
	// Blank line: no answer.
	if _, err := roundTrip(sock, []byte("   \n")); err == nil {
		t.Fatal("blank line answered")
	}
	// One request per connection.
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte(`{"id":"1","method":"ping","params":{}}` + "\n"))
	buf := make([]byte, 4096)
	n, _ := c.Read(buf)
	if !bytes.Contains(buf[:n], []byte("pong")) {
		t.Fatalf("first answer %q", buf[:n])
	}
	c.Write([]byte(`{"id":"2","method":"ping","params":{}}` + "\n"))
	if n, err := c.Read(buf); err == nil && bytes.Contains(buf[:n], []byte(`"2"`)) {
		t.Fatal("second request on one connection answered")
	}
}

func TestRequestSizeCap(t *testing.T) {
	f := start(t)
	sock := f.Sessions["default"].SocketPath()
	prefix := `{"id":"big","method":"ping","params":{},"pad":"`
	suffix := `"}`
	fit := prefix + strings.Repeat("x", herdrtest.MaxRequestBytes-len(prefix)-len(suffix)) + suffix
	if len(fit) != herdrtest.MaxRequestBytes {
		t.Fatal(len(fit))
	}
	if raw, err := roundTrip(sock, []byte(fit+"\n")); err != nil || !bytes.Contains(raw, []byte("pong")) {
		t.Fatalf("1 MiB request: %v %.100s", err, raw)
	}
	over := prefix + strings.Repeat("x", herdrtest.MaxRequestBytes) + suffix + "\n"
	if raw, err := roundTrip(sock, []byte(over)); err == nil {
		t.Fatalf("oversized request answered: %.100s", raw)
	}
}

func TestFreezeDropRestore(t *testing.T) {
	f := start(t)
	s := f.Sessions["default"]
	sock := s.SocketPath()
	ws, root := createWorkspace(t, sock, "keep")

	s.Freeze()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte(`{"id":"f","method":"ping","params":{}}` + "\n"))
	_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := c.Read(make([]byte, 64)); err == nil || !os.IsTimeout(err) {
		t.Fatalf("frozen server answered: %d %v", n, err)
	}
	s.Unfreeze()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, _ := c.Read(make([]byte, 64)); n != 0 {
		t.Fatal("held request answered after unfreeze")
	}
	c.Close()
	call(t, sock, "ping", map[string]any{})

	if err := s.DropSocket(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket still exists: %v", err)
	}
	if _, err := net.Dial("unix", sock); err == nil {
		t.Fatal("dial succeeded after DropSocket")
	}
	if err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if got := str(call(t, sock, "pane.get", map[string]any{"pane_id": root}), "pane", "workspace_id"); got != ws {
		t.Fatalf("state lost across restore: %q", got)
	}
}

func TestServerStop(t *testing.T) {
	f := start(t)
	s := f.Sessions["default"]
	sock := s.SocketPath()
	_, root := createWorkspace(t, sock, "x")
	pid := 0
	for _, p := range s.Panes() {
		if p.PaneID == root {
			pid = p.PID
		}
	}
	call(t, sock, "server.stop", map[string]any{})
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
	poll.Eventually(t, 10*time.Second, "root shell killed", func() bool {
		_, err := os.Stat("/proc/" + itoa(pid))
		return err != nil
	})
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + jsonNum(i)) }

func jsonNum(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestFirstLineDeadline(t *testing.T) {
	t.Parallel()
	f := start(t)
	c, err := net.Dial("unix", f.Sessions["default"].SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte(`{"id":"slow","method":"ping",`))
	_ = c.SetReadDeadline(time.Now().Add(herdrtest.FirstLineTimeout + 5*time.Second))
	began := time.Now()
	n, err := c.Read(make([]byte, 64))
	if n != 0 || err == nil || os.IsTimeout(err) {
		t.Fatalf("slow request: n=%d err=%v", n, err)
	}
	if d := time.Since(began); d < herdrtest.FirstLineTimeout-time.Second {
		t.Fatalf("dropped after %v", d)
	}
}

// TestCompletionSeq plays herdr 0.9.x: protocol 22 and completion_seq, which counts the
// working/blocked → idle edges of a pane's agent status; every answer is validated
// against the protocol-22 fixture. Without the option the field is omitted.
func TestCompletionSeq(t *testing.T) {
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh", Protocol: 22, CompletionSeq: true,
		OnResponse: func(method string, raw []byte) {
			if err := herdrtest.ValidateResponseAt(22, raw); err != nil {
				t.Errorf("method %q: %v", method, err)
			}
		}})
	s := f.Sessions["default"]
	sock := s.SocketPath()
	if res := call(t, sock, "ping", map[string]any{}); obj(res, "protocol") != float64(22) {
		t.Fatalf("pong: %v", res)
	}
	ws, _ := createWorkspace(t, sock, "proj")
	pane := spawn(t, sock, ws, []string{"/bin/cat"}, nil, "proj/a")
	seq := 0
	report := func(state string) {
		seq++
		call(t, sock, "pane.report_agent", map[string]any{"pane_id": pane, "source": "orcr:mock", "agent": "mock", "state": state, "seq": seq})
	}
	completions := func(what string) any {
		t.Helper()
		a := obj(call(t, sock, "agent.list", map[string]any{}), "agents").([]any)
		if len(a) != 1 {
			t.Fatalf("%s: agent.list %v", what, a)
		}
		got := obj(call(t, sock, "agent.get", map[string]any{"target": pane}), "agent", "completion_seq")
		if got != obj(a[0], "completion_seq") {
			t.Fatalf("%s: agent.get says %v, agent.list %v", what, got, obj(a[0], "completion_seq"))
		}
		return got
	}
	steps := []struct {
		do   func()
		want float64
		what string
	}{
		{func() { report("idle") }, 0, "unknown → idle"},
		{func() { report("working") }, 0, "idle → working"},
		{func() { report("idle") }, 1, "working → idle (done in a background tab)"},
		{func() { report("idle") }, 1, "idle → idle"},
		{func() { report("blocked") }, 1, "idle → blocked"},
		{func() { report("idle") }, 2, "blocked → idle"},
		{func() { report("working"); report("blocked") }, 2, "working → blocked"},
		{func() { report("unknown"); report("idle") }, 2, "blocked → unknown → idle"},
		{func() {
			if err := s.SetAgentStatus(pane, "mock", "working"); err != nil {
				t.Fatal(err)
			}
			if err := s.SetAgentStatus(pane, "mock", "done"); err != nil {
				t.Fatal(err)
			}
		}, 3, "working → done by the detection hook"},
	}
	for _, st := range steps {
		st.do()
		if got := completions(st.what); got != st.want {
			t.Errorf("after %s: completion_seq %v, want %v", st.what, got, st.want)
		}
	}
	snap := call(t, sock, "session.snapshot", map[string]any{})
	if got := obj(obj(snap, "snapshot", "agents").([]any)[0], "completion_seq"); got != float64(3) {
		t.Errorf("session.snapshot agent completion_seq %v, want 3", got)
	}

	// Off (the default, protocol 20): no completion_seq anywhere.
	off := start(t)
	sock = off.Sessions["default"].SocketPath()
	ws, _ = createWorkspace(t, sock, "proj")
	pane = spawn(t, sock, ws, []string{"/bin/cat"}, nil, "proj/a")
	seq = 0
	report("working")
	report("idle")
	a := obj(call(t, sock, "agent.list", map[string]any{}), "agents").([]any)
	if _, ok := a[0].(map[string]any)["completion_seq"]; ok || len(a) != 1 {
		t.Errorf("completion_seq without the option: %v", a)
	}
}

// With Toasts the stand-in plays a herdr configured to show toasts: notification.show
// answers shown (a response valid against the schema, like every answer here) and
// OnNotify sees the cleaned title and body.
func TestNotificationToasts(t *testing.T) {
	type shown struct{ title, body string }
	got := make(chan shown, 2)
	f := startWith(t, herdrtest.Options{Toasts: true, OnNotify: func(title, body string) { got <- shown{title, body} }})
	sock := f.Sessions["default"].SocketPath()
	if res := call(t, sock, "notification.show", map[string]any{"title": "orcr: blocked\x07", "body": "a/b is blocked"}); res["shown"] != true || res["reason"] != "shown" {
		t.Fatalf("notification.show with toasts: %v", res)
	}
	if s := <-got; s != (shown{"orcr: blocked", "a/b is blocked"}) {
		t.Errorf("OnNotify: got %+v", s)
	}
	call(t, sock, "notification.show", map[string]any{"title": "t"})
	if s := <-got; s != (shown{"t", ""}) {
		t.Errorf("OnNotify without a body: got %+v", s)
	}
}

// TestPaneSize: panes get the headless area less herdr's sidebar and tab bar, as herdr
// 0.8.2 (120×40) and 0.7.2 (80×24) gave them: a pane started in a server with no pane
// one column narrower (a shell's scrollbar), every other one — a split's halves too —
// the full width, whatever its own rectangle; the layout's area and rectangles sit right of the
// sidebar, below the tab bar, a split's first part rounded.
func TestPaneSize(t *testing.T) {
	for _, tc := range []struct {
		size         herdrtest.Size
		first, later string
		area         [4]float64
		halves       [2]float64
	}{
		{herdrtest.Size{}, "39 93", "39 94", [4]float64{26, 1, 94, 39}, [2]float64{20, 19}},
		{herdrtest.HeadlessSize(16), "23 53", "23 54", [4]float64{26, 1, 54, 23}, [2]float64{12, 11}},
		{herdrtest.Size{Cols: 100, Rows: 30}, "29 73", "29 74", [4]float64{26, 1, 74, 29}, [2]float64{15, 14}},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.size.Cols, tc.size.Rows), func(t *testing.T) {
			f := startWith(t, herdrtest.Options{Size: tc.size})
			sock := f.Sessions["default"].SocketPath()
			ws, root := createWorkspace(t, sock, "work")
			call(t, sock, "pane.send_text", map[string]any{"pane_id": root, "text": "stty size"})
			call(t, sock, "pane.send_keys", map[string]any{"pane_id": root, "keys": []string{"Enter"}})
			waitScreen(t, sock, root, tc.first+"\n")
			probe := []string{"/bin/sh", "-c", "stty size; exec cat"}
			pane := spawn(t, sock, ws, probe, nil, "a")
			waitScreen(t, sock, pane, tc.later)
			ws2, root2 := createWorkspace(t, sock, "other")
			call(t, sock, "pane.send_text", map[string]any{"pane_id": root2, "text": "stty size"})
			call(t, sock, "pane.send_keys", map[string]any{"pane_id": root2, "keys": []string{"Enter"}})
			waitScreen(t, sock, root2, tc.later+"\n")
			rows, _ := strconv.Atoi(strings.Fields(tc.later)[0])
			if got := obj(call(t, sock, "pane.get", map[string]any{"pane_id": pane}), "pane", "scroll", "viewport_rows"); got != float64(rows) {
				t.Errorf("viewport_rows %v, want %d", got, rows)
			}
			res := call(t, sock, "layout.apply", map[string]any{"workspace_id": ws2, "tab_label": "s", "root": map[string]any{
				"type": "split", "direction": "down", "ratio": 0.5,
				"first":  map[string]any{"type": "pane", "command": probe},
				"second": map[string]any{"type": "pane", "command": probe}}})
			for _, half := range []string{"first", "second"} {
				waitScreen(t, sock, str(res, "layout", "root", half, "pane_id"), tc.later)
			}
			snap := call(t, sock, "session.snapshot", map[string]any{})
			for _, l := range obj(snap, "snapshot", "layouts").([]any) {
				a := obj(l, "area").(map[string]any)
				if got := [4]float64{a["x"].(float64), a["y"].(float64), a["width"].(float64), a["height"].(float64)}; got != tc.area {
					t.Errorf("layout area %v, want %v", got, tc.area)
				}
				if str(l, "tab_id") != str(res, "layout", "tab_id") {
					continue
				}
				ps := obj(l, "panes").([]any)
				if h := [2]float64{obj(ps[0], "rect", "height").(float64), obj(ps[1], "rect", "height").(float64)}; h != tc.halves {
					t.Errorf("split halves %v, want %v", h, tc.halves)
				}
				if id := str(obj(l, "splits").([]any)[0], "id"); id != "split_0_root" {
					t.Errorf("split id %q, want herdr's split_0_root", id)
				}
			}
		})
	}
	// A pane started in a server whose panes are all gone is a first pane again.
	f := start(t)
	sock := f.Sessions["default"].SocketPath()
	_, root := createWorkspace(t, sock, "gone")
	call(t, sock, "pane.close", map[string]any{"pane_id": root})
	_, root = createWorkspace(t, sock, "again")
	call(t, sock, "pane.send_text", map[string]any{"pane_id": root, "text": "stty size"})
	call(t, sock, "pane.send_keys", map[string]any{"pane_id": root, "keys": []string{"Enter"}})
	waitScreen(t, sock, root, "39 93\n")
	if _, err := herdrtest.NewSession(herdrtest.Options{ConfigDir: t.TempDir(), Size: herdrtest.Size{Cols: 64, Rows: 40}}, "x"); err == nil {
		t.Error("a 64-column headless size (herdr's mobile layout) was accepted")
	}
}

// Options.Late plays a herdr whose one application thread is busy: a late method is
// carried out after its delay even when its client gave up, and a request that came
// behind it waits its turn rather than overtaking it.
func TestLateRequestsKeepTheirTurn(t *testing.T) {
	const late = 600 * time.Millisecond
	f := startWith(t, herdrtest.Options{Late: map[string]time.Duration{"layout.apply": late}})
	sock := f.Sessions["default"].SocketPath()
	ws, _ := createWorkspace(t, sock, "busy")

	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte(fmt.Sprintf(`{"id":"l","method":"layout.apply","params":{"workspace_id":%q,"tab_label":"x",`+
		`"root":{"type":"pane","command":["/bin/sh"],"label":"gave-up"}}}`+"\n", ws)))
	_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := c.Read(make([]byte, 64)); err == nil || !os.IsTimeout(err) {
		t.Fatalf("a late layout.apply answered within 100 ms: %d %v", n, err)
	}
	c.Close() // the client gives up, as one whose deadline passed

	begin := time.Now()
	panes := call(t, sock, "pane.list", map[string]any{}) // sent after the layout.apply
	if waited := time.Since(begin); waited < late/3 {
		t.Errorf("pane.list was answered after %v, before the layout.apply in front of it", waited)
	}
	found := false
	for _, p := range obj(panes, "panes").([]any) {
		found = found || str(p, "label") == "gave-up"
	}
	if !found {
		t.Errorf("the pane of the layout.apply whose client gave up is not in the pane.list behind it: %v", panes)
	}
}
