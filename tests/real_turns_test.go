package tests

// Real turns (docs/providers.md §10.1): the real claude and codex in herdr stand-in
// panes complete turns through orcr against the model stand-in of
// actors/provider/modeltest, which scripts the answers by directives in the prompt.
// The CLIs are found like the other provider tests find them (providertest.Require):
// skipped without them, a failure under CI=1.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/provider/modeltest"
	"github.com/orcr-go/orcr/actors/provider/providertest"
)

// codexKeyEnv names the variable the stand-in's codex model provider reads its key from.
const codexKeyEnv = "ORCR_TEST_STANDIN_KEY"

// realHome is a herdr stand-in home whose panes run the installed claude and codex
// against model: claude through ANTHROPIC_BASE_URL with [claudeKey] (its state seeded
// as a user who trusted the returned working directory and accepted the key, its
// session reported by the mock binary's claude-session-hook as herdr's integration
// does), codex through a model provider "standin" in CODEX_HOME/config.toml (the
// directory trusted, the model-upgrade notice seen, its SessionStart hook reporting
// the session as herdr's integration would, trusted the way codex's /hooks does it).
// As root the server gets IS_SANDBOX=1 for claude's permission bypass.
func realHome(t *testing.T, configJSON string, model *modeltest.Server) (h *home, sock, work string) {
	t.Helper()
	codexCLI := providertest.Require(t, provider.Codex)
	h, sock = claudeHome(t, configJSON)
	h.env = append(h.env, "PATH="+filepath.Dir(codexCLI.Path)+string(os.PathListSeparator)+h.envValue("PATH"))
	claudeSandbox(h)
	_, work = trustClaude(t, h)
	h.env = append(h.env, "ANTHROPIC_BASE_URL="+model.URL(), codexKeyEnv+"=standin",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	codexStandin(t, codexCLI.Path, h.envValue("CODEX_HOME"), h.envValue("HOME"), h.envValue("ORCR_MOCK_AGENT_BIN"), work, model.URL())
	return h, sock, work
}

// codexStandin writes codex's config for the model stand-in at url into codexHome and
// trusts its SessionStart hook: codex asks about a hook it has not seen unless
// config.toml holds the hash codex computes for it, which `codex app-server`'s
// hooks/list reports (currentHash under its key).
func codexStandin(t *testing.T, bin, codexHome, home, mockBin, work, url string) {
	t.Helper()
	config := fmt.Sprintf(`model_provider = "standin"

[model_providers.standin]
name = "standin"
base_url = %q
env_key = %q
wire_api = "responses"

[features]
hooks = true

[projects.%q]
trust_level = "trusted"

[notice.model_migrations]
"gpt-5.6-luna" = "gpt-6-luna"
`, url+"/v1", codexKeyEnv, work)
	writeFile(t, filepath.Join(codexHome, "config.toml"), config)
	hook := []map[string]any{{"hooks": []map[string]any{{"type": "command", "command": mockBin + " codex-session-hook"}}}}
	writeJSON(t, filepath.Join(codexHome, "hooks.json"), map[string]any{"hooks": map[string]any{"SessionStart": hook}})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "app-server", "--stdio")
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome)
	stdin, err := cmd.StdinPipe() // held open: the app-server ends at the end of its input
	if err != nil {
		t.Fatal(err)
	}
	requests := (`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"orcr-test","version":"0"},"capabilities":{"experimentalApi":true}}}
{"method":"initialized"}
{"id":2,"method":"hooks/list","params":{"cwds":[` + mustJSON(work) + `]}}
`)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if _, err := stdin.Write([]byte(requests)); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(stdout)
	for {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []struct {
						Key         string `json:"key"`
						CurrentHash string `json:"currentHash"`
					} `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
		}
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("codex app-server hooks/list: %v", err)
		}
		if m.ID != 2 {
			continue
		}
		trust := "\n[hooks.state]\n"
		n := 0
		for _, d := range m.Result.Data {
			for _, hk := range d.Hooks {
				trust += fmt.Sprintf("\n[hooks.state.%q]\ntrusted_hash = %q\n", hk.Key, hk.CurrentHash)
				n++
			}
		}
		if n != 1 {
			t.Fatalf("codex lists %d hooks, want the session hook alone: %+v", n, m.Result)
		}
		writeFile(t, filepath.Join(codexHome, "config.toml"), config+trust)
		return
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func startModel(t *testing.T) *modeltest.Server {
	t.Helper()
	m, err := modeltest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// apiOf is the model API a provider's CLI speaks.
func apiOf(p string) string {
	if p == provider.Codex {
		return modeltest.OpenAI
	}
	return modeltest.Anthropic
}

// waitTurn is `orcr agent wait <name>` that must end turn_complete.
func waitTurn(t *testing.T, h *home, name string) {
	t.Helper()
	r := h.run("agent", "wait", "--timeout", "120s", name)
	if want := name + "  turn_complete\n"; r.exit != 0 || r.stdout != want {
		t.Fatalf("agent wait %s: exit %d stdout %q stderr %q, want %q", name, r.exit, r.stdout, r.stderr, want)
	}
}

// lastResponse is `orcr agent logs <name> --last-response`.
func lastResponse(t *testing.T, h *home, name string) string {
	t.Helper()
	r := h.run("agent", "logs", name, "--last-response")
	if r.exit != 0 {
		t.Fatalf("agent logs %s --last-response: exit %d stderr %q", name, r.exit, r.stderr)
	}
	return r.stdout
}

// wantPromptOnce checks that the model got prompt as the user text of exactly one turn
// of api: orcr typed it once and the CLI sent it once.
func wantPromptOnce(t *testing.T, model *modeltest.Server, api, prompt string) {
	t.Helper()
	n := 0
	for _, r := range model.Turns(api) {
		if r.Prompt == prompt {
			n++
		}
	}
	if n != 1 {
		var got []string
		for _, r := range model.Turns(api) {
			got = append(got, r.Prompt)
		}
		t.Errorf("the model got %q in %d turns through %s, want 1 (turns: %q)", prompt, n, api, got)
		logModel(t, model)
	}
}

// logModel logs every request the model stand-in got, one line each.
func logModel(t *testing.T, model *modeltest.Server) {
	t.Helper()
	var b strings.Builder
	for _, r := range model.Requests() {
		p := r.Prompt
		if len(p) > 80 {
			p = p[:80] + "…"
		}
		fmt.Fprintf(&b, "%s %s %s %d tools=%q follow_up=%v prompt=%q\n", r.At.Format("15:04:05.000"), r.Method, r.Path, r.Status, r.Tools, r.FollowUp, p)
	}
	t.Logf("the model stand-in's requests:\n%s", b.String())
}

// TestRealTurnsLive: for claude and codex each, in parallel within one orcr server:
// `agent run` → working → idle with turn_complete, `agent logs --last-response` is the
// scripted answer and the model got the prompt once; `agent send` a second turn; a
// tool call (a harmless shell command) shows as tool_use and tool_result entries in
// `agent logs` and the turn completes once; `agent ask`; and `agent wait --any` over
// both providers.
func TestRealTurnsLive(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting, turn windows): see main_test.go
	model := startModel(t)
	h, _, work := realHome(t, `{"timings": {"max_starting": "90s"}}`, model)
	providers := []string{provider.Claude, provider.Codex}
	name := map[string]string{provider.Claude: "rt/cl", provider.Codex: "rt/cx"}
	for _, p := range providers {
		runAgent(t, h, "-a", p, "--path", name[p], "--cwd", work, "-p", "say="+p+"-first stream_ms=50")
	}
	var wg sync.WaitGroup
	for _, p := range providers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(p, func(t *testing.T) { realTurns(t, h, model, p, name[p], work) })
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	// wait --any over both providers: codex's turn is held by a stall until released,
	// claude's completes.
	h.run("agent", "send", name[provider.Codex], "say=codex-later stall")
	h.run("agent", "send", name[provider.Claude], "say=claude-sooner")
	r := h.run("agent", "wait", "--any", "--timeout", "120s", name[provider.Claude], name[provider.Codex])
	if want := name[provider.Claude] + "  turn_complete\n" + name[provider.Codex] + "  pending\n"; r.exit != 0 || r.stdout != want {
		t.Errorf("agent wait --any: exit %d stdout %q stderr %q, want %q", r.exit, r.stdout, r.stderr, want)
	}
	model.Release()
	waitTurn(t, h, name[provider.Codex])
	if got := lastResponse(t, h, name[provider.Codex]); got != "codex-later\n" {
		t.Errorf("codex after the stall: last response %q", got)
	}
}

// realTurns is one provider's part of TestRealTurnsLive.
func realTurns(t *testing.T, h *home, model *modeltest.Server, p, name, work string) {
	start := time.Now()
	api := apiOf(p)
	waitTurn(t, h, name)
	t.Logf("%s: first turn complete %s after the run", p, time.Since(start).Round(time.Millisecond))
	if got, want := lastResponse(t, h, name), p+"-first\n"; got != want {
		t.Errorf("%s: last response %q, want %q", p, got, want)
	}
	wantPromptOnce(t, model, api, "say="+p+"-first stream_ms=50")

	second := "say=" + p + "-second"
	if r := h.run("agent", "send", name, second); r.exit != 0 {
		t.Fatalf("agent send: %+v", r)
	}
	waitTurn(t, h, name)
	if got, want := lastResponse(t, h, name), p+"-second\n"; got != want {
		t.Errorf("%s: second turn's last response %q, want %q", p, got, want)
	}
	wantPromptOnce(t, model, api, second)

	tool := "tool=bash:echo_orcr-tool-" + p + " say=" + p + "-tooldone"
	if r := h.run("agent", "send", name, tool); r.exit != 0 {
		t.Fatalf("agent send: %+v", r)
	}
	waitTurn(t, h, name)
	if got, want := lastResponse(t, h, name), p+"-tooldone\n"; got != want {
		t.Errorf("%s: tool turn's last response %q, want %q", p, got, want)
	}
	wantPromptOnce(t, model, api, tool)
	wantToolEntries(t, h, model, name, "orcr-tool-"+p)

	ask := "say=" + p + "-asked"
	r := h.run("agent", "ask", "-a", p, "--path", name+"_ask", "--cwd", work, "--timeout", "150s", "-p", ask)
	if want := p + "-asked\n"; r.exit != 0 || r.stdout != want {
		t.Errorf("%s: agent ask: exit %d stdout %q stderr %q, want %q", p, r.exit, r.stdout, r.stderr, want)
	}
	wantPromptOnce(t, model, api, ask)
}

// wantToolEntries checks that `agent logs --json` holds a tool_use entry and a
// tool_result entry whose text has out.
func wantToolEntries(t *testing.T, h *home, model *modeltest.Server, name, out string) {
	t.Helper()
	r := h.run("agent", "logs", name, "--json")
	ok, res, e := r.envelope(t)
	if !ok {
		t.Fatalf("agent logs --json: %v", e)
	}
	entries, _ := res["entries"].([]any)
	use, result := false, false
	for _, x := range entries {
		en, _ := x.(map[string]any)
		switch en["kind"] {
		case "tool_use":
			use = true
		case "tool_result":
			result = result || strings.Contains(fmt.Sprint(en["text"]), out)
		}
	}
	if !use || !result {
		t.Errorf("agent logs %s: tool_use %v, tool_result with %q %v:\n%s", name, use, out, result, r.stdout)
		logModel(t, model)
	}
}
