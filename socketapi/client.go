package socketapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Client is the Go SDK of the orcr socket API: one typed method per method of the table
// ([api.Methods]), the streams [Client.Watch] and [Client.FollowLogs], and [Client.Call]
// for any method by name. The zero value is usable: it talks to the server of the home
// ORCR_HOME names (default ~/.orcr). [FromEnv] builds the client of code running inside
// an agent pane or a loop run; [Client.Scope] a client whose paths live in a scope.
// Fields must not change after first use; a Client is safe for concurrent use. Each call
// opens a fresh connection and closes it after the single response, as the reference CLI
// and SDK do; a stream holds its own connection until it ends.
type Client struct {
	// Socket is the path of orcr.sock ("": the socket of the ORCR_HOME home).
	Socket string
	// Dial, if set, replaces net.Dialer.DialContext (a test seam).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Timeout bounds a call when ctx has no deadline; 0 means 30 s. Calls to
	// agent.wait and agent.ask are never bounded by it (the server owns that deadline).
	// With OnProgress set it bounds the wait for the next frame instead: a call whose
	// server keeps reporting progress does not time out.
	Timeout time.Duration
	// OnProgress, when set, asks every call for progress frames (docs/protocol.md
	// §2.7) and is told each one: method and how far it has come. The CLI prints them
	// on stderr.
	OnProgress func(method string, p wire.Progress)
	// FollowInterval is the polling interval of FollowLogs; 0 means 500 ms.
	FollowInterval time.Duration
	// Spawn, when set, starts a detached server (as [Client.EnsureRunning]'s spawn): a
	// blocking call whose server went away starts one with it, as the CLI's auto-start
	// does. nil: such a call waits for a server to answer again ([Client.Reconnect]).
	Spawn func() (Spawned, error)
	// OnResume, when set, is told each time a blocking call of method lost its server
	// and goes on with the server pid that answered again (the CLI notes it on stderr).
	OnResume func(method string, pid int)

	ids atomic.Int64
	// lineage is the caller identity sent with every agent verb ([FromEnv]).
	lineage Lineage
	// scope, when scoped, is the absolute scope (no leading /) paths compose under.
	scope  string
	scoped bool
	// host, when set, is the fleet member every call goes to ([Client.OnHost]).
	host string
}

// DefaultCallTimeout is the per-request read/write bound used when Client.Timeout is 0.
const DefaultCallTimeout = 30 * time.Second

func (c *Client) socket() (string, error) {
	if c.Socket != "" {
		return c.Socket, nil
	}
	home, err := config.ResolveHome(os.Getenv)
	if err != nil {
		return "", err
	}
	return config.NewPaths(home).Socket, nil
}

func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	socket, err := c.socket()
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(socket)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, wire.Env(wire.CauseUnsafeHome, fmt.Sprintf("refusing to connect: %s is a symlink", socket))
	}
	dial := c.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	conn, err := dial(ctx, "unix", socket)
	if err != nil {
		return nil, wire.Env(wire.CauseServerUnreachable, fmt.Sprintf("cannot connect to %s: %v", socket, errors.Unwrap(err))).Wrap(err)
	}
	return conn, nil
}

// Call sends one request for any method by name, untyped, on a fresh connection and
// decodes the result into result (which may be nil, or a *json.RawMessage). params go as
// given: no caller identity or scope is added. A protocol error comes back as
// *[api.Error].
func (c *Client) Call(ctx context.Context, method string, params any, result any) error {
	unbounded := false
	if m, ok := api.Lookup(method); ok {
		unbounded = m.Info().Unbounded
	}
	return c.call(ctx, method, unbounded, params, result)
}

