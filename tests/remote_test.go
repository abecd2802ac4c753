package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/remote"
)

// remoteBase reads the remote listener's address from `orcr server status --json`.
func remoteBase(t *testing.T, h *home) string {
	t.Helper()
	ok, res, _ := h.jsonRun(t, "server.status", 0, "server", "status")
	if !ok {
		t.Fatal("server status failed")
	}
	rs, _ := res["remote"].(map[string]any)
	addr, _ := rs["address"].(string)
	if rs["listening"] != true || addr == "" {
		t.Fatalf("remote listener not up: %v", rs)
	}
	return "http://" + addr
}

// nextEvent reads session events from c, failing on anything else and on a gap.
func nextEvent(t *testing.T, ctx context.Context, c *remote.Conn, want int64) remote.Event {
	t.Helper()
	for {
		f, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for seq %d: %v", want, err)
		}
		e, ok := f.(remote.Event)
		if !ok {
			t.Fatalf("got %#v, want event %d", f, want)
		}
		if e.Seq != want {
			t.Fatalf("got seq %d (%s), want %d", e.Seq, e.Type, want)
		}
		return e
	}
}

// `orcr agent token` prints the token alone on stdout (so `$(orcr agent token x)`
// captures it), and its --json envelope validates against the schema.
func TestAgentTokenCLI(t *testing.T) {
	h, _ := herdrHome(t, `{"remote": {"listen": "127.0.0.1:0"}}`)
	ok, res, _ := h.jsonRun(t, "agent.run", 0, "agent", "run", "--path", "tok/a", "-a", "mock")
	if !ok {
		t.Fatal("agent run failed")
	}
	uuid := res["agent"].(map[string]any)["uuid"].(string)
	r := h.run("agent", "token", "tok/a")
	tok := strings.TrimSpace(r.stdout)
	if r.exit != 0 || len(tok) != 43 || strings.ContainsAny(tok, " \n") {
		t.Fatalf("agent token: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "/agents/"+uuid+"/ws") {
		t.Errorf("stderr %q does not name the stream path", r.stderr)
	}
	base := remoteBase(t, h)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := (&remote.Dialer{}).Dial(ctx, base, uuid, tok)
	if err != nil {
		t.Fatalf("dial with the printed token: %v", err)
	}
	c.Close()
	ok, res, _ = h.jsonRun(t, "agent.token", 0, "agent", "token", "tok/a", "--rotate")
	if !ok || res["revoked"] != 1.0 || res["token"] == nil {
		t.Errorf("--rotate: %v", res)
	}
	if _, err := (&remote.Dialer{}).Dial(ctx, base, uuid, tok); !remote.IsCode(err, remote.Unauthorized) {
		t.Errorf("the rotated-away token: %v", err)
	}
	ok, res, _ = h.jsonRun(t, "agent.token", 0, "agent", "token", "tok/a", "--revoke")
	if !ok || res["revoked"] != 1.0 || res["token"] != nil {
		t.Errorf("--revoke: %v", res)
	}
	h.jsonRun(t, "agent.token", 6, "agent", "token", "tok/nosuch")
}

// Acceptance 5 of the remote stream: kill -9 of the server mid-turn; a client that
// resubscribes from its last durable seq sees no gap and no duplicate, and the open
// turn resumes on the next stimulus (the wake rides it: no second turn/start).
func TestRemoteKill9MidTurn(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	h, _ := herdrHome(t, `{"remote": {"listen": "127.0.0.1:0"}}`)
	srv := startCrashServer(t, h)
	ok, res, _ := h.jsonRun(t, "agent.run", 0, "agent", "run", "--path", "k9/a", "-a", "mock")
	if !ok {
		t.Fatal("agent run failed")
	}
	uuid := res["agent"].(map[string]any)["uuid"].(string)
	tok := strings.TrimSpace(h.run("agent", "token", "k9/a").stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	sc := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	if _, err := sc.Wait(ctx, api.WaitRequest{Targets: []string{uuid}, Timeout: "60s"}); err != nil {
		t.Fatal(err)
	}

	d := &remote.Dialer{}
	c, err := d.Dial(ctx, remoteBase(t, h), uuid, tok)
	if err != nil {
		t.Fatal(err)
	}
	next := c.Hello().LastSeq + 1
	c.Subscribe(ctx, next)
	c.Inject(ctx, "say=long turn_ms=15000", true)
	var last int64 = -1
	for {
		e := nextEvent(t, ctx, c, next)
		last, next = e.Seq, next+1
		if e.Type == "user/message" {
			break
		}
	}
	srv.kill9(t)
	c.Close()

	srv = startCrashServer(t, h)
	defer srv.stop(t, h)
	c, err = d.Dial(ctx, remoteBase(t, h), uuid, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Subscribe(ctx, last+1)
	c.Inject(ctx, "say=rides", true)
	var types []string
	for {
		e := nextEvent(t, ctx, c, last+1)
		last = e.Seq
		types = append(types, e.Type)
		var p map[string]any
		json.Unmarshal(e.Payload, &p)
		if e.Type == "turn/start" {
			t.Errorf("a second turn/start after the restart: %v", types)
		}
		if e.Type == "context/injected" && p["text"] != "say=rides" {
			t.Errorf("context/injected %v", p)
		}
		if e.Type == "turn/end" {
			if p["status"] != "completed" {
				t.Errorf("turn/end %v", p)
			}
			break
		}
	}
	if !strings.Contains(strings.Join(types, " "), "context/injected") {
		t.Errorf("the wake did not ride the open turn: %v", types)
	}
}

// An unmanaged agent (started by hand in a user session) that is blocked keeps a wake in
// the inbox; once discovery sees it idle again, the wake is typed into it as a turn.
func TestRemoteInboxOfAnUnmanagedAgent(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	f := startHandStarted(t, `{"remote": {"listen": "127.0.0.1:0"}}`, "first")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(f.h.dir, "logs", "server.log"))
			for _, l := range strings.Split(string(b), "\n") {
				if !strings.Contains(l, "herdr session down") {
					t.Log(l)
				}
			}
			t.Logf("row now: %+v", lsAll(t, f.c, f.row.Path))
		}
	})
	tok := strings.TrimSpace(f.h.run("agent", "token", f.row.UUID).stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := (&remote.Dialer{}).Dial(ctx, remoteBase(t, f.h), f.row.UUID, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	next := c.Hello().LastSeq + 1
	c.Subscribe(ctx, next)
	// The user makes it ask something (the mock's block directive): herdr says blocked.
	if err := f.work.Deliver(ctx, f.pane, "block", 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for {
		e := nextEvent(t, ctx, c, next)
		next++
		var p map[string]any
		json.Unmarshal(e.Payload, &p)
		if e.Type == "status/changed" && p["status"] == "blocked" {
			break
		}
	}
	c.Inject(ctx, "say=after the block", true)
	// The user answers the question (ESC while blocked: the mock goes idle).
	if err := f.work.SendKeys(ctx, f.pane, "Escape"); err != nil {
		t.Fatal(err)
	}
	for {
		e := nextEvent(t, ctx, c, next)
		next++
		var p map[string]any
		json.Unmarshal(e.Payload, &p)
		if e.Type == "user/message" || e.Type == "context/injected" {
			if p["text"] != "say=after the block" {
				t.Fatalf("%s %v", e.Type, p)
			}
			return
		}
	}
}
