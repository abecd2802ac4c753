package ws_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/coder/websocket"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/socketapi/server"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// hello comes first with the log's tip; nothing streams before subscribe; subscribe 0
// replays the whole log and then tails it live; an inject wake on the idle agent starts
// a turn whose entries arrive as they are written.
func TestStreamHelloReplayThenTail(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("s/one", "say=first")
	tok := r.token(agent)
	c0 := r.dial(agent, tok)
	// Wait for the first turn to end through a first connection, so the replay below has
	// a fixed log to read.
	c0.Subscribe(ctxT(t, 5*time.Second), 0)
	first := events(t, c0, 0, 60*time.Second, turnEnd)
	c0.Close()

	c := r.dial(agent, tok)
	h := c.Hello()
	if h.Proto != 1 || h.SessionID != agent || h.LastSeq < first[len(first)-1].Seq {
		t.Fatalf("hello %+v, want proto 1, session %s, last_seq >= %d", h, agent, first[len(first)-1].Seq)
	}
	// Nothing streams until the client subscribes.
	quiet, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	if f, err := c.Next(quiet); err == nil {
		t.Fatalf("a frame before subscribe: %#v", f)
	}
	cancel()
	if err := c.Subscribe(ctxT(t, 5*time.Second), 0); err != nil {
		t.Fatal(err)
	}
	replay := events(t, c, 0, 30*time.Second, func(e remote.Event) bool { return e.Seq == h.LastSeq })
	var types []string
	for _, e := range replay {
		types = append(types, e.Type)
		if e.SessionID != agent || e.ID == "" || !strings.HasSuffix(e.At, "Z") || len(e.At) != len("2026-08-18T04:10:11.123456Z") {
			t.Errorf("envelope %+v", e)
		}
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"session/created", "turn/start", "user/message", "assistant/message", "turn/end"} {
		if !strings.Contains(joined, want) {
			t.Errorf("replayed log %q lacks %s", joined, want)
		}
	}
	if replay[0].Type != "session/created" || payloadOf(t, replay[0])["path"] != "s/one" {
		t.Errorf("seq 0 is %s %s, want session/created of s/one", replay[0].Type, replay[0].Payload)
	}
	for _, e := range replay {
		if e.Type == "assistant/message" && payloadOf(t, e)["text"] != "first\nDONE" {
			t.Errorf("assistant/message %s", e.Payload)
		}
	}

	// The live tail: a wake on the idle agent.
	if err := c.Inject(ctxT(t, 5*time.Second), "say=second", true); err != nil {
		t.Fatal(err)
	}
	live := events(t, c, h.LastSeq+1, 60*time.Second, turnEnd)
	var start, msg, answer bool
	for _, e := range live {
		p := payloadOf(t, e)
		switch e.Type {
		case "turn/start":
			start = p["source"] == "remote"
		case "user/message":
			msg = p["text"] == "say=second"
		case "assistant/message":
			answer = p["text"] == "second\nDONE"
		case "turn/end":
			if p["status"] != "completed" {
				t.Errorf("turn/end %v", p)
			}
		}
	}
	if !start || !msg || !answer {
		t.Errorf("live turn %s: turn/start remote %v, user/message %v, assistant/message %v", describe(live), start, msg, answer)
	}
}

