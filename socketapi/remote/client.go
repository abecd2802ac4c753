package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// MaxServerFrame is the largest server frame a [Conn] reads: 64 MiB. Session events are
// serialized as-is and can be large; a larger frame ends the connection.
const MaxServerFrame = 64 << 20

// readAhead is how many decoded server frames a Conn holds for [Conn.Next]. While they
// are all unread the background reader stops reading, so the server's flow control
// (replay) or its lagged rule (live tail) sees the slow consumer.
const readAhead = 32

// ErrProto is wrapped by [Dialer.Dial]'s error when the server's hello names a protocol
// version other than [Proto].
var ErrProto = errors.New("remote: unsupported protocol version")

// HandshakeError is [Dialer.Dial]'s error for an HTTP answer that is not a WebSocket
// upgrade (a 404 for an unknown path, a proxy's 502, …). A 401 is reported as an
// [*Error] with code unauthorized instead.
type HandshakeError struct {
	StatusCode int
	Err        error
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("remote: handshake answered HTTP %d: %v", e.StatusCode, e.Err)
}

func (e *HandshakeError) Unwrap() error { return e.Err }

// ErrClosed is returned by [Conn.Next] and the write methods after [Conn.Close].
var ErrClosed = errors.New("remote: connection closed")

// Dialer opens connections to orcr's remote stream, GET /agents/{agent_id}/ws
// (docs/remote.md §4). The zero value is usable. Fields must not change after first use;
// a Dialer is safe for concurrent use.
type Dialer struct {
	// HTTPClient makes the upgrade request; nil means http.DefaultClient. Set TLS
	// configuration in its Transport.
	HTTPClient *http.Client
	// Header holds extra request headers. Authorization is always set from the token.
	Header http.Header

	// backoffMin and backoffMax bound Stream's re-dial delays; zero means
	// defaultBackoffMin and defaultBackoffMax (a test seam).
	backoffMin, backoffMax time.Duration
}

// Dial connects to base ("http://host:port", "https://…", "ws://…" or "wss://…", with an
// optional path prefix) for agentID, sending "Authorization: Bearer <token>", reads the
// hello frame and returns the connection. ctx bounds the handshake and the hello only.
//
// An unauthorized answer (the server sends one error frame and closes, or a proxy
// answers HTTP 401) is returned as an [*Error] with code unauthorized; any other error
// frame in place of hello likewise as an [*Error]. Another HTTP answer that is not an
// upgrade is a [*HandshakeError]; a hello of another protocol version wraps [ErrProto].
func (d *Dialer) Dial(ctx context.Context, base, agentID, token string) (*Conn, error) {
	u, err := streamURL(base, agentID)
	if err != nil {
		return nil, err
	}
	return d.dial(ctx, u, token)
}

func (d *Dialer) dial(ctx context.Context, u, token string) (*Conn, error) {
	h := d.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Authorization", "Bearer "+token)
	ws, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: d.HTTPClient, HTTPHeader: h})
	if err != nil {
		switch {
		case resp != nil && resp.StatusCode == http.StatusUnauthorized:
			return nil, &Error{Code: Unauthorized, Message: "the server answered HTTP 401"}
		case resp != nil && resp.StatusCode != http.StatusSwitchingProtocols:
			return nil, &HandshakeError{StatusCode: resp.StatusCode, Err: err}
		}
		return nil, fmt.Errorf("remote: dial %s: %w", u, err)
	}
	ws.SetReadLimit(MaxServerFrame)
	_, data, err := ws.Read(ctx)
	if err != nil {
		ws.CloseNow()
		return nil, fmt.Errorf("remote: reading hello: %w", err)
	}
	f, err := DecodeServer(data)
	switch f := f.(type) {
	case Hello:
		if f.Proto != Proto {
			ws.Close(websocket.StatusProtocolError, "unsupported proto")
			return nil, fmt.Errorf("%w: the server speaks %d, this client %d", ErrProto, f.Proto, Proto)
		}
		c := &Conn{ws: ws, hello: f, frames: make(chan ServerFrame, readAhead), quit: make(chan struct{})}
		go c.read()
		return c, nil
	case ErrorFrame:
		ws.CloseNow() // the server closes after a refusal at the door
		return nil, f.Err()
	}
	ws.CloseNow()
	if err == nil {
		err = fmt.Errorf("a %T frame", f)
	}
	return nil, fmt.Errorf("remote: the server's first frame is not hello: %w", err)
}

// streamURL joins base and the stream path of agentID.
func streamURL(base, agentID string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("remote: base URL: %w", err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return "", fmt.Errorf("remote: base URL %q: the scheme must be http, https, ws or wss", base)
	}
	if u.Host == "" {
		return "", fmt.Errorf("remote: base URL %q has no host", base)
	}
	if agentID == "" {
		return "", errors.New("remote: no agent id")
	}
	prefix := strings.TrimSuffix(u.EscapedPath(), "/")
	u, err = u.Parse(prefix + "/agents/" + url.PathEscape(agentID) + "/ws")
	if err != nil {
		return "", fmt.Errorf("remote: agent id %q: %w", agentID, err)
	}
	u.Fragment = ""
	return u.String(), nil
}

