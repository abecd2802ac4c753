package herdrtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// Wire limits from docs/herdr.md §2.
const (
	// MaxRequestBytes is the longest request line the server accepts (1 MiB).
	MaxRequestBytes = 1 << 20
	// FirstLineTimeout is how long a client has to send its request line.
	FirstLineTimeout = 5 * time.Second
)

// DefaultVersion and DefaultProtocol are what ping reports when Options leave them zero.
const (
	DefaultVersion  = "0.8.2"
	DefaultProtocol = 20
)

// ErrSessionRunning is returned by NewSession and Restore when a live server already
// listens on the session's socket.
var ErrSessionRunning = errors.New("herdrtest: session server already running")

// Options configures a Session.
type Options struct {
	// ConfigDir is herdr's config dir C (docs/herdr.md §1.2), e.g. $XDG_CONFIG_HOME/herdr.
	// Empty means ConfigDirFromEnv().
	ConfigDir string
	// Version is reported by ping and session.snapshot; default DefaultVersion.
	Version string
	// Protocol is reported by ping and session.snapshot; default DefaultProtocol. The
	// stand-in's behaviour does not depend on it, apart from what it reports; 22 is the
	// protocol of herdr 0.9.x, whose schema fixture is orcr's own construction
	// (package herdrschema). Pair it with CompletionSeq to play herdr 0.9.x.
	Protocol int
	// CompletionSeq adds completion_seq to every agent.list and agent.get entry (and
	// session.snapshot's agents): a per-pane counter that starts at 0 and goes up by
	// one on every working/blocked → idle edge of the pane's agent status (idle or
	// done, docs/herdr.md §5.1), as herdr 0.9.x does. Off (the field is omitted, as
	// in protocol 20) by default.
	CompletionSeq bool
	// Toasts plays a herdr whose config delivers toasts (ui.toast.delivery on) and has a
	// foreground client: notification.show answers {shown: true, reason: "shown"}
	// instead of the default config's {shown: false, reason: "disabled"}. The stand-in
	// has no client of its own to show them on; OnNotify sees each one.
	Toasts bool
	// OnNotify, when set, is called with the title and body (after herdr's cleaning:
	// control characters removed, at most 80 and 240 characters) of every notification
	// shown (only with Toasts).
	OnNotify func(title, body string)
	// Shell runs in root panes (workspace.create, tab.create, command-less layout
	// nodes); default $SHELL, else /bin/sh.
	Shell string
	// BinPath is given to panes as HERDR_BIN_PATH; default os.Executable().
	BinPath string
	// Env is the server's own environment, the base of every pane's environment;
	// nil means os.Environ().
	Env []string
	// Logf, when set, receives diagnostic lines.
	Logf func(string, ...any)
	// OnResponse, when set, is called with the method name (or "" when the envelope
	// failed to parse) and every response line the server writes, without the newline.
	OnResponse func(method string, raw []byte)
	// OnRequest, when set, is called with every complete request line read.
	OnRequest func(raw []byte)
	// Late, when set, makes the server carry out requests one at a time, as herdr's
	// single application thread does, and hold that thread for Late[method] before it
	// carries out a request of that method (a herdr busy with earlier work): requests
	// are still read at once, and one whose client gave up by then is carried out all
	// the same, its answer going nowhere.
	Late map[string]time.Duration
	// NoDetection turns off process and screen detection (docs/herdr.md §12): panes
	// then become agent panes only by reports and the test hooks, as before the
	// stand-in detected claude and codex.
	NoDetection bool
	// Size is the server's headless size, the area herdr lays out its sidebar, tab bar
	// and panes in while no client is attached; zero means the played herdr's:
	// [HeadlessSize] of Protocol. Its panes get the area less the sidebar and the tab
	// bar ([Size.Pane]). At 64 columns or fewer herdr switches to its mobile layout,
	// which the stand-in does not play; NewSession refuses such a size.
	Size Size
}

// Size is a size in terminal cells.
type Size struct{ Cols, Rows int }

// Layout of herdr's headless screen (docs/herdr.md §12): the sidebar's default width,
// the tab bar's row, and the narrowest area still laid out with a sidebar.
const (
	sidebarCols    = 26
	tabBarRows     = 1
	minDesktopCols = 65
)

// HeadlessSize is the headless size of the herdr that speaks protocol: 80×24 for
// protocol 16 (herdr 0.7.2), 120×40 from protocol 20 on (herdr 0.8.2's default
// `[server] headless_cols` and `headless_rows`), as measured on both (herdr/testdata/live).
func HeadlessSize(protocol int) Size {
	if protocol < 20 {
		return Size{Cols: 80, Rows: 24}
	}
	return Size{Cols: 120, Rows: 40}
}

// Pane is the size herdr gives a pane in headless area a: the area less the sidebar and
// the tab bar (94×39 of 120×40, 54×23 of 80×24). Every pane starts at it, a split's
// halves too (herdr spawns a pane at its first visible pane's size and resizes only for
// an attached client).
func (a Size) Pane() Size { return Size{Cols: a.Cols - sidebarCols, Rows: a.Rows - tabBarRows} }

var sessionNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidSessionName reports whether name is a valid herdr session name.
func ValidSessionName(name string) bool {
	return sessionNameRE.MatchString(name) && name != "." && name != ".."
}

// ConfigDirFromEnv returns herdr's config dir: $XDG_CONFIG_HOME/herdr, else
// $HOME/.config/herdr.
func ConfigDirFromEnv() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "herdr")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "herdr")
}

// SessionDir returns the directory of session name under config dir c.
func SessionDir(c, name string) string {
	if name == "" || name == "default" {
		return c
	}
	return filepath.Join(c, "sessions", name)
}

// SocketPath returns the API socket path of session name under config dir c.
func SocketPath(c, name string) string { return filepath.Join(SessionDir(c, name), "herdr.sock") }

// Session is one herdr session server: a socket, its state and its pane processes.
type Session struct {
	opts     Options
	name     string
	sockPath string
	shell    string
	binPath  string

	lnMu sync.Mutex
	app  sync.Mutex // held around each request's dispatch when Options.Late is set
	ln   *net.UnixListener
	// attachLn serves the attach socket (attach.go) for the session's whole life.
	attachLn *net.UnixListener

	mu          sync.Mutex
	workspaces  []*workspace
	active      *workspace
	wsCounter   uint64
	termCounter uint64
	aliases     map[string]string // former pane id → terminal id
	closed      bool
	frozen      chan struct{} // non-nil while frozen; closed by Unfreeze

	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup // connection handlers and pane goroutines
}

// NewSession binds the API socket of session name ("default" or a named session)
// under opts.ConfigDir and serves it in background goroutines. The session directory
// is created; a stale socket is removed; a live one yields ErrSessionRunning.
func NewSession(opts Options, name string) (*Session, error) {
	if name == "" {
		name = "default"
	}
	if !ValidSessionName(name) {
		return nil, fmt.Errorf("herdrtest: invalid session name %q", name)
	}
	if opts.ConfigDir == "" {
		opts.ConfigDir = ConfigDirFromEnv()
	}
	if opts.Version == "" {
		opts.Version = DefaultVersion
	}
	if opts.Protocol == 0 {
		opts.Protocol = DefaultProtocol
	}
	if opts.Size == (Size{}) {
		opts.Size = HeadlessSize(opts.Protocol)
	}
	if opts.Size.Cols < minDesktopCols || opts.Size.Rows <= tabBarRows {
		return nil, fmt.Errorf("herdrtest: headless size %dx%d: the stand-in plays at least %d columns and %d rows", opts.Size.Cols, opts.Size.Rows, minDesktopCols, tabBarRows+1)
	}
	s := &Session{
		opts:     opts,
		name:     name,
		sockPath: SocketPath(opts.ConfigDir, name),
		aliases:  map[string]string{},
		done:     make(chan struct{}),
	}
	s.shell = opts.Shell
	if s.shell == "" {
		s.shell = os.Getenv("SHELL")
	}
	if s.shell == "" {
		s.shell = "/bin/sh"
	}
	s.binPath = opts.BinPath
	if s.binPath == "" {
		s.binPath, _ = os.Executable()
	}
	if err := os.MkdirAll(SessionDir(opts.ConfigDir, name), 0o700); err != nil {
		return nil, err
	}
	if err := s.bind(); err != nil {
		return nil, err
	}
	if err := s.bindAttach(); err != nil {
		_ = s.DropSocket()
		return nil, err
	}
	return s, nil
}

// SocketPath returns the session's API socket path.
func (s *Session) SocketPath() string { return s.sockPath }

// Name returns the session name ("default" for the default session).
func (s *Session) Name() string { return s.name }

// Done is closed when the session has been closed (Close or server.stop).
func (s *Session) Done() <-chan struct{} { return s.done }

func (s *Session) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// bind creates the listener, refusing a live socket and removing a stale one.
func (s *Session) bind() error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if s.ln != nil {
		return nil
	}
	if _, err := os.Lstat(s.sockPath); err == nil {
		if c, err := net.DialTimeout("unix", s.sockPath, time.Second); err == nil {
			c.Close()
			return fmt.Errorf("%w: %s", ErrSessionRunning, s.sockPath)
		}
		if err := os.Remove(s.sockPath); err != nil {
			return err
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.sockPath, Net: "unix"})
	if err != nil {
		return err
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(s.sockPath, 0o600); err != nil {
		ln.Close()
		return err
	}
	s.ln = ln
	s.wg.Add(1)
	go s.serve(ln, s.handleConn)
	return nil
}

// serve accepts connections on ln until it closes, each handled on its own goroutine.
func (s *Session) serve(ln *net.UnixListener, handle func(net.Conn)) {
	defer s.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			handle(c)
		}()
	}
}

