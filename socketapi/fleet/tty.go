package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/nats-io/nats.go"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// `orcr agent attach <host>:<path>` (docs/fleet.md §4.10): the member runs herdr's
// attach command for the agent under a PTY of its own and relays the terminal over
// NATS — the caller's keys in, the screen's bytes out — while it holds the attach lease
// as a local attach does. The caller picks the session id and subscribes to the output
// before it asks, so no byte is missed.

// AttachSubject is where caller asks host to attach one of its agents.
func AttachSubject(host, caller string) string { return "orcr.attach." + host + "." + caller }

// attachCalls is the subject host subscribes to for attaches: every caller's.
func attachCalls(host string) string { return "orcr.attach." + host + ".*" }

// ttySubject is one direction ("in": the caller's keys, "out": the screen) of session
// sid that caller opened on host.
func ttySubject(host, caller, sid, dir string) string {
	return "orcr.tty." + host + "." + caller + "." + sid + "." + dir
}

// TTYHeader says what a message of a session carries: absent, terminal bytes; "ping"
// (the caller is still there), "resize <cols> <rows>", "close" (the caller leaves);
// from the member, "exit <code>" (the attach command ended, the session with it).
const TTYHeader = "Orcr-Tty"

// Bounds of an attach over the fleet.
const (
	// TTYPingEvery is how often each side says it is still there.
	TTYPingEvery = 5 * time.Second
	// ttyIdle ends a session whose caller went silent: three pings missed.
	ttyIdle = 3 * TTYPingEvery
	// attachAskTimeout bounds the ask: the member's prepare and its command's start.
	attachAskTimeout = 15 * time.Second
	// AttachRefusal is how fast the first form of herdr's attach command must fail to
	// be taken for herdr refusing the pane id, so that the other form runs instead
	// (docs/decisions.md D6): a refusal exits at once with an error, an attach that ran
	// exits when the user detaches. The local attach (cmd/orcr/cli) uses it too.
	AttachRefusal = 2 * time.Second
	// maxTTYSide bounds a session's columns and rows.
	maxTTYSide = 1000
	// ttyChunk is the most one output message carries.
	ttyChunk = 32 << 10
	// ttyKillAfter is how long a hung-up command has before its process group is
	// killed, and how long the end of its output may take after it ended.
	ttyKillAfter = 5 * time.Second
	// ttyGiveUp is how long a caller that left waits for the member's end of the
	// session: the hang-up, the kill after ttyKillAfter, and the way back.
	ttyGiveUp = 3 * ttyKillAfter
)

var sidRe = regexp.MustCompile(`^[a-f0-9]{16,32}$`)

// AttachRequest is what a caller asks a member to attach.
type AttachRequest struct {
	SID      string `json:"sid"`
	Target   string `json:"target"`
	Takeover bool   `json:"takeover,omitempty"`
	Cols     int    `json:"cols,omitempty"`
	Rows     int    `json:"rows,omitempty"`
}

// parseAttach reads an attach request from another host: a session id of 16–32 hex
// digits, a target, and a size of at most 1000×1000 (0: the PTY's default).
func parseAttach(data []byte) (AttachRequest, bool) {
	var req AttachRequest
	if json.Unmarshal(data, &req) != nil || !sidRe.MatchString(req.SID) || req.Target == "" ||
		req.Cols < 0 || req.Rows < 0 || req.Cols > maxTTYSide || req.Rows > maxTTYSide {
		return AttachRequest{}, false
	}
	return req, true
}

// AttachFacade is what a member's attach server calls: the attach lease's use cases.
type AttachFacade interface {
	AttachPrepare(context.Context, api.AttachPrepareRequest) (api.AttachPrepareResult, error)
	AttachHeartbeat(context.Context, api.LeaseRequest) (api.HeartbeatResult, error)
	AttachRelease(context.Context, api.LeaseRequest) (api.ReleaseResult, error)
}

// Attacher serves this member's attaches over the fleet.
type Attacher struct {
	m      *Member
	f      AttachFacade
	allow  Policy
	sub    *nats.Subscription
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// ServeAttach answers attaches of this member's agents on orcr.attach.<host>.<caller>
// for the callers allow gives config.FleetAttachVerb.
func (m *Member) ServeAttach(f AttachFacade, allow Policy) (*Attacher, error) {
	a := &Attacher{m: m, f: f, allow: allow}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	prefix := AttachSubject(m.Host, "")
	sub, err := m.nc.Subscribe(attachCalls(m.Host), func(msg *nats.Msg) {
		if msg.Reply == "" || !m.registered.Load() {
			return
		}
		caller := strings.TrimPrefix(msg.Subject, prefix)
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.open(msg, caller)
		}()
	})
	if err != nil {
		return nil, err
	}
	a.sub = sub
	subscribed(m.nc)
	return a, nil
}

