package tests

// Real turns of the contract built-ins (docs/providers.md §10.1, §12): the real pi,
// gemini, qwen and opencode in herdr stand-in panes complete turns through orcr
// against the model stand-in. The CLIs are found like the other provider tests find
// them (providertest.Require): skipped without them, a failure under CI=1.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/provider/modeltest"
	"github.com/orcr-go/orcr/actors/provider/providertest"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/tests/poll"
)

// contractAgent is how one contract built-in reaches the model stand-in in the test.
type contractAgent struct {
	name  string // the provider
	model string // --model of its agent
	api   string // the model API it speaks
}

// contractAgents are the four, each pointed at the stand-in as docs/providers.md §12
// tells a user to point it at an endpoint.
var contractAgents = []contractAgent{
	{provider.Pi, "standin/claude-sonnet-4-5", modeltest.Anthropic},
	{provider.Gemini, "gemini-2.5-flash", modeltest.Gemini},
	{provider.Qwen, "gpt-5-standin", modeltest.Chat},
	{provider.Opencode, "standin/gpt-5-standin", modeltest.Chat},
}

// agentsHome is a herdr stand-in home whose panes run the installed pi, gemini, qwen
// and opencode against model, in a private HOME holding each one's endpoint config
// (docs/providers.md §12.1–§12.4): pi's models.json (Anthropic Messages), gemini's
// API-key auth with GOOGLE_GEMINI_BASE_URL and its trusted folders, qwen's OpenAI auth
// with OPENAI_* in the environment (its post-turn memory and suggestion off, as §12.3
// advises), opencode's provider in opencode.json. qwen and
// opencode report their sessions through herdr's integration, installed with `herdr
// integration install` (the stand-in's own, docs/herdr.md §12.1). It returns each
// provider's working directory (pi and gemini find their transcript by it: one each).
func agentsHome(t testing.TB, configJSON string, model *modeltest.Server) (h *home, work map[string]string) {
	t.Helper()
	var dirs []string
	for _, a := range contractAgents {
		dirs = append(dirs, filepath.Dir(providertest.Require(t, a.name).Path))
	}
	h, _ = herdrHome(t, configJSON)
	dumpOnFailure(t, h)
	state := t.TempDir()
	work = map[string]string{}
	trusted := map[string]string{}
	for _, a := range contractAgents {
		work[a.name] = filepath.Join(state, "work-"+a.name)
		mustMkdir(t, work[a.name], 0o700)
		trusted[work[a.name]] = "TRUST_FOLDER"
	}
	url := model.URL()
	writeJSON(t, filepath.Join(state, ".pi", "agent", "models.json"), map[string]any{"providers": map[string]any{
		"standin": map[string]any{"baseUrl": url, "api": "anthropic-messages", "apiKey": "standin",
			"models": []map[string]any{{"id": "claude-sonnet-4-5"}}}}})
	writeJSON(t, filepath.Join(state, ".gemini", "settings.json"), map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}})
	writeJSON(t, filepath.Join(state, ".gemini", "trustedFolders.json"), trusted)
	writeJSON(t, filepath.Join(state, ".qwen", "settings.json"), map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		// No requests of its own after a turn (docs/providers.md §12.3).
		"ui": map[string]any{"enableFollowupSuggestions": false}, "memory": map[string]any{"enableManagedAutoMemory": false}})
	writeJSON(t, filepath.Join(state, ".config", "opencode", "opencode.json"), map[string]any{
		"provider": map[string]any{"standin": map[string]any{"npm": "@ai-sdk/openai-compatible",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "standin"},
			"models":  map[string]any{"gpt-5-standin": map[string]any{}}}},
		"model": "standin/gpt-5-standin", "autoupdate": false, "share": "disabled"})
	path := strings.Join(append(dirs, h.envValue("PATH")), string(os.PathListSeparator))
	h.env = append(h.env, "PATH="+path, "HOME="+state, "XDG_DATA_HOME=", "XDG_STATE_HOME=", "XDG_CACHE_HOME=",
		"PI_CODING_AGENT_DIR=", "PI_OFFLINE=1",
		"GOOGLE_GEMINI_BASE_URL="+url, "GEMINI_API_KEY=standin",
		"OPENAI_BASE_URL="+url+"/v1", "OPENAI_API_KEY=standin", "OPENAI_MODEL=gpt-5-standin",
		// opencode fetches its model catalogue from the internet before it draws its
		// first screen; the stand-in's model is declared in opencode.json.
		"OPENCODE_DISABLE_MODELS_FETCH=1")
	for _, target := range []string{provider.Qwen, provider.Opencode} {
		if out, err := herdrCLI(h, h.envValue("ORCR_HERDR_BIN"), "integration", "install", target); err != nil {
			t.Fatalf("herdr integration install %s: %v\n%s", target, err, out)
		}
	}
	// herdr installs opencode's plugin under ~/.config/opencode whatever XDG_CONFIG_HOME
	// says, while opencode reads $XDG_CONFIG_HOME/opencode: here that is the test's herdr
	// config dir, which the panes inherit, so it links to the one herdr wrote.
	if err := os.Symlink(filepath.Join(state, ".config", "opencode"), filepath.Join(h.envValue("XDG_CONFIG_HOME"), "opencode")); err != nil {
		t.Fatal(err)
	}
	return h, work
}

