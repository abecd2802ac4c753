package ws_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// noRedirect is an HTTP client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// newBareRig is a rig without herdr (no agents): enough for sign-in.
func newBareRig(t *testing.T) *rig {
	t.Helper()
	srv := sockettest.NewServer(t, sockettest.WithConfig(`{"remote": {"listen": "127.0.0.1:0"}}`))
	return &rig{t: t, srv: srv, c: srv.Client(t), base: "http://" + srv.RemoteAddr(), d: &remote.Dialer{}}
}

// link issues a dashboard sign-in link.
func (r *rig) link() string {
	r.t.Helper()
	res, err := r.c.DashboardLogin(ctxT(r.t, 10*time.Second), api.DashboardLoginRequest{})
	if err != nil || res.URL == nil {
		r.t.Fatalf("dashboard.login: %+v %v", res, err)
	}
	return *res.URL
}

// get sends GET path with the given headers (name, value pairs).
func (r *rig) get(path string, kv ...string) (*http.Response, string) {
	r.t.Helper()
	return r.do(http.MethodGet, path, "", kv...)
}

func (r *rig) do(method, path, body string, kv ...string) (*http.Response, string) {
	r.t.Helper()
	req, err := http.NewRequestWithContext(ctxT(r.t, 30*time.Second), method, r.base+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// signIn redeems a fresh link and returns the session cookie as a Cookie header value.
func (r *rig) signIn() string {
	r.t.Helper()
	c := sockettest.DashboardCookie(r.t, r.c)
	return c.Name + "=" + c.Value
}

// action posts body to /dashboard/api/<name> with the cookie and same-origin headers
// and decodes the envelope.
func (r *rig) action(name, cookie, body string, kv ...string) (int, bool, map[string]any, *wire.Error) {
	r.t.Helper()
	hs := append([]string{"Cookie", cookie, "Content-Type", "application/json", "Origin", r.base}, kv...)
	resp, b := r.do(http.MethodPost, "/dashboard/api/"+name, body, hs...)
	var env struct {
		OK     bool           `json:"ok"`
		Result map[string]any `json:"result"`
		Error  *wire.Error    `json:"error"`
	}
	if resp.StatusCode != http.StatusForbidden {
		if err := json.Unmarshal([]byte(b), &env); err != nil {
			r.t.Fatalf("%s: %d %q is not an envelope: %v", name, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode, env.OK, env.Result, env.Error
}

// Sign-in (docs/dashboard.md §2): without a session the page is a 401 that says how to
// sign in; a link sets an HttpOnly SameSite=Strict cookie once and is spent; a wrong
// token is 401; every answer forbids framing and referrers.
func TestDashboardSignIn(t *testing.T) {
	t.Parallel()
	r := newBareRig(t)
	resp, body := r.get("/")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "orcr dashboard") {
		t.Errorf("GET / signed out: %d %q", resp.StatusCode, body)
	}
	for h, want := range map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: got %q, want %q", h, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	if resp, _ := r.get("/?token=not-a-token"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", resp.StatusCode)
	}

	u, _ := url.Parse(r.link())
	if u.Scheme != "http" || "http://"+u.Host != r.base || u.Path != "/" || len(u.Query().Get("token")) != 43 {
		t.Errorf("link %s (listener %s)", u, r.base)
	}
	resp, body = r.get("/?" + u.RawQuery)
	cs := resp.Cookies()
	if resp.StatusCode != http.StatusOK || len(cs) != 1 || !strings.Contains(body, `http-equiv="refresh"`) {
		t.Fatalf("redeem: %d %v %q", resp.StatusCode, cs, body)
	}
	c := cs[0]
	_, port, _ := strings.Cut(u.Host, ":")
	if c.Name != "orcr_dashboard_"+port || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" ||
		c.Secure || c.MaxAge != 30*24*3600 || len(c.Value) != 43 {
		t.Errorf("cookie %+v", c)
	}
	if c.Value == u.Query().Get("token") {
		t.Error("the cookie holds the link's token; it must be a new session secret")
	}
	cookie := c.Name + "=" + c.Value
	if resp, _ := r.get("/?" + u.RawQuery); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the spent link again: %d, want 401", resp.StatusCode)
	}
	if resp, _ := r.get("/?"+u.RawQuery, "Cookie", cookie); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("the spent link in a signed-in browser: %d %q, want 303 /", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body = r.get("/", "Cookie", cookie)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `src="/dashboard/app.js"`) {
		t.Errorf("GET / signed in: %d %q", resp.StatusCode, body)
	}
	if resp, _ := r.get("/", "Cookie", c.Name+"=AAAA"+c.Value[4:]); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a forged cookie: %d, want 401", resp.StatusCode)
	}
	if resp, b := r.get("/dashboard/app.js"); resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "javascript") || !strings.Contains(b, "use strict") {
		t.Errorf("app.js: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := r.get("/dashboard/index.html"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the page past the session check: %d, want 404", resp.StatusCode)
	}

	// Rotate signs this browser out and issues a new link; revoke issues none.
	res, err := r.c.DashboardLogin(ctxT(t, 10*time.Second), api.DashboardLoginRequest{Rotate: true})
	if err != nil || res.URL == nil || res.Revoked != 1 {
		t.Fatalf("rotate: %+v %v", res, err)
	}
	if resp, _ := r.get("/", "Cookie", cookie); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a rotated-away session: %d, want 401", resp.StatusCode)
	}
	res, err = r.c.DashboardLogin(ctxT(t, 10*time.Second), api.DashboardLoginRequest{Revoke: true})
	if err != nil || res.URL != nil || res.Revoked != 1 {
		t.Errorf("revoke (the unused link of the rotation): %+v %v", res, err)
	}
	_, err = r.c.DashboardLogin(ctxT(t, 10*time.Second), api.DashboardLoginRequest{Rotate: true, Revoke: true})
	if !wire.Is(err, wire.InvalidRequest, "") {
		t.Errorf("rotate with revoke: %v", err)
	}
}