// Close stops taking attaches and ends the open sessions (their commands are hung up).
func (a *Attacher) Close() {
	_ = a.sub.Unsubscribe()
	a.cancel()
	a.wg.Wait()
}

func (a *Attacher) refuse(msg *nats.Msg, err *wire.Error) {
	_ = msg.Respond(encode(wire.NullID(), nil, err))
}

// open runs one session: the lease, the command under a PTY, the relay, the release.
func (a *Attacher) open(msg *nats.Msg, caller string) {
	req, ok := parseAttach(msg.Data)
	if !ok {
		a.refuse(msg, wire.Invalid(wire.ReasonBadJSON, "fleet: an attach request needs a sid, a target and a sane size"))
		return
	}
	methods, policy := a.allow(caller)
	if !slices.Contains(methods, config.FleetAttachVerb) {
		a.refuse(msg, NotAllowed(config.FleetAttachVerb, Caller{Host: a.m.Host, From: caller, Allow: methods, Policy: policy}))
		return
	}
	ctx, cancel := context.WithTimeout(a.ctx, attachAskTimeout)
	lease, err := a.f.AttachPrepare(ctx, api.AttachPrepareRequest{Target: req.Target, Takeover: req.Takeover, ClientPID: int64(os.Getpid())})
	cancel()
	if err != nil {
		a.refuse(msg, wire.From(err, wire.CauseInternal))
		return
	}
	release := func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(a.ctx), 5*time.Second)
		defer cancel()
		if _, err := a.f.AttachRelease(ctx, api.LeaseRequest{LeaseID: lease.LeaseID}); err != nil {
			a.m.log.Warn("fleet: cannot release an attach lease (it expires by itself)", "lease", lease.LeaseID, "err", err)
		}
	}
	if len(lease.Command) == 0 {
		release()
		a.refuse(msg, wire.Internal(wire.CauseAttachCommand, "the server returned an empty attach command"))
		return
	}
	s := &ttySession{a: a, caller: caller, out: ttySubject(a.m.Host, caller, req.SID, "out"),
		input: make(chan []byte, 64), closeNow: make(chan struct{}, 1), last: time.Now(), size: pty.Winsize{Cols: uint16(req.Cols), Rows: uint16(req.Rows)}}
	in, err := a.m.nc.Subscribe(ttySubject(a.m.Host, caller, req.SID, "in"), s.fromCaller)
	if err != nil {
		release()
		a.refuse(msg, unreachable(caller, err))
		return
	}
	defer func() { _ = in.Unsubscribe() }()
	if err := s.start(lease.Command); err != nil {
		release()
		a.refuse(msg, wire.Env(wire.CauseHerdrUnreachable, "cannot run herdr's attach command: "+err.Error(), "command", lease.Command))
		return
	}
	res := api.AttachPrepareResult{UUID: lease.UUID, Path: lease.Path, LeaseID: lease.LeaseID, Takeover: lease.Takeover, TTLMS: lease.TTLMS}
	_ = msg.Respond(encode(wire.NullID(), res, nil))
	a.m.log.Info("fleet: attach opened", "caller", caller, "path", lease.Path, "takeover", lease.Takeover)

	hbCtx, stopHB := context.WithCancel(a.ctx)
	go a.heartbeat(hbCtx, lease)
	code := s.wait(lease.FallbackCommand)
	stopHB()
	release()
	end := nats.NewMsg(s.out)
	end.Header.Set(TTYHeader, "exit "+strconv.Itoa(code))
	_ = a.m.nc.PublishMsg(end)
	_ = a.m.nc.Flush()
	a.m.log.Info("fleet: attach ended", "caller", caller, "path", lease.Path, "exit", code)
}

