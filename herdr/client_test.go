package herdr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestClientPing(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		return ok(req, `{"type":"pong","version":"0.8.0","protocol":20,"extra":1}`)
	})
	r := NewRemote(s.path)
	p, err := r.Handshake(context.Background())
	if err != nil {
		t.Fatalf("Handshake: %v", err)
	}
	if p.Protocol != 20 || p.Version != "0.8.0" {
		t.Errorf("Handshake: got %+v, want protocol 20 version 0.8.0", p)
	}
	req := s.requests()[0]
	if id, _ := req["id"].(string); !strings.HasPrefix(id, "orcr:") {
		t.Errorf("request id: got %q, want orcr:<n>", id)
	}
	if params, ok := req["params"].(map[string]any); !ok || len(params) != 0 {
		t.Errorf("request params: got %v, want {}", req["params"])
	}
}

func TestHandshakeOldProtocol(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		return ok(req, `{"type":"pong","version":"0.5.0","protocol":15}`)
	})
	_, err := NewRemote(s.path).Handshake(context.Background())
	we, isWire := wire.As(err)
	if !isWire || we.Cause() != wire.CauseHerdrVersionSkew {
		t.Fatalf("Handshake(15): got %v, want herdr_version_skew", err)
	}
	if we.Details["reported_protocol"] != 15 || we.Details["required_protocol"] != 16 || we.Details["herdr_version"] != "0.5.0" {
		t.Errorf("details: got %v", we.Details)
	}
}

func TestClientErrorWithEmptyID(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		return `{"id":"","error":{"code":"invalid_request","message":"invalid request: missing field kind"}}`
	})
	_, err := NewRemote(s.path).PaneGet(context.Background(), "w1:p1")
	var he *Error
	if !errors.As(err, &he) || he.Code != "invalid_request" || !strings.Contains(he.Message, "missing field kind") {
		t.Fatalf("PaneGet: got %v, want herdr invalid_request", err)
	}
	if !IsCode(err, "invalid_request") {
		t.Errorf("IsCode: false")
	}
	if we := WireError(err); we.Cause() != wire.CauseHerdrError || we.Details["herdr_code"] != "invalid_request" {
		t.Errorf("WireError: got %v %v", we, we.Details)
	}
}

func TestClientWrongTag(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		return ok(req, `{"type":"pane_info_v2","pane":{}}`)
	})
	_, err := NewRemote(s.path).PaneGet(context.Background(), "w1:p1")
	if !wire.Is(err, wire.EnvironmentError, wire.CauseHerdrVersionSkew) {
		t.Fatalf("PaneGet: got %v, want herdr_version_skew", err)
	}
}

func TestClientUnreachableRetries(t *testing.T) {
	tries := 0
	c := Client{Socket: filepath.Join(shortDir(t), "none.sock"), Dial: func(ctx context.Context, n, a string) (net.Conn, error) {
		tries++
		var d net.Dialer
		return d.DialContext(ctx, n, a)
	}}
	start := time.Now()
	_, err := c.Call(context.Background(), "ping", nil, "pong")
	if !IsUnreachable(err) {
		t.Fatalf("Call: got %v, want herdr_unreachable", err)
	}
	if tries != 4 {
		t.Errorf("dial tries: got %d, want 4", tries)
	}
	if el := time.Since(start); el < 700*time.Millisecond || el > 5*time.Second {
		t.Errorf("elapsed: got %s, want about 700ms of backoff", el)
	}
}

