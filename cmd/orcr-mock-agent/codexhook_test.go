package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/herdr/herdrtest"
)

// TestCodexSessionHook runs the codex hook against the herdr stand-in with the inputs
// codex 0.169.0 gives it: a SessionStart with a session id and a transcript path
// becomes the pane's agent_session from herdr:codex (kind id); other events, a start
// without a transcript, a pane outside herdr and a process inside another codex
// conversation report nothing.
func TestCodexSessionHook(t *testing.T) {
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh", NoDetection: true})
	sock := f.Sessions["default"].SocketPath()
	r := herdr.NewRemote(sock)
	ctx := context.Background()
	ws, err := r.WorkspaceCreate(ctx, "hook", "/")
	if err != nil {
		t.Fatal(err)
	}
	pane := ws.RootPane.PaneID
	env := map[string]string{"HERDR_ENV": "1", "HERDR_SOCKET_PATH": sock, "HERDR_PANE_ID": pane}
	run := func(input string, extra map[string]string) {
		t.Helper()
		getenv := func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return env[k]
		}
		var logs bytes.Buffer
		if code := codexSessionHook(strings.NewReader(input), getenv, log.New(&logs, "", 0)); code != 0 {
			t.Fatalf("exit %d", code)
		}
	}
	session := func() *herdr.AgentSession {
		p, err := r.PaneGet(ctx, pane)
		if err != nil {
			t.Fatal(err)
		}
		return p.AgentSession
	}
	start := func(id, path, event string) string {
		b, _ := json.Marshal(map[string]any{"session_id": id, "transcript_path": path, "cwd": "/",
			"hook_event_name": event, "model": "m", "permission_mode": "default", "source": "startup"})
		return string(b)
	}
	const path = "/c/sessions/2026/12/05/rollout-x.jsonl"
	for _, c := range []struct {
		name, input string
		env         map[string]string
	}{
		{"another event", start("s1", path, "UserPromptSubmit"), nil},
		{"no transcript", start("s1", "", "SessionStart"), nil},
		{"outside herdr", start("s1", path, "SessionStart"), map[string]string{"HERDR_ENV": ""}},
		{"inside another conversation", start("s1", path, "SessionStart"), map[string]string{"CODEX_THREAD_ID": "other"}},
		{"not JSON", "{", nil},
	} {
		run(c.input, c.env)
		if got := session(); got != nil {
			t.Fatalf("%s: agent_session %+v", c.name, got)
		}
	}
	run(start("s1", path, "SessionStart"), map[string]string{"CODEX_THREAD_ID": "s1"})
	want := &herdr.AgentSession{Source: "herdr:codex", Agent: "codex", Kind: "id", Value: "s1"}
	if diff := cmp.Diff(want, session()); diff != "" {
		t.Fatalf("agent_session (-want +got):\n%s", diff)
	}
	// A later session in the same pane replaces it (its seq is later).
	run(start("s2", path, "SessionStart"), nil)
	if got := session(); got == nil || got.Value != "s2" {
		t.Fatalf("after a second start: %+v", got)
	}
}

// FuzzCodexSessionHook feeds the codex hook any input codex could write: it never
// fails, and outside herdr it reports nothing.
func FuzzCodexSessionHook(f *testing.F) {
	f.Add(`{"session_id":"s","transcript_path":"/t","hook_event_name":"SessionStart","source":"startup"}`)
	f.Add(`{"session_id":1}`)
	f.Add("")
	f.Fuzz(func(t *testing.T, input string) {
		var logs bytes.Buffer
		if code := codexSessionHook(strings.NewReader(input), func(string) string { return "" }, log.New(&logs, "", 0)); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
}
