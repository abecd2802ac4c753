package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/provider/providertest"
)

// mcpSession runs the real binary as `orcr mcp` with h's environment plus env and
// returns the SDK client's session over its stdin and stdout (CommandTransport). Its
// stderr is logged should the test fail.
func (h *home) mcpSession(t *testing.T, ctx context.Context, env ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(bins.orcr, "mcp")
	cmd.Env = append(append([]string(nil), h.env...), env...)
	var stderr lockedBuffer // written by the process's copier, read at cleanup
	cmd.Stderr = &stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "orcr-e2e", Version: "0"}, nil).Connect(ctx,
		&sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("orcr mcp: %v (stderr %q)", err, stderr.String())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("orcr mcp stderr:\n%s", stderr.String())
		}
	})
	return cs
}

// mcpCall calls a tool and returns its structured content and whether it is an error.
func mcpCall(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content %s is no object", name, b)
	}
	return out, res.IsError
}

// `orcr mcp` over a real subprocess: it auto-starts the server, runs, waits for and
// reads a mock agent through tools, refuses a bad input with the protocol's code, and
// an agent's `orcr mcp` (ORCR_ID / ORCR_PATH set) creates children under that agent.
// Closing stdin ends it with exit 0, nothing but the protocol having reached stdout
// (the SDK's client would have failed on any other line).
func TestMCPSubprocess(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	h, _ := herdrHome(t, `{"integrations":{"mock":{"fast_turn_grace_ms":500,"idle_stable_ms":500}}}`)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cs := h.mcpSession(t, ctx)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 11 {
		t.Fatalf("tools/list: got %d tools, %v; want 11 (docs/mcp.md §2)", len(tools.Tools), err)
	}
	run, isErr := mcpCall(t, ctx, cs, "agent_run", map[string]any{"path": "mcp/lead", "agent": "mock", "prompt": "say=hi"})
	lead, _ := run["agent"].(map[string]any)
	if isErr || lead["path"] != "mcp/lead" {
		t.Fatalf("agent_run: got %v, want mcp/lead", run)
	}
	if pids := h.serverPIDs(); len(pids) != 1 {
		t.Errorf("after the first tool call: %d servers run for the home, want the one orcr mcp started", len(pids))
	}
	wait, _ := mcpCall(t, ctx, cs, "agent_wait", map[string]any{"targets": []string{"mcp/lead"}, "timeout": "30s"})
	if wait["all_ok"] != true {
		t.Fatalf("agent_wait: got %v, want all_ok", wait)
	}
	logs, _ := mcpCall(t, ctx, cs, "agent_logs", map[string]any{"target": "mcp/lead", "last_response": true})
	if resp, _ := logs["response"].(map[string]any); resp == nil || !strings.HasPrefix(resp["text"].(string), "hi") {
		t.Errorf("agent_logs last_response: got %v, want hi", logs)
	}
	bad, isErr := mcpCall(t, ctx, cs, "agent_run", map[string]any{"name": "x/y", "agent": "mock"})
	if e, _ := bad["error"].(map[string]any); !isErr || e["code"] != "invalid_request" || e["details"].(map[string]any)["reason"] != "invalid_name" {
		t.Errorf("agent_run name x/y: got %v, want a tool error invalid_request invalid_name", bad)
	}

	kidFace := h.mcpSession(t, ctx, "ORCR_ID="+lead["uuid"].(string), "ORCR_PATH=mcp/lead", "ORCR_AGENT_DATA_DIR="+lead["data_dir"].(string))
	kid, _ := mcpCall(t, ctx, kidFace, "agent_run", map[string]any{"name": "kid", "agent": "mock"})
	if a, _ := kid["agent"].(map[string]any); a["path"] != "mcp/kid" || a["parent_id"] != lead["uuid"] || a["parent_path"] != "mcp/lead" {
		t.Errorf("agent_run kid from mcp/lead's orcr mcp: got %v, want mcp/kid with parent %v", kid, lead["uuid"])
	}
	for _, s := range []*sdk.ClientSession{kidFace, cs} {
		began := time.Now()
		if err := s.Close(); err != nil {
			t.Errorf("orcr mcp after stdin closed: %v, want exit 0", err)
		}
		if d := time.Since(began); d > 3*time.Second {
			t.Errorf("orcr mcp took %v to exit after stdin closed", d)
		}
	}
}

