package ws

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/remote"
)

// The web dashboard's face (docs/dashboard.md): the page and its assets, the sign-in
// link's exchange for a cookie, the fleet feed, the send and kill actions, and signing
// out. The credentials' rules and every action's rules are the facade's.

//go:embed dashboard
var dashboardFiles embed.FS

// DashboardFacade is what the dashboard needs of the use cases (actors.System).
type DashboardFacade interface {
	RedeemDashboardLink(ctx context.Context, token string) (string, error)
	CheckDashboardSession(ctx context.Context, session string) (string, error)
	CheckDashboardStream(ctx context.Context, agent, session string) (string, error)
	OpenDashboardFeed(ctx context.Context, hash string, sink actors.FrameSink) (*actors.DashboardFeed, error)
	SignOutDashboard(ctx context.Context, session string) error
	Send(ctx context.Context, r api.SendRequest) (api.SendResult, error)
	Kill(ctx context.Context, r api.KillRequest) (api.KillResult, error)
	BudgetExtend(ctx context.Context, r api.BudgetExtendRequest) (api.BudgetExtendResult, error)
	DashboardQuota(ctx context.Context) ([]api.QuotaWindow, error)
	DashboardFleet(ctx context.Context) ([]actors.DashboardMember, error)
	FleetCall(ctx context.Context, r api.FleetCallRequest) (api.FleetCallResult, error)
}

// maxActionBody bounds an action's request body: a prompt of 8 MiB (docs/decisions.md
// D9) with room for JSON escaping.
const maxActionBody = 9 << 20

// pageHeaders are sent with every dashboard response: no framing (the approve buttons
// must not be clickjacked), scripts and connections from this origin only, no referrer
// (a sign-in link never leaves in a Referer), nothing cached.
var pageHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"X-Frame-Options":        "DENY",
	"Referrer-Policy":        "no-referrer",
	"X-Content-Type-Options": "nosniff",
	"Cache-Control":          "no-store",
}

func setPageHeaders(w http.ResponseWriter) {
	for k, v := range pageHeaders {
		w.Header().Set(k, v)
	}
}

// routeDashboard adds the dashboard's routes to mux.
func (s *Server) routeDashboard(mux *http.ServeMux) {
	assets, _ := fs.Sub(dashboardFiles, "dashboard")
	files := http.StripPrefix("/dashboard/", http.FileServer(http.FS(assets)))
	mux.HandleFunc("GET /{$}", s.serveIndex)
	mux.HandleFunc("GET /dashboard/{file}", func(w http.ResponseWriter, r *http.Request) {
		// The page's code only; index.html is served by GET /, behind the session.
		if f := r.PathValue("file"); f != "app.js" && f != "app.css" {
			http.NotFound(w, r)
			return
		}
		setPageHeaders(w)
		files.ServeHTTP(w, r)
	})
	mux.Handle("GET /dashboard/ws", s.cookieOrigin(http.HandlerFunc(s.serveFeed)))
	// Cross-origin POSTs are refused by Sec-Fetch-Site / Origin (net/http's
	// CrossOriginProtection) before the session is even read; it lets a request with
	// neither header through, which cookieOrigin then refuses.
	csrf := http.NewCrossOriginProtection()
	mux.Handle("POST /dashboard/api/send", csrf.Handler(s.cookieOrigin(s.action(s.sendAction))))
	mux.Handle("POST /dashboard/api/kill", csrf.Handler(s.cookieOrigin(s.action(s.killAction))))
	mux.Handle("POST /dashboard/api/extend", csrf.Handler(s.cookieOrigin(s.action(s.extendAction))))
	mux.Handle("POST /dashboard/api/quota", csrf.Handler(s.cookieOrigin(s.action(s.quotaAction))))
	mux.Handle("POST /dashboard/api/fleet", csrf.Handler(s.cookieOrigin(s.action(s.fleetAction))))
	mux.Handle("POST /dashboard/api/logs", csrf.Handler(s.cookieOrigin(s.action(s.logsAction))))
	mux.Handle("POST /dashboard/api/signout", csrf.Handler(s.cookieOrigin(http.HandlerFunc(s.signOut))))
}

