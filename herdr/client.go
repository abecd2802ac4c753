package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Wire limits and timings of herdr's socket (docs/herdr.md §2, docs/config.md §1.8).
const (
	// DefaultTimeout is the per-call socket deadline (herdr socket I/O timeout).
	DefaultTimeout = 15 * time.Second
	// DefaultTakenWithin is how long herdr may leave a request untouched before a call
	// gives up on it as not answering (docs/herdr.md §2).
	DefaultTakenWithin = time.Second
	// MaxRequest is herdr's request line limit; larger requests are refused client-side.
	MaxRequest = 1 << 20
	// MaxResponse caps how much of one response line the client reads.
	MaxResponse = 32 << 20
	// connectTries and connectBackoff: connect failures (ENOENT, ECONNREFUSED) are
	// retried 4 times in all, 100 ms apart and doubling.
	connectTries   = 4
	connectBackoff = 100 * time.Millisecond
)

// MinProtocol is the lowest herdr protocol the handshake accepts (docs/decisions.md D3).
const MinProtocol = 16

const requestIDPrefix = "orcr:"

// ErrRequestTooLarge is returned (wrapped) when an encoded request exceeds [MaxRequest].
var ErrRequestTooLarge = errors.New("herdr: request exceeds 1 MiB")

// Error is an error response from herdr: {"code": …, "message": …}. Code is herdr's
// stable snake_case code (pane_not_found, invalid_request, …); Message is human text.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Method is the method that was called; not part of herdr's answer.
	Method string `json:"-"`
}

func (e *Error) Error() string {
	if e.Method != "" {
		return "herdr " + e.Method + ": " + e.Code + ": " + e.Message
	}
	return "herdr: " + e.Code + ": " + e.Message
}

// IsCode reports whether err is (or wraps) a herdr [Error] with the given code.
func IsCode(err error, code string) bool {
	var he *Error
	return errors.As(err, &he) && he.Code == code
}

// WireError converts any error of this package to orcr's protocol error: a
// [*wire.Error] passes through, a herdr [*Error] becomes environment_error
// cause herdr_error with details.herdr_code, anything else herdr_error too.
func WireError(err error) *wire.Error {
	if err == nil {
		return nil
	}
	if we, ok := wire.As(err); ok {
		return we
	}
	var he *Error
	if errors.As(err, &he) {
		return wire.Env(wire.CauseHerdrError, he.Error(), "herdr_code", he.Code).Wrap(err)
	}
	return wire.Env(wire.CauseHerdrError, err.Error()).Wrap(err)
}

// IsUnreachable reports whether err says the herdr session could not be reached.
func IsUnreachable(err error) bool {
	return wire.Is(err, wire.EnvironmentError, wire.CauseHerdrUnreachable)
}

// ErrNotSent marks a call that failed before its request reached herdr: its connection
// was not made (refused, absent, or not accepted in time while herdr was slow to accept
// a burst of calls), its deadline passed before it connected or while it waited its
// turn, or the session's connection was down or stopped while it waited. Trying it
// again cannot make anything twice (docs/herdr.md §2.2).
// Test with errors.Is; the error is still the herdr_unreachable it was.
var ErrNotSent = errors.New("herdr: the request was not sent")

// notSent marks err with [ErrNotSent], keeping its message and what it wraps.
func notSent(err error) error {
	if err == nil || errors.Is(err, ErrNotSent) {
		return err
	}
	return notSentError{err}
}

type notSentError struct{ error }

func (e notSentError) Unwrap() []error { return []error{e.error, ErrNotSent} }

