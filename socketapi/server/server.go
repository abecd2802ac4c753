package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/gofrs/flock"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/ws"
	"github.com/orcr-go/orcr/store"
)

// Fixed timings (docs/config.md §1.8).
const (
	lockWaitDeadline = 15 * time.Second
	stopFlushGrace   = 150 * time.Millisecond
	// inflightGrace bounds how long a stop waits for canceled requests to answer
	// before connections close (requests stuck on herdr are cut off after it).
	inflightGrace = 2 * time.Second
)

// Server is a running orcr server. Start returns one; Wait blocks until it stopped.
type Server struct {
	opts    Options
	getenv  func(string) string
	paths   config.Paths
	cfg     *config.Config
	log     *slog.Logger
	logFile *rotatingFile
	started time.Time

	lock     *flock.Flock
	db       *store.DB
	system   *actors.System // the facade every handler calls
	sys      *actor.ActorSystem
	ln       *net.UnixListener
	maxFrame int

	handlers map[string]handler
	schema   map[string]any // the api.schema document of the method table
	debug    bool

	ctx      context.Context // canceled when shutdown begins
	cancel   context.CancelFunc
	remote   *ws.Server     // the remote stream's listener (nil: off)
	remoteLn net.Listener   // its bound listener, until it serves
	fleet    *fleetFaces    // the fleet (nil: off)
	inflight tracker        // request goroutines
	readers  sync.WaitGroup // connection reader goroutines
	accept   sync.WaitGroup

	mu      sync.Mutex
	conns   map[int64]*connEntry
	connSeq atomic.Int64
	subSeq  atomic.Int64

	stopOnce sync.Once
	stopReq  chan struct{}
	done     chan struct{}
	waitErr  error
}

// remoteCloseGrace bounds closing the remote listener's connections at a stop.
const remoteCloseGrace = 3 * time.Second

type connEntry struct {
	pid *actor.PID
	nc  net.Conn
	w   *connWriter
}

