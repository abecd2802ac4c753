package herdrtest

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The attach channel. herdr attaches terminals through its client socket
// (herdr-client.sock next to the API socket, docs/herdr.md §1.2), whose binary
// protocol herdr does not document. The stand-in serves that socket path with a
// protocol of its own, which only its own `terminal attach` / `agent attach` speak:
//
//  1. The client sends one JSON line, an [AttachRequest].
//  2. The server answers one JSON line, an [AttachReply]; a refused request ends there.
//  3. Then the server sends frames: one type byte, a big-endian uint32 length and the
//     payload. [AttachOutput] carries pane output (the first one repaints the current
//     screen); [AttachEnd] is the last frame and carries why the attach ended
//     ("pane exited", "taken over", "server stopped", "too slow"). The client sends raw
//     bytes, which a takeover attach writes to the pane's PTY as typed input and an
//     observe attach discards; closing the connection detaches.
//
// Stand-in choices that only a real herdr can confirm: an observe attach sees the pane
// but cannot type into it; a takeover attach types, and a second takeover attach of the
// same pane ends the first ("taken over"); the pane keeps its size whatever the
// attached terminal's (herdr's source resizes it to the attached terminal).

// Frame types of the attach channel.
const (
	AttachOutput byte = 'o'
	AttachEnd    byte = 'x'
)

// attachQueue is how many output chunks may wait for one attached client; a client
// that falls further behind is ended "too slow", so it never stalls the pane.
const attachQueue = 1024

// AttachRequest is the first line of an attach.
type AttachRequest struct {
	// Kind is "terminal" (Target is a terminal id) or "agent" (Target is a pane's
	// current id; a former id after a move is refused, as herdr's `agent attach` takes
	// an agent name or the current pane id only).
	Kind     string `json:"kind"`
	Target   string `json:"target"`
	Takeover bool   `json:"takeover,omitempty"`
}

// AttachReply answers an [AttachRequest].
type AttachReply struct {
	OK         bool         `json:"ok"`
	PaneID     string       `json:"pane_id,omitempty"`
	TerminalID string       `json:"terminal_id,omitempty"`
	Error      *AttachError `json:"error,omitempty"`
}

// AttachError is a refused attach: code pane_not_found, agent_not_found or
// invalid_request.
type AttachError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *AttachError) Error() string { return e.Code + ": " + e.Message }

// AttachSocketPath returns the client (attach) socket path of session name under
// config dir c.
func AttachSocketPath(c, name string) string {
	return filepath.Join(SessionDir(c, name), "herdr-client.sock")
}

// AttachConn is the client end of an attach.
type AttachConn struct {
	Reply AttachReply
	c     net.Conn
	r     *bufio.Reader
}

// DialAttach attaches to a pane through the attach socket at socket. A refused request
// is an *[AttachError].
func DialAttach(socket string, req AttachRequest) (*AttachConn, error) {
	c, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(req)
	_ = c.SetDeadline(time.Now().Add(FirstLineTimeout))
	if _, err := c.Write(append(b, '\n')); err != nil {
		c.Close()
		return nil, err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadBytes('\n')
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("attach: no answer: %w", err)
	}
	var rep AttachReply
	if err := json.Unmarshal(line, &rep); err != nil {
		c.Close()
		return nil, fmt.Errorf("attach: bad answer %q: %w", line, err)
	}
	if !rep.OK {
		c.Close()
		if rep.Error == nil {
			rep.Error = &AttachError{Code: "internal_error", Message: "attach refused"}
		}
		return nil, rep.Error
	}
	_ = c.SetDeadline(time.Time{})
	return &AttachConn{Reply: rep, c: c, r: r}, nil
}