// herdrSlow reports whether err is a call that herdr did not accept in time (its
// accept backlog full under a burst of calls) or took and did not answer within the
// call's deadline (its application thread busy with earlier work): herdr is slow,
// which is not a sign that its session is gone. A request herdr left unread (frozen,
// not answering) is not slow.
func herdrSlow(err error) bool {
	if errors.Is(err, errNotTaken) {
		return false
	}
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Client makes single herdr socket calls: dial, one request line, one response line,
// close (docs/herdr.md §2). The zero value needs only Socket. Fields must not
// change after first use. A Client is safe for concurrent use.
type Client struct {
	// Socket is the session's API socket path.
	Socket string
	// Timeout is the deadline for one call; 0 means [DefaultTimeout]. A negative value
	// means no deadline (long waits that end when ctx is cancelled).
	Timeout time.Duration
	// TakenWithin bounds how long herdr may leave the request unread: when for that
	// long it has taken nothing more of it, the call fails as not answering
	// ([DefaultTakenWithin] when 0; negative: no bound). herdr reads a request as soon as
	// the connection comes (its own 5 s line limit), even while its app thread is busy
	// with earlier work, so only a herdr that does not run (SIGSTOP, a hung process)
	// leaves it there; an answer that comes late after herdr took the request is
	// waited for up to Timeout. The check needs the socket's unread-bytes count (Linux);
	// elsewhere only Timeout applies.
	TakenWithin time.Duration
	// Dial replaces net.Dialer.DialContext (a test seam).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Slots, when not nil, bounds the calls in flight through this client (and its
	// copies) to its capacity: a call takes a slot before it dials and gives it back
	// once it has its answer. A call whose ctx ends while it waits for a slot sent
	// nothing and is marked [ErrNotSent] (docs/herdr.md §2.4).
	Slots chan struct{}
}

var requestSeq atomic.Uint64

// Call sends method with params (nil means {}) and returns the raw result object. When
// wantTag is not empty the result's "type" must equal it. Herdr error responses come
// back as [*Error]; their id is not checked (herdr answers id "" when the envelope did
// not parse, and one request per connection correlates enough). Connection failures are
// retried briefly and then reported as environment_error cause herdr_unreachable, as
// is a call that exceeds its deadline. Cancelling ctx closes the connection, which is
// how herdr's long waits are cancelled: nothing is ever written after the request line.
func (c *Client) Call(ctx context.Context, method string, params any, wantTag string) (json.RawMessage, error) {
	resp, _, err := c.exchange(ctx, method, params)
	if err != nil {
		return nil, err
	}
	return DecodeResponse(method, resp, wantTag)
}

// exchange is Call's socket part: it sends the request and returns herdr's answer line
// undecoded, with the request's id.
func (c *Client) exchange(ctx context.Context, method string, params any) (resp []byte, id string, err error) {
	id = requestIDPrefix + strconv.FormatUint(requestSeq.Add(1), 10)
	line, err := encodeRequestID(id, method, params)
	if err != nil {
		return nil, id, err
	}
	resp, err = c.send(ctx, method, line)
	return resp, id, err
}

func (c *Client) send(ctx context.Context, method string, line []byte) ([]byte, error) {
	if c.Slots != nil {
		select {
		case c.Slots <- struct{}{}:
			defer func() { <-c.Slots }()
		case <-ctx.Done():
			return nil, notSent(ctx.Err())
		}
	}
	conn, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout > 0 {
		_ = conn.SetDeadline(time.Now().Add(timeout))
	}
	tw := c.watchTaken(conn)
	defer tw.stop()
	if err := tw.write(line); err != nil {
		return nil, c.ioError(ctx, method, tw.cause(err))
	}
	resp, err := readLine(conn, MaxResponse)
	if err != nil {
		return nil, c.ioError(ctx, method, tw.cause(err))
	}
	return resp, nil
}

// takeTick is how often a call looks whether herdr took more of its request.
const takeTick = 100 * time.Millisecond

// writeChunk is the size of the writes a request goes out in, so the watch sees a
// write blocked on a full socket buffer make progress as herdr reads.
const writeChunk = 32 << 10

// errNotTaken is the cause of a call herdr left unread for TakenWithin.
var errNotTaken = errors.New("herdr is not answering: it did not read the request")

// takeWatch is one call's watch on herdr taking its request ([Client.TakenWithin]):
// a goroutine that samples, every takeTick, the bytes written and the bytes still
// unread in the socket, and closes the connection when neither moved for
// TakenWithin while some of the request was still unread. It ends once herdr took
// the whole request, or with the call.
type takeWatch struct {
	conn     net.Conn
	within   time.Duration
	written  atomic.Int64
	wrote    atomic.Bool
	stalled  atomic.Bool
	done     chan struct{}
	finished chan struct{}
}

func (c *Client) watchTaken(conn net.Conn) *takeWatch {
	w := &takeWatch{conn: conn, within: c.TakenWithin}
	if w.within == 0 {
		w.within = DefaultTakenWithin
	}
	if w.within < 0 {
		return w
	}
	if _, ok := unreadBytes(conn); !ok {
		return w
	}
	w.done, w.finished = make(chan struct{}), make(chan struct{})
	go w.run()
	return w
}

func (w *takeWatch) run() {
	defer close(w.finished)
	t := time.NewTicker(takeTick)
	defer t.Stop()
	last, lastW, lastQ := time.Now(), int64(0), -1
	for {
		var now time.Time
		select {
		case <-w.done:
			return
		case now = <-t.C:
		}
		q, ok := unreadBytes(w.conn)
		if !ok || (q == 0 && w.wrote.Load()) {
			return // closed, or herdr has the whole request
		}
		n := w.written.Load()
		if n > lastW || (lastQ >= 0 && q < lastQ) || q == 0 {
			last = now
		}
		lastW, lastQ = n, q
		if now.Sub(last) >= w.within {
			w.stalled.Store(true)
			w.conn.Close()
			return
		}
	}
}

// write writes line in chunks, counting what the socket took.
func (w *takeWatch) write(line []byte) error {
	for len(line) > 0 {
		n, err := w.conn.Write(line[:min(len(line), writeChunk)])
		w.written.Add(int64(n))
		if err != nil {
			return err
		}
		line = line[n:]
	}
	w.wrote.Store(true)
	return nil
}

// stop ends the watch and waits for its goroutine.
func (w *takeWatch) stop() {
	if w.done != nil {
		close(w.done)
		<-w.finished
	}
}

// cause is err, or errNotTaken when the watch closed the connection.
func (w *takeWatch) cause(err error) error {
	if w.stalled.Load() {
		return fmt.Errorf("%w within %s", errNotTaken, w.within)
	}
	return err
}

// encodeRequestID encodes the request line of method with id.
func encodeRequestID(id, method string, params any) ([]byte, error) {
	if params == nil {
		params = struct{}{}
	}
	line, err := json.Marshal(struct {
		ID     string `json:"id"`
		Method string `json:"method"`
		Params any    `json:"params"`
	}{id, method, params})
	if err != nil {
		return nil, fmt.Errorf("herdr %s: encode request: %w", method, err)
	}
	if len(line)+1 > MaxRequest {
		return nil, fmt.Errorf("herdr %s: %d bytes: %w", method, len(line)+1, ErrRequestTooLarge)
	}
	return append(line, '\n'), nil
}

func (c *Client) connect(ctx context.Context) (net.Conn, error) {
	dial := c.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	backoff := connectBackoff
	var last error
	for try := 1; ; try++ {
		conn, err := dial(ctx, "unix", c.Socket)
		if err == nil {
			return conn, nil
		}
		last = err
		if try >= connectTries || ctx.Err() != nil || !retryableConnect(err) {
			break
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		backoff *= 2
	}
	if ctx.Err() != nil {
		return nil, notSent(ctx.Err())
	}
	return nil, notSent(wire.Env(wire.CauseHerdrUnreachable,
		fmt.Sprintf("herdr session socket %s is unreachable: %v", c.Socket, last),
		"socket", c.Socket).Wrap(last))
}

func retryableConnect(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.EAGAIN)
}

func (c *Client) ioError(ctx context.Context, method string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, errNotTaken) {
		return wire.Env(wire.CauseHerdrUnreachable,
			fmt.Sprintf("herdr %s on %s: %v", method, c.Socket, err),
			"socket", c.Socket, "method", method, "not_answering", true).Wrap(err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return wire.Env(wire.CauseHerdrUnreachable,
			fmt.Sprintf("herdr %s on %s did not answer in time", method, c.Socket),
			"socket", c.Socket, "method", method).Wrap(err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return wire.Env(wire.CauseHerdrUnreachable,
			fmt.Sprintf("herdr %s on %s: connection closed without an answer", method, c.Socket),
			"socket", c.Socket, "method", method).Wrap(err)
	}
	return wire.Env(wire.CauseHerdrUnreachable, fmt.Sprintf("herdr %s on %s: %v", method, c.Socket, err),
		"socket", c.Socket, "method", method).Wrap(err)
}

// readLine reads up to the first newline or EOF, refusing lines over max bytes.
func readLine(r io.Reader, max int) ([]byte, error) {
	// Read straight into one growing buffer: a 1,000-row agent.list answer is about
	// 300 KB, and a bufio.Reader's 64 KB buffer plus the copies out of it cost every
	// call, a small one most of all.
	buf := make([]byte, 0, 4<<10)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		if i := bytes.IndexByte(buf[len(buf):len(buf)+n], '\n'); i >= 0 {
			if len(buf)+i+1 > max { // the line and its newline
				return nil, fmt.Errorf("herdr response exceeds %d bytes", max)
			}
			return buf[:len(buf)+i], nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) > max {
			return nil, fmt.Errorf("herdr response exceeds %d bytes", max)
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			if len(bytes.TrimSpace(buf)) == 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return buf, nil
		default:
			return nil, err
		}
	}
}

// DecodeResponse parses one herdr response line for method: an error envelope becomes
// [*Error], a success envelope yields its result object, whose "type" must equal
// wantTag when wantTag is not empty. Unknown fields are ignored. Malformed input is an
// environment_error cause herdr_error naming the method.
func DecodeResponse(method string, line []byte, wantTag string) (json.RawMessage, error) {
	var env struct {
		ID     *string         `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, badResponse(method, "response is not a JSON object: "+err.Error())
	}
	if env.Error != nil {
		if env.Error.Code == "" {
			return nil, badResponse(method, "error response without a code")
		}
		env.Error.Method = method
		return nil, env.Error
	}
	if len(env.Result) == 0 || bytes.Equal(env.Result, []byte("null")) {
		return nil, badResponse(method, "response has neither result nor error")
	}
	var tag struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(env.Result, &tag); err != nil {
		return nil, badResponse(method, "result is not an object: "+err.Error())
	}
	if wantTag != "" && tag.Type != wantTag {
		return nil, wire.Env(wire.CauseHerdrVersionSkew,
			fmt.Sprintf("herdr %s answered result type %q, orcr expects %q", method, tag.Type, wantTag),
			"method", method, "field", "result.type", "expected", wantTag, "got", tag.Type)
	}
	return env.Result, nil
}

func badResponse(method, why string) error {
	return wire.Env(wire.CauseHerdrError, "herdr "+method+": malformed response: "+why,
		"herdr_code", "bad_response", "method", method)
}
