package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// testToken is the one token a testServer accepts.
const testToken = "secret"

// testServer is a small scripted stand-in for orcr's stream endpoint: it refuses a bad
// token at the door as the contract says (one unauthorized frame, then close) and plays
// script on every authorized connection, numbered from 1.
type testServer struct {
	*httptest.Server
	t        *testing.T
	ctx      context.Context // ends at cleanup
	script   func(n int, c *scriptConn)
	conns    atomic.Int32
	handlers sync.WaitGroup
}

func newTestServer(t *testing.T, script func(n int, c *scriptConn)) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{t: t, ctx: ctx, script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		cancel()
		s.Server.Close() // returns once every handler has finished or hijacked its connection
		s.handlers.Wait()
	})
	return s
}

func (s *testServer) serve(w http.ResponseWriter, r *http.Request) {
	s.handlers.Add(1)
	defer s.handlers.Done()
	n := int(s.conns.Add(1))
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.t.Errorf("accept: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	c := &scriptConn{t: s.t, ctx: ctx, ws: ws, header: r.Header, path: r.URL.Path, in: make(chan []byte, 64)}
	go c.read()
	defer c.finish()
	if r.Header.Get("Authorization") != "Bearer "+testToken {
		c.send(ErrorFrame{Code: Unauthorized, Message: "bad token"})
		ws.Close(websocket.StatusPolicyViolation, "unauthorized")
		return
	}
	s.script(n, c)
}

// scriptConn is one server-side connection of a testServer. Its helpers report
// failures with t.Errorf, since they run on the handler's goroutine.
type scriptConn struct {
	t      *testing.T
	ctx    context.Context
	ws     *websocket.Conn
	header http.Header
	path   string
	in     chan []byte // client frames; closed when the client's side ends, after readErr is set
	// readErr is the error that ended the reader.
	readErr error
}

func (c *scriptConn) read() {
	defer close(c.in)
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			c.readErr = err
			return
		}
		c.in <- data
	}
}

// finish closes the connection and waits for its reader.
func (c *scriptConn) finish() {
	c.ws.Close(websocket.StatusNormalClosure, "")
	for range c.in {
	}
}

func (c *scriptConn) send(f any) {
	b, err := json.Marshal(f)
	if err != nil {
		c.t.Errorf("server: encode %#v: %v", f, err)
		return
	}
	if err := c.ws.Write(c.ctx, websocket.MessageText, b); err != nil {
		c.t.Errorf("server: write %s: %v", b, err)
	}
}

func (c *scriptConn) hello(lastSeq int64) { c.send(NewHello("s1", lastSeq)) }

// events sends the log events of seqs.
func (c *scriptConn) events(seqs ...int64) {
	for _, s := range seqs {
		c.send(testEvent(s))
	}
}

// recv returns the next raw client frame, or nil once the client is gone.
func (c *scriptConn) recv() []byte {
	select {
	case b := <-c.in:
		return b
	case <-c.ctx.Done():
		c.timedOut("no client frame")
		return nil
	}
}

// expectSubscribe reads the next client frame, which must be a subscribe, and returns
// its from_seq (-1 when it is not one).
func (c *scriptConn) expectSubscribe() int64 {
	data := c.recv()
	if data == nil {
		return -1
	}
	f, err := DecodeClient(data)
	if s, ok := f.(Subscribe); ok {
		return s.FromSeq
	}
	c.t.Errorf("server: got %s (%v), want a subscribe", data, err)
	return -1
}

// closeWith sends an error frame of code and closes, as the server does for the codes
// that close.
func (c *scriptConn) closeWith(code Code) {
	c.send(ErrorFrame{Code: code, Message: string(code) + " by the test server"})
	c.ws.Close(websocket.StatusPolicyViolation, string(code))
}

// waitClosed waits for the client to end the connection and returns its close status.
func (c *scriptConn) waitClosed() websocket.StatusCode {
	for {
		select {
		case _, ok := <-c.in:
			if !ok {
				return websocket.CloseStatus(c.readErr)
			}
		case <-c.ctx.Done():
			c.timedOut("the client did not close")
			return -1
		}
	}
}

// timedOut reports what did not happen in time; an end at cleanup is no failure.
func (c *scriptConn) timedOut(what string) {
	if errors.Is(c.ctx.Err(), context.DeadlineExceeded) {
		c.t.Errorf("server: %s", what)
	}
}

// testEvent is the log event of seq; seq 3 carries a payload over coder/websocket's
// default 32 KiB read limit.
func testEvent(seq int64) Event {
	payload := fmt.Sprintf(`{"n":%d}`, seq)
	if seq == 3 {
		payload = fmt.Sprintf(`{"n":3,"pad":%q}`, strings.Repeat("x", 100<<10))
	}
	return Event{ID: fmt.Sprintf("e%d", seq), SessionID: "s1", Seq: seq, At: "2026-08-18T04:10:11.123456Z",
		Type: "assistant/message", Payload: json.RawMessage(payload)}
}