// Start performs the start sequence of docs/protocol.md §1.5 and returns a serving server.
// It returns (nil, OutcomeAlreadyRunning, nil) when another healthy server answers.
func Start(ctx context.Context, opts Options) (*Server, string, error) {
	s := &Server{opts: opts, getenv: opts.Getenv, started: time.Now(), maxFrame: wire.MaxFrame,
		conns: map[int64]*connEntry{}, stopReq: make(chan struct{}), done: make(chan struct{})}
	if s.getenv == nil {
		s.getenv = os.Getenv
	}
	s.paths = config.NewPaths(opts.Home)

	// 1. Home, then config; logs/ and data/ only once the config passed and the remote
	// listener is bound, so that a refused start creates nothing (docs/protocol.md
	// §1.5). A listener setting that would expose the stream unsafely refuses the start
	// (docs/remote.md §1).
	if err := config.EnsureHomeDir(opts.Home); err != nil {
		return nil, "", err
	}
	src, err := config.ReadSource(opts.Home)
	if err != nil {
		return nil, "", err
	}
	cfg, warnings, err := src.Load(s.getenv)
	if err != nil {
		return nil, "", err
	}
	if err := cfg.Remote.CheckListen(); err != nil {
		return nil, "", err
	}
	s.cfg = cfg
	for _, w := range warnings {
		if opts.Warnf != nil {
			opts.Warnf("%s", w)
		}
	}

	// 2. Fast path: a healthy server already answers.
	client := &socketapi.Client{Socket: s.paths.Socket}
	if alreadyRunning(ctx, client) {
		return nil, OutcomeAlreadyRunning, nil
	}

	// 3. Instance lock.
	s.lock = flock.New(s.paths.Lock)
	won, err := s.takeLock(ctx, client)
	if err != nil {
		return nil, "", err
	}
	if !won {
		return nil, OutcomeAlreadyRunning, nil
	}
	fail := func(err error) (*Server, string, error) {
		s.closeResources()
		return nil, "", err
	}

	// The remote listener's address in use or its certificate unreadable refuses the
	// start before anything is created; it serves once the actors are up.
	if cfg.Remote.Listen != "" {
		if s.remoteLn, err = ws.Bind(cfg.Remote); err != nil {
			return fail(err)
		}
	}
	if err := config.EnsureDataDirs(opts.Home); err != nil {
		return fail(err)
	}

	// 4–6. Store, retention, log.
	if err := s.openLog(); err != nil {
		return fail(err)
	}
	db, err := store.Open(s.paths.DB)
	if err != nil {
		return fail(err)
	}
	s.db = db
	s.debug = s.getenv("ORCR_DEBUG_METHODS") == "1"

	// 7. Socket.
	if err := s.bind(); err != nil {
		return fail(err)
	}

	// Actor tree (actors/doc.go).
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.system, err = actors.Start(actors.SystemConfig{
		Home: opts.Home, Paths: s.paths, Config: cfg, ConfigSource: src, Getenv: opts.Getenv, EnvKeys: opts.EnvKeys, Log: s.log, DB: db,
		Version: api.Version, Started: s.started, DeadLetterThrottle: opts.DeadLetterThrottle,
		Retention: config.EventRetention(s.getenv), SystemdRunDir: opts.SystemdRunDir,
	})
	if err != nil {
		s.cancel()
		return fail(err)
	}
	s.sys = s.system.Actors()
	if s.remoteLn != nil {
		s.remote = ws.Serve(s.remoteLn, cfg.Remote, s.system, s.log)
		s.system.SetRemoteListener(s.remote.Addr(), s.remote.TLS())
	}
	if s.fleet, err = s.startFleet(); err != nil {
		s.cancel()
		if s.remote != nil {
			s.remote.Close(context.Background())
		}
		s.system.Stop()
		return fail(err)
	}
	table := opts.Methods
	if table == nil {
		table = api.Methods
	}
	s.schema = api.SchemaOf(table)
	s.handlers = s.methodTable(table)

	// 8. Signals.
	if !opts.NoSignals {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
		go func() {
			select {
			case sig := <-sigs:
				s.log.Info("signal received; stopping", "signal", sig.String())
				s.Stop()
			case <-s.done:
			}
			signal.Stop(sigs)
		}()
	}

	// 10. Accept loop.
	s.accept.Add(1)
	go s.acceptLoop()
	go s.run(ctx)
	s.log.Info("server started", "pid", os.Getpid(), "socket", s.paths.Socket, "store", s.paths.DB, "version", api.Version)
	return s, OutcomeStarted, nil
}

func alreadyRunning(ctx context.Context, c *socketapi.Client) bool {
	return probe(ctx, c) == nil
}

// probe performs one readiness handshake, bounded by 2 s, and returns why it failed.
func probe(ctx context.Context, c *socketapi.Client) error {
	if _, err := os.Lstat(c.Socket); err != nil {
		return err
	}
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := c.Handshake(hctx)
	return err
}

// Backoff between attempts on a held instance lock.
const (
	lockRetryMin = 5 * time.Millisecond
	lockRetryMax = 100 * time.Millisecond
)