// Actions (docs/dashboard.md §4): a session and a same-origin JSON POST, else 401, 403 or
// 415; the facade's errors come back as the CLI's envelope with their protocol code.
func TestDashboardActions(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("dact/a", "")
	waitIdle(t, r, agent)
	cookie := r.signIn()

	if st, _, _, e := r.action("send", "", `{"target":"`+agent+`","prompt":"say=hi"}`); st != http.StatusUnauthorized || e == nil || e.Code != "unauthorized" {
		t.Errorf("no session: %d %+v", st, e)
	}
	if st, _, _, _ := r.action("send", cookie, `{"target":"`+agent+`","prompt":"say=hi"}`, "Origin", "http://evil.example"); st != http.StatusForbidden {
		t.Errorf("another Origin: %d, want 403", st)
	}
	if st, _, _, _ := r.action("send", cookie, `{"target":"`+agent+`","prompt":"say=hi"}`, "Sec-Fetch-Site", "cross-site"); st != http.StatusForbidden {
		t.Errorf("Sec-Fetch-Site cross-site: %d, want 403", st)
	}
	if st, _, _, e := r.action("send", cookie, `{"target":"x"}`, "Content-Type", "text/plain"); st != http.StatusUnsupportedMediaType || e == nil || e.Code != wire.InvalidRequest {
		t.Errorf("a form-like body: %d %+v", st, e)
	}
	if st, _, _, e := r.action("send", cookie, `{"target":"`+agent+`","prompt":"x","caller_id":"y"}`); st != http.StatusBadRequest || e == nil || e.Code != wire.InvalidRequest {
		t.Errorf("an unknown key: %d %+v", st, e)
	}
	if st, _, _, e := r.action("send", cookie, `{"target":"dact/nosuch","prompt":"say=x"}`); st != http.StatusNotFound || e == nil || e.Code != wire.NotFound {
		t.Errorf("send to no agent: %d %+v", st, e)
	}
	if st, _, _, e := r.action("send", cookie, `{"target":"`+agent+`","prompt":"a\u0007b"}`); st != http.StatusBadRequest || e == nil || e.Reason() != "control_characters" {
		t.Errorf("a control character: %d %+v", st, e)
	}
	st, ok, res, e := r.action("send", cookie, `{"target":"`+agent+`","prompt":"say=hi"}`)
	if st != http.StatusOK || !ok || res["uuid"] != agent || res["delivered_while"] != "idle" {
		t.Errorf("send: %d %v %v %+v", st, ok, res, e)
	}
	st, ok, res, e = r.action("kill", cookie, `{"target":"`+agent+`"}`)
	if killed, _ := res["killed"].([]any); st != http.StatusOK || !ok || len(killed) != 1 {
		t.Errorf("kill: %d %v %v %+v", st, ok, res, e)
	}
	if st, _, _, e := r.action("kill", cookie, `{}`); st != http.StatusBadRequest || e == nil || e.Reason() != "target_required" {
		t.Errorf("kill without target: %d %+v", st, e)
	}
}

