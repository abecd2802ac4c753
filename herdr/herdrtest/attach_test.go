package herdrtest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// attached collects what one attach receives.
type attached struct {
	conn *herdrtest.AttachConn
	out  sockettest.SyncBuffer
	end  chan string
}

func (a *attached) text() string { return a.out.String() }

func dialAttach(t *testing.T, sock string, req herdrtest.AttachRequest) *attached {
	t.Helper()
	c, err := herdrtest.DialAttach(sock, req)
	if err != nil {
		t.Fatalf("attach %+v: %v", req, err)
	}
	a := &attached{conn: c, end: make(chan string, 1)}
	go func() {
		reason, err := c.Pump(&a.out)
		if err != nil {
			reason = "error: " + err.Error()
		}
		a.end <- reason
	}()
	t.Cleanup(func() { c.Close() })
	return a
}

func wantEnd(t *testing.T, a *attached, want string) {
	t.Helper()
	var got string
	poll.Eventually(t, 10*time.Second, "attach end "+want, func() bool {
		select {
		case got = <-a.end:
			return true
		default:
			return false
		}
	})
	if got != want {
		t.Errorf("attach ended %q, want %q", got, want)
	}
}

// The stand-in's attach channel: an attach repaints the pane, streams its output, and
// (takeover only) types into it; a second takeover ends the first; `agent` attaches take
// the current pane id only; the pane's exit ends every attach.
func TestAttachChannel(t *testing.T) {
	f := start(t)
	s := f.Sessions["default"]
	sock := s.SocketPath()
	attachSock := herdrtest.AttachSocketPath(f.ConfigDir, "default")
	ws, _ := createWorkspace(t, sock, "att")
	pane := spawn(t, sock, ws, []string{"/bin/cat"}, nil, "att/cat")
	term := str(call(t, sock, "pane.get", map[string]any{"pane_id": pane}), "pane", "terminal_id")
	call(t, sock, "pane.send_text", map[string]any{"pane_id": pane, "text": "before\r"})
	waitScreen(t, sock, pane, "before")

	obs := dialAttach(t, attachSock, herdrtest.AttachRequest{Kind: "terminal", Target: term})
	if obs.conn.Reply.PaneID != pane || obs.conn.Reply.TerminalID != term {
		t.Errorf("reply %+v, want pane %s terminal %s", obs.conn.Reply, pane, term)
	}
	poll.Eventually(t, 10*time.Second, "the repaint shows the screen so far", func() bool { return strings.Contains(obs.text(), "before") })

	a := dialAttach(t, attachSock, herdrtest.AttachRequest{Kind: "agent", Target: pane, Takeover: true})
	if _, err := obs.conn.Write([]byte("ignored\r")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.conn.Write([]byte("typed\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, sock, pane, "typed")
	poll.Eventually(t, 10*time.Second, "the observer sees the typed line", func() bool { return strings.Contains(obs.text(), "typed") })
	if strings.Contains(readVisible(t, sock, pane), "ignored") {
		t.Errorf("an observe attach typed into the pane:\n%s", readVisible(t, sock, pane))
	}
	if all, takeover, err := s.AttachedClients(term); err != nil || all != 2 || takeover != 1 {
		t.Errorf("AttachedClients: %d, %d, %v; want 2 attached, 1 takeover", all, takeover, err)
	}

	b := dialAttach(t, attachSock, herdrtest.AttachRequest{Kind: "terminal", Target: term, Takeover: true})
	wantEnd(t, a, "taken over")
	if _, err := b.conn.Write([]byte("second\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, sock, pane, "second")

	for _, req := range []herdrtest.AttachRequest{{Kind: "agent", Target: term}, {Kind: "terminal", Target: pane}, {Kind: "agent", Target: "nosuch"}} {
		_, err := herdrtest.DialAttach(attachSock, req)
		var ae *herdrtest.AttachError
		if !errors.As(err, &ae) || (ae.Code != "agent_not_found" && ae.Code != "pane_not_found") {
			t.Errorf("attach %+v: got %v, want a refusal", req, err)
		}
	}

	call(t, sock, "pane.close", map[string]any{"pane_id": pane})
	wantEnd(t, b, "pane exited")
	wantEnd(t, obs, "pane exited")
}