// takeLock takes the instance lock, reporting false when another healthy server answers
// instead. A held lock is not final: a stopping server keeps it for a moment after its
// socket stopped answering (it closes the store first), and a server starting in that
// window would otherwise only poll a handshake nobody will answer. So until
// lockWaitDeadline both are retried, the lock with a short doubling backoff and the
// handshake between attempts, and whichever succeeds first decides. At the deadline the
// error is server_start_failed with the last handshake failure.
func (s *Server) takeLock(ctx context.Context, client *socketapi.Client) (bool, error) {
	deadline := time.Now().Add(lockWaitDeadline)
	delay := lockRetryMin
	for {
		ok, err := s.lock.TryLock()
		if err != nil {
			return false, wire.Env(wire.CauseStoreLocked, "cannot take the instance lock "+s.paths.Lock+": "+err.Error()).Wrap(err)
		}
		if ok {
			return true, nil
		}
		last := probe(ctx, client)
		if last == nil {
			return false, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return false, wire.Env(wire.CauseServerStartFailed, "another process holds the instance lock but no server became ready",
				"last_error", last.Error())
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		delay = min(2*delay, lockRetryMax)
	}
}

func (s *Server) openLog() error {
	if s.opts.Log != nil {
		s.log = s.opts.Log
		return nil
	}
	f, err := openRotating(s.paths.ServerLog, s.cfg.Logs.MaxBytes, s.cfg.Logs.MaxFiles)
	if err != nil {
		return wire.Env(wire.CauseHomeCreateFailed, "cannot open "+s.paths.ServerLog+": "+err.Error()).Wrap(err)
	}
	s.logFile = f
	s.log = newFileLog(f)
	return nil
}

// logAttr shapes records as docs/config.md §2.4: {"ts": RFC 3339 UTC, "level": lower, "msg"}.
func logAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		return slog.String("ts", a.Value.Time().UTC().Format(time.RFC3339Nano))
	case slog.LevelKey:
		return slog.String("level", strings.ToLower(a.Value.String()))
	}
	return a
}

// bind validates the socket path, removes a stale same-uid socket (safe: we hold the
// instance lock, so no live server owns it), and binds under umask 077.
func (s *Server) bind() error {
	exists, err := config.CheckSocketPath(s.paths.Socket)
	if err != nil {
		return err
	}
	if exists {
		if err := os.Remove(s.paths.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
			return wire.Env(wire.CauseServerStartFailed, "cannot remove stale socket "+s.paths.Socket+": "+err.Error()).Wrap(err)
		}
	}
	old := syscall.Umask(0o077)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.paths.Socket, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return wire.Env(wire.CauseServerStartFailed, "cannot bind "+s.paths.Socket+": "+err.Error()).Wrap(err)
	}
	ln.SetUnlinkOnClose(false)
	os.Chmod(s.paths.Socket, 0o600)
	s.ln = ln
	return nil
}

func (s *Server) acceptLoop() {
	defer s.accept.Done()
	acceptConns(s.ctx, s.ln, s.log, s.serveConn)
}

// Backoff after a failed accept.
const (
	acceptRetryMin = 5 * time.Millisecond
	acceptRetryMax = time.Second
)

// nextAcceptDelay returns the wait after a failed accept whose previous wait was prev
// (0 after a success): 5 ms, doubling up to 1 s.
func nextAcceptDelay(prev time.Duration) time.Duration {
	if prev == 0 {
		return acceptRetryMin
	}
	return min(2*prev, acceptRetryMax)
}

// acceptConns accepts connections on ln and hands each to serve until ln is closed, ctx
// ends or serve reports false. A failing accept (typically EMFILE: out of file
// descriptors) fails again at once, so it is retried after a delay that doubles from
// 5 ms to 1 s and resets on the next success; retrying at once spun a core and flooded
// the log.
func acceptConns(ctx context.Context, ln net.Listener, log *slog.Logger, serve func(net.Conn) bool) {
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			delay = nextAcceptDelay(delay)
			log.Warn("accept failed; retrying", "err", err, "retry_in", delay)
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		delay = 0
		if !serve(nc) {
			return
		}
	}
}

// serveConn spawns the connection actor of nc. It reports false once shutdown began
// (nc is closed then, and accepting stops).
func (s *Server) serveConn(nc net.Conn) bool {
	if uid, ok := peerIsUser(nc); !ok {
		// Another user reached the socket: it gets no answer (docs/protocol.md §1.3).
		s.log.Warn("refused a connection from another user", "peer_uid", uid)
		nc.Close()
		return true
	}
	id := s.connSeq.Add(1)
	s.mu.Lock()
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		nc.Close()
		return false
	}
	w := newConnWriter(nc)
	s.readers.Add(1) // Done when the connection's reader goroutine exits
	pid, err := s.sys.Root.SpawnNamed(s.connProps(id, nc, w), "conn/"+strconv.FormatInt(id, 10))
	if err != nil {
		s.readers.Done()
		s.mu.Unlock()
		w.Close()
		return true
	}
	s.conns[id] = &connEntry{pid: pid, nc: nc, w: w}
	s.mu.Unlock()
	return true
}

