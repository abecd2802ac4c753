package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// testCtx is a test's deadline.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dial connects to srv with the right token; the connection is closed at cleanup.
func dial(t *testing.T, ctx context.Context, srv *testServer) *Conn {
	t.Helper()
	var d Dialer
	c, err := d.Dial(ctx, srv.URL, "agent-1", testToken)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestStreamURL(t *testing.T) {
	tests := []struct{ base, agent, want string }{
		{"http://127.0.0.1:7443", "a1", "http://127.0.0.1:7443/agents/a1/ws"},
		{"https://orcr.example/", "a1", "https://orcr.example/agents/a1/ws"},
		{"ws://h:1/prefix", "a1", "ws://h:1/prefix/agents/a1/ws"},
		{"wss://h/pre%20fix/#frag", "a b/c", "wss://h/pre%20fix/agents/a%20b%2Fc/ws"},
	}
	for _, tt := range tests {
		got, err := streamURL(tt.base, tt.agent)
		if err != nil || got != tt.want {
			t.Errorf("streamURL(%q, %q): got %q, %v; want %q", tt.base, tt.agent, got, err, tt.want)
		}
	}
	for _, base := range []string{"ftp://h", "h:1", "http://", "://x"} {
		if got, err := streamURL(base, "a1"); err == nil {
			t.Errorf("streamURL(%q): got %q, want an error", base, got)
		}
	}
	if got, err := streamURL("http://h", ""); err == nil {
		t.Errorf("streamURL with no agent id: got %q, want an error", got)
	}
}

// Dial reads the hello; every typed method sends exactly its frame; a frame the server
// would refuse is not sent; the dial context bounds only the handshake.
func TestDialAndClientFrames(t *testing.T) {
	got := make(chan string, 16)
	srv := newTestServer(t, func(n int, c *scriptConn) {
		got <- c.path + " " + c.header.Get("Authorization") + " " + c.header.Get("X-Trace")
		c.hello(41)
		for data := c.recv(); data != nil; data = c.recv() {
			got <- string(data)
		}
	})
	dctx, cancel := context.WithCancel(testCtx(t))
	d := &Dialer{Header: http.Header{"X-Trace": {"t1"}}}
	c, err := d.Dial(dctx, srv.URL, "agent-1", testToken)
	cancel()
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	if c.Hello() != (Hello{Proto: 1, SessionID: "s1", LastSeq: 41}) {
		t.Errorf("Hello: got %+v", c.Hello())
	}
	ctx := testCtx(t)
	var fe *FrameError
	if err := c.Inject(ctx, "", true); !errors.As(err, &fe) {
		t.Errorf("Inject with no text: got %v, want a *FrameError", err)
	}
	if err := c.SetPolicy(ctx, make([]string, MaxPatterns+1)); !errors.As(err, &fe) {
		t.Errorf("SetPolicy over the bound: got %v, want a *FrameError", err)
	}
	calls := []struct {
		call func() error
		want string
	}{
		{func() error { return c.Subscribe(ctx, 7) }, `{"type":"subscribe","from_seq":7}`},
		{func() error { return c.Inject(ctx, "a <b> & c", true) }, `{"type":"inject","text":"a <b> & c","wake":true}`},
		{func() error { return c.Inject(ctx, "steer", false) }, `{"type":"inject","text":"steer","wake":false}`},
		{func() error { return c.Cancel(ctx, "") }, `{"type":"cancel"}`},
		{func() error { return c.Cancel(ctx, "user") }, `{"type":"cancel","reason":"user"}`},
		{func() error { return c.Approve(ctx, "call-1", "") }, `{"type":"approve","call_id":"call-1"}`},
		{func() error { return c.Deny(ctx, "call-2", "risky") }, `{"type":"deny","call_id":"call-2","reason":"risky"}`},
		{func() error { return c.SetModel(ctx, "main", "anthropic/opus") }, `{"type":"set_model","role":"main","spec":"anthropic/opus"}`},
		{func() error { return c.SetPolicy(ctx, nil) }, `{"type":"set_policy","patterns":[]}`},
		{func() error { return c.SetPolicy(ctx, []string{"read_*"}) }, `{"type":"set_policy","patterns":["read_*"]}`},
		{func() error { return c.WriteRaw(ctx, []byte(`{"type":"nope"`)) }, `{"type":"nope"`},
	}
	if h := <-got; h != "/agents/agent-1/ws Bearer secret t1" {
		t.Errorf("request: got %q", h)
	}
	for _, tt := range calls {
		if err := tt.call(); err != nil {
			t.Fatalf("sending %s: %v", tt.want, err)
		}
		select {
		case g := <-got:
			if g != tt.want {
				t.Errorf("server got %s, want %s", g, tt.want)
			}
		case <-ctx.Done():
			t.Fatalf("server got nothing for %s", tt.want)
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := c.Cancel(ctx, ""); !errors.Is(err, ErrClosed) {
		t.Errorf("Cancel after Close: got %v, want ErrClosed", err)
	}
	if _, err := c.Next(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Next after Close: got %v, want ErrClosed", err)
	}
}

func TestDialRefused(t *testing.T) {
	srv := newTestServer(t, func(int, *scriptConn) { t.Error("a bad token reached the script") })
	http401 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer http401.Close()
	http404 := httptest.NewServer(http.NotFoundHandler())
	defer http404.Close()
	ctx := testCtx(t)
	var d Dialer

	_, err := d.Dial(ctx, srv.URL, "agent-1", "wrong")
	if e, ok := errors.AsType[*Error](err); !ok || *e != (Error{Code: Unauthorized, Message: "bad token"}) {
		t.Errorf("Dial with a bad token: got %v, want *Error unauthorized", err)
	}
	if _, err := d.Dial(ctx, http401.URL, "agent-1", testToken); !IsCode(err, Unauthorized) {
		t.Errorf("Dial answered HTTP 401: got %v, want *Error unauthorized", err)
	}
	_, err = d.Dial(ctx, http404.URL, "agent-1", testToken)
	if e, ok := errors.AsType[*HandshakeError](err); !ok || e.StatusCode != http.StatusNotFound {
		t.Errorf("Dial answered HTTP 404: got %v, want *HandshakeError 404", err)
	}
	if _, err := d.Dial(ctx, "ftp://x", "agent-1", testToken); err == nil {
		t.Error("Dial with an ftp URL: got no error")
	}
}

func TestDialProto(t *testing.T) {
	srv := newTestServer(t, func(n int, c *scriptConn) {
		c.send(Hello{Proto: 2, SessionID: "s1"})
		c.waitClosed()
	})
	var d Dialer
	if _, err := d.Dial(testCtx(t), srv.URL, "agent-1", testToken); !errors.Is(err, ErrProto) {
		t.Errorf("Dial to a proto 2 server: got %v, want ErrProto", err)
	}
}

// An error frame that keeps the connection open is one frame among others; one that
// closes is a frame, and the next read reports the close, as does every read after it.
func TestNextErrorFrames(t *testing.T) {
	srv := newTestServer(t, func(n int, c *scriptConn) {
		c.hello(0)
		_, err := DecodeClient(c.recv())
		if fe, ok := errors.AsType[*FrameError](err); ok {
			c.send(fe.Frame())
		}
		c.events(0)
		c.closeWith(Superseded)
	})
	ctx := testCtx(t)
	c := dial(t, ctx, srv)
	if err := c.WriteRaw(ctx, []byte(`{"type":"subscribe","from_seq":"0"}`)); err != nil {
		t.Fatal(err)
	}
	var got []ServerFrame
	for {
		f, err := c.Next(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Errorf("Next after superseded: got %v, want a close with status 1008", err)
			}
			if _, again := c.Next(ctx); again != err {
				t.Errorf("Next after the close: got %v, want %v again", again, err)
			}
			break
		}
		got = append(got, f)
	}
	want := []ServerFrame{
		ErrorFrame{Code: BadFrame, Message: `subscribe: "from_seq" must be an integer`},
		testEvent(0),
		ErrorFrame{Code: Superseded, Message: "superseded by the test server"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

// The background reader answers the server's pings while the caller reads nothing, and
// a Next whose context ends leaves the connection usable.
func TestConnAnswersPingsWhileIdle(t *testing.T) {
	pinged := make(chan error, 1)
	sendEvent := make(chan struct{})
	srv := newTestServer(t, func(n int, c *scriptConn) {
		c.hello(0)
		var err error
		for range 3 {
			if err = c.ws.Ping(c.ctx); err != nil {
				break
			}
		}
		pinged <- err
		select {
		case <-sendEvent:
			c.events(0)
		case <-c.ctx.Done():
		}
		c.waitClosed()
	})
	ctx := testCtx(t)
	c := dial(t, ctx, srv)
	select {
	case err := <-pinged:
		if err != nil {
			t.Fatalf("server ping: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("server pings did not finish")
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if f, err := c.Next(ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with an ended context: got %v, %v; want context.Canceled", f, err)
	}
	close(sendEvent)
	if f, err := c.Next(ctx); err != nil || f.(Event).Seq != 0 {
		t.Errorf("Next: got %v, %v; want event 0", f, err)
	}
}

// Close returns promptly and stops the reader even when the caller left frames unread.
func TestCloseWithUnreadFrames(t *testing.T) {
	sent := make(chan struct{})
	status := make(chan websocket.StatusCode, 1)
	srv := newTestServer(t, func(n int, c *scriptConn) {
		c.hello(0)
		for s := range int64(readAhead + 10) {
			c.events(s)
		}
		close(sent)
		status <- c.waitClosed()
	})
	ctx := testCtx(t)
	c := dial(t, ctx, srv)
	if f, err := c.Next(ctx); err != nil || f.(Event).Seq != 0 {
		t.Fatalf("Next: got %v, %v; want event 0", f, err)
	}
	<-sent // all frames are on their way; the reader stops once readAhead of them are unread
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if got := <-status; got != websocket.StatusNormalClosure {
		t.Errorf("server saw close status %v, want %v", got, websocket.StatusNormalClosure)
	}
}
