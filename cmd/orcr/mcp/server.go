// Package mcp is orcr's MCP face (docs/mcp.md): `orcr mcp` serves a set of the socket
// API's verbs as Model Context Protocol tools, over stdio or Streamable HTTP, with the
// official Go SDK. Like `orcr top` it is a thin client of the server's Unix socket
// through the Go SDK ([socketapi.Client]): every tool call is one socket call, made
// with the caller identity of this process's ORCR_ID / ORCR_PATH, so an agent that uses
// the face creates its children under itself exactly as with the CLI. The tools are
// generated from the method table (api.Methods): names, schemas and calls.
//
// Nothing here writes to the output it is given except the MCP transport: on stdio,
// stdout is the protocol.
package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Options configure the face. Only Client is required.
type Options struct {
	// Client is the Go SDK client every tool call goes through. Its caller identity
	// (socketapi.FromEnv) is the caller of every call.
	Client *socketapi.Client
	// Ensure, when set, starts the orcr server (the CLI's auto-start, docs/protocol.md
	// §1.7) and returns once it answers. It is called when a tool call cannot connect
	// to the socket at all; the call is then sent once more.
	Ensure func(ctx context.Context) error
	// Getwd is the working directory a relative or absent cwd argument is resolved
	// against; nil means os.Getwd.
	Getwd func() (string, error)
	// TokenRecheck is how often a request being served over HTTP checks its token again,
	// so that a revocation ends it; 0 means every 5 s.
	TokenRecheck time.Duration
	// Log receives the MCP SDK's own log lines; nil discards them.
	Log *slog.Logger
}

// face is one configured MCP face.
type face struct {
	client  *socketapi.Client
	ensure  func(context.Context) error
	getwd   func() (string, error)
	recheck time.Duration
}

// instructions tell a model what the server is for.
const instructions = "orcr runs AI coding agents (claude, codex) in herdr panes. agent_run starts one and " +
	"returns at once; agent_wait blocks until agents settle; agent_logs with last_response reads the answer; " +
	"agent_ask does all three. Names and relative paths land in your own scope, so agents you start are your " +
	"children. agent_wait with a timeout shorter than your tool-call limit returns timed_out: true when it runs " +
	"out; call it again to keep waiting. Errors carry {\"error\": {code, message, details}} with one of orcr's " +
	"nine error codes."

// NewServer returns the MCP server of the face: one tool per entry of the tool list.
func NewServer(o Options) *sdk.Server { return newFace(o).server(o) }

func newFace(o Options) *face {
	f := &face{client: o.Client, ensure: o.Ensure, getwd: o.Getwd, recheck: o.TokenRecheck}
	if f.getwd == nil {
		f.getwd = os.Getwd
	}
	if f.recheck <= 0 {
		f.recheck = 5 * time.Second
	}
	return f
}

func (f *face) server(o Options) *sdk.Server {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "orcr", Title: "orcr", Version: api.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       log,
		// Tools only: no logging capability (logs never travel over the transport).
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, t := range tools {
		s.AddTool(t.definition(), func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return result(t.call(ctx, f, req.Params.Arguments)), nil
		})
	}
	return s
}

// ServeStdio serves one MCP session on in and out (the process's stdin and stdout)
// until the client closes in or ctx ends; both are a clean end (nil). A line that is no
// JSON-RPC message is answered with a JSON-RPC error and the session goes on; the end
// of in ends the session once every request read before it has been answered
// (docs/mcp.md §1.2).
func ServeStdio(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	s := newStdio(ctx, in, out)
	// The lines are bounded by the line reader (MaxLine), not again by the SDK.
	err := NewServer(o).Run(ctx, &sdk.IOTransport{Reader: s.reader(), Writer: s.writer(), MaxLineLength: -1})
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return err
}

// HTTPPath is where [ServeHTTP] serves the Streamable HTTP endpoint.
const HTTPPath = "/mcp"

// HTTPSessionIdle is how long an MCP-over-HTTP session may go without a request before
// it is closed (docs/mcp.md §1).
const HTTPSessionIdle = 30 * time.Minute