// TestRealAgentsLive: for pi, gemini, qwen and opencode each, in parallel within one
// orcr server: `agent run` → the first turn completes (`agent wait` → turn_complete),
// `agent logs --last-response` is the scripted answer and the model got the prompt
// once; `agent send` a second turn, the same; a shell call (`echo`) whose output the CLI
// sends back, shown as tool_use and tool_result entries in `agent logs`, and whose turn
// completes with the answer after it; the row holds each one's session pointer;
// `agent kill` ends the agent and leaves no process.
func TestRealAgentsLive(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting, turn windows): see main_test.go
	heavy(t)
	model := startModel(t)
	h, work := agentsHome(t, `{"timings": {"max_starting": "120s"}}`, model)
	uids := map[string]string{}
	for _, a := range contractAgents {
		uids[a.name], _ = runAgent(t, h, "-a", a.name, "--model", a.model, "--path", "ra/"+a.name, "--cwd", work[a.name],
			"-p", "say="+a.name+"-first")
	}
	var wg sync.WaitGroup
	for _, a := range contractAgents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(a.name, func(t *testing.T) { agentTurns(t, h, model, a, uids[a.name]) })
		}()
	}
	wg.Wait()
	wantAllConfirmed(t, h)
}

// agentTurns is one provider's part of TestRealAgentsLive.
func agentTurns(t *testing.T, h *home, model *modeltest.Server, a contractAgent, uid string) {
	name, p := "ra/"+a.name, a.name
	defer func() {
		if t.Failed() { // what the pane showed, for the failure's reader
			r := h.run("agent", "logs", "--screen", name)
			t.Logf("%s: the pane at the failure (exit %d):\n%s%s", p, r.exit, r.stdout, r.stderr)
			logModel(t, model)
		}
	}()
	start := time.Now()
	agentTurn(t, h, model, a, name, "", "say="+p+"-first", p+"-first")
	t.Logf("%s: first turn complete %s after the run", p, time.Since(start).Round(time.Millisecond))
	// Text left in the input box, several lines of it, is never glued onto the next
	// prompt: each CLI's clear keys empty the box first (docs/providers.md §5.1).
	leaveInBox(t, h, name, "orcr-leftover-1\norcr-leftover-2\norcr-leftover-3")
	agentTurn(t, h, model, a, name, "say="+p+"-second", "say="+p+"-second", p+"-second")
	// The command stays alive 1 s after printing: gemini reads its shell's pty through
	// node-pty, whose exit can overtake the last output, and then sends "Output: (empty)"
	// (CI, 3838b68: one gemini in about ten runs). The CLI's race, not orcr's; §12.5.
	tool := "tool=bash:echo_orcr-tool-" + p + "&&sleep_1 say=" + p + "-tooldone"
	agentTurn(t, h, model, a, name, tool, tool, p+"-tooldone")
	wantToolRan(t, model, a.api, "orcr-tool-"+p)
	wantToolEntries(t, h, model, name, "orcr-tool-"+p)
	t.Logf("%s: three turns %s after the run", p, time.Since(start).Round(time.Millisecond))
	// qwen's and opencode's session come from herdr's integration; pi's and gemini's
	// from their transcript (docs/providers.md §12): pi's file, gemini's session id.
	wantKind := map[string]string{provider.Qwen: provider.SessionKindID, provider.Opencode: provider.SessionKindID,
		provider.Pi: provider.SessionKindPath, provider.Gemini: provider.SessionKindID}[p]
	if kind, value := storedSession(t, h, uid); kind != wantKind || value == "" {
		t.Errorf("%s: orcr recorded agent_session %s %q, want a %s", p, kind, value, wantKind)
	}

	if r := h.run("agent", "kill", "-y", name); r.exit != 0 {
		t.Fatalf("agent kill %s: exit %d stderr %q", name, r.exit, r.stderr)
	}
	if rows := h.lsRows(t, "--all", name); len(rows) != 1 || rows[0].EndedAt == nil {
		t.Errorf("%s after the kill: %+v, want ended", p, rows)
	}
	poll.Eventually(t, 30*time.Second, p+"'s processes gone after the kill", func() bool { return len(agentProcs(uid)) == 0 },
		func() string { return procsLeft(uid) })
}

