package ws_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

func TestMain(m *testing.M) {
	// Most tests here start a server and wait on it: four at a time.
	sockettest.DefaultParallel("4")
	sockettest.VerifyTestMain(m)
}

// rig is a server with the remote listener on a loopback port, the herdr stand-in and
// the mock provider.
type rig struct {
	t    *testing.T
	srv  *sockettest.Server
	c    *socketapi.Client
	base string
	d    *remote.Dialer
}

// newRig starts the server with the remote section remoteJSON merged in (a JSON object's
// members, e.g. `"replay_limit": 5`).
func newRig(t *testing.T, remoteJSON string, extra ...string) *rig {
	t.Helper()
	members := `"listen": "127.0.0.1:0"`
	if remoteJSON != "" {
		members += ", " + remoteJSON
	}
	doc := `{"remote": {` + members + `}` + strings.Join(extra, "") + `}`
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(doc))
	addr := srv.RemoteAddr()
	if addr == "" {
		t.Fatal("the remote listener is not up")
	}
	return &rig{t: t, srv: srv, c: srv.Client(t), base: "http://" + addr, d: &remote.Dialer{}}
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// run starts a mock agent at path with prompt ("" = none) and returns its uuid.
func (r *rig) run(path, prompt string) string {
	r.t.Helper()
	res, err := r.c.Run(ctxT(r.t, 30*time.Second), api.RunRequest{Path: path, Agent: "mock", Prompt: prompt})
	if err != nil {
		r.t.Fatalf("agent.run %s: %v", path, err)
	}
	return res.Agent.UUID
}

// token issues a token for target.
func (r *rig) token(target string) string {
	r.t.Helper()
	res, err := r.c.Token(ctxT(r.t, 10*time.Second), api.TokenRequest{Target: target})
	if err != nil || res.Token == nil {
		r.t.Fatalf("agent.token %s: %v", target, err)
	}
	return *res.Token
}

// dial opens agent's stream with tok.
func (r *rig) dial(agent, tok string) *remote.Conn {
	r.t.Helper()
	c, err := r.d.Dial(ctxT(r.t, 10*time.Second), r.base, agent, tok)
	if err != nil {
		r.t.Fatalf("dial %s: %v", agent, err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

// next reads the next frame within d.
func next(t *testing.T, c *remote.Conn, d time.Duration) remote.ServerFrame {
	t.Helper()
	f, err := c.Next(ctxT(t, d))
	if err != nil {
		t.Fatalf("next frame: %v", err)
	}
	return f
}

// events reads session events from c until stop returns true for one (which is
// included), failing on any other frame and on a gap or a duplicate after want (the
// first seq expected).
func events(t *testing.T, c *remote.Conn, want int64, d time.Duration, stop func(remote.Event) bool) []remote.Event {
	t.Helper()
	ctx := ctxT(t, d)
	var out []remote.Event
	for {
		f, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for events (got %s): %v", describe(out), err)
		}
		e, ok := f.(remote.Event)
		if !ok {
			t.Fatalf("got %#v, want a session event (after %s)", f, describe(out))
		}
		if e.Seq != want {
			t.Fatalf("got seq %d (%s), want %d: a gap or a duplicate (after %s)", e.Seq, e.Type, want, describe(out))
		}
		want++
		out = append(out, e)
		if stop(e) {
			return out
		}
	}
}

func describe(es []remote.Event) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%d:%s ", e.Seq, e.Type)
	}
	return b.String()
}

func payloadOf(t *testing.T, e remote.Event) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		t.Fatalf("payload of %d %s: %v", e.Seq, e.Type, err)
	}
	return p
}

func isType(typ string) func(remote.Event) bool {
	return func(e remote.Event) bool { return e.Type == typ }
}

// turnEnd matches turn/end.
var turnEnd = isType("turn/end")

// status matches a status/changed to status.
func status(t *testing.T, s string) func(remote.Event) bool {
	return func(e remote.Event) bool { return e.Type == "status/changed" && payloadOf(t, e)["status"] == s }
}

// debugLog makes agent an idle debug row at path (no pane, nothing drives it) whose log
// holds n policy/updated entries, then with end has it end (nothing follows
// session/ended, which closes a stream); it returns the seq of the last filler entry.
func debugLog(ctx context.Context, c *socketapi.Client, agent, path string, n int, end bool) (int64, error) {
	if err := c.Call(ctx, "__debug.set_agent", map[string]any{"uuid": agent, "path": path, "status": "idle"}, nil); err != nil {
		return 0, err
	}
	var out struct {
		Tip int64 `json:"tip"`
	}
	for left := n; left > 0; left -= 2000 {
		if err := c.Call(ctx, "__debug.fill_session_log", map[string]any{"uuid": agent, "n": min(left, 2000)}, &out); err != nil {
			return 0, err
		}
	}
	if !end {
		return out.Tip, nil
	}
	return out.Tip, c.Call(ctx, "__debug.set_agent", map[string]any{"uuid": agent, "path": path, "status": "ended"}, nil)
}

// errorFrame reads frames until an error frame and returns it.
func errorFrame(t *testing.T, c *remote.Conn, d time.Duration) remote.ErrorFrame {
	t.Helper()
	ctx := ctxT(t, d)
	for {
		f, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for an error frame: %v", err)
		}
		if ef, ok := f.(remote.ErrorFrame); ok {
			return ef
		}
	}
}