// TestMCPRegistrationLive: `orcr mcp` as the real provider CLIs take it
// (docs/mcp.md §3). claude registers it with `claude mcp add` and its health check
// (`claude mcp list`, which starts the server and speaks MCP's handshake with it)
// reports it connected; codex loads the `[mcp_servers.orcr]` keys docs/mcp.md §3.2
// gives under --strict-config, which refuses a key it does not know.
func TestMCPRegistrationLive(t *testing.T) {
	t.Parallel()
	heavy(t)
	state := t.TempDir()
	home := filepath.Join(state, "orcr")
	env := []string{"HOME=" + state, "CLAUDE_CONFIG_DIR=" + filepath.Join(state, ".claude"),
		"CODEX_HOME=" + filepath.Join(state, ".codex"), "ORCR_HOME=", "DISABLE_AUTOUPDATER=1"}
	mustMkdir(t, filepath.Join(state, ".codex"), 0o700)
	ctx := t.Context()
	t.Run("claude", func(t *testing.T) {
		claude := providertest.Require(t, provider.Claude)
		if out, err := claude.Output(ctx, env, "mcp", "add", "--scope", "user", "orcr", "-e", "ORCR_HOME="+home, "--", bins.orcr, "mcp"); err != nil {
			t.Fatalf("claude mcp add: %v\n%s", err, out)
		}
		// The home passed with -e reaches `orcr mcp` (docs/mcp.md §3: pass ORCR_HOME).
		cfg, err := os.ReadFile(filepath.Join(state, ".claude", ".claude.json"))
		if err != nil || !strings.Contains(string(cfg), `"ORCR_HOME": "`+home+`"`) {
			t.Errorf("claude's config after mcp add -e: %v\n%s", err, cfg)
		}
		out, err := claude.Output(ctx, env, "mcp", "list")
		if err != nil {
			t.Fatalf("claude mcp list: %v\n%s", err, out)
		}
		var line string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "orcr:") {
				line = l
			}
		}
		if !strings.Contains(line, "Connected") {
			t.Fatalf("claude mcp list does not report orcr connected:\n%s", out)
		}
		t.Logf("claude mcp list: %s", line)
	})
	t.Run("codex", func(t *testing.T) {
		codex := providertest.Require(t, provider.Codex)
		keys := []string{`command="` + bins.orcr + `"`, `args=["mcp"]`,
			`env_vars=["ORCR_HOME","ORCR_ID","ORCR_PATH","ORCR_AGENT_DATA_DIR","ORCR_LOOP_DATA_DIR"]`, `tool_timeout_sec=1800`}
		load := func(keys ...string) ([]byte, error) {
			args := []string{"app-server", "--strict-config", "--print-startup-config"}
			for _, k := range keys {
				args = append(args, "-c", "mcp_servers.orcr."+k)
			}
			return codex.Output(ctx, env, args...)
		}
		if out, err := load(keys...); err != nil {
			t.Fatalf("codex does not load docs/mcp.md's [mcp_servers.orcr]: %v\n%s", err, out)
		}
		if out, err := load(append(keys, "orcr_no_such_key=1")...); err == nil {
			t.Fatalf("codex --strict-config loaded an unknown mcp_servers key, so the check above proves nothing:\n%s", out)
		}
		// §3.2's `codex mcp add … --env ORCR_HOME=…` writes the home into the server's env.
		if out, err := codex.Output(ctx, env, "mcp", "add", "orcr", "--env", "ORCR_HOME="+home, "--", bins.orcr, "mcp"); err != nil {
			t.Fatalf("codex mcp add: %v\n%s", err, out)
		}
		cfg, err := os.ReadFile(filepath.Join(state, ".codex", "config.toml"))
		if err != nil || !strings.Contains(string(cfg), `ORCR_HOME = "`+home+`"`) {
			t.Errorf("codex's config after mcp add --env: %v\n%s", err, cfg)
		}
	})
}