// leaveInBox pastes text (bracketed, so its newlines stay in the box) into the input
// box of agent name's pane, as a delivery cut short or a user at the pane leaves it,
// and waits until the pane shows it (its first line, or the placeholder opencode
// shows for a paste of several lines).
func leaveInBox(t *testing.T, h *home, name, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := herdr.NewRemote(filepath.Join(h.envValue("XDG_CONFIG_HOME"), "herdr", "sessions", "orcr", "herdr.sock"))
	panes, err := r.PaneList(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	pane := ""
	for _, p := range panes {
		if at, _ := actors.PanePath(p.Label); at == name {
			pane = p.PaneID
		}
	}
	if pane == "" {
		t.Fatalf("no pane of %s in %+v", name, panes)
	}
	if err := r.SendText(ctx, pane, "\x1b[200~"+text+"\x1b[201~"); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(text, "\n")
	poll.Eventually(t, 30*time.Second, name+" showing the text left in its box", func() bool {
		rd, err := r.Read(ctx, pane, "visible", 0)
		return err == nil && (strings.Contains(rd.Text, first) || strings.Contains(rd.Text, "[Pasted"))
	})
}

// agentTurn sends prompt to agent name (none: the run's own prompt) and checks that the
// turn completes with the answer want and that the model got the prompt once.
func agentTurn(t *testing.T, h *home, model *modeltest.Server, a contractAgent, name, send, prompt, want string) {
	t.Helper()
	if send != "" {
		if r := h.run("agent", "send", name, send); r.exit != 0 {
			t.Fatalf("agent send %s: exit %d stderr %q", name, r.exit, r.stderr)
		}
	}
	waitTurn(t, h, name)
	if got := lastResponse(t, h, name); got != want+"\n" {
		t.Errorf("%s: last response %q, want %q", a.name, got, want+"\n")
	}
	wantPromptOnce(t, h, model, a.api, prompt)
}

// wantToolRan checks that a request through api carried the output of the shell call:
// the CLI ran the command and sent its result back.
func wantToolRan(t *testing.T, model *modeltest.Server, api, out string) {
	t.Helper()
	for _, r := range model.Requests() {
		if r.API == api && r.FollowUp && strings.Contains(r.ToolResult, out) {
			return
		}
	}
	var got []string
	for _, r := range model.Requests() {
		if r.API == api && r.FollowUp {
			got = append(got, r.ToolResult)
		}
	}
	t.Errorf("no request through %s carries the shell call's output %q (tool results: %q)", api, out, got)
}