// Subscribing again replaces the subscription: the new replay starts at its from_seq.
// A from_seq further back than replay_limit is pulled forward, announced by
// replay_truncated before the window's first event.
func TestStreamResubscribeAndTruncation(t *testing.T) {
	t.Parallel()
	r := newRig(t, `"replay_limit": 3`)
	agent := r.run("s/trunc", "say=x")
	tok := r.token(agent)
	c0 := r.dial(agent, tok)
	c0.Subscribe(ctxT(t, 5*time.Second), 0)
	var skip remote.ServerFrame
	for skip == nil {
		if f, ok := next(t, c0, 60*time.Second).(remote.Event); ok && f.Type == "turn/end" {
			skip = f
		}
	}
	c0.Close()
	c := r.dial(agent, tok)
	c.Subscribe(ctxT(t, 5*time.Second), 0)
	f := next(t, c, 30*time.Second)
	tr, ok := f.(remote.ReplayTruncated)
	if !ok {
		t.Fatalf("first frame %#v, want replay_truncated", f)
	}
	if tr.RequestedFromSeq != 0 || tr.FromSeq != c.Hello().LastSeq-2 {
		t.Errorf("replay_truncated %+v, want requested 0 and from %d (tip %d, limit 3)", tr, c.Hello().LastSeq-2, c.Hello().LastSeq)
	}
	events(t, c, tr.FromSeq, 10*time.Second, func(e remote.Event) bool { return e.Seq == c.Hello().LastSeq })
	// Resubscribe inside the window: no truncation, replay from there.
	from := c.Hello().LastSeq - 1
	c.Subscribe(ctxT(t, 5*time.Second), from)
	got := events(t, c, from, 10*time.Second, func(e remote.Event) bool { return e.Seq == c.Hello().LastSeq })
	if len(got) != 2 {
		t.Errorf("resubscribe from %d replayed %s", from, describe(got))
	}
}

// Tokens are per agent, checked at the door before the agent is resolved: only the
// agent's own live token opens its stream (a matrix of agents × tokens); a bad,
// missing or revoked token gets one unauthorized frame, then the close. A rotation drops
// the open connection that presented the old token with the same frame.
func TestStreamTokenMatrixAndRevocation(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	const n = 4
	agents, toks := make([]string, n), make([]string, n)
	for i := range n {
		agents[i] = r.run(fmt.Sprintf("tok/a%d", i), "")
		toks[i] = r.token(agents[i])
	}
	for i := range n {
		for j := range n {
			c, err := r.d.Dial(ctxT(t, 10*time.Second), r.base, agents[i], toks[j])
			if i == j {
				if err != nil {
					t.Errorf("agent %d with its own token: %v", i, err)
				} else {
					c.Close()
				}
				continue
			}
			if !remote.IsCode(err, remote.Unauthorized) {
				t.Errorf("agent %d with token %d: got %v, want unauthorized", i, j, err)
				if c != nil {
					c.Close()
				}
			}
		}
	}
	for _, tc := range []struct{ name, agent, tok string }{
		{"missing", agents[0], ""},
		{"garbage", agents[0], "not-a-token"},
		{"unknown agent", "018f0000-0000-7000-8000-000000000000", toks[0]},
		{"not a uuid", "tok/a0", toks[0]},
	} {
		if _, err := r.d.Dial(ctxT(t, 10*time.Second), r.base, tc.agent, tc.tok); !remote.IsCode(err, remote.Unauthorized) {
			t.Errorf("%s: got %v, want unauthorized", tc.name, err)
		}
	}

	// Rotation: the open connection is dropped with unauthorized; the old token is
	// refused at the door, the new one opens.
	c := r.dial(agents[1], toks[1])
	res, err := r.c.Token(ctxT(t, 10*time.Second), api.TokenRequest{Target: agents[1], Rotate: true})
	if err != nil || res.Token == nil || res.Revoked != 1 {
		t.Fatalf("rotate: %+v %v", res, err)
	}
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.Unauthorized {
		t.Errorf("open connection after rotation got %+v, want unauthorized", ef)
	}
	if _, err := c.Next(ctxT(t, 10*time.Second)); err == nil {
		t.Error("the connection stayed open after unauthorized")
	}
	if _, err := r.d.Dial(ctxT(t, 10*time.Second), r.base, agents[1], toks[1]); !remote.IsCode(err, remote.Unauthorized) {
		t.Errorf("old token after rotation: %v", err)
	}
	r.dial(agents[1], *res.Token).Close()

	// Revocation: every token goes, none is issued.
	c = r.dial(agents[2], toks[2])
	res, err = r.c.Token(ctxT(t, 10*time.Second), api.TokenRequest{Target: agents[2], Revoke: true})
	if err != nil || res.Token != nil || res.Revoked != 1 {
		t.Fatalf("revoke: %+v %v", res, err)
	}
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.Unauthorized {
		t.Errorf("open connection after revocation got %+v", ef)
	}
	if _, err := r.d.Dial(ctxT(t, 10*time.Second), r.base, agents[2], toks[2]); !remote.IsCode(err, remote.Unauthorized) {
		t.Errorf("revoked token: %v", err)
	}
	// rotate and revoke together are refused, changing nothing.
	if _, err := r.c.Token(ctxT(t, 10*time.Second), api.TokenRequest{Target: agents[3], Rotate: true, Revoke: true}); !api.IsCode(err, api.CodeInvalidRequest) {
		t.Errorf("rotate+revoke: %v", err)
	}
	r.dial(agents[3], toks[3]).Close()
}