// `orcr mcp token` prints a token alone on stdout that a running `orcr mcp --http`
// takes at once; --rotate makes the older one fail there, --revoke the last one, and
// both flags at once are refused.
func TestMCPTokenCLI(t *testing.T) {
	h, _ := herdrHome(t, "")
	first := h.run("mcp", "token")
	token := strings.TrimSpace(first.stdout)
	if first.exit != 0 || len(token) != 43 || strings.Contains(first.stdout, " ") || !strings.Contains(first.stderr, "shown once") {
		t.Fatalf("orcr mcp token: exit %d, stdout %q, stderr %q; want the token alone", first.exit, first.stdout, first.stderr)
	}
	endpoint := serveMCPHTTP(t, h)
	if code := mcpInitialize(t, endpoint, token); code != http.StatusOK {
		t.Fatalf("initialize with the token: HTTP %d, want 200", code)
	}
	_, res, _ := h.jsonRun(t, "mcp.token", 0, "mcp", "token", "--rotate")
	rotated, _ := res["token"].(string)
	if len(rotated) != 43 || res["revoked"] != float64(1) {
		t.Fatalf("orcr mcp token --rotate --json: %v, want a token and 1 revoked", res)
	}
	if code := mcpInitialize(t, endpoint, token); code != http.StatusUnauthorized {
		t.Errorf("initialize with the rotated-out token: HTTP %d, want 401", code)
	}
	if code := mcpInitialize(t, endpoint, rotated); code != http.StatusOK {
		t.Errorf("initialize with the new token: HTTP %d, want 200", code)
	}
	if r := h.run("mcp", "token", "--revoke"); r.exit != 0 || strings.TrimSpace(r.stdout) != "1 MCP token(s) revoked" {
		t.Errorf("orcr mcp token --revoke: exit %d, stdout %q", r.exit, r.stdout)
	}
	if code := mcpInitialize(t, endpoint, rotated); code != http.StatusUnauthorized {
		t.Errorf("initialize after --revoke: HTTP %d, want 401", code)
	}
	if ok, _, e := h.jsonRun(t, "mcp.token", 1, "mcp", "token", "--rotate", "--revoke"); ok || e["code"] != "invalid_request" {
		t.Errorf("orcr mcp token --rotate --revoke: %v, want invalid_request", e)
	}
}

// The real `orcr mcp` on stdio answers malformed lines with JSON-RPC errors, answers
// every request written before stdin closes, and exits 0.
func TestMCPStdioMalformedLinesSubprocess(t *testing.T) {
	h := newHome(t)
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json`,
		`{"jsonrpc":"1.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":{"o":1},"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.orcr, "mcp")
	cmd.Env = h.env
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("orcr mcp: %v, want exit 0 (stderr %q)", err, stderr.String())
	}
	got := map[string]string{} // id → error code or "result"
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		what := "result"
		if m.Error != nil {
			what = strconv.Itoa(m.Error.Code)
		}
		got[string(m.ID)] += what + " "
	}
	want := map[string]string{"1": "result ", "2": "-32600 ", "3": "result ", "null": "-32700 -32600 "}
	if !maps.Equal(got, want) {
		t.Errorf("answers by id: got %v, want %v", got, want)
	}
}

// Issue 33 #5 (docs/mcp.md §1, §3): an MCP client that does not pass ORCR_HOME gets
// `orcr mcp` on the default home, so `orcr mcp` names the home it serves on stderr, one
// line at start, and says where it came from.
func TestMCPNamesItsHome(t *testing.T) {
	h := newHome(t)
	user := t.TempDir()
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, "orcr mcp: orcr home " + h.dir + " (from ORCR_HOME)\n"},
		{[]string{"ORCR_HOME=", "HOME=" + user}, "orcr mcp: orcr home " + filepath.Join(user, ".orcr") +
			" (ORCR_HOME is not set; pass it in the MCP client's config to serve another home)\n"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		cmd := exec.Command(bins.orcr, "mcp")
		cmd.Env = append(append([]string(nil), h.env...), tc.env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "orcr-e2e", Version: "0"}, nil).Connect(ctx,
			&sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
		if err != nil {
			t.Fatalf("orcr mcp %v: %v", tc.env, err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Errorf("tools/list: %v", err)
		}
		if err := cs.Close(); err != nil {
			t.Errorf("orcr mcp after stdin closed: %v", err)
		}
		cancel()
		if got := stderr.String(); got != tc.want { // the process has exited: stderr is complete
			t.Errorf("orcr mcp %v stderr %q, want %q", tc.env, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(user, ".orcr")); err == nil {
		t.Error("orcr mcp created the default home without a tool call")
	}
}

// lockedBuffer is a bytes.Buffer safe to write from one goroutine and read from another.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
