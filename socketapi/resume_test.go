package socketapi_test

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// dropper is a Client.Dial whose connections break, as a server killed in the middle of
// a call breaks them, right after they carry the first request of a method in drop: the
// request reaches the server, the answer never comes back.
type dropper struct {
	mu      sync.Mutex
	drop    map[string]bool
	dropped []string // the methods whose call was broken
	sent    []string // every request frame written, in order
}

func (d *dropper) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &dropConn{Conn: c, d: d}, nil
}

type dropConn struct {
	net.Conn
	d *dropper
}

func (c *dropConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.sent = append(c.d.sent, string(bytes.TrimSpace(b)))
	for m := range c.d.drop {
		if strings.Contains(string(b), `"method":"`+m+`"`) {
			delete(c.d.drop, m)
			c.d.dropped = append(c.d.dropped, m)
			c.Conn.Close()
		}
	}
	return n, err
}

// requests lists the frames sent for method.
func (d *dropper) requests(method string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, f := range d.sent {
		if strings.Contains(f, `"method":"`+method+`"`) {
			out = append(out, f)
		}
	}
	return out
}

// Wait, Ask and FollowLogs ride over a connection broken before the answer (docs/protocol.md
// §1.10): the Go SDK reconnects, tells OnResume, and resumes — the wait with what is left
// of its timeout, the ask on the agent its agent.run started (never a second run), the
// logs from the entries already yielded.
func TestSDKBlockingCallsResume(t *testing.T) {
	t.Parallel()
	srv, _ := newSDK(t)
	d := &dropper{drop: map[string]bool{}}
	var resumed []string
	c := &socketapi.Client{Socket: srv.Socket(), Dial: d.dial, FollowInterval: 50 * time.Millisecond,
		OnResume: func(method string, pid int) { resumed = append(resumed, method) }}
	ctx := ctxFor(t, 90*time.Second)

	w := runMock(t, c, "r/w", "say=waited turn_ms=1500")
	d.drop["agent.wait"] = true
	res, err := c.Wait(ctx, api.WaitRequest{Targets: []string{w.UUID}, Timeout: "60s"})
	if err != nil || !res.AllOK || len(res.Targets) != 1 || res.Targets[0].Reason != "turn_complete" {
		t.Fatalf("Wait across a broken connection: %+v %v", res, err)
	}
	waits := d.requests("agent.wait")
	if len(waits) != 2 || !strings.Contains(waits[0], `"timeout":"60s"`) || !strings.Contains(waits[1], `ms"`) {
		t.Errorf("the wait's requests: %q, want 60s then what was left in ms", waits)
	}

	d.drop["agent.ask"] = true
	ask, err := c.Ask(ctx, api.AskRequest{Path: "r/a", Agent: "mock", Prompt: "say=asked turn_ms=1000", Timeout: "60s"})
	if err != nil || !strings.HasPrefix(ask.Response.Text, "asked") {
		t.Fatalf("Ask across a broken connection: %+v %v", ask, err)
	}
	runs, asks := d.requests("agent.run"), d.requests("agent.ask")
	if len(runs) != 2 || len(asks) != 2 || !strings.Contains(asks[1], `"resume":"`+ask.UUID+`"`) {
		t.Errorf("one agent.run for the ask (besides r/w's), then two asks resuming %s: runs %q asks %q", ask.UUID, runs, asks)
	}

	d.drop["agent.logs"] = true
	var got []string
	for e, err := range c.FollowLogs(ctx, api.LogsRequest{Target: w.UUID}) {
		if err != nil {
			t.Fatalf("FollowLogs across a broken connection: %v", err)
		}
		got = append(got, e.Role+": "+e.Text)
		if len(got) == 2 {
			if _, err := c.Kill(ctx, api.KillRequest{Targets: []string{w.UUID}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(got) != 2 || got[0] != "user: say=waited turn_ms=1500" {
		t.Errorf("FollowLogs yielded %q, want the turn's two entries once", got)
	}
	if want := "agent.wait,agent.ask,agent.logs"; strings.Join(resumed, ",") != want || strings.Join(d.dropped, ",") != want {
		t.Errorf("resumed %v after dropping %v, want %s", resumed, d.dropped, want)
	}

	// Resuming an ask on an agent the store does not know starts nothing.
	const nobody = "01900000-0000-7000-8000-000000000000"
	_, err = c.Ask(ctx, api.AskRequest{Resume: nobody, Timeout: "5s"})
	if e, ok := err.(*api.Error); !ok || e.Code != api.CodeNotFound || e.Details["target"] != nobody {
		t.Errorf("an ask resumed on an unknown uuid: %v, want not_found {target}", err)
	}
	if runs := d.requests("agent.run"); len(runs) != 2 {
		t.Errorf("%d agent.run requests after the resumed ask of nobody, want still 2", len(runs))
	}
}
