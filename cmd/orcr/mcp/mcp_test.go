package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/orcr-go/orcr/cmd/orcr/mcp"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// fastTurns shortens the mock provider's completion timings (docs/providers.md §2.1).
const fastTurns = `{"integrations":{"mock":{"fast_turn_grace_ms":500,"idle_stable_ms":500}}}`

// options returns the face options of a process whose environment is env plus
// ORCR_HOME=home: its client validates every frame against the schema document, and
// its working directory is wd.
func options(t *testing.T, home, wd string, env map[string]string) mcp.Options {
	t.Helper()
	vars := map[string]string{"ORCR_HOME": home}
	for k, v := range env {
		vars[k] = v
	}
	cl := socketapi.FromGetenv(func(k string) string { return vars[k] })
	cl.Dial = sockettest.ValidatingDial(t)
	return mcp.Options{Client: cl, Getwd: func() (string, error) { return wd, nil }}
}

// connect serves the face on an in-memory transport and returns the SDK's own client
// session on the other end, closed at cleanup.
func connect(t testing.TB, o mcp.Options) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := mcp.NewServer(o).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "orcr-test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// reply is a tool result decoded: the structured content and, for an error, its
// protocol error.
type reply struct {
	isError bool
	content map[string]any
	err     *api.Error
}

// call calls tool name with args and checks the result's shape: structured content
// that is an object, and one text content holding the same JSON.
func call(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string, args any) reply {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return decode(t, name, res)
}

func decode(t *testing.T, name string, res *sdk.CallToolResult) reply {
	t.Helper()
	content, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("%s: structured content %T %v, want an object", name, res.StructuredContent, res.StructuredContent)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items, want 1", name, len(res.Content))
	}
	var text map[string]any
	if tc, ok := res.Content[0].(*sdk.TextContent); !ok || json.Unmarshal([]byte(tc.Text), &text) != nil {
		t.Fatalf("%s: content %#v, want the JSON text of the structured content", name, res.Content[0])
	}
	if diff := cmp.Diff(content, text); diff != "" {
		t.Errorf("%s: text content differs from the structured content (-structured +text):\n%s", name, diff)
	}
	r := reply{isError: res.IsError, content: content}
	if res.IsError {
		b, _ := json.Marshal(content["error"])
		r.err = new(api.Error)
		if err := json.Unmarshal(b, r.err); err != nil || r.err.Code == "" {
			t.Fatalf("%s: error result %v carries no protocol error", name, content)
		}
	}
	return r
}

// ok fails the test when r is an error and returns its structured content.
func (r reply) ok(t *testing.T, what string) map[string]any {
	t.Helper()
	if r.isError {
		t.Fatalf("%s: tool error %v", what, r.err)
	}
	return r.content
}

// str digs a string out of nested objects.
func str(v any, keys ...string) string {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// The tools are the verbs of docs/mcp.md §2, each generated from its table entry: the
// input schema is the schema document's params schema without the caller identity, the
// output schema its result schema.
func TestToolsListMatchesTable(t *testing.T) {
	cs := connect(t, mcp.Options{Client: &socketapi.Client{Socket: "/nonexistent/orcr.sock"}})
	want := []string{"agent.run", "agent.ask", "agent.send", "agent.logs", "agent.wait", "agent.kill", "agent.ls",
		"loop.create", "loop.rm", "loop.ls", "usage.report"}
	if diff := cmp.Diff(want, mcp.Methods()); diff != "" {
		t.Errorf("Methods (-want +got):\n%s", diff)
	}
	methods := api.Schema()["methods"].(map[string]any)
	var names []string
	for tl, err := range cs.Tools(ctxFor(t, 10*time.Second), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
		method := strings.ReplaceAll(tl.Name, "_", ".")
		spec, ok := api.Lookup(method)
		if !ok || !slices.Contains(want, method) {
			t.Errorf("tool %s: no method %s of the table among %v", tl.Name, method, want)
			continue
		}
		info := spec.Info()
		if !info.Implemented() || info.Streaming {
			t.Errorf("tool %s: method %+v is not an implemented plain call", tl.Name, info)
		}
		if !strings.HasPrefix(tl.Description, info.Summary) || tl.Annotations == nil || tl.Annotations.Title != "orcr "+info.CLI {
			t.Errorf("tool %s: description %q, annotations %+v; want the summary %q and title orcr %s",
				tl.Name, tl.Description, tl.Annotations, info.Summary, info.CLI)
		}
		doc := roundTrip(t, methods[method])
		params := doc["params"].(map[string]any)
		if props, ok := params["properties"].(map[string]any); ok {
			delete(props, "caller_id")
			delete(props, "caller_path")
		}
		if diff := cmp.Diff(params, roundTrip(t, tl.InputSchema)); diff != "" {
			t.Errorf("tool %s: input schema differs from the params of %s in the schema document (-doc +tool):\n%s", tl.Name, method, diff)
		}
		if diff := cmp.Diff(doc["result"], roundTrip(t, tl.OutputSchema)); diff != "" {
			t.Errorf("tool %s: output schema differs from the result of %s in the schema document (-doc +tool):\n%s", tl.Name, method, diff)
		}
	}
	wantNames := make([]string, len(want))
	for i, m := range want {
		wantNames[i] = mcp.ToolName(m)
	}
	slices.Sort(wantNames)
	slices.Sort(names)
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	}
}

func roundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// run, wait, logs and kill through tools against a real server running mock agents;
// an agent's face (ORCR_ID / ORCR_PATH of the agent) creates its children under it,
// whatever caller the arguments name.
func TestRunWaitLogsAndScope(t *testing.T) {
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(fastTurns))
	wd := t.TempDir()
	root := connect(t, options(t, srv.Home, wd, nil))
	ctx := ctxFor(t, 60*time.Second)

	run := call(t, ctx, root, "agent_run", map[string]any{"path": "team/lead", "agent": "mock", "prompt": "say=hello"}).ok(t, "agent_run")
	lead := run["agent"].(map[string]any)
	if lead["path"] != "team/lead" || lead["cwd"] != wd || str(lead, "parent_id") != "" {
		t.Errorf("agent_run: got agent %v, want team/lead in %s without a parent", lead, wd)
	}
	wait := call(t, ctx, root, "agent_wait", map[string]any{"targets": []string{"team/lead"}, "timeout": "30s"}).ok(t, "agent_wait")
	if wait["all_ok"] != true || wait["timed_out"] != false {
		t.Fatalf("agent_wait: got %v, want all_ok", wait)
	}
	logs := call(t, ctx, root, "agent_logs", map[string]any{"target": "team/lead", "last_response": true}).ok(t, "agent_logs")
	if got := str(logs, "response", "text"); !strings.HasPrefix(got, "hello") || logs["uuid"] != lead["uuid"] {
		t.Errorf("agent_logs --last-response: got %v, want hello from %s", logs, lead["uuid"])
	}
	entries := call(t, ctx, root, "agent_logs", map[string]any{"target": "team/lead", "tail": 2}).ok(t, "agent_logs tail")
	if es, _ := entries["entries"].([]any); len(es) == 0 || len(es) > 2 {
		t.Errorf("agent_logs tail 2: got entries %v", entries["entries"])
	}

	// The lead's own face: children land in its scope, with it as their parent.
	agent := connect(t, options(t, srv.Home, wd, map[string]string{
		"ORCR_ID": str(lead, "uuid"), "ORCR_PATH": "team/lead", "ORCR_AGENT_DATA_DIR": str(lead, "data_dir")}))
	kid := call(t, ctx, agent, "agent_run", map[string]any{"name": "kid", "agent": "mock",
		"caller_id": "0190ffff-0000-7000-8000-000000000000", "caller_path": "elsewhere/x"}).ok(t, "agent_run as team/lead")["agent"].(map[string]any)
	if kid["path"] != "team/kid" || kid["parent_id"] != lead["uuid"] || kid["parent_path"] != "team/lead" {
		t.Errorf("agent_run kid as team/lead: got %v, want team/kid with parent %s team/lead", kid, lead["uuid"])
	}
	killed := call(t, ctx, agent, "agent_kill", map[string]any{"targets": []string{"kid"}}).ok(t, "agent_kill kid")
	if ks, _ := killed["killed"].([]any); len(ks) != 1 || str(ks[0], "uuid") != kid["uuid"] {
		t.Errorf("agent_kill kid as team/lead: got %v, want %s killed", killed, kid["uuid"])
	}
}