// sameOrigin reports whether r carries an Origin naming this listener: its scheme (https
// with TLS) and the request's Host. A browser sends one on every WebSocket handshake and
// every POST; a request without one is not taken to be same-origin.
func (s *Server) sameOrigin(r *http.Request) bool {
	u, err := url.Parse(r.Header.Get("Origin"))
	if err != nil || u.Host == "" || u.Path != "" || u.User != nil {
		return false
	}
	scheme := "http"
	if s.TLS() {
		scheme = "https"
	}
	return u.Scheme == scheme && strings.EqualFold(u.Host, r.Host)
}

// cookieOrigin refuses (403) a request that presents the session cookie without an
// Origin naming this listener (docs/dashboard.md §2); one without the cookie goes on, to
// be refused as not signed in.
func (s *Server) cookieOrigin(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.session(r) != "" && !s.sameOrigin(r) {
			forbidOrigin(w)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// forbidOrigin answers a cookie request without this host's Origin: 403, plain text.
func forbidOrigin(w http.ResponseWriter) {
	setPageHeaders(w)
	http.Error(w, "the dashboard's session cookie needs an Origin header naming this host", http.StatusForbidden)
}

// cookieName is the session cookie's name. Cookies do not tell ports apart, so the
// listener's port is in the name (two servers on one host keep their own sessions);
// with TLS the __Host- prefix pins it to this host, Secure and Path=/.
func (s *Server) cookieName() string {
	_, port, _ := net.SplitHostPort(s.Addr())
	name := "orcr_dashboard_" + port
	if s.TLS() {
		name = "__Host-" + name
	}
	return name
}

// session returns the request's session cookie ("" for none).
func (s *Server) session(r *http.Request) string {
	c, err := r.Cookie(s.cookieName())
	if err != nil {
		return ""
	}
	return c.Value
}

// serveIndex serves the page to a signed-in browser. With ?token= it first exchanges a
// sign-in link for a session cookie.
func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w)
	if r.URL.Query().Has("token") {
		s.signIn(w, r)
		return
	}
	if _, err := s.facade.CheckDashboardSession(r.Context(), s.session(r)); err != nil {
		s.signedOut(w, err)
		return
	}
	page, err := dashboardFiles.ReadFile("dashboard/index.html")
	if err != nil {
		http.Error(w, "the dashboard page is missing from this build", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page)
}

// signIn redeems ?token= and sets the session cookie. The answer is a page that moves
// on to / itself rather than a redirect: a SameSite=Strict cookie is not sent on a
// redirect that ends a cross-site navigation (a link clicked in a web mail), but it is
// on the page's own same-origin navigation. The link's URL is left behind at once.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	session, err := s.facade.RedeemDashboardLink(r.Context(), r.URL.Query().Get("token"))
	if err != nil {
		if _, cerr := s.facade.CheckDashboardSession(r.Context(), s.session(r)); cerr == nil {
			http.Redirect(w, r, "/", http.StatusSeeOther) // an old link; this browser is signed in
			return
		}
		if !errors.Is(err, actors.ErrUnauthorized) {
			s.log.Error("dashboard: sign-in failed", "err", err)
			s.page(w, http.StatusInternalServerError, "Sign-in failed", "The server could not sign this browser in; its log says why.")
			return
		}
		s.page(w, http.StatusUnauthorized, "This sign-in link is not valid",
			"It was already used, it expired (links last 10 minutes), or it was revoked. Run <code>orcr dashboard</code> on the server's machine for a new one.")
		return
	}
	s.setCookie(w, session, int(actors.DashboardSessionTTL/time.Second))
	s.page(w, http.StatusOK, "Signed in", `Opening the dashboard… <a href="/">continue</a>`,
		`<meta http-equiv="refresh" content="0;url=/">`)
}

// setCookie sets the session cookie to value for maxAge seconds (negative: delete it).
func (s *Server) setCookie(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.TLS(), SameSite: http.SameSiteStrictMode})
}

// signedOut answers a request without a valid session: 401 and how to sign in.
func (s *Server) signedOut(w http.ResponseWriter, err error) {
	if !errors.Is(err, actors.ErrUnauthorized) {
		s.log.Error("dashboard: session check failed", "err", err)
	}
	s.page(w, http.StatusUnauthorized, "Not signed in",
		"Run <code>orcr dashboard</code> on the server's machine and open the link it prints (it works once, within 10 minutes).")
}

