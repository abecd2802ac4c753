// Package ws is orcr's remote face (docs/remote.md): an HTTP listener, off by default,
// serving one WebSocket per agent at GET /agents/{agent_id}/ws, GET /healthz and the web
// dashboard (docs/dashboard.md: GET /, its assets, its fleet feed and actions). It only
// frames, dispatches and encodes: the token and session checks, the connection actor
// (one connection per agent, replay-then-tail, the replay gate, lagged) and the client
// frames' and actions' use cases are in package actors, behind the facade.
package ws

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/remote"
)

// Facade is what the face needs of the use cases (actors.System implements it).
type Facade interface {
	CheckStreamToken(ctx context.Context, agent, token string) (string, error)
	OpenStream(ctx context.Context, agent, hash string, sink actors.StreamSink) (*actors.Stream, error)
	StreamFrame(ctx context.Context, agent string, f remote.ClientFrame) error
	DashboardFacade
}

// finalGrace bounds how long a closing connection may take to write its last frame.
const finalGrace = 5 * time.Second

// Server is a running listener.
type Server struct {
	cfg    config.Remote
	facade Facade
	log    *slog.Logger
	ln     net.Listener
	http   *http.Server
	ctx    context.Context // canceled by Close: every connection ends
	cancel context.CancelFunc
	conns  sync.WaitGroup
	frames sync.WaitGroup // goroutines serving client frames through the facade
}

// Bind opens the listener of cfg (cfg.Listen must be set and pass
// [config.Remote.CheckListen]) without serving on it: the server binds it before it
// touches its log or its store, so that a refused start creates nothing (docs/remote.md
// §1). A bind or certificate failure is environment_error config_invalid.
func Bind(cfg config.Remote) (net.Listener, error) {
	if err := cfg.CheckListen(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, wire.Env(wire.CauseConfigInvalid, "cannot listen on remote.listen `"+cfg.Listen+"`: "+err.Error())
	}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			ln.Close()
			return nil, wire.Env(wire.CauseConfigInvalid, "cannot load remote.tls_cert / remote.tls_key: "+err.Error())
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	return ln, nil
}