// A bad input is a tool error carrying the protocol error, and changes nothing.
func TestBadInputIsAToolError(t *testing.T) {
	srv := sockettest.NewServer(t)
	cs := connect(t, options(t, srv.Home, "/", nil))
	ctx := ctxFor(t, 20*time.Second)
	cases := []struct {
		tool    string
		args    map[string]any
		code    api.Code
		details map[string]any
	}{
		{"agent_run", map[string]any{"name": 5, "agent": "mock"}, api.CodeInvalidRequest,
			map[string]any{"reason": "wrong_type", "field": "name", "expected": "a string", "got": "number"}},
		{"agent_run", map[string]any{"name": "a", "path": "b", "agent": "mock"}, api.CodeInvalidRequest,
			map[string]any{"reason": "name_and_path"}},
		{"agent_ask", map[string]any{"name": "ok", "agent": "mock", "timeout": "soon"}, api.CodeInvalidRequest,
			map[string]any{"reason": "bad_duration", "value": "soon"}},
		{"agent_wait", map[string]any{"targets": "team/x"}, api.CodeInvalidRequest,
			map[string]any{"reason": "wrong_type", "field": "targets", "expected": "an array", "got": "string"}},
		{"agent_send", map[string]any{"target": "no/such", "prompt": "hi"}, api.CodeNotFound,
			map[string]any{"target": "no/such"}},
		{"loop_rm", map[string]any{"names": []string{"nosuch"}}, "", nil},
	}
	for _, tc := range cases {
		r := call(t, ctx, cs, tc.tool, tc.args)
		if tc.code == "" {
			r.ok(t, tc.tool)
			continue
		}
		if !r.isError || r.err.Code != tc.code {
			t.Errorf("%s(%v): got %v, want a tool error %s", tc.tool, tc.args, r.content, tc.code)
			continue
		}
		if diff := cmp.Diff(tc.details, r.err.Details); tc.details != nil && diff != "" {
			t.Errorf("%s(%v): details (-want +got):\n%s", tc.tool, tc.args, diff)
		}
	}
	ls := call(t, ctx, cs, "agent_ls", map[string]any{"all": true}).ok(t, "agent_ls")
	if as, _ := ls["agents"].([]any); len(as) != 0 {
		t.Errorf("agent_ls after refused calls: got %v, want no agents", as)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "agent_attach_prepare"}); err == nil {
		t.Error("an unknown tool: got a result, want a protocol error")
	}
}

// Cancelling a blocked agent_wait through MCP ends the socket call (the server's wait
// goes away), and the session goes on.
func TestCancelEndsTheSocketCall(t *testing.T) {
	srv := sockettest.NewServer(t)
	cs := connect(t, options(t, srv.Home, "/", nil))
	ctx := ctxFor(t, 20*time.Second)
	c := srv.Client(t)
	if err := c.Call(ctx, "__debug.set_agent", map[string]any{"uuid": "0190b000-0000-7000-8000-000000000001",
		"path": "busy/one", "status": "working"}, nil); err != nil {
		t.Fatal(err)
	}
	waits := func() int {
		n := 0
		for _, id := range srv.ActorIDs() {
			if strings.HasPrefix(id, "wait-") {
				n++
			}
		}
		return n
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(wctx, &sdk.CallToolParams{Name: "agent_wait", Arguments: map[string]any{"targets": []string{"busy/one"}}})
		done <- err
	}()
	poll.Eventually(t, 10*time.Second, "the server's wait to start", func() bool { return waits() == 1 })
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled agent_wait: got %v, want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("agent_wait did not return after its cancellation")
	}
	poll.Eventually(t, 10*time.Second, "the server's wait to end", func() bool { return waits() == 0 })
	call(t, ctx, cs, "agent_ls", nil).ok(t, "agent_ls after a cancelled wait")
}