// dialFeed opens the fleet feed with the given headers.
func (r *rig) dialFeed(kv ...string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	c, resp, err := websocket.Dial(ctxT(r.t, 10*time.Second), "ws"+strings.TrimPrefix(r.base, "http")+"/dashboard/ws",
		&websocket.DialOptions{HTTPHeader: h})
	if err == nil {
		r.t.Cleanup(func() { c.CloseNow() })
	}
	return c, resp, err
}

func readJSON(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	_, b, err := c.Read(ctxT(t, 30*time.Second))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("frame %q: %v", b, err)
	}
	return m
}

// The fleet feed (docs/dashboard.md §3) relays watch.open: the response with the
// snapshot, then event frames. It and a cookie-authenticated agent stream need the
// session and this host's Origin; revoking the sessions closes both with unauthorized.
func TestDashboardFeedAndRevoke(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("dfeed/a", "")
	cookie := r.signIn()

	c, _, err := r.dialFeed()
	if err != nil {
		t.Fatal(err)
	}
	if f := readJSON(t, c); f["type"] != "error" || f["code"] != "unauthorized" {
		t.Errorf("the feed without a session: %v", f)
	}
	if _, resp, err := r.dialFeed("Cookie", cookie, "Origin", "http://evil.example"); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("the feed from another Origin: %v", err)
	}
	c, _, err = r.dialFeed("Cookie", cookie, "Origin", r.base)
	if err != nil {
		t.Fatal(err)
	}
	first := readJSON(t, c)
	snap, _ := first["result"].(map[string]any)["snapshot"].(map[string]any)
	if first["ok"] != true || snap == nil || !strings.Contains(mustJSON(t, snap["agents"]), agent) {
		t.Fatalf("the feed's first frame: %v", first)
	}
	second := r.run("dfeed/b", "")
	for {
		f := readJSON(t, c)
		ev, _ := f["event"].(map[string]any)
		if a, _ := ev["agent"].(map[string]any); a != nil && a["uuid"] == second {
			if f["seq"].(float64) <= snap["snapshot_seq"].(float64) {
				t.Errorf("event seq %v not after the snapshot's %v", f["seq"], snap["snapshot_seq"])
			}
			break
		}
	}

	// The agent's stream with the session cookie instead of a token.
	d := &remote.Dialer{Header: http.Header{"Cookie": {cookie}, "Origin": {r.base}}}
	sc, err := d.Dial(ctxT(t, 10*time.Second), r.base, agent, "")
	if err != nil {
		t.Fatalf("the stream with the session: %v", err)
	}
	defer sc.Close()
	if h := sc.Hello(); h.SessionID != agent {
		t.Errorf("hello %+v", h)
	}
	evil := &remote.Dialer{Header: http.Header{"Cookie": {cookie}, "Origin": {"http://evil.example"}}}
	if _, err := evil.Dial(ctxT(t, 10*time.Second), r.base, second, ""); err == nil {
		t.Error("the stream with the session from another Origin was accepted")
	}
	if _, err := d.Dial(ctxT(t, 10*time.Second), r.base, "01234567-89ab-7def-8123-456789abcdef", ""); !remote.IsCode(err, remote.Unauthorized) {
		t.Errorf("the stream of no agent: %v", err)
	}

	res, err := r.c.DashboardLogin(ctxT(t, 10*time.Second), api.DashboardLoginRequest{Revoke: true})
	if err != nil || res.Revoked != 1 {
		t.Fatalf("revoke: %+v %v", res, err)
	}
	for {
		f := readJSON(t, c)
		if f["type"] == "error" {
			if f["code"] != "unauthorized" {
				t.Errorf("the feed at the revocation: %v", f)
			}
			break
		}
	}
	if ef := errorFrame(t, sc, 10*time.Second); ef.Code != remote.Unauthorized {
		t.Errorf("the stream at the revocation: %+v", ef)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Without remote.listen there is no listener, so nothing is served; a link cannot be
// issued (environment_error remote_off), and revoking still works.
func TestDashboardNoListener(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	if srv.RemoteAddr() != "" {
		t.Fatalf("a listener without remote.listen: %s", srv.RemoteAddr())
	}
	c := srv.Client(t)
	_, err := c.DashboardLogin(ctxT(t, 10*time.Second), api.DashboardLoginRequest{})
	if !wire.Is(err, wire.EnvironmentError, "remote_off") {
		t.Errorf("dashboard.login without a listener: %v", err)
	}
	if res, err := c.DashboardLogin(ctxT(t, 10*time.Second), api.DashboardLoginRequest{Revoke: true}); err != nil || res.URL != nil {
		t.Errorf("revoke without a listener: %+v %v", res, err)
	}
}

// feedError reads the feed's frames until its error frame, then checks that the feed
// closes after it.
func feedError(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	for {
		if f := readJSON(t, c); f["type"] == "error" {
			if _, _, err := c.Read(ctxT(t, 10*time.Second)); err == nil {
				t.Errorf("the feed stays open after its error frame %v", f)
			}
			return f
		}
	}
}

// feedSees reads the feed's frames until an event of agent.
func feedSees(t *testing.T, c *websocket.Conn, agent string) {
	t.Helper()
	for {
		f := readJSON(t, c)
		if f["type"] == "error" {
			t.Fatalf("the feed ended with %v before an event of %s", f, agent)
		}
		ev, _ := f["event"].(map[string]any)
		if a, _ := ev["agent"].(map[string]any); a != nil && a["uuid"] == agent {
			return
		}
	}
}

// signOut posts the sign-out action with cookie and the same-origin headers; it
// returns the status, the envelope's error and the cookie the answer set (nil: none).
func (r *rig) signOut(cookie string, kv ...string) (int, *wire.Error, *http.Cookie) {
	r.t.Helper()
	hs := append([]string{"Cookie", cookie, "Content-Type", "application/json", "Origin", r.base}, kv...)
	resp, b := r.do(http.MethodPost, "/dashboard/api/signout", "{}", hs...)
	var env struct {
		OK    bool        `json:"ok"`
		Error *wire.Error `json:"error"`
	}
	if resp.StatusCode != http.StatusForbidden {
		if err := json.Unmarshal([]byte(b), &env); err != nil || env.OK != (resp.StatusCode == http.StatusOK) {
			r.t.Fatalf("sign-out: %d %q is not its envelope: %v", resp.StatusCode, b, err)
		}
	}
	var set *http.Cookie
	if cs := resp.Cookies(); len(cs) == 1 {
		set = cs[0]
	}
	return resp.StatusCode, env.Error, set
}

// Signing out (docs/dashboard.md §2) ends one browser's session: its cookie is deleted
// and refused from then on, and its open feed and agent stream are closed with
// unauthorized; another session goes on, its connections too. A sign-out that is
// cross-site, not JSON or without a valid session changes nothing; a second one is a
// harmless 401.
func TestDashboardSignOut(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agentA, agentB := r.run("dso/a", ""), r.run("dso/b", "")
	cookieA, cookieB := r.signIn(), r.signIn()
	signedIn := func(what, cookie string, want int) {
		t.Helper()
		if resp, _ := r.get("/", "Cookie", cookie); resp.StatusCode != want {
			t.Errorf("GET / %s: %d, want %d", what, resp.StatusCode, want)
		}
	}
	feed := func(cookie string) *websocket.Conn {
		t.Helper()
		c, _, err := r.dialFeed("Cookie", cookie, "Origin", r.base)
		if err != nil {
			t.Fatal(err)
		}
		if f := readJSON(t, c); f["ok"] != true {
			t.Fatalf("the feed's first frame: %v", f)
		}
		return c
	}
	stream := func(cookie, agent string) *remote.Conn {
		t.Helper()
		d := &remote.Dialer{Header: http.Header{"Cookie": {cookie}, "Origin": {r.base}}}
		c, err := d.Dial(ctxT(t, 10*time.Second), r.base, agent, "")
		if err != nil {
			t.Fatalf("the stream of %s with a session: %v", agent, err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	feedA, feedB := feed(cookieA), feed(cookieB)
	streamA, streamB := stream(cookieA, agentA), stream(cookieB, agentB)

	// Refused before anything changes: another site, a form, no session.
	for _, c := range []struct {
		name   string
		cookie string
		kv     []string
		want   int
	}{
		{"from another Origin", cookieA, []string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"Sec-Fetch-Site cross-site", cookieA, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"a form body", cookieA, []string{"Content-Type", "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"without a session", "", nil, http.StatusUnauthorized},
		{"with a forged session", cookieA[:len(cookieA)-4] + "AAAA", nil, http.StatusUnauthorized},
	} {
		if st, _, set := r.signOut(c.cookie, c.kv...); st != c.want || (set != nil && c.want != http.StatusUnauthorized) {
			t.Errorf("sign-out %s: %d (cookie set %v), want %d and no cookie", c.name, st, set, c.want)
		}
	}
	signedIn("with A after the refused sign-outs", cookieA, http.StatusOK)

	// A signs out: the cookie is deleted, the feed and the stream end with unauthorized.
	st, e, set := r.signOut(cookieA)
	name, _, _ := strings.Cut(cookieA, "=")
	if st != http.StatusOK || e != nil || set == nil || set.Name != name || set.MaxAge >= 0 || set.Value != "" ||
		!set.HttpOnly || set.SameSite != http.SameSiteStrictMode || set.Path != "/" {
		t.Fatalf("sign-out: %d %+v, cookie %+v, want 200 and %s deleted", st, e, set, name)
	}
	if f := feedError(t, feedA); f["code"] != "unauthorized" {
		t.Errorf("A's feed at the sign-out: %v", f)
	}
	if ef := errorFrame(t, streamA, 10*time.Second); ef.Code != remote.Unauthorized {
		t.Errorf("A's stream at the sign-out: %+v", ef)
	}
	signedIn("with A after its sign-out", cookieA, http.StatusUnauthorized)
	if st, _, _, e := r.action("send", cookieA, `{"target":"`+agentA+`","prompt":"say=x"}`); st != http.StatusUnauthorized || e == nil || e.Code != "unauthorized" {
		t.Errorf("an action with A after its sign-out: %d %+v", st, e)
	}
	c, _, err := r.dialFeed("Cookie", cookieA, "Origin", r.base)
	if err != nil {
		t.Fatal(err)
	}
	if f := readJSON(t, c); f["type"] != "error" || f["code"] != "unauthorized" {
		t.Errorf("the feed with A after its sign-out: %v", f)
	}

	// A second sign-out is a 401 that changes nothing (and deletes the stale cookie).
	if st, e, set := r.signOut(cookieA); st != http.StatusUnauthorized || e == nil || e.Code != "unauthorized" || set == nil || set.MaxAge >= 0 {
		t.Errorf("a second sign-out: %d %+v, cookie %+v", st, e, set)
	}

	// B is untouched: its page, its open feed and its open stream.
	signedIn("with B", cookieB, http.StatusOK)
	feedSees(t, feedB, r.run("dso/c", ""))
	if err := streamB.Subscribe(ctxT(t, 10*time.Second), 0); err != nil {
		t.Fatal(err)
	}
	events(t, streamB, 0, 10*time.Second, isType("session/created"))
}

// A signed-out session stays dead across a restart of the server (the revocation is in
// the store); another session still opens the page.
func TestDashboardSignOutAcrossRestart(t *testing.T) {
	t.Parallel()
	r := newBareRig(t)
	cookieA, cookieB := r.signIn(), r.signIn()
	if st, e, _ := r.signOut(cookieA); st != http.StatusOK {
		t.Fatalf("sign-out: %d %+v", st, e)
	}
	r.srv.Stop()
	if err := r.srv.Wait(); err != nil {
		t.Fatal(err)
	}
	srv := sockettest.NewServer(t, sockettest.WithHome(r.srv.Home))
	base := "http://" + srv.RemoteAddr()
	_, port, _ := strings.Cut(srv.RemoteAddr(), ":")
	// The listener's port is new, and so is the cookie's name; the secrets are the same.
	rename := func(cookie string) string {
		_, value, _ := strings.Cut(cookie, "=")
		return "orcr_dashboard_" + port + "=" + value
	}
	r2 := &rig{t: t, srv: srv, c: srv.Client(t), base: base}
	if resp, _ := r2.get("/", "Cookie", rename(cookieA)); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the signed-out session after a restart: %d, want 401", resp.StatusCode)
	}
	if resp, _ := r2.get("/", "Cookie", rename(cookieB)); resp.StatusCode != http.StatusOK {
		t.Errorf("the other session after a restart: %d, want 200", resp.StatusCode)
	}
}

// The cookie is a credential only with an Origin naming this host (docs/remote.md §1,
// docs/dashboard.md §2): a handshake or an action that presents it without any Origin
// is refused (403) and changes nothing, as one from another Origin is. A bearer token
// needs no Origin, with or without the cookie beside it.
func TestDashboardCookieNeedsOrigin(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("dorigin/a", "")
	waitIdle(t, r, agent)
	cookie := r.signIn()

	for _, name := range []string{"send", "kill", "signout"} {
		body := `{"target":"` + agent + `","prompt":"say=hi"}`
		if name == "kill" {
			body = `{"target":"` + agent + `"}`
		} else if name == "signout" {
			body = `{}`
		}
		resp, b := r.do(http.MethodPost, "/dashboard/api/"+name, body, "Cookie", cookie, "Content-Type", "application/json")
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with the cookie and no Origin: %d %q, want 403", name, resp.StatusCode, b)
		}
	}
	if resp, _ := r.get("/", "Cookie", cookie); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after a sign-out without Origin: %d, want it still signed in (200)", resp.StatusCode)
	}
	if _, resp, err := r.dialFeed("Cookie", cookie); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("the feed with the cookie and no Origin: %v, want 403", err)
	}
	noOrigin := &remote.Dialer{Header: http.Header{"Cookie": {cookie}}}
	_, err := noOrigin.Dial(ctxT(t, 10*time.Second), r.base, agent, "")
	if he, ok := errors.AsType[*remote.HandshakeError](err); !ok || he.StatusCode != http.StatusForbidden {
		t.Errorf("the stream with the cookie and no Origin: %v, want a 403 handshake", err)
	}

	// Nothing was sent, killed or signed out: the agent is idle, its log has no turn.
	tok := r.token(agent)
	c := r.dial(agent, tok) // a bearer token without Origin
	if err := c.Subscribe(ctxT(t, 10*time.Second), 0); err != nil {
		t.Fatal(err)
	}
	for _, e := range events(t, c, 0, 10*time.Second, func(e remote.Event) bool { return e.Seq == c.Hello().LastSeq }) {
		if e.Type == "turn/start" || e.Type == "session/ended" {
			t.Errorf("a refused action reached the agent: %d %s", e.Seq, e.Type)
		}
	}
	c.Close()
	both := &remote.Dialer{Header: http.Header{"Cookie": {cookie}}}
	c2, err := both.Dial(ctxT(t, 10*time.Second), r.base, agent, tok)
	if err != nil {
		t.Fatalf("a bearer token beside the cookie, no Origin: %v", err)
	}
	c2.Close()
	if st, ok, _, e := r.action("send", cookie, `{"target":"`+agent+`","prompt":"say=hi"}`); st != http.StatusOK || !ok {
		t.Errorf("send with the cookie and this Origin: %d %+v", st, e)
	}
}

// The page's read of the quota windows (docs/dashboard.md §6): a session and this
// origin, body {}; each window judged as server.status judges it — paused at
// quota.pause_at, reset (0%) once its reset is past.
func TestDashboardQuota(t *testing.T) {
	t.Parallel()
	r := newBareRig(t)
	cookie := r.signIn()
	ctx := ctxT(t, 10*time.Second)
	if st, ok, res, e := r.action("quota", cookie, `{}`); st != http.StatusOK || !ok || len(res["quota"].([]any)) != 0 {
		t.Fatalf("quota before any report: %d %v %v %+v", st, ok, res, e)
	}
	reset := time.Now().Add(time.Hour).UnixMilli()
	if _, err := r.c.QuotaRecord(ctx, api.QuotaRecordRequest{Provider: "codex", Windows: []api.QuotaWindow{
		{Window: "primary", UsedPercent: 97, WindowMinutes: 300, ResetsAt: reset},
		{Window: "secondary", UsedPercent: 60, WindowMinutes: 10080, ResetsAt: time.Now().Add(-time.Minute).UnixMilli()},
	}}); err != nil {
		t.Fatal(err)
	}
	st, ok, res, e := r.action("quota", cookie, `{}`)
	ws, _ := res["quota"].([]any)
	if st != http.StatusOK || !ok || len(ws) != 2 {
		t.Fatalf("quota: %d %v %v %+v", st, ok, res, e)
	}
	for i, want := range []struct {
		window, state string
		used          float64
	}{{"primary", "paused", 97}, {"secondary", "reset", 0}} {
		w := ws[i].(map[string]any)
		if w["provider"] != "codex" || w["window"] != want.window || w["state"] != want.state || w["used_percent"] != want.used {
			t.Errorf("window %d: %v, want codex %s %s %.0f%%", i, w, want.window, want.state, want.used)
		}
	}
	if st, _, _, e := r.action("quota", "", `{}`); st != http.StatusUnauthorized || e == nil || e.Code != "unauthorized" {
		t.Errorf("no session: %d %+v", st, e)
	}
	if st, _, _, _ := r.action("quota", cookie, `{}`, "Origin", "http://evil.example"); st != http.StatusForbidden {
		t.Errorf("another Origin: %d, want 403", st)
	}
	if st, _, _, e := r.action("quota", cookie, `{"provider":"codex"}`); st != http.StatusBadRequest || e == nil || e.Code != wire.InvalidRequest {
		t.Errorf("an unknown key: %d %+v", st, e)
	}
}