// ServeHTTP serves the MCP Streamable HTTP transport at [HTTPPath] on ln until ctx
// ends (a clean end, nil). Every session speaks for this process's caller identity.
// Every request must carry a live MCP token as its bearer credential (docs/mcp.md
// §1.1), or it is answered 401 before the MCP SDK sees it. The SDK's DNS-rebinding
// protection stays on: a request that reached a loopback address with a Host header
// naming another host is refused.
func ServeHTTP(ctx context.Context, o Options, ln net.Listener) error {
	f := newFace(o)
	s := f.server(o)
	mux := http.NewServeMux()
	// A client that goes away without ending its session would otherwise keep it (and
	// its goroutines) for the life of the process.
	opts := &sdk.StreamableHTTPOptions{SessionTimeout: HTTPSessionIdle}
	mux.Handle(HTTPPath, f.authorize(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, opts)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() { hs.Close() })
	defer stop()
	err := hs.Serve(ln)
	// The sessions outlive the listener: end them with it.
	for ss := range s.Sessions() {
		ss.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// authorize lets through to h only a request whose Authorization header is "Bearer
// <token>" with a live MCP token, which the orcr server checks in constant time
// (mcp.auth; the server is auto-started like for a tool call). Any other request gets
// 401 with WWW-Authenticate: Bearer; a check that cannot reach the server gets 503.
// Loopback TCP is reachable by every local user, so the token is the boundary. Nothing
// here logs the header.
func (f *face) authorize(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearer(r.Header.Get("Authorization"))
		if ok {
			res, err := invoke(r.Context(), f, func(ctx context.Context) (api.MCPAuthResult, error) {
				return f.client.MCPAuth(ctx, api.MCPAuthRequest{Token: token})
			})
			if err != nil {
				http.Error(w, "orcr mcp: cannot check the token with the orcr server: "+wire.From(err, wire.CauseMCP).Message,
					http.StatusServiceUnavailable)
				return
			}
			ok = res.OK
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="orcr mcp"`)
			http.Error(w, "orcr mcp: a bearer token from `orcr mcp token` is required", http.StatusUnauthorized)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go f.watchToken(ctx, token, cancel)
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// watchToken checks token again every f.recheck while its request is served (ctx) and
// ends the request (cancel) once the server says it is no longer live: a rotation or
// revocation reaches a stream opened before it. A check that fails is no verdict.
func (f *face) watchToken(ctx context.Context, token string, cancel context.CancelFunc) {
	t := time.NewTicker(f.recheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if res, err := f.client.MCPAuth(ctx, api.MCPAuthRequest{Token: token}); err == nil && !res.OK {
			cancel()
			return
		}
	}
}

// bearer is the token of an Authorization header "Bearer <token>" (the scheme in any
// case, RFC 6750 §2.1).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// Listen binds the TCP address of `orcr mcp --http`: host:port, :port or a bare port.
// Only loopback hosts are accepted (127.0.0.0/8, ::1, localhost, which binds
// 127.0.0.1); no host means 127.0.0.1. Anything else is invalid_request not_loopback:
// loopback keeps the endpoint off the network, though not from the machine's other
// users, whom the bearer token keeps out ([ServeHTTP]). A bind that fails is
// environment_error listen_failed.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		if _, perr := strconv.ParseUint(addr, 10, 16); perr != nil {
			return nil, wire.Invalid(wire.ReasonBadAddress, "--http wants host:port, :port or a port, not "+strconv.Quote(addr), "value", addr)
		}
		host, port = "", addr
	}
	switch ip := net.ParseIP(host); {
	case host == "" || host == "localhost":
		host = "127.0.0.1"
	case ip == nil || !ip.IsLoopback():
		return nil, wire.Invalid(wire.ReasonNotLoopback, "orcr mcp --http binds loopback addresses only (127.0.0.1, ::1, localhost), not "+
			strconv.Quote(host), "value", addr)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, wire.Env(wire.CauseListenFailed, "cannot listen on "+net.JoinHostPort(host, port)+": "+err.Error(), "address", addr).Wrap(err)
	}
	return ln, nil
}