// A call that finds no server starts it through Ensure and is sent again; an Ensure
// that fails is the call's error, with its own code.
func TestAutoStart(t *testing.T) {
	home := sockettest.TempHome(t)
	o := options(t, home, "/", nil)
	starts := 0
	o.Ensure = func(context.Context) error {
		starts++
		if starts == 1 {
			return wire.Env("config_invalid", "bad config")
		}
		sockettest.NewServer(t, sockettest.WithHome(home))
		return nil
	}
	cs := connect(t, o)
	ctx := ctxFor(t, 20*time.Second)
	r := call(t, ctx, cs, "agent_ls", nil)
	if !r.isError || r.err.Code != api.CodeEnvironmentError || r.err.Cause() != "config_invalid" {
		t.Errorf("agent_ls with a failing auto-start: got %v, want environment_error config_invalid", r.content)
	}
	call(t, ctx, cs, "agent_ls", nil).ok(t, "agent_ls with an auto-start")
	call(t, ctx, cs, "loop_ls", nil).ok(t, "loop_ls with the server up")
	if starts != 2 {
		t.Errorf("Ensure ran %d times, want 2 (once more after it failed, never once the server answers)", starts)
	}
}

// Streamable HTTP serves the same tools to a client that presents an MCP token; --http
// binds loopback addresses only.
func TestHTTP(t *testing.T) {
	srv := sockettest.NewServer(t)
	ln, err := mcp.Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	if host := ln.Addr().String(); !strings.HasPrefix(host, "127.0.0.1:") {
		t.Errorf("Listen(:0) bound %s, want 127.0.0.1", host)
	}
	sctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- mcp.ServeHTTP(sctx, options(t, srv.Home, "/", nil), ln) }()

	ctx := ctxFor(t, 20*time.Second)
	cs := httpSession(t, ctx, ln, mintToken(t, ctx, srv.Client(t), api.MCPTokenRequest{}))
	ls := call(t, ctx, cs, "agent_ls", map[string]any{"all": true}).ok(t, "agent_ls over HTTP")
	if as, ok := ls["agents"].([]any); !ok || len(as) != 0 {
		t.Errorf("agent_ls over HTTP: got %v, want no agents", ls)
	}
	cs.Close()
	stop()
	if err := <-served; err != nil {
		t.Errorf("ServeHTTP after its context ended: %v", err)
	}

	for _, tc := range []struct{ addr, reason string }{
		{"0.0.0.0:0", "not_loopback"}, {"192.0.2.1:80", "not_loopback"}, {"example.com:80", "not_loopback"},
		{"[::]:0", "not_loopback"}, {"soon", "bad_address"},
	} {
		ln, err := mcp.Listen(tc.addr)
		if e, ok := errors.AsType[*api.Error](err); !ok || e.Reason() != tc.reason {
			if ln != nil {
				ln.Close()
			}
			t.Errorf("Listen(%q): got %v, want invalid_request %s", tc.addr, err, tc.reason)
		}
	}
}

// mintToken issues an MCP token through the socket (what `orcr mcp token` does).
func mintToken(t *testing.T, ctx context.Context, cl *socketapi.Client, req api.MCPTokenRequest) string {
	t.Helper()
	res, err := cl.MCPToken(ctx, req)
	if err != nil || res.Token == nil || len(*res.Token) != 43 {
		t.Fatalf("mcp.token %+v: got %+v, %v; want a 43-character token", req, res, err)
	}
	return *res.Token
}