func (s *Server) connGone(id int64) {
	s.mu.Lock()
	delete(s.conns, id)
	s.mu.Unlock()
}

// Stop begins a graceful stop; it does not wait (see Wait).
func (s *Server) Stop() {
	s.stopOnce.Do(func() { close(s.stopReq) })
}

// Wait blocks until the server has stopped and returns the shutdown error, if any.
func (s *Server) Wait() error {
	<-s.done
	return s.waitErr
}

// Socket returns the socket path.
func (s *Server) Socket() string { return s.paths.Socket }

func (s *Server) run(ctx context.Context) {
	select {
	case <-s.stopReq:
	case <-ctx.Done():
	}
	s.shutdown()
}

// shutdown follows docs/protocol.md §1.8 and the order written in actors/doc.go:
// stop accepting; every subscription writes server_stopping; a 150 ms grace lets the
// frames flush; connections close; request goroutines end; the store actor stops last
// (after everything that could write through it); then the database, the socket, the
// lock. Agent panes are never touched.
func (s *Server) shutdown() {
	s.log.Info("server stopping")
	s.mu.Lock()
	s.cancel()
	conns := make([]*connEntry, 0, len(s.conns))
	for _, c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.ln.Close()
	s.accept.Wait()

	// Requests in flight saw the cancel: a blocked agent.wait answers with the current
	// state. Give their replies a moment to leave before connections close.
	idle := s.inflight.close()
	waitFor(idle, inflightGrace)
	for _, c := range conns {
		s.sys.Root.Send(c.pid, stopConn{})
	}
	// Final frames get up to the spec's 150 ms flush grace, all connections together.
	grace := time.NewTimer(stopFlushGrace)
	for _, c := range conns {
		select {
		case <-c.w.Done():
		case <-grace.C:
		}
	}
	grace.Stop()
	for _, c := range conns {
		c.w.Close()
		s.sys.Root.StopFuture(c.pid).Wait()
	}
	// Readers end once their socket is closed; only then can no request goroutine start.
	s.readers.Wait()
	waitFor(idle, 0)
	if s.remote != nil {
		// Stream connections end before the actors they talk to.
		rctx, cancel := context.WithTimeout(context.Background(), remoteCloseGrace)
		s.remote.Close(rctx)
		cancel()
	}
	s.fleet.stopAPI()
	s.system.Stop()
	s.fleet.close()
	s.closeResources()
	s.log.Info("server stopped")
	if s.logFile != nil {
		s.logFile.Close()
	}
	close(s.done)
}

func (s *Server) closeResources() {
	if s.remoteLn != nil && s.remote == nil {
		s.remoteLn.Close()
	}
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	if s.ln != nil {
		os.Remove(s.paths.Socket)
	}
	if s.lock != nil {
		s.lock.Unlock()
	}
}

// writeResponse encodes and queues one response frame.
func (s *Server) writeResponse(w *connWriter, id json.RawMessage, result any, perr *wire.Error, after func()) {
	frame, err := wire.EncodeResponse(id, result, perr)
	if err != nil {
		frame, _ = wire.EncodeResponse(id, nil, wire.Internal(wire.CauseEncode, "cannot encode result: "+err.Error()))
	}
	w.WriteNow(frame, after)
}

// ActorIDs lists the ids of every process in the actor system's registry: the actors
// of actors/doc.go's tree, plus the library's own (futures, the event stream, dead
// letters). Tests compare them with the tree written down there.
func (s *Server) ActorIDs() []string {
	var ids []string
	for _, bucket := range s.sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		ids = append(ids, bucket.Keys()...)
	}
	return ids
}

// System is the facade the server's handlers call (tests and benchmarks read its
// counters).
func (s *Server) System() *actors.System { return s.system }

// RemoteAddr is the remote stream listener's address ("" when remote.listen is off).
func (s *Server) RemoteAddr() string {
	if s.remote == nil {
		return ""
	}
	return s.remote.Addr()
}