// One connection per agent: a second authorized connection supersedes the first.
func TestStreamSuperseded(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("sup/a", "")
	tok := r.token(agent)
	first := r.dial(agent, tok)
	second := r.dial(agent, tok)
	if ef := errorFrame(t, first, 10*time.Second); ef.Code != remote.Superseded {
		t.Fatalf("first connection got %+v, want superseded", ef)
	}
	if err := second.Subscribe(ctxT(t, 5*time.Second), 0); err != nil {
		t.Fatal(err)
	}
	events(t, second, 0, 10*time.Second, func(e remote.Event) bool { return e.Seq == second.Hello().LastSeq })
}

// Frames outside the closed set are answered bad_frame and the connection stays open;
// a frame over 1 MiB too; cancel with no running turn is not_running; approve and deny
// where approvals are not mounted are unsupported; inject on an ended agent is
// not_running. None appends anything to the log.
func TestStreamStayOpenErrors(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("err/a", "")
	tok := r.token(agent)
	c := r.dial(agent, tok)
	tip := c.Hello().LastSeq
	ctx := ctxT(t, 60*time.Second)
	for _, raw := range []string{`nonsense`, `{"type":"dance"}`, `{"type":"subscribe","from_seq":-1}`,
		`{"type":"inject","text":"x"}`, `{"type":"set_policy","patterns":"*"}`} {
		c.WriteRaw(ctx, []byte(raw))
		if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.BadFrame {
			t.Errorf("%s: got %+v, want bad_frame", raw, ef)
		}
	}
	big := append([]byte(`{"type":"inject","wake":false,"text":"`), bytes.Repeat([]byte("a"), 2<<20)...)
	big = append(big, `"}`...)
	c.WriteRaw(ctx, big)
	if ef := errorFrame(t, c, 20*time.Second); ef.Code != remote.BadFrame {
		t.Errorf("2 MiB frame: got %+v, want bad_frame", ef)
	}
	// A prompt the prompt rules refuse (a control character) is bad_frame too.
	c.WriteRaw(ctx, []byte(`{"type":"inject","wake":true,"text":"a\u0007b"}`))
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.BadFrame {
		t.Errorf("control character: got %+v, want bad_frame", ef)
	}
	waitIdle(t, r, agent)
	c.Cancel(ctx, "")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.NotRunning {
		t.Errorf("cancel with no turn: got %+v, want not_running", ef)
	}
	c.Approve(ctx, "call-1", "")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.Unsupported {
		t.Errorf("approve without approvals: got %+v, want unsupported", ef)
	}
	c.Deny(ctx, "call-1", "")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.Unsupported {
		t.Errorf("deny without approvals: got %+v, want unsupported", ef)
	}
	// Still open and nothing appended: a subscribe replays up to the same tip... plus
	// the status changes of the agent settling, none from the refused frames.
	c.Subscribe(ctx, 0)
	for _, e := range events(t, c, 0, 10*time.Second, func(e remote.Event) bool { return e.Seq >= tip }) {
		if e.Type != "session/created" && e.Type != "status/changed" {
			t.Errorf("refused frames appended %d %s", e.Seq, e.Type)
		}
	}
	if _, err := r.c.Kill(ctx, api.KillRequest{Targets: []string{agent}}); err != nil {
		t.Fatal(err)
	}
	events(t, c, tip+1, 30*time.Second, isType("session/ended"))
	// The connection closes after session/ended; a new one with a new token (not
	// subscribed, so it stays open) is told not_running.
	c = r.dial(agent, r.token(agent))
	c.Inject(ctx, "hello", true)
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.NotRunning {
		t.Errorf("inject on an ended agent: got %+v, want not_running", ef)
	}
}