// Next reads the next frame: its type and payload.
func (a *AttachConn) Next() (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(a.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	p := make([]byte, binary.BigEndian.Uint32(hdr[1:]))
	if _, err := io.ReadFull(a.r, p); err != nil {
		return 0, nil, err
	}
	return hdr[0], p, nil
}

// Write sends typed input (a takeover attach writes it to the pane).
func (a *AttachConn) Write(b []byte) (int, error) { return a.c.Write(b) }

// Close detaches.
func (a *AttachConn) Close() error { return a.c.Close() }

// attachClient is one attached connection, server side.
type attachClient struct {
	conn     net.Conn
	takeover bool
	out      chan []byte
	done     chan struct{}
	once     sync.Once
	reason   string // set before done is closed
}

// end ends the attach with reason (the first reason wins).
func (cl *attachClient) end(reason string) {
	cl.once.Do(func() {
		cl.reason = reason
		close(cl.done)
	})
}

func (cl *attachClient) ended() bool {
	select {
	case <-cl.done:
		return true
	default:
		return false
	}
}

// send queues output without blocking; a full queue ends the client.
func (cl *attachClient) send(b []byte) {
	select {
	case cl.out <- b:
	default:
		cl.end("too slow")
	}
}

// writeFrames writes the client's frames until it ends, then the end frame, and
// closes the connection.
func (cl *attachClient) writeFrames() {
	defer cl.conn.Close()
	write := func(kind byte, p []byte) bool {
		var hdr [5]byte
		hdr[0] = kind
		binary.BigEndian.PutUint32(hdr[1:], uint32(len(p)))
		_ = cl.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, err := cl.conn.Write(append(hdr[:], p...))
		return err == nil
	}
	for {
		select {
		case b := <-cl.out:
			if !write(AttachOutput, b) {
				cl.end("write failed")
				return
			}
		case <-cl.done:
			for {
				select {
				case b := <-cl.out:
					if !write(AttachOutput, b) {
						return
					}
				default:
					write(AttachEnd, []byte(cl.reason))
					return
				}
			}
		}
	}
}

// pump copies the pane's PTY output into the emulator and to every attached client,
// under attachMu so an attach's repaint and the output after it never overlap or leave
// a gap. When the PTY ends (the process exited) every client is ended.
func (p *pane) pump(ptmx io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := ptmx.Read(buf)
		if n > 0 {
			p.attachMu.Lock()
			_, _ = p.vt.Write(buf[:n])
			if len(p.attached) > 0 {
				b := append([]byte(nil), buf[:n]...)
				for _, cl := range p.attached {
					cl.send(b)
				}
			}
			p.attachMu.Unlock()
		}
		if err != nil {
			break
		}
	}
	p.endAttaches("pane exited")
}

// endAttaches ends every attached client with reason; later attaches are refused with it.
func (p *pane) endAttaches(reason string) {
	p.attachMu.Lock()
	defer p.attachMu.Unlock()
	if p.attachGone == "" {
		p.attachGone = reason
	}
	for _, cl := range p.attached {
		cl.end(reason)
	}
	p.attached = nil
}

// attach registers cl: it queues the repaint and, for a takeover, ends the other
// takeover clients.
func (p *pane) attach(cl *attachClient) {
	p.attachMu.Lock()
	defer p.attachMu.Unlock()
	if p.attachGone != "" {
		cl.end(p.attachGone)
		return
	}
	cl.send(p.vt.redraw())
	if cl.takeover {
		kept := p.attached[:0]
		for _, o := range p.attached {
			if o.takeover {
				o.end("taken over")
				continue
			}
			kept = append(kept, o)
		}
		p.attached = kept
	}
	p.attached = append(p.attached, cl)
}

func (p *pane) detach(cl *attachClient) {
	p.attachMu.Lock()
	defer p.attachMu.Unlock()
	for i, o := range p.attached {
		if o == cl {
			p.attached = append(p.attached[:i], p.attached[i+1:]...)
			return
		}
	}
}

// AttachedClients returns how many clients are attached to the pane (by pane id,
// former pane id or terminal id), and how many of them took over; an unknown pane is
// [ErrPaneNotFound].
func (s *Session) AttachedClients(paneOrTerminalID string) (all, takeover int, err error) {
	s.mu.Lock()
	p := s.lookupLocked(paneOrTerminalID)
	s.mu.Unlock()
	if p == nil {
		return 0, 0, ErrPaneNotFound
	}
	p.attachMu.Lock()
	defer p.attachMu.Unlock()
	for _, cl := range p.attached {
		if !cl.ended() {
			all++
			if cl.takeover {
				takeover++
			}
		}
	}
	return all, takeover, nil
}