// page writes a small static HTML page (title and body are trusted text of this file).
func (s *Server) page(w http.ResponseWriter, status int, title, body string, head ...string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8">`+
		`<meta name="viewport" content="width=device-width, initial-scale=1">`)
	for _, h := range head {
		io.WriteString(w, h)
	}
	io.WriteString(w, `<title>orcr — `+title+`</title><link rel="stylesheet" href="/dashboard/app.css"></head>`+
		`<body class="notice"><main><h1>`+title+`</h1><p>`+body+`</p></main></body></html>`)
}

// serveFeed serves the fleet feed: the session first (after the upgrade, so a refusal
// is the stream's single unauthorized frame), then the watch.open frames until the
// browser goes, the session is revoked or the server stops. A handshake with the cookie
// has passed cookieOrigin (a cookie rides cross-site WebSocket handshakes otherwise); the
// upgrade refuses another Origin too.
func (s *Server) serveFeed(w http.ResponseWriter, r *http.Request) {
	s.conns.Add(1)
	defer s.conns.Done()
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	hash, err := s.facade.CheckDashboardSession(ctx, s.session(r))
	if err != nil {
		if !errors.Is(err, actors.ErrUnauthorized) {
			s.log.Error("dashboard: session check failed", "err", err)
		}
		s.refuse(ctx, c, remote.Unauthorized, "not signed in: run `orcr dashboard` for a sign-in link")
		return
	}
	sink := newSink(2 * actors.DefaultMaxInFlight)
	feed, err := s.facade.OpenDashboardFeed(ctx, hash, feedSink{sink})
	if err != nil {
		s.log.Error("dashboard: cannot open the fleet feed", "err", err)
		s.refuse(ctx, c, remote.Internal, "the server cannot open the fleet feed")
		return
	}
	defer feed.Close()
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		sink.run(ctx, c)
		cancel()
	}()
	go func() {
		select {
		case <-feed.Revoked():
			b, _ := remote.ErrorFrame{Code: remote.Unauthorized, Message: "this dashboard session was revoked"}.MarshalJSON()
			sink.Close(b)
		case <-ctx.Done():
		}
	}()
	go s.heartbeat(ctx, c)
	// The browser sends nothing; reading keeps pings and the close handshake working.
	for {
		if _, _, err := c.Read(ctx); err != nil {
			break
		}
	}
	sink.Close(nil)
	<-writerDone
}

// feedSink adapts a connection's sink to the subscription actor (actors.FrameSink). The
// queue holds twice the subscription's frames in flight (and its few control frames),
// so it only overflows if that bound is broken.
type feedSink struct{ *sink }

func (f feedSink) Enqueue(frame []byte, onWritten func()) {
	ok, closed := f.enqueue(queued{frame: frame, written: onWritten})
	if !ok && !closed {
		b, _ := remote.ErrorFrame{Code: remote.Lagged, Message: "the fleet feed fell behind; reconnect"}.MarshalJSON()
		f.Close(b)
	}
}

// envelope is an action's answer, the CLI's --json envelope (docs/cli.md §1.4).
type envelope struct {
	OK     bool        `json:"ok"`
	Result any         `json:"result,omitempty"`
	Error  *wire.Error `json:"error,omitempty"`
}

// httpStatus is the HTTP status of an action refused with a protocol error code.
var httpStatus = map[wire.Code]int{
	wire.NotFound:              http.StatusNotFound,
	wire.InvalidRequest:        http.StatusBadRequest,
	wire.StateConflict:         http.StatusConflict,
	wire.Blocked:               http.StatusConflict,
	wire.Timeout:               http.StatusGatewayTimeout,
	wire.IntegrationMissing:    http.StatusFailedDependency,
	wire.TranscriptUnavailable: http.StatusNotFound,
	wire.EnvironmentError:      http.StatusServiceUnavailable,
	wire.ServerError:           http.StatusInternalServerError,
}

// action serves one dashboard action: a signed-in session, a JSON body decoded strictly,
// then the facade call; the answer is the CLI's envelope.
func (s *Server) action(do func(ctx context.Context, body json.RawMessage) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w)
		if _, err := s.facade.CheckDashboardSession(r.Context(), s.session(r)); err != nil {
			s.unauthorized(w, err)
			return
		}
		body, ok := readActionBody(w, r)
		if !ok {
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(s.ctx, cancel)()
		res, err := do(ctx, body)
		if err != nil {
			s.actionError(w, r, err)
			return
		}
		writeEnvelope(w, http.StatusOK, envelope{OK: true, Result: res})
	})
}