// A call that failed before its request reached herdr is marked not sent (docs/herdr.md
// §2.2), so a caller may make it again without making anything twice: a socket that is
// absent, one that accepts nothing in time. One herdr read and left unanswered is not
// marked: herdr may have acted on it.
func TestClientMarksWhatWasNotSent(t *testing.T) {
	absent := Client{Socket: filepath.Join(shortDir(t), "none.sock"), Dial: func(ctx context.Context, n, a string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: n, Err: syscall.ENOENT}
	}}
	_, err := absent.Call(context.Background(), "ping", nil, "pong")
	if !IsUnreachable(err) || !errors.Is(err, ErrNotSent) || herdrSlow(err) || !errors.Is(err, syscall.ENOENT) {
		t.Errorf("absent socket: got %v, want herdr_unreachable, not sent, not a timeout, ENOENT kept", err)
	}
	slow := Client{Socket: "/slow.sock", Dial: func(ctx context.Context, n, a string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: n, Err: os.ErrDeadlineExceeded}
	}}
	_, err = slow.Call(context.Background(), "ping", nil, "pong")
	if !IsUnreachable(err) || !errors.Is(err, ErrNotSent) || !herdrSlow(err) {
		t.Errorf("a connection not accepted in time: got %v, want herdr_unreachable, not sent, a timeout", err)
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = slow.Call(expired, "ping", nil, "pong")
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNotSent) {
		t.Errorf("a call whose deadline passed before it connected: got %v, want the deadline, not sent", err)
	}
	mute := newScripted(t, func(map[string]any) string { time.Sleep(300 * time.Millisecond); return "" })
	c := Client{Socket: mute.path, Timeout: 100 * time.Millisecond}
	_, err = c.Call(context.Background(), "ping", nil, "pong")
	if !IsUnreachable(err) || errors.Is(err, ErrNotSent) {
		t.Errorf("a request herdr read and left unanswered: got %v, want herdr_unreachable not marked not sent", err)
	}
}

func TestClientRequestTooLarge(t *testing.T) {
	dialed := false
	c := Client{Socket: "/nonexistent", Dial: func(context.Context, string, string) (net.Conn, error) {
		dialed = true
		return nil, errors.New("no")
	}}
	_, err := c.Call(context.Background(), "pane.send_text", map[string]any{"text": strings.Repeat("x", MaxRequest)}, "ok")
	if !errors.Is(err, ErrRequestTooLarge) || dialed {
		t.Fatalf("Call: got %v dialed=%v, want ErrRequestTooLarge without dialing", err, dialed)
	}
}

func TestClientTimeout(t *testing.T) {
	// the slow herdr under test: it answers after the client's timeout
	s := newScripted(t, func(req map[string]any) string { time.Sleep(300 * time.Millisecond); return "" })
	c := Client{Socket: s.path, Timeout: 100 * time.Millisecond}
	_, err := c.Call(context.Background(), "ping", nil, "pong")
	if !IsUnreachable(err) {
		t.Fatalf("Call: got %v, want herdr_unreachable (timeout)", err)
	}
}

// TestClientCancelClosesWithoutExtraBytes checks that cancelling a long wait closes the
// connection and writes nothing after the request line.
func TestClientCancelClosesWithoutExtraBytes(t *testing.T) {
	path := filepath.Join(shortDir(t), "w.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- "accept: " + err.Error()
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		if _, err := br.ReadBytes('\n'); err != nil {
			got <- "read: " + err.Error()
			return
		}
		rest, err := io.ReadAll(br)
		got <- string(rest) + "|" + errString(err)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		c := Client{Socket: path, Timeout: -1}
		_, err := c.Call(ctx, "agent.wait", map[string]any{"target": "w1:p1"}, "agent_info")
		done <- err
	}()
	time.AfterFunc(50*time.Millisecond, cancel)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Call: got %v, want context.Canceled", err)
	}
	if r := <-got; r != "|" {
		t.Errorf("server saw after the request: %q, want nothing then EOF", r)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestDeliverTwoCalls(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		switch req["method"] {
		case "pane.list":
			return ok(req, `{"type":"pane_list","panes":[{"pane_id":"w2:p1","terminal_id":"term_1","workspace_id":"w2","tab_id":"w2:t1","focused":false,"agent_status":"done","revision":0}]}`)
		default:
			return ok(req, `{"type":"ok"}`)
		}
	})
	r := NewRemote(s.path)
	big := strings.Repeat("z", 2*MaxRequest+300<<10)
	start := time.Now()
	if err := r.Deliver(context.Background(), "term_1", big, 50*time.Millisecond); err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Errorf("Deliver returned before the pause")
	}
	var methods []string
	var text strings.Builder
	for _, q := range s.requests() {
		methods = append(methods, q["method"].(string))
		p := q["params"].(map[string]any)
		if q["method"] == "pane.send_text" {
			text.WriteString(p["text"].(string))
			if p["pane_id"] != "w2:p1" {
				t.Errorf("send_text pane: got %v", p["pane_id"])
			}
		}
		if q["method"] == "pane.send_keys" {
			if k := p["keys"].([]any); len(k) != 1 || k[0] != "Enter" {
				t.Errorf("send_keys keys: got %v, want [Enter]", k)
			}
		}
	}
	want := "pane.list,pane.send_text,pane.send_text,pane.send_text,pane.send_keys"
	if got := strings.Join(methods, ","); got != want {
		t.Errorf("calls: got %s, want %s", got, want)
	}
	if text.String() != big {
		t.Errorf("text: got %d bytes, want %d", text.Len(), len(big))
	}
	panes, _ := r.PaneList(context.Background(), "")
	if panes[0].AgentStatus != StatusIdle {
		t.Errorf("done normalised: got %q, want idle", panes[0].AgentStatus)
	}
}