// Conn is one open stream connection. A background goroutine reads server frames as
// they come, so the server's pings are answered while the caller is busy between
// [Conn.Next] calls (coder/websocket answers pings only inside a read); it reads at most
// a few frames ahead. A Conn is safe for concurrent use; writes may come from several
// goroutines. A context that ends during a write closes the connection, as
// coder/websocket does.
type Conn struct {
	ws    *websocket.Conn
	hello Hello
	// frames carries decoded server frames; the reader closes it when it stops, after
	// setting err.
	frames chan ServerFrame
	err    error
	// quit is closed by Close.
	quit      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Hello returns the hello frame the connection opened with.
func (c *Conn) Hello() Hello { return c.hello }

// Subscribe asks for the log from fromSeq (inclusive), then the live tail. It replaces
// any earlier subscription; events of the earlier one may still arrive first.
func (c *Conn) Subscribe(ctx context.Context, fromSeq int64) error {
	return c.send(ctx, Subscribe{FromSeq: fromSeq})
}

// Inject sends text to the agent; wake starts a turn on an idle agent.
func (c *Conn) Inject(ctx context.Context, text string, wake bool) error {
	return c.send(ctx, Inject{Text: text, Wake: wake})
}

// Cancel asks for a cooperative stop of the running turn; reason may be empty.
func (c *Conn) Cancel(ctx context.Context, reason string) error {
	return c.send(ctx, Cancel{Reason: reason})
}

// Approve approves the parked tool call callID; reason may be empty.
func (c *Conn) Approve(ctx context.Context, callID, reason string) error {
	return c.send(ctx, Approve{CallID: callID, Reason: reason})
}

// Deny denies the parked tool call callID; reason may be empty.
func (c *Conn) Deny(ctx context.Context, callID, reason string) error {
	return c.send(ctx, Deny{CallID: callID, Reason: reason})
}

// SetModel repoints model role role at the provider model spec spec.
func (c *Conn) SetModel(ctx context.Context, role, spec string) error {
	return c.send(ctx, SetModel{Role: role, Spec: spec})
}

// SetPolicy replaces the agent's tool allow list with patterns.
func (c *Conn) SetPolicy(ctx context.Context, patterns []string) error {
	return c.send(ctx, SetPolicy{Patterns: patterns})
}

// send encodes f and writes it. A frame the server would refuse is not sent: the
// [*FrameError] of [DecodeClient] is returned instead.
func (c *Conn) send(ctx context.Context, f ClientFrame) error {
	data, err := encode(f)
	if err != nil {
		return err
	}
	if _, err := DecodeClient(data); err != nil {
		return err
	}
	return c.WriteRaw(ctx, data)
}

// WriteRaw writes data as one text frame, unchecked: for tests of the server's
// bad_frame answers.
func (c *Conn) WriteRaw(ctx context.Context, data []byte) error {
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		if c.closed() {
			return ErrClosed
		}
		return fmt.Errorf("remote: write: %w", err)
	}
	return nil
}

// Next returns the next server frame: an [Event], [Hello], [ReplayTruncated],
// [ErrorFrame] or [UnknownFrame]. An error frame after which the server closes is
// returned as a frame; the following Next reports the close. Once the connection is
// gone every call returns the same error: [ErrClosed] after [Conn.Close], otherwise one
// wrapping coder/websocket's (websocket.CloseStatus reads the close code from it). When
// ctx ends first, Next returns ctx.Err() and the connection stays usable.
func (c *Conn) Next(ctx context.Context) (ServerFrame, error) {
	select {
	case f, ok := <-c.frames:
		if !ok {
			return nil, c.err
		}
		return f, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close closes the connection with a normal closure and waits for the background reader
// to stop. It is idempotent; later calls return what the first returned.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.quit)
		err := c.ws.Close(websocket.StatusNormalClosure, "")
		for range c.frames { // wait for the reader, dropping what it still held
		}
		if err != nil && !errors.Is(err, net.ErrClosed) {
			c.closeErr = fmt.Errorf("remote: close: %w", err)
		}
	})
	return c.closeErr
}

func (c *Conn) closed() bool {
	select {
	case <-c.quit:
		return true
	default:
		return false
	}
}

// read is the background reader: it decodes frames into c.frames until the connection
// ends or Close is called.
func (c *Conn) read() {
	defer close(c.frames)
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			c.err = fmt.Errorf("remote: connection lost: %w", err)
			if c.closed() {
				c.err = ErrClosed
			}
			return
		}
		f, err := DecodeServer(data)
		if err != nil {
			c.ws.CloseNow()
			c.err = fmt.Errorf("remote: bad server frame: %w", err)
			return
		}
		select {
		case c.frames <- f:
		case <-c.quit:
			c.err = ErrClosed
			return
		}
	}
}
