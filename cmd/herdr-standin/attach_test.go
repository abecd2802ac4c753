package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

func TestDetachScanner(t *testing.T) {
	tests := []struct {
		name   string
		reads  []string
		send   string
		detach bool
	}{
		{"plain", []string{"abc\r"}, "abc\r", false},
		{"detach", []string{"ab\x02q", "never"}, "ab", true},
		{"detach across reads", []string{"ab\x02", "qx"}, "ab", true},
		{"literal prefix", []string{"\x02\x02z"}, "\x02z", false},
		{"prefix then another key", []string{"\x02x"}, "\x02x", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d detachScanner
			var got []byte
			detached := false
			for _, r := range tc.reads {
				send, det := d.scan([]byte(r))
				got = append(got, send...)
				if det {
					detached = true
					break
				}
			}
			if string(got) != tc.send || detached != tc.detach {
				t.Errorf("scan(%q): got %q detach %v, want %q detach %v", tc.reads, got, detached, tc.send, tc.detach)
			}
		})
	}
}

// `terminal attach --takeover` (stdin not a terminal here) types into the pane, shows
// its output and exits 0 at ctrl+b q; `agent attach` takes the current pane id, and the
// refusal knob makes it refuse.
func TestAttachSubprocess(t *testing.T) {
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh"}, "orcr")
	s := f.Sessions["orcr"]
	m, err := rawCall(s.SocketPath(), `{"id":"w","method":"workspace.create","params":{"label":"x"}}`)
	if err != nil || m["error"] != nil {
		t.Fatalf("workspace.create: %v %v", m, err)
	}
	ws := m["result"].(map[string]any)["workspace"].(map[string]any)["workspace_id"].(string)
	m, err = rawCall(s.SocketPath(), fmt.Sprintf(`{"id":"l","method":"layout.apply","params":{"workspace_id":%q,"root":{"type":"pane","command":["/bin/cat"]}}}`, ws))
	if err != nil || m["error"] != nil {
		t.Fatalf("layout.apply: %v %v", m, err)
	}
	pane := m["result"].(map[string]any)["layout"].(map[string]any)["root"].(map[string]any)["pane_id"].(string)
	var term string
	for _, p := range s.Panes() {
		if p.PaneID == pane {
			term = p.TerminalID
		}
	}

	cmd := herdrCmd(f.Env(), "--session", "orcr", "terminal", "attach", term, "--takeover")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb sockettest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 10*time.Second, "the terminal to attach", func() bool {
		all, _, _ := s.AttachedClients(term)
		return all > 0
	}, func() string { return fmt.Sprintf("stderr %q", errb.String()) })
	in.Write([]byte("through the attach\r"))
	poll.Eventually(t, 10*time.Second, "the typed line to echo", func() bool { return strings.Contains(out.String(), "through the attach") },
		func() string { return fmt.Sprintf("stdout %q", out.String()) })
	in.Write([]byte("\x02q"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("terminal attach after ctrl+b q: %v; stderr %q", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("terminal attach did not end at ctrl+b q")
	}
	if !strings.Contains(errb.String(), "detached") {
		t.Errorf("stderr %q, want a detached line", errb.String())
	}

	// agent attach: the current pane id attaches (and stdin's end detaches), a
	// terminal id does not, and the knob refuses everything.
	if msg, code := runHerdr(t, f.Env(), "--session", "orcr", "agent", "attach", pane); code != 0 {
		t.Errorf("agent attach %s: exit %d %q", pane, code, msg)
	}
	if msg, code := runHerdr(t, f.Env(), "--session", "orcr", "agent", "attach", term); code != 1 {
		t.Errorf("agent attach %s (a terminal id): exit %d %q, want 1", term, code, msg)
	}
	if msg, code := runHerdr(t, append(f.Env(), refuseAgentAttachEnv+"=1"), "--session", "orcr", "agent", "attach", pane); code != 1 {
		t.Errorf("agent attach with %s=1: exit %d %q, want 1", refuseAgentAttachEnv, code, msg)
	}
}