// unauthorized answers an action without a valid session: 401 with the unauthorized
// envelope (err is logged unless it is [actors.ErrUnauthorized]).
func (s *Server) unauthorized(w http.ResponseWriter, err error) {
	if !errors.Is(err, actors.ErrUnauthorized) {
		s.log.Error("dashboard: session check failed", "err", err)
	}
	writeEnvelope(w, http.StatusUnauthorized, envelope{Error: &wire.Error{Code: "unauthorized",
		Message: "not signed in: run `orcr dashboard` for a sign-in link"}})
}

// readActionBody reads an action's body, which must be JSON (a JSON body cannot come
// from a cross-site form without a CORS preflight, which this server never grants) of
// at most maxActionBody bytes; otherwise it answers 415 or 413 and ok is false.
func readActionBody(w http.ResponseWriter, r *http.Request) (body json.RawMessage, ok bool) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeEnvelope(w, http.StatusUnsupportedMediaType, envelope{Error: wire.New(wire.InvalidRequest,
			"actions take a JSON body (Content-Type: application/json)", "reason", wire.ReasonBadJSON)})
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxActionBody))
	if err != nil {
		writeEnvelope(w, http.StatusRequestEntityTooLarge, envelope{Error: wire.New(wire.InvalidRequest,
			"the request body is larger than "+strconv.Itoa(maxActionBody)+" bytes", "reason", wire.ReasonFrameTooLarge,
			"limit_bytes", maxActionBody)})
		return nil, false
	}
	return body, true
}

// actionError answers an action the facade refused, with the error's protocol code and
// its HTTP status.
func (s *Server) actionError(w http.ResponseWriter, r *http.Request, err error) {
	pe := wire.From(err, wire.CauseInternal)
	if pe.Code == wire.ServerError {
		s.log.Error("dashboard: an action failed", "path", r.URL.Path, "err", err)
	}
	status, ok := httpStatus[pe.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	writeEnvelope(w, status, envelope{Error: pe})
}

// signOut ends this browser's session (docs/dashboard.md §2): the same checks as an
// action (same origin, a session, a JSON body: `{}`), then the facade revokes the
// session and closes its open connections, and the cookie is deleted. Another browser's
// sessions are untouched. Without a valid session nothing changes (401), though a stale
// cookie is deleted too.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w)
	session := s.session(r)
	if _, err := s.facade.CheckDashboardSession(r.Context(), session); err != nil {
		if errors.Is(err, actors.ErrUnauthorized) && session != "" {
			s.setCookie(w, "", -1)
		}
		s.unauthorized(w, err)
		return
	}
	body, ok := readActionBody(w, r)
	if !ok {
		return
	}
	if err := decodeBody(body, &struct{}{}); err != nil {
		s.actionError(w, r, err)
		return
	}
	err := s.facade.SignOutDashboard(r.Context(), session)
	if errors.Is(err, actors.ErrUnauthorized) { // signed out meanwhile (another tab)
		s.setCookie(w, "", -1)
		s.unauthorized(w, err)
		return
	}
	if err != nil {
		s.actionError(w, r, err)
		return
	}
	s.setCookie(w, "", -1)
	writeEnvelope(w, http.StatusOK, envelope{OK: true, Result: struct{}{}})
}