// A herdr that takes no request (a frozen process: SIGSTOP leaves its socket accepting
// connections into the backlog and nothing reads them) fails a call within about a
// second with herdr_unreachable saying it is not answering, not after the 15 s
// deadline; a herdr that took the request may take its time to answer.
func TestClientNotAnswering(t *testing.T) {
	path := filepath.Join(shortDir(t), "f.sock")
	ln, err := net.Listen("unix", path) // never accepts: nothing reads
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	start := time.Now()
	_, err = (&Client{Socket: path}).Call(context.Background(), "ping", nil, "pong")
	took := time.Since(start)
	if !IsUnreachable(err) || !strings.Contains(err.Error(), "not answering") {
		t.Fatalf("Call on a herdr that reads nothing: got %v, want herdr_unreachable saying herdr is not answering", err)
	}
	if took < DefaultTakenWithin || took > DefaultTakenWithin+2*time.Second {
		t.Errorf("Call on a herdr that reads nothing took %v, want about %v", took, DefaultTakenWithin)
	}
}

func TestClientSlowAnswerIsNotFrozen(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		time.Sleep(DefaultTakenWithin + 1500*time.Millisecond) // the slow herdr under test: it answers after DefaultTakenWithin
		return ok(req, `{"type":"ok"}`)
	})
	big := strings.Repeat("y", 900<<10) // beyond the socket buffer: written while read
	if _, err := (&Client{Socket: s.path}).Call(context.Background(), "pane.send_text",
		map[string]any{"pane_id": "w1:p1", "text": big}, "ok"); err != nil {
		t.Fatalf("a slow answer to a request herdr took: %v", err)
	}
	if sizes := s.lineSizes(); len(sizes) != 1 || sizes[0] < 900<<10 {
		t.Errorf("request lines read: %v", sizes)
	}
}

// chunkReader hands out its bytes in reads of the sizes of sizes, in turn (a size of
// 0 reads nothing, as a Read may).
type chunkReader struct {
	b     []byte
	sizes []byte
	i     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := len(r.b)
	if len(r.sizes) > 0 {
		n = min(n, int(r.sizes[r.i%len(r.sizes)]))
		r.i++
	}
	n = copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

// A herdr answer is the bytes before its first newline however the socket hands them
// out; without a newline, what came before the end; nothing but blanks is an unexpected
// end; a line longer than the bound is refused, never cut.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte(`{"id":"1","result":{"type":"pong"}}`+"\n"), []byte{3, 0, 7}, uint16(64))
	f.Add([]byte("abc"), []byte{1}, uint16(10))
	f.Add([]byte(" \n"), []byte{}, uint16(10))
	f.Add([]byte("0123456789\nrest"), []byte{4}, uint16(10))
	f.Fuzz(func(t *testing.T, in, sizes []byte, max uint16) {
		if len(sizes) > 0 && !slices.ContainsFunc(sizes, func(b byte) bool { return b > 0 }) {
			sizes = append(sizes, 1) // a reader that never hands out a byte is not a socket
		}
		got, err := readLine(&chunkReader{b: slices.Clone(in), sizes: sizes}, int(max))
		line, nl := in, false
		if i := bytes.IndexByte(in, '\n'); i >= 0 {
			line, nl = in[:i], true
		}
		switch {
		case nl && len(line)+1 > int(max), !nl && len(line) > int(max):
			if err == nil {
				t.Fatalf("a %d-byte line past the bound %d was taken", len(line), max)
			}
		case !nl && len(bytes.TrimSpace(line)) == 0:
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("blanks then the end: %q, %v; want an unexpected end", got, err)
			}
		default:
			if err != nil || !bytes.Equal(got, line) {
				t.Fatalf("readLine = %q, %v; want %q", got, err, line)
			}
		}
	})
}