// bindAttach listens on the session's attach socket (stale socket removed, a live one
// refused like the API socket's).
func (s *Session) bindAttach() error {
	path := AttachSocketPath(s.opts.ConfigDir, s.name)
	if _, err := os.Lstat(path); err == nil {
		if SocketAnswers(path) {
			return fmt.Errorf("%w: %s", ErrSessionRunning, path)
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return err
	}
	s.attachLn = ln
	s.wg.Add(1)
	go s.serve(ln, s.handleAttach)
	return nil
}

// closeAttach stops accepting attaches (the listener unlinks its socket) and ends the
// attached clients of panes.
func (s *Session) closeAttach(panes []*pane) {
	if s.attachLn != nil {
		s.attachLn.Close()
	}
	for _, p := range panes {
		p.endAttaches("server stopped")
	}
}

// handleAttach serves one attach connection: the request line, the reply, then the
// input until the client detaches (the frames go out on a writer goroutine).
func (s *Session) handleAttach(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(FirstLineTimeout))
	line, ok := readRequestLine(c)
	if !ok {
		c.Close()
		return
	}
	refuse := func(code, format string, args ...any) {
		b, _ := json.Marshal(AttachReply{Error: &AttachError{Code: code, Message: fmt.Sprintf(format, args...)}})
		_ = c.SetWriteDeadline(time.Now().Add(FirstLineTimeout))
		_, _ = c.Write(append(b, '\n'))
		c.Close()
	}
	var req AttachRequest
	if err := json.Unmarshal(line, &req); err != nil || req.Target == "" {
		refuse("invalid_request", "invalid attach request")
		return
	}
	s.mu.Lock()
	var p *pane
	switch req.Kind {
	case "terminal":
		p = s.paneByTerminalLocked(req.Target)
	case "agent":
		p = s.paneByIDLocked(req.Target)
	}
	var rep AttachReply
	if p != nil {
		rep = AttachReply{OK: true, PaneID: p.id, TerminalID: p.terminal}
	}
	s.mu.Unlock()
	switch {
	case req.Kind != "terminal" && req.Kind != "agent":
		refuse("invalid_request", "unknown attach kind %q", req.Kind)
		return
	case p == nil && req.Kind == "terminal":
		refuse("pane_not_found", "terminal %s not found", req.Target)
		return
	case p == nil:
		refuse("agent_not_found", "no agent or current pane %s", req.Target)
		return
	}
	b, _ := json.Marshal(rep)
	_ = c.SetWriteDeadline(time.Now().Add(FirstLineTimeout))
	if _, err := c.Write(append(b, '\n')); err != nil {
		c.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	cl := &attachClient{conn: c, takeover: req.Takeover, out: make(chan []byte, attachQueue), done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		cl.writeFrames()
	}()
	p.attach(cl)
	s.logf("herdrtest: client attached to pane %s (takeover %v)", p.id, req.Takeover)
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if n > 0 && cl.takeover && !cl.ended() {
			if werr := p.write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil || cl.ended() {
			break
		}
	}
	cl.end("detached")
	p.detach(cl)
	s.logf("herdrtest: client detached from pane %s (%s)", p.id, cl.reason)
}

// errAttachClosed is returned to a client whose attach ended without an end frame.
var errAttachClosed = errors.New("attach: connection closed")

// Pump copies an attach's frames to out until the attach ends, and returns the end
// frame's reason (errAttachClosed-wrapping when the connection closed without one).
func (a *AttachConn) Pump(out io.Writer) (reason string, err error) {
	for {
		kind, p, err := a.Next()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return "", errAttachClosed
			}
			return "", err
		}
		switch kind {
		case AttachOutput:
			if _, err := out.Write(p); err != nil {
				return "", err
			}
		case AttachEnd:
			return string(p), nil
		}
	}
}
