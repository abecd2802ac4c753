package socketapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/socketapi/wire"
)

// Client is a thin client of the orcr socket API. The zero value is usable once Socket
// is set; fields must not change after first use. Each [Client.Call] opens a fresh
// connection and closes it after the single response, as the reference CLI and SDK do;
// [Client.Open] gives a long-lived multiplexed connection for subscriptions.
type Client struct {
	// Socket is the path of orcr.sock.
	Socket string
	// Dial, if set, replaces net.Dialer.DialContext (a test seam).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Timeout bounds a call when ctx has no deadline; 0 means 30 s. Calls to
	// agent.wait and agent.ask are never bounded by it (the server owns that deadline).
	Timeout time.Duration

	ids atomic.Int64
}

// DefaultCallTimeout is the per-request read/write bound used when Client.Timeout is 0.
const DefaultCallTimeout = 30 * time.Second

// unboundedMethods hold the connection until the server decides.
var unboundedMethods = map[string]bool{"agent.wait": true, "agent.ask": true}

func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	if c.Socket == "" {
		return nil, wire.Env("server_unreachable", "no socket path configured")
	}
	fi, err := os.Lstat(c.Socket)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, wire.Env("unsafe_home", fmt.Sprintf("refusing to connect: %s is a symlink", c.Socket))
	}
	dial := c.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	conn, err := dial(ctx, "unix", c.Socket)
	if err != nil {
		return nil, wire.Env("server_unreachable", fmt.Sprintf("cannot connect to %s: %v", c.Socket, errors.Unwrap(err))).Wrap(err)
	}
	return conn, nil
}

// Call sends one request on a fresh connection and decodes the result into result
// (which may be nil, or a *json.RawMessage). A protocol error comes back as *wire.Error.
func (c *Client) Call(ctx context.Context, method string, params any, result any) error {
	if !unboundedMethods[method] {
		if _, ok := ctx.Deadline(); !ok {
			t := c.Timeout
			if t == 0 {
				t = DefaultCallTimeout
			}
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, t)
			defer cancel()
		}
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	frame, err := encodeRequest(c.ids.Add(1), method, params)
	if err != nil {
		return err
	}
	if _, err := conn.Write(frame); err != nil {
		return ioError(ctx, err)
	}
	fr := wire.NewFrameReader(bufio.NewReader(conn), wire.MaxFrame)
	for {
		line, err := fr.Next()
		if err != nil {
			return ioError(ctx, err)
		}
		var rf wire.ReplyFrame
		if err := json.Unmarshal(line, &rf); err != nil {
			return wire.Internal("decode", "cannot decode server reply: "+err.Error())
		}
		if rf.IsEvent() {
			continue
		}
		if e := rf.Err(); e != nil {
			return e
		}
		if result != nil && len(rf.Result) > 0 {
			if err := json.Unmarshal(rf.Result, result); err != nil {
				return wire.Internal("decode", "cannot decode result of "+method+": "+err.Error())
			}
		}
		return nil
	}
}

func encodeRequest(id int64, method string, params any) ([]byte, error) {
	if params == nil {
		params = struct{}{}
	}
	b, err := json.Marshal(struct {
		Protocol int    `json:"protocol"`
		ID       int64  `json:"id"`
		Method   string `json:"method"`
		Params   any    `json:"params"`
	}{wire.Protocol, id, method, params})
	if err != nil {
		return nil, wire.Internal("encode", err.Error())
	}
	if len(b) > wire.MaxFrame {
		// The server would stop reading at the limit and close the connection, which the
		// writer would only see as a broken pipe (docs/protocol.md §1.9).
		return nil, wire.FrameTooLarge(wire.MaxFrame, len(b))
	}
	return append(b, '\n'), nil
}

func ioError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return wire.Env("client_timeout", "no reply from the orcr server in time").Wrap(ctx.Err())
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, wire.ErrTruncatedFrame) {
		return wire.Env("server_unreachable", "connection to the orcr server was lost").Wrap(err)
	}
	if errors.Is(err, wire.ErrFrameTooLarge) {
		return wire.Env("frame_too_large", "server reply exceeds the frame limit").Wrap(err)
	}
	return wire.Env("server_unreachable", "connection to the orcr server ended: "+err.Error()).Wrap(err)
}

// Handshake is the result of server.handshake.
type Handshake struct {
	PID      int    `json:"pid"`
	Protocol int    `json:"protocol"`
	Store    string `json:"store"`
	Ready    bool   `json:"ready"`
}

// Handshake performs the readiness probe. A server speaking another protocol is
// reported as environment_error unsupported_version.
func (c *Client) Handshake(ctx context.Context) (*Handshake, error) {
	var h Handshake
	if err := c.Call(ctx, "server.handshake", nil, &h); err != nil {
		return nil, err
	}
	if h.Protocol != wire.Protocol {
		return nil, wire.Env("unsupported_version",
			fmt.Sprintf("server speaks protocol %d, this client speaks %d", h.Protocol, wire.Protocol),
			"declared_protocol", wire.Protocol, "server_protocol", h.Protocol)
	}
	return &h, nil
}