// call is one request/response exchange that decodes the result into result (nil: not
// decoded).
func (c *Client) call(ctx context.Context, method string, unbounded bool, params any, result any) error {
	line, err := c.exchange(ctx, unbounded, method, params)
	if err != nil {
		return err
	}
	if result != nil {
		// One pass over the line: the result decodes straight into result, not into a
		// copy decoded a second time (a 100-agent ls is ~30 KB). Anything amiss goes
		// the two-step way below, which says which part failed.
		var f struct {
			OK     *bool       `json:"ok"`
			Error  *wire.Error `json:"error"`
			Result any         `json:"result"`
		}
		f.Result = result
		if json.Unmarshal(line, &f) == nil {
			if f.OK != nil && *f.OK {
				return nil
			}
			return (&wire.ReplyFrame{OK: f.OK, Error: f.Error}).Err()
		}
	}
	var rf wire.ReplyFrame
	if err := json.Unmarshal(line, &rf); err != nil {
		return wire.Internal(wire.CauseDecode, "cannot decode server reply: "+err.Error())
	}
	if e := rf.Err(); e != nil {
		return e
	}
	if result != nil && len(rf.Result) > 0 {
		if err := json.Unmarshal(rf.Result, result); err != nil {
			return wire.Internal(wire.CauseDecode, "cannot decode result of "+method+": "+err.Error())
		}
	}
	return nil
}

// exchange sends one request on a fresh connection and returns the line of its
// response (event frames, which a plain call never gets, are skipped). Unless
// unbounded, a ctx without deadline gets the client's call timeout.
func (c *Client) exchange(ctx context.Context, unbounded bool, method string, params any) ([]byte, error) {
	if c.host != "" && !strings.HasPrefix(method, "fleet.") {
		return c.exchangeOnHost(ctx, unbounded, method, params)
	}
	// idle: the call timeout bounds the wait for each frame, not the call; every
	// progress frame moves the deadline on (docs/protocol.md §2.7).
	var idle time.Duration
	progress := c.OnProgress != nil
	if !unbounded {
		if _, ok := ctx.Deadline(); !ok {
			t := c.Timeout
			if t == 0 {
				t = DefaultCallTimeout
			}
			if progress {
				idle = t
			} else {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, t)
				defer cancel()
			}
		}
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if idle > 0 {
		_ = conn.SetDeadline(time.Now().Add(idle))
	}

	frame, err := encodeRequest(c.ids.Add(1), method, params, progress)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(frame); err != nil {
		return nil, ioError(ctx, err)
	}
	fr := wire.NewFrameReaderSize(conn, wire.MaxFrame, 8<<10)
	for {
		line, err := fr.Next()
		if err != nil {
			return nil, ioError(ctx, err)
		}
		var head struct {
			OK           *bool          `json:"ok"`
			Subscription *int64         `json:"subscription"`
			Progress     *wire.Progress `json:"progress"`
		}
		if bytes.HasPrefix(line, []byte(`{"subscription"`)) && json.Unmarshal(line, &head) == nil && head.OK == nil {
			continue // an event frame
		}
		if progress && !bytes.Contains(line, []byte(`"ok"`)) && json.Unmarshal(line, &head) == nil && head.OK == nil && head.Progress != nil {
			if idle > 0 && ctx.Err() == nil {
				_ = conn.SetDeadline(time.Now().Add(idle))
			}
			c.OnProgress(method, *head.Progress)
			continue
		}
		return line, nil
	}
}

func encodeRequest(id int64, method string, params any, progress bool) ([]byte, error) {
	if params == nil {
		params = struct{}{}
	}
	b, err := json.Marshal(struct {
		Protocol int    `json:"protocol"`
		ID       int64  `json:"id"`
		Method   string `json:"method"`
		Progress bool   `json:"progress,omitempty"`
		Params   any    `json:"params"`
	}{wire.Protocol, id, method, progress, params})
	if err != nil {
		return nil, wire.Internal(wire.CauseEncode, err.Error())
	}
	if len(b) > wire.MaxFrame {
		// The server would stop reading at the limit and close the connection, which the
		// writer would only see as a broken pipe (docs/protocol.md §1.9).
		return nil, wire.FrameTooLarge(wire.MaxFrame, len(b))
	}
	return append(b, '\n'), nil
}

func ioError(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
		return wire.Env(wire.CauseClientTimeout, "no reply from the orcr server in time").Wrap(ctx.Err())
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, wire.ErrTruncatedFrame) {
		return wire.Env(wire.CauseServerUnreachable, "connection to the orcr server was lost").Wrap(err)
	}
	if errors.Is(err, wire.ErrFrameTooLarge) {
		return wire.Env(wire.CauseFrameTooLarge, "server reply exceeds the frame limit").Wrap(err)
	}
	return wire.Env(wire.CauseServerUnreachable, "connection to the orcr server ended: "+err.Error()).Wrap(err)
}
