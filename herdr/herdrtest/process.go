package herdrtest

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// spawnSpec describes a pane process.
type spawnSpec struct {
	argv []string // nil = the shell
	cwd  string
	env  map[string]string
}

// validateEnv applies herdr's invalid_env rule.
func validateEnv(env map[string]string) *apiError {
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return errf("invalid_env", "invalid environment variable %q", k)
		}
	}
	return nil
}

// newPaneLocked allocates a pane in tab t (ids from t's workspace) and starts its
// process on a fresh PTY. Requires s.mu.
func (s *Session) newPaneLocked(w *workspace, t *tab, spec spawnSpec, label string) (*pane, error) {
	if s.closed {
		return nil, errors.New("server is shutting down")
	}
	w.paneCounter++
	s.termCounter++
	p := &pane{
		id:         w.id + ":p" + encodeID(w.paneCounter),
		terminal:   newTerminalID(s.termCounter),
		ws:         w,
		tab:        t,
		label:      label,
		status:     StatusUnknown,
		seen:       true,
		sourceSeqs: map[string]uint64{},
		exited:     make(chan struct{}),
	}
	size := s.opts.Size.Pane()
	if s.noPanesLocked() {
		// herdr starts a pane in a server that has none at the whole headless size,
		// with nothing laid out yet, and a moment later resizes it to its place less
		// the scrollbar's column of a main screen (herdr 0.8.2 and 0.7.2; later panes
		// are never resized without a client): the stand-in starts it there.
		size.Cols--
	}
	p.vt = newTerminal(size.Rows, size.Cols, func(b []byte) { _ = p.write(b) })
	cwd := spec.cwd
	if cwd == "" {
		cwd = w.cwd
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	p.cwd, p.command = cwd, spec.argv
	argv := spec.argv
	if len(argv) == 0 {
		argv = []string{s.shell}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cwd
	cmd.Env = s.paneEnv(spec.env, w.id, t.id, p.id)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(size.Rows), Cols: uint16(size.Cols)})
	if err != nil {
		return nil, err
	}
	p.cmd, p.ptmx = cmd, ptmx
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		p.pump(ptmx)
	}()
	if !s.opts.NoDetection {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.watchAgent(p)
		}()
	}
	go func() {
		defer s.wg.Done()
		_ = cmd.Wait()
		close(p.exited)
		s.paneExited(p)
		_ = ptmx.Close()
	}()
	return p, nil
}

// noPanesLocked reports whether the server has no pane. Requires s.mu.
func (s *Session) noPanesLocked() bool {
	for _, w := range s.workspaces {
		for _, t := range w.tabs {
			if len(t.panes()) > 0 {
				return false
			}
		}
	}
	return true
}

// paneEnv builds a pane environment: server env, then caller env, then herdr's own
// variables (which win).
func (s *Session) paneEnv(caller map[string]string, wsID, tabID, paneID string) []string {
	base := s.opts.Env
	if base == nil {
		base = os.Environ()
	}
	m := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := m[k]; !ok {
			order = append(order, k)
		}
		m[k] = v
	}
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		set(k, v)
	}
	if s.name == "default" {
		delete(m, "HERDR_SESSION")
	}
	// herdr starts no pane inside the codex conversation it may itself run in.
	delete(m, "CODEX_THREAD_ID")
	for k, v := range caller {
		set(k, v)
	}
	set("HERDR_ENV", "1")
	set("HERDR_SOCKET_PATH", s.sockPath)
	set("HERDR_BIN_PATH", s.binPath)
	set("HERDR_WORKSPACE_ID", wsID)
	set("HERDR_TAB_ID", tabID)
	set("HERDR_PANE_ID", paneID)
	set("TERM", "xterm-256color")
	set("COLORTERM", "truecolor")
	if s.name != "default" {
		set("HERDR_SESSION", s.name)
	}
	out := make([]string, 0, len(m))
	for _, k := range order {
		if v, ok := m[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// write sends bytes to the pane's PTY.
func (p *pane) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	select {
	case <-p.exited:
		return errors.New("pane process has exited")
	default:
	}
	_, err := p.ptmx.Write(b)
	return err
}

// kill ends the pane process: SIGHUP to its process group, SIGKILL if it is still
// alive after a second.
func (p *pane) kill() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGHUP)
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	go func() {
		select {
		case <-p.exited:
		case <-time.After(time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = p.cmd.Process.Kill()
		}
	}()
}

// paneExited removes a pane whose process ended on its own.
func (s *Session) paneExited(p *pane) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || p.tab == nil || s.findLeaf(p) == nil {
		return
	}
	s.logf("herdrtest: pane %s (%s) exited", p.id, p.terminal)
	s.detachPaneLocked(p)
}

// detachPaneLocked removes p from its tab's layout, closing the tab and workspace when
// they become empty. It returns the ids of closed containers ("" if none).
func (s *Session) detachPaneLocked(p *pane) (closedTab, closedWS string) {
	t := p.tab
	leaf := s.findLeaf(p)
	if leaf == nil {
		return "", ""
	}
	if leaf.parent == nil {
		t.root = nil
	} else {
		par := leaf.parent
		sib := par.first
		if sib == leaf {
			sib = par.second
		}
		t.replaceNode(par, sib)
	}
	if t.focused == p {
		t.focused = nil
		if ps := t.panes(); len(ps) > 0 {
			t.focused = ps[0]
		}
	}
	if t.root != nil {
		return "", ""
	}
	closedTab = t.id
	w := t.ws
	i := w.tabIndex(t)
	w.tabs = append(w.tabs[:i], w.tabs[i+1:]...)
	if w.activeTab == t {
		w.activeTab = nil
		if len(w.tabs) > 0 {
			w.activeTab = w.tabs[min(i, len(w.tabs)-1)]
		}
	}
	if len(w.tabs) > 0 {
		return closedTab, ""
	}
	s.removeWorkspaceLocked(w)
	return closedTab, w.id
}

func (s *Session) removeWorkspaceLocked(w *workspace) {
	i := s.wsIndex(w)
	if i < 0 {
		return
	}
	s.workspaces = append(s.workspaces[:i], s.workspaces[i+1:]...)
	if s.active == w {
		s.active = nil
		if len(s.workspaces) > 0 {
			s.active = s.workspaces[max(0, min(i, len(s.workspaces)-1))]
		}
	}
}