// closedNormally checks that c ends with a normal closure (1000) and no error frame.
func closedNormally(t *testing.T, c *remote.Conn, what string) {
	t.Helper()
	f, err := c.Next(ctxT(t, 10*time.Second))
	if err == nil {
		t.Errorf("%s: got %#v, want the connection closed normally", what, f)
		return
	}
	if st := websocket.CloseStatus(err); st != websocket.StatusNormalClosure {
		t.Errorf("%s: the connection ended with %v (status %d), want a normal closure", what, err, st)
	}
}

// An agent's end revokes its stream tokens (docs/remote.md §2): a connection open at
// the end gets the log through session/ended and is then closed normally, without an
// error frame; the token then opens nothing. A token issued after the end reads the
// whole log and is closed the same way, at once when it subscribes past the end; the
// Go client's iterator ends there without an error.
func TestStreamEndedAgent(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("ended/a", "")
	waitIdle(t, r, agent)
	tok := r.token(agent)
	c := r.dial(agent, tok)
	ctx := ctxT(t, 60*time.Second)
	if err := c.Subscribe(ctx, 0); err != nil {
		t.Fatal(err)
	}
	events(t, c, 0, 10*time.Second, func(e remote.Event) bool { return e.Seq == c.Hello().LastSeq })
	if _, err := r.c.Kill(ctx, api.KillRequest{Targets: []string{agent}}); err != nil {
		t.Fatal(err)
	}
	all := events(t, c, c.Hello().LastSeq+1, 30*time.Second, isType("session/ended"))
	end := all[len(all)-1].Seq
	closedNormally(t, c, "the open connection at the end")
	if _, err := r.d.Dial(ctxT(t, 10*time.Second), r.base, agent, tok); !remote.IsCode(err, remote.Unauthorized) {
		t.Errorf("the token of an ended agent: %v, want unauthorized", err)
	}

	fresh := r.token(agent)
	c = r.dial(agent, fresh)
	if c.Hello().LastSeq != end {
		t.Errorf("hello after the end: last_seq %d, want %d (session/ended)", c.Hello().LastSeq, end)
	}
	c.Subscribe(ctx, 0)
	events(t, c, 0, 10*time.Second, isType("session/ended"))
	closedNormally(t, c, "a replay through the end")
	c = r.dial(agent, fresh)
	// Nothing is appended after session/ended: set_policy and set_model are not_running.
	c.SetPolicy(ctx, []string{"*"})
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.NotRunning {
		t.Errorf("set_policy on an ended agent: %+v, want not_running", ef)
	}
	c.SetModel(ctx, "main", "mock-large")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.NotRunning {
		t.Errorf("set_model on an ended agent: %+v, want not_running", ef)
	}
	c.Subscribe(ctx, end+1)
	closedNormally(t, c, "a subscribe past the end")
	if c = r.dial(agent, fresh); c.Hello().LastSeq != end {
		t.Errorf("the log's tip after the refused frames: %d, want %d", c.Hello().LastSeq, end)
	}
	c.Close()

	var seen int64 = -1
	for e, err := range r.d.Stream(ctx, r.base, agent, fresh, 0) {
		if err != nil {
			t.Fatalf("the iterator after seq %d: %v", seen, err)
		}
		seen = e.Seq
	}
	if seen != end {
		t.Errorf("the iterator ended after seq %d, want %d (session/ended)", seen, end)
	}
}

// waitIdle polls agent.ls until agent is idle.
func waitIdle(t *testing.T, r *rig, agent string) {
	t.Helper()
	poll.Eventually(t, 60*time.Second, "agent "+agent+" to be idle", func() bool {
		res, err := r.c.Ls(ctxT(t, 10*time.Second), api.LsRequest{Pattern: agent})
		return err == nil && len(res.Agents) == 1 && res.Agents[0].Status == "idle"
	})
}