func writeEnvelope(w http.ResponseWriter, status int, e envelope) {
	b, err := json.Marshal(e)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"ok":false,"error":{"code":"server_error","message":"encode"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// sendBody and killBody are the actions' bodies: a target as the CLI takes it (the page
// sends uuids); the caller is the server's own user, scoped like a CLI without ORCR_ID.
// With host, the target is an agent of that fleet member, sent to or killed there over
// the fleet under its policy (docs/dashboard.md §6.1).
type (
	sendBody struct {
		Host   string `json:"host,omitempty"`
		Target string `json:"target"`
		Prompt string `json:"prompt"`
	}
	killBody struct {
		Host   string `json:"host,omitempty"`
		Target string `json:"target"`
		Force  bool   `json:"force,omitempty"`
	}
	// logsBody reads another host's agent: its last entries, or its screen.
	logsBody struct {
		Host   string `json:"host"`
		Target string `json:"target"`
		Screen bool   `json:"screen,omitempty"`
	}
	// extendBody is budget.extend's: a budget or an agent, and the amount.
	extendBody struct {
		Target string `json:"target"`
		By     string `json:"by"`
	}
)

// decodeBody decodes an action body strictly (unknown keys refused).
func decodeBody(body json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return wire.New(wire.InvalidRequest, "bad action body: "+err.Error(), "reason", wire.ReasonBadJSON)
	}
	return nil
}

func (s *Server) sendAction(ctx context.Context, body json.RawMessage) (any, error) {
	var b sendBody
	if err := decodeBody(body, &b); err != nil {
		return nil, err
	}
	req := api.SendRequest{Target: b.Target, Prompt: b.Prompt}
	if b.Host != "" {
		return s.onHost(ctx, b.Host, api.AgentSend.Name, req)
	}
	return s.facade.Send(ctx, req)
}

// onHost calls method on fleet member host (fleet.call) and answers its result as the
// local verb's would be answered; the member's error (fleet_not_allowed outside its
// policy, fleet_unreachable) is the action's.
func (s *Server) onHost(ctx context.Context, host, method string, params any) (any, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, wire.Internal(wire.CauseEncode, err.Error())
	}
	res, err := s.facade.FleetCall(ctx, api.FleetCallRequest{Host: host, Method: method, Params: raw})
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

func (s *Server) killAction(ctx context.Context, body json.RawMessage) (any, error) {
	var b killBody
	if err := decodeBody(body, &b); err != nil {
		return nil, err
	}
	var targets []string
	if b.Target != "" {
		targets = []string{b.Target}
	}
	req := api.KillRequest{Targets: targets, Force: b.Force}
	if b.Host != "" {
		return s.onHost(ctx, b.Host, api.AgentKill.Name, req)
	}
	return s.facade.Kill(ctx, req)
}

// hostLogTail is how many of its last entries the page reads of another host's agent.
const hostLogTail = 50

// logsAction reads an agent of another fleet member (docs/dashboard.md §6.1): agent.logs
// on that member over the fleet, its last hostLogTail entries or (screen) its pane's
// screen, under the member's policy. A local agent's log is its stream (§4); a body
// without a host is refused as fleet.call refuses it.
func (s *Server) logsAction(ctx context.Context, body json.RawMessage) (any, error) {
	var b logsBody
	if err := decodeBody(body, &b); err != nil {
		return nil, err
	}
	req := api.LogsRequest{Target: b.Target, Screen: b.Screen}
	if !b.Screen {
		tail := hostLogTail
		req.Tail = &tail
	}
	return s.onHost(ctx, b.Host, api.AgentLogs.Name, req)
}

func (s *Server) extendAction(ctx context.Context, body json.RawMessage) (any, error) {
	var b extendBody
	if err := decodeBody(body, &b); err != nil {
		return nil, err
	}
	return s.facade.BudgetExtend(ctx, api.BudgetExtendRequest{Target: b.Target, By: b.By})
}

// quotaAction answers the page's read of the quota windows (docs/dashboard.md §6): body
// {}, result {quota}, each window judged as server.status judges it.
func (s *Server) quotaAction(ctx context.Context, body json.RawMessage) (any, error) {
	if err := decodeBody(body, &struct{}{}); err != nil {
		return nil, err
	}
	ws, err := s.facade.DashboardQuota(ctx)
	if err != nil {
		return nil, err
	}
	return struct {
		Quota []api.QuotaWindow `json:"quota"`
	}{ws}, nil
}

// fleetAction answers the page's read of the other members of the fleet
// (docs/dashboard.md §6.1): body {}, result {members}, each with its agents when it
// answered; no fleet: no members.
func (s *Server) fleetAction(ctx context.Context, body json.RawMessage) (any, error) {
	if err := decodeBody(body, &struct{}{}); err != nil {
		return nil, err
	}
	ms, err := s.facade.DashboardFleet(ctx)
	var listErr *api.Error
	if wire.Is(err, wire.EnvironmentError, wire.CauseFleetUnreachable) {
		// The fleet itself did not answer: the page says so where the members go.
		ms, listErr, err = []actors.DashboardMember{}, wire.From(err, wire.CauseFleetUnreachable), nil
	}
	if err != nil {
		return nil, err
	}
	return struct {
		Members []actors.DashboardMember `json:"members"`
		Error   *api.Error               `json:"error,omitempty"`
	}{ms, listErr}, nil
}