// heartbeat renews the lease every half of its TTL while the session runs.
func (a *Attacher) heartbeat(ctx context.Context, lease api.AttachPrepareResult) {
	t := time.NewTicker(max(time.Duration(lease.TTLMS)*time.Millisecond/2, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if _, err := a.f.AttachHeartbeat(hctx, api.LeaseRequest{LeaseID: lease.LeaseID}); err != nil {
			a.m.log.Warn("fleet: an attach heartbeat failed", "lease", lease.LeaseID, "err", err)
		}
		cancel()
	}
}

// ttySession is one attach's command and its relay.
type ttySession struct {
	a      *Attacher
	caller string
	out    string
	input  chan []byte
	// closeNow: the caller left; the command is hung up at once.
	closeNow chan struct{}

	mu      sync.Mutex
	cmd     *exec.Cmd
	tty     *os.File
	size    pty.Winsize
	last    time.Time // the caller's last message
	closing bool      // the caller left, or went silent
	pumped  chan struct{}
	started time.Time
}

// start runs argv under a new PTY of the session's size and pumps its output.
func (s *ttySession) start(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	var f *os.File
	var err error
	s.mu.Lock()
	size := s.size
	s.mu.Unlock()
	if size.Cols > 0 && size.Rows > 0 {
		f, err = pty.StartWithSize(cmd, &size)
	} else {
		f, err = pty.Start(cmd)
	}
	if err != nil {
		return err
	}
	pumped := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.tty, s.pumped, s.started = cmd, f, pumped, time.Now()
	s.mu.Unlock()
	go func() {
		defer close(pumped)
		buf := make([]byte, ttyChunk)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				_ = s.a.m.nc.Publish(s.out, slices.Clone(buf[:n]))
			}
			if err != nil {
				return
			}
		}
	}()
	return nil
}

// wait waits for the command (and runs fallback instead when the first form of the
// command failed at once), types the caller's keys into it, and hangs it up when the
// caller leaves or goes silent. It returns the exit status.
func (s *ttySession) wait(fallback []string) int {
	for {
		code, early := s.waitOne()
		s.mu.Lock()
		closing := s.closing
		s.mu.Unlock()
		if code == 0 || !early || len(fallback) == 0 || closing {
			return code
		}
		if err := s.start(fallback); err != nil {
			return 1
		}
		fallback = nil
	}
}

func (s *ttySession) waitOne() (code int, early bool) {
	s.mu.Lock()
	cmd, f, pumped, started := s.cmd, s.tty, s.pumped, s.started
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	stopping := s.a.ctx.Done()
	// The command leads a session of its own on the PTY (pty.Start): signals go to its
	// whole process group, so nothing it started keeps the PTY open after it.
	group := -cmd.Process.Pid
	var kill <-chan time.Time
	hangUp := func() {
		if kill == nil {
			_ = syscall.Kill(group, syscall.SIGHUP)
			kill = time.After(ttyKillAfter)
		}
	}
	for {
		select {
		case <-done:
			_ = syscall.Kill(group, syscall.SIGKILL) // what it left behind
			_ = f.Close()
			select {
			case <-pumped:
			case <-time.After(ttyKillAfter):
				s.a.m.log.Warn("fleet: an attach's PTY is still open after its command ended", "caller", s.caller)
			}
			return ExitStatus(cmd.ProcessState), time.Since(started) < AttachRefusal
		case b := <-s.input:
			_, _ = f.Write(b)
		case <-tick.C:
			s.mu.Lock()
			gone := s.closing || time.Since(s.last) > ttyIdle
			s.closing = gone
			s.mu.Unlock()
			if gone {
				hangUp()
			}
		case <-stopping:
			stopping = nil // once: the member stops
			hangUp()
		case <-s.closeNow:
			hangUp()
		case <-kill:
			_ = syscall.Kill(group, syscall.SIGKILL)
		}
	}
}

// fromCaller takes one message of the caller: keys, a ping, a resize or its leaving.
func (s *ttySession) fromCaller(msg *nats.Msg) {
	s.mu.Lock()
	s.last = time.Now()
	f := s.tty
	s.mu.Unlock()
	switch h := msg.Header.Get(TTYHeader); {
	case h == "":
		if len(msg.Data) > 0 {
			select {
			case s.input <- msg.Data:
			default: // a caller typing faster than the command reads: drop, like a full line
			}
		}
	case h == "close":
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		select {
		case s.closeNow <- struct{}{}:
		default:
		}
	case strings.HasPrefix(h, "resize "):
		if c, r, ok := parseResize(h); ok {
			s.mu.Lock()
			s.size = pty.Winsize{Cols: uint16(c), Rows: uint16(r)}
			s.mu.Unlock()
			if f != nil {
				_ = pty.Setsize(f, &pty.Winsize{Cols: uint16(c), Rows: uint16(r)})
			}
		}
	}
}