// DropSocket closes the listener and unlinks the socket; state and panes are kept.
func (s *Session) DropSocket() error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if s.ln == nil {
		return nil
	}
	err := s.ln.Close()
	s.ln = nil
	if rmErr := os.Remove(s.sockPath); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
		err = rmErr
	}
	return err
}

// Restore re-binds the socket after DropSocket, serving the same state (a restart
// that keeps workspaces, panes and processes).
func (s *Session) Restore() error {
	select {
	case <-s.done:
		return errors.New("herdrtest: session closed")
	default:
	}
	return s.bind()
}

// Freeze makes the server stop answering: connections are accepted and their request
// read, but no reply is written until Unfreeze, which closes them unanswered.
func (s *Session) Freeze() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen == nil {
		s.frozen = make(chan struct{})
	}
}

// Unfreeze ends Freeze. Connections held while frozen are closed without an answer;
// new ones are answered normally.
func (s *Session) Unfreeze() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen != nil {
		close(s.frozen)
		s.frozen = nil
	}
}

// Close stops serving, kills every pane process, removes the socket and waits for the
// session's goroutines. It is safe to call more than once.
func (s *Session) Close() error {
	var err error
	s.closeOnce.Do(func() {
		err = s.DropSocket()
		s.mu.Lock()
		s.closed = true
		panes := s.allPanes()
		s.workspaces, s.active = nil, nil
		if s.frozen != nil {
			close(s.frozen)
			s.frozen = nil
		}
		s.mu.Unlock()
		s.closeAttach(panes)
		for _, p := range panes {
			p.kill()
		}
		close(s.done)
		s.wg.Wait()
	})
	return err
}

// handleConn serves one connection: one line in, one line out, close.
func (s *Session) handleConn(c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(FirstLineTimeout))
	line, ok := readRequestLine(c)
	if !ok {
		return
	}
	if s.opts.OnRequest != nil {
		s.opts.OnRequest(line)
	}
	s.mu.Lock()
	frozen := s.frozen
	s.mu.Unlock()
	if frozen != nil {
		select {
		case <-frozen:
		case <-s.done:
		}
		return
	}
	method, resp, after := s.dispatchInTurn(line)
	if s.opts.OnResponse != nil {
		s.opts.OnResponse(method, resp)
	}
	_ = c.SetWriteDeadline(time.Now().Add(FirstLineTimeout))
	_, _ = c.Write(append(resp, '\n'))
	if after != nil {
		after()
	}
}

// dispatchInTurn is dispatch, on the one application thread of Options.Late when it
// is set.
func (s *Session) dispatchInTurn(line []byte) (string, []byte, func()) {
	if s.opts.Late == nil {
		return s.dispatch(line)
	}
	s.app.Lock()
	defer s.app.Unlock()
	if env, err := parseEnvelope(line); err == nil {
		if d := s.opts.Late[env.Method]; d > 0 {
			select {
			case <-time.After(d):
			case <-s.done:
			}
		}
	}
	return s.dispatch(line)
}

// readRequestLine reads up to the first newline. It fails (no answer) on a read error
// or deadline before any newline, a line over MaxRequestBytes, or a blank line. A
// final line ended by EOF instead of a newline is accepted.
func readRequestLine(c net.Conn) ([]byte, bool) {
	r := bufio.NewReaderSize(c, 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxRequestBytes+1 || (len(line) == MaxRequestBytes+1 && line[MaxRequestBytes] != '\n') {
			return nil, false
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) == 0 || !isEOF(err) {
			return nil, false
		}
		break
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, false
	}
	return line, true
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// dispatch answers one request line. after, when non-nil, runs once the answer has
// been written (server.stop).
func (s *Session) dispatch(line []byte) (method string, resp []byte, after func()) {
	env, err := parseEnvelope(line)
	if err != nil {
		return "", mustJSON(errorEnvelope{ID: "", Error: errf("invalid_request", "invalid request: %s", err.Error())}), nil
	}
	h, ok := handlers[env.Method]
	if !ok {
		return env.Method, mustJSON(errorEnvelope{ID: env.ID, Error: errf("internal_error", "method %s is not implemented by the herdr stand-in", env.Method)}), nil
	}
	res, err := h(s, env.Params)
	var pe *paramsError
	var ae *apiError
	switch {
	case errors.As(err, &pe):
		return env.Method, mustJSON(errorEnvelope{ID: "", Error: errf("invalid_request", "invalid request: %s", pe.msg)}), nil
	case errors.As(err, &ae):
		return env.Method, mustJSON(errorEnvelope{ID: env.ID, Error: ae}), nil
	case err != nil:
		return env.Method, mustJSON(errorEnvelope{ID: env.ID, Error: errf("internal_error", "%s", err.Error())}), nil
	}
	if env.Method == "server.stop" {
		after = func() { go s.Close() }
	}
	return env.Method, mustJSON(successEnvelope{ID: env.ID, Result: res}), after
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("herdrtest: marshal: " + err.Error())
	}
	return b
}