// bearerTransport sends every request with Authorization: Bearer token.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// httpSession connects the SDK's Streamable HTTP client to the face on ln with token.
func httpSession(t *testing.T, ctx context.Context, ln net.Listener, token string) *sdk.ClientSession {
	t.Helper()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "orcr-test", Version: "0"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + mcp.HTTPPath, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// initializeStatus posts an MCP initialize to the face on ln with the given
// Authorization header ("" for none) and returns the HTTP status and the
// WWW-Authenticate header.
func initializeStatus(t *testing.T, ln net.Listener, authorization string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"orcr-test","version":"0"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+ln.Addr().String()+mcp.HTTPPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// The HTTP face answers 401 to a request without a live MCP token — none, another
// scheme, a wrong one, one revoked by a rotation or a revocation — before any MCP
// handling; a live token opens it, and issuing a token leaves the others valid. The
// token never reaches the server log.
func TestHTTPRequiresToken(t *testing.T) {
	var logged bytes.Buffer
	var logMu sync.Mutex
	srv := sockettest.NewServer(t, sockettest.WithLog(slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logged}, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	ln, err := mcp.Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	go mcp.ServeHTTP(t.Context(), options(t, srv.Home, "/", nil), ln)
	ctx := ctxFor(t, 20*time.Second)
	cl := srv.Client(t)

	refused := func(what, authorization string) {
		t.Helper()
		if code, challenge := initializeStatus(t, ln, authorization); code != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer") {
			t.Errorf("initialize %s: HTTP %d, WWW-Authenticate %q; want 401 with a Bearer challenge", what, code, challenge)
		}
	}
	admitted := func(what, token string) {
		t.Helper()
		if code, _ := initializeStatus(t, ln, "Bearer "+token); code != http.StatusOK {
			t.Errorf("initialize %s: HTTP %d, want 200", what, code)
		}
	}
	refused("without a token", "")
	refused("before any token was issued", "Bearer "+strings.Repeat("A", 43))
	first := mintToken(t, ctx, cl, api.MCPTokenRequest{})
	admitted("with the token", first)
	refused("with Basic", "Basic "+first)
	refused("with a wrong token", "Bearer "+first[:42]+"x")
	second := mintToken(t, ctx, cl, api.MCPTokenRequest{})
	admitted("with the first token after a second was issued", first)
	admitted("with the second token", second)

	rotated := mintToken(t, ctx, cl, api.MCPTokenRequest{Rotate: true})
	refused("with the first token after a rotation", "Bearer "+first)
	refused("with the second token after a rotation", "Bearer "+second)
	admitted("with the rotated token", rotated)
	call(t, ctx, httpSession(t, ctx, ln, rotated), "loop_ls", nil).ok(t, "loop_ls with the rotated token")

	res, err := cl.MCPToken(ctx, api.MCPTokenRequest{Revoke: true})
	if err != nil || res.Token != nil || res.Revoked != 1 {
		t.Errorf("mcp.token revoke: got %+v, %v; want no token and 1 revoked", res, err)
	}
	refused("after the revocation", "Bearer "+rotated)
	if _, err := cl.MCPToken(ctx, api.MCPTokenRequest{Rotate: true, Revoke: true}); !wire.Is(err, wire.InvalidRequest, "") {
		t.Errorf("mcp.token rotate+revoke: got %v, want invalid_request", err)
	}

	logMu.Lock()
	defer logMu.Unlock()
	for _, tok := range []string{first, second, rotated} {
		if strings.Contains(logged.String(), tok) {
			t.Errorf("the server log holds a token:\n%s", logged.String())
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// A revocation reaches a request already being served: the standalone SSE stream a
// client opened with a token ends once that token is revoked.
func TestHTTPRevocationEndsOpenStreams(t *testing.T) {
	srv := sockettest.NewServer(t)
	ln, err := mcp.Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, srv.Home, "/", nil)
	o.TokenRecheck = 50 * time.Millisecond
	go mcp.ServeHTTP(t.Context(), o, ln)
	ctx := ctxFor(t, 20*time.Second)
	cl := srv.Client(t)
	token := mintToken(t, ctx, cl, api.MCPTokenRequest{})
	endpoint := "http://" + ln.Addr().String() + mcp.HTTPPath

	post := func(body, session string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	init := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",`+
		`"capabilities":{},"clientInfo":{"name":"orcr-test","version":"0"}}}`, "")
	session := init.Header.Get("Mcp-Session-Id")
	if init.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: HTTP %d, session %q", init.StatusCode, session)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("the standalone SSE stream: %v, %v", stream, err)
	}
	defer stream.Body.Close()
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, stream.Body)
		ended <- err
	}()
	if _, err := cl.MCPToken(ctx, api.MCPTokenRequest{Revoke: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal("the stream opened with a revoked token is still open")
	}
}
