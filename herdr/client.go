package herdr

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/socketapi/wire"
)

// Wire limits and timings of herdr's socket (docs/herdr.md §2, docs/config.md §1.8).
const (
	// DefaultTimeout is the per-call socket deadline (herdr socket I/O timeout).
	DefaultTimeout = 15 * time.Second
	// MaxRequest is herdr's request line limit; larger requests are refused client-side.
	MaxRequest = 1 << 20
	// MaxResponse caps how much of one response line the client reads.
	MaxResponse = 32 << 20
	// connectTries and connectBackoff: connect failures (ENOENT, ECONNREFUSED) are
	// retried 4 times in all, 100 ms apart and doubling.
	connectTries   = 4
	connectBackoff = 100 * time.Millisecond
)

// Cause values of the environment errors this package returns (docs/protocol.md §9.3).
const (
	CauseUnreachable = "herdr_unreachable"
	CauseVersionSkew = "herdr_version_skew"
	CauseMissing     = "herdr_missing"
	CauseHerdrError  = "herdr_error"
	CauseStartFailed = "server_start_failed"
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
		return wire.Env(CauseHerdrError, he.Error(), "herdr_code", he.Code).Wrap(err)
	}
	return wire.Env(CauseHerdrError, err.Error()).Wrap(err)
}

// IsUnreachable reports whether err says the herdr session could not be reached.
func IsUnreachable(err error) bool {
	return wire.Is(err, wire.EnvironmentError, CauseUnreachable)
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
	// Dial replaces net.Dialer.DialContext (a test seam).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
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
	line, err := encodeRequest(method, params)
	if err != nil {
		return nil, err
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
	if _, err := conn.Write(line); err != nil {
		return nil, c.ioError(ctx, method, err)
	}
	resp, err := readLine(conn, MaxResponse)
	if err != nil {
		return nil, c.ioError(ctx, method, err)
	}
	return DecodeResponse(method, resp, wantTag)
}

func encodeRequest(method string, params any) ([]byte, error) {
	return encodeRequestID(requestIDPrefix+strconv.FormatUint(requestSeq.Add(1), 10), method, params)
}

// encodeRequestID is encodeRequest with the id given.
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
		return nil, ctx.Err()
	}
	return nil, wire.Env(CauseUnreachable,
		fmt.Sprintf("herdr session socket %s is unreachable: %v", c.Socket, last),
		"socket", c.Socket).Wrap(last)
}

func retryableConnect(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.EAGAIN)
}

func (c *Client) ioError(ctx context.Context, method string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return wire.Env(CauseUnreachable,
			fmt.Sprintf("herdr %s on %s did not answer in time", method, c.Socket),
			"socket", c.Socket, "method", method).Wrap(err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return wire.Env(CauseUnreachable,
			fmt.Sprintf("herdr %s on %s: connection closed without an answer", method, c.Socket),
			"socket", c.Socket, "method", method).Wrap(err)
	}
	return wire.Env(CauseUnreachable, fmt.Sprintf("herdr %s on %s: %v", method, c.Socket, err),
		"socket", c.Socket, "method", method).Wrap(err)
}

// readLine reads up to the first newline or EOF, refusing lines over max bytes.
func readLine(r io.Reader, max int) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > max {
			return nil, fmt.Errorf("herdr response exceeds %d bytes", max)
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(buf, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
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
		return nil, wire.Env(CauseVersionSkew,
			fmt.Sprintf("herdr %s answered result type %q, orcr expects %q", method, tag.Type, wantTag),
			"method", method, "field", "result.type", "expected", wantTag, "got", tag.Type)
	}
	return env.Result, nil
}

func badResponse(method, why string) error {
	return wire.Env(CauseHerdrError, "herdr "+method+": malformed response: "+why,
		"herdr_code", "bad_response", "method", method)
}