// GET /healthz answers without auth; server.status reports the listener.
func TestStreamHealthzAndStatus(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	resp, err := http.Get(r.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"ok":true`)) {
		t.Errorf("healthz: %d %s", resp.StatusCode, body)
	}
	agent := r.run("st/a", "")
	r.dial(agent, r.token(agent))
	st, err := r.c.Status(ctxT(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Remote.Listening || st.Remote.Address == nil || "http://"+*st.Remote.Address != r.base || st.Remote.Connections != 1 {
		t.Errorf("status remote %+v, want listening at %s with 1 connection", st.Remote, r.base)
	}
}

// The SDK's Stream iterator against the real server: a fresh client gets the whole log
// in order, then the live tail.
func TestStreamSDKIterator(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("sdk/a", "say=hello")
	tok := r.token(agent)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	want := int64(0)
	for e, err := range r.d.Stream(ctx, r.base, agent, tok, 0) {
		if err != nil {
			t.Fatalf("stream at seq %d: %v", want, err)
		}
		if e.Seq != want {
			t.Fatalf("seq %d, want %d", e.Seq, want)
		}
		want++
		if e.Type == "turn/end" {
			break
		}
	}
}

// A listener on a non-loopback address without TLS is refused at start
// (config_invalid) unless remote.allow_insecure, and so is an address in use; a refused
// start creates nothing. With TLS it serves wss.
func TestStreamListenerRules(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for what, remoteJSON := range map[string]string{
		"non-loopback without TLS": `{"listen": "0.0.0.0:0"}`,
		"an address in use":        `{"listen": "` + busy.Addr().String() + `"}`,
	} {
		home := sockettest.TempHome(t)
		os.MkdirAll(home, 0o700)
		os.WriteFile(home+"/config.json", []byte(`{"remote": `+remoteJSON+`}`), 0o600)
		_, _, err := server.Start(context.Background(), server.Options{Home: home, Getenv: func(string) string { return "" }, NoSignals: true})
		if !wire.Is(err, wire.EnvironmentError, "config_invalid") {
			t.Fatalf("%s: %v, want environment_error config_invalid", what, err)
		}
		for _, name := range []string{"orcr.db", "orcr.sock", "data", "logs"} {
			if _, err := os.Stat(home + "/" + name); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: the refused start created %s (%v); it creates nothing", what, name, err)
			}
		}
	}

	certFile, keyFile, pool := sockettest.SelfSigned(t, "127.0.0.1")
	r := newRig(t, `"tls_cert": "`+certFile+`", "tls_key": "`+keyFile+`"`)
	agent := r.run("tls/a", "")
	tok := r.token(agent)
	d := &remote.Dialer{HTTPClient: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
	c, err := d.Dial(ctxT(t, 10*time.Second), "https://"+r.srv.RemoteAddr(), agent, tok)
	if err != nil {
		t.Fatalf("wss dial: %v", err)
	}
	c.Close()
	if _, err := r.d.Dial(ctxT(t, 10*time.Second), r.base, agent, tok); err == nil {
		t.Error("plain ws to a TLS listener succeeded")
	}
}

// A server-side failure while serving a connection closes it with internal; the
// client resubscribes once the fault is gone.
func TestStreamInternalError(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	agent := r.run("int/a", "")
	tok := r.token(agent)
	c := r.dial(agent, tok)
	// Damage the store under the running server: the log's table goes away, so the
	// replay read fails.
	// busy_timeout: the server writes meanwhile (on a loaded machine an ALTER without
	// one met SQLITE_BUSY at once).
	raw, err := sql.Open("sqlite", "file:"+r.srv.Home+"/orcr.db?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`ALTER TABLE session_log RENAME TO session_log_gone`); err != nil {
		t.Fatal(err)
	}
	c.Subscribe(ctxT(t, 5*time.Second), 0)
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.Internal {
		t.Fatalf("got %+v, want internal", ef)
	}
	if _, err := c.Next(ctxT(t, 10*time.Second)); err == nil {
		t.Error("the connection stayed open after internal")
	}
	if _, err := raw.Exec(`ALTER TABLE session_log_gone RENAME TO session_log`); err != nil {
		t.Fatal(err)
	}
	c = r.dial(agent, tok)
	c.Subscribe(ctxT(t, 5*time.Second), 0)
	events(t, c, 0, 10*time.Second, func(e remote.Event) bool { return e.Seq == c.Hello().LastSeq })
}