// Serve serves the listener ln of cfg (from [Bind]) with facade.
func Serve(ln net.Listener, cfg config.Remote, facade Facade, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, facade: facade, log: log, ln: ln}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`+"\n")
	})
	mux.HandleFunc("GET /agents/{agent_id}/ws", s.serveStream)
	s.routeDashboard(mux)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("remote: listener failed", "err", err)
		}
	}()
	log.Info("remote: listening", "address", s.Addr(), "tls", cfg.TLSCert != "")
	return s
}

// Addr is the address the listener is bound to.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// TLS reports whether the listener speaks TLS.
func (s *Server) TLS() bool { return s.cfg.TLSCert != "" }

// Close stops accepting, ends every connection and waits for them and for the client
// frames still being served (bounded by ctx); the actors they talk to are still up.
func (s *Server) Close(ctx context.Context) {
	s.cancel()
	s.http.Shutdown(ctx)
	done := make(chan struct{})
	go func() { s.conns.Wait(); s.frames.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// serveStream serves one WebSocket: the token first (before the agent is resolved),
// then hello, then the reader loop; the writer and the heartbeat run beside it.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request) {
	s.conns.Add(1)
	defer s.conns.Done()
	// A bearer token is never sent by a browser on its own, so a page of another origin
	// gains nothing and origins are not checked. Without one, the dashboard's session
	// cookie is the credential (docs/dashboard.md §2): a browser sends it on a cross-site
	// handshake too (SameSite aside), so then the Origin must be this host, and a
	// handshake without one is refused like one from elsewhere.
	token := bearer(r)
	cookie := token == "" && s.session(r) != ""
	if cookie && !s.sameOrigin(r) {
		forbidOrigin(w)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: !cookie})
	if err != nil {
		return
	}
	c.SetReadLimit(-1)
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	agent := r.PathValue("agent_id")
	var hash string
	if cookie {
		hash, err = s.facade.CheckDashboardStream(ctx, agent, s.session(r))
	} else {
		hash, err = s.facade.CheckStreamToken(ctx, agent, token)
	}
	if err != nil {
		if !errors.Is(err, actors.ErrUnauthorized) {
			s.log.Error("remote: token check failed", "err", err)
		}
		s.refuse(ctx, c, remote.Unauthorized, "bad, missing or revoked token for this agent")
		return
	}
	sink := newSink(s.cfg.OutboundQueue)
	st, err := s.facade.OpenStream(ctx, agent, hash, sink)
	if err != nil {
		s.log.Error("remote: cannot open a stream", "agent", agent, "err", err)
		s.refuse(ctx, c, remote.Internal, "the server cannot open this agent's stream")
		return
	}
	hello, _ := remote.NewHello(st.Agent, st.LastSeq).MarshalJSON()
	sink.Enqueue(hello)
	if err := st.Start(); err != nil {
		s.log.Error("remote: cannot start a stream connection", "agent", agent, "err", err)
		s.refuse(ctx, c, remote.Internal, "the server cannot open this agent's stream")
		return
	}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		sink.run(ctx, c)
		cancel()
	}()
	go s.heartbeat(ctx, c)
	s.read(ctx, c, st, sink)
	st.Gone()
	sink.Close(nil)
	<-writerDone
}

// refuse sends one error frame and closes the connection (policy violation for
// unauthorized, internal error otherwise).
func (s *Server) refuse(ctx context.Context, c *websocket.Conn, code remote.Code, msg string) {
	b, _ := remote.ErrorFrame{Code: code, Message: msg}.MarshalJSON()
	wctx, cancel := context.WithTimeout(ctx, finalGrace)
	defer cancel()
	c.Write(wctx, websocket.MessageText, b)
	status := websocket.StatusInternalError
	if code == remote.Unauthorized {
		status = websocket.StatusPolicyViolation
	}
	c.Close(status, string(code))
}

// read decodes client frames in arrival order until the connection ends. Frames over
// remote.MaxFrame are drained and answered bad_frame; the connection stays open.
func (s *Server) read(ctx context.Context, c *websocket.Conn, st *actors.Stream, sink *sink) {
	for {
		typ, rd, err := c.Reader(ctx)
		if err != nil {
			return
		}
		data, err := io.ReadAll(io.LimitReader(rd, remote.MaxFrame+1))
		if err != nil {
			return
		}
		if len(data) > remote.MaxFrame {
			if _, err := io.Copy(io.Discard, rd); err != nil {
				return
			}
			s.badFrame(sink, "frame larger than 1 MiB")
			continue
		}
		if typ != websocket.MessageText {
			s.badFrame(sink, "frames are JSON text frames")
			continue
		}
		f, err := remote.DecodeClient(data)
		if err != nil {
			s.badFrame(sink, err.Error())
			continue
		}
		if sub, ok := f.(remote.Subscribe); ok {
			st.Subscribe(sub.FromSeq)
			continue
		}
		s.frames.Add(1)
		go func() {
			defer s.frames.Done()
			if err := s.facade.StreamFrame(ctx, st.Agent, f); err != nil {
				code, msg := remote.Internal, err.Error()
				var fe *actors.StreamError
				if errors.As(err, &fe) {
					code, msg = remote.Code(fe.Code), fe.Message
				} else {
					s.log.Error("remote: a client frame failed", "agent", st.Agent, "type", f.FrameType(), "err", err)
				}
				b, _ := remote.ErrorFrame{Code: code, Message: msg}.MarshalJSON()
				if code.Closes() {
					sink.Close(b)
					return
				}
				sink.Enqueue(b)
			}
		}()
	}
}

func (s *Server) badFrame(sink *sink, msg string) {
	msg = strings.TrimPrefix(msg, "remote: bad_frame: ")
	b, _ := remote.ErrorFrame{Code: remote.BadFrame, Message: msg}.MarshalJSON()
	sink.Enqueue(b)
}

// heartbeat pings every remote.heartbeat; a ping that gets no pong within one interval
// closes the connection (its reader then ends).
func (s *Server) heartbeat(ctx context.Context, c *websocket.Conn) {
	every := s.cfg.Heartbeat
	if every <= 0 {
		every = config.DefaultRemoteHeartbeat
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, every)
		err := c.Ping(pctx)
		cancel()
		if err != nil {
			c.CloseNow()
			return
		}
	}
}