// parseResize reads "resize <cols> <rows>", each 1–1000.
func parseResize(h string) (cols, rows int, ok bool) {
	parts := strings.Fields(h)
	if len(parts) != 3 || parts[0] != "resize" {
		return 0, 0, false
	}
	c, err1 := strconv.Atoi(parts[1])
	r, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || c < 1 || r < 1 || c > maxTTYSide || r > maxTTYSide {
		return 0, 0, false
	}
	return c, r, true
}

// ExitStatus is a finished process's exit status as a shell gives it: its code, or
// 128+n for a process signal n ended (the status an attach passes on, docs/cli.md §5.6).
func ExitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// TTY is the caller's side of one attach: its terminal's keys in, the screen out.
type TTY struct {
	In     io.Reader     // the caller's keys
	Out    io.Writer     // where the screen goes
	Resize <-chan [2]int // the caller's terminal size changes: cols, rows
	Cols   int           // the size at the start (0: the member's PTY default)
	Rows   int
	Opened func(api.AttachPrepareResult) // called once the member attached
}

// Attach attaches target on host (docs/fleet.md §4.10) with the caller's terminal t and
// returns the attach command's exit status once it ends: a detach, a takeover by
// another attach, or ctx's end (the caller leaves; the member hangs the command up). A
// member gone or hung ends it with fleet_unreachable.
func (m *Member) Attach(ctx context.Context, host, target string, takeover bool, t TTY) (int, *wire.Error) {
	if err := m.Ping(ctx, host); err != nil {
		return 0, err
	}
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return 0, wire.Internal(wire.CauseRandom, err.Error())
	}
	sid := hex.EncodeToString(b)
	outs := make(chan *nats.Msg, 1024)
	sub, err := m.nc.ChanSubscribe(ttySubject(host, m.Host, sid, "out"), outs)
	if err != nil {
		return 0, unreachable(host, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	_ = sub.SetPendingLimits(-1, -1)
	data, _ := json.Marshal(AttachRequest{SID: sid, Target: target, Takeover: takeover, Cols: t.Cols, Rows: t.Rows})
	actx, cancel := context.WithTimeout(ctx, attachAskTimeout+PingTimeout)
	reply, err := m.nc.RequestWithContext(actx, AttachSubject(host, m.Host), data)
	cancel()
	if err != nil {
		return 0, unreachable(host, err)
	}
	raw, werr := DecodeReply(reply.Data)
	if werr != nil {
		return 0, werr
	}
	var opened api.AttachPrepareResult
	if json.Unmarshal(raw, &opened) != nil {
		return 0, wire.Internal(wire.CauseDecode, "fleet: "+host+"'s attach answer cannot be read")
	}
	if t.Opened != nil {
		t.Opened(opened)
	}
	in := ttySubject(host, m.Host, sid, "in")
	send := func(h string, data []byte) {
		msg := nats.NewMsg(in)
		if h != "" {
			msg.Header.Set(TTYHeader, h)
		}
		msg.Data = data
		_ = m.nc.PublishMsg(msg)
	}
	keys := make(chan []byte, 16)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := t.In.Read(buf)
			if n > 0 {
				keys <- slices.Clone(buf[:n])
			}
			if err != nil {
				close(keys)
				return
			}
		}
	}()
	wctx, stopWatch := context.WithCancelCause(ctx)
	defer stopWatch(nil)
	go m.watch(wctx, host, stopWatch)
	ping := time.NewTicker(TTYPingEvery)
	defer ping.Stop()
	leaving := ctx.Done()
	var giveUp <-chan time.Time
	for {
		select {
		case msg := <-outs:
			if h := msg.Header.Get(TTYHeader); strings.HasPrefix(h, "exit ") {
				code, _ := strconv.Atoi(strings.TrimPrefix(h, "exit "))
				return code, nil
			}
			_, _ = t.Out.Write(msg.Data)
		case k, ok := <-keys:
			if !ok {
				keys = nil
				continue
			}
			send("", k)
		case sz := <-t.Resize:
			send("resize "+strconv.Itoa(sz[0])+" "+strconv.Itoa(sz[1]), nil)
		case <-ping.C:
			send("ping", nil)
		case <-leaving:
			leaving = nil
			send("close", nil)
			giveUp = time.After(ttyGiveUp)
		case <-giveUp:
			return 130, nil
		case <-wctx.Done():
			var werr *wire.Error
			if errors.As(context.Cause(wctx), &werr) {
				return 0, werr
			}
			wctx = context.Background() // the caller's ctx: handled by leaving
		}
	}
}
