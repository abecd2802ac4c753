package tests

// Real turns (docs/providers.md §10.1): the real claude and codex in herdr stand-in
// panes complete turns through orcr against the model stand-in of
// actors/provider/modeltest, which scripts the answers by directives in the prompt.
// The CLIs are found like the other provider tests find them (providertest.Require):
// skipped without them, a failure under CI=1.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/provider/modeltest"
	"github.com/orcr-go/orcr/actors/provider/providertest"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/tests/poll"
	_ "modernc.org/sqlite" // the store's driver, to read the turns' usage
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
func realHome(t testing.TB, configJSON string, model *modeltest.Server) (h *home, sock, work string) {
	t.Helper()
	return realHomeWith(t, configJSON, model, nil)
}

// realHomeWith is [realHome]; with install not nil the sessions are reported by the
// hooks install puts in place (herdr's own integrations, in h's environment) instead
// of the mock binary's.
func realHomeWith(t testing.TB, configJSON string, model *modeltest.Server, install func(h *home)) (h *home, sock, work string) {
	t.Helper()
	codexCLI := providertest.Require(t, provider.Codex)
	h, sock = claudeHome(t, configJSON)
	dumpOnFailure(t, h)
	h.env = append(h.env, "PATH="+filepath.Dir(codexCLI.Path)+string(os.PathListSeparator)+h.envValue("PATH"))
	claudeSandbox(h)
	mockHook := h.envValue("ORCR_MOCK_AGENT_BIN")
	if install == nil {
		_, work = trustClaude(t, h)
	} else {
		_, work = trustedWork(t, h)
		install(h)
		mockHook = ""
	}
	h.env = append(h.env, "ANTHROPIC_BASE_URL="+model.URL(), codexKeyEnv+"=standin",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	codexStandin(t, codexCLI.Path, h.envValue("CODEX_HOME"), h.envValue("HOME"), mockHook, work, model.URL())
	return h, sock, work
}

// codexStandin writes codex's config for the model stand-in at url into codexHome and
// trusts its SessionStart hook (the mock binary's, or with mockBin "" the one
// codexHome/hooks.json already has): codex asks about a hook it has not seen unless
// config.toml holds the hash codex computes for it, which `codex app-server`'s
// hooks/list reports (currentHash under its key).
func codexStandin(t testing.TB, bin, codexHome, home, mockBin, work, url string) {
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
	if mockBin != "" {
		hook := []map[string]any{{"hooks": []map[string]any{{"type": "command", "command": mockBin + " codex-session-hook"}}}}
		writeJSON(t, filepath.Join(codexHome, "hooks.json"), map[string]any{"hooks": map[string]any{"SessionStart": hook}})
	}

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

func writeFile(t testing.TB, path, s string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func startModel(t testing.TB) *modeltest.Server {
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

// waitTurn is `orcr agent wait <name>` that must end turn_complete within 150 s: waits
// of 45 s each (h.run gives a command 60 s), again while one ends at its own timeout
// (exit 3, docs/cli.md §1.6).
func waitTurn(t testing.TB, h *home, name string) {
	t.Helper()
	r := h.run("agent", "wait", "--timeout", "45s", name)
	// A first turn includes the CLI's start, bounded by the test's timings.max_starting
	// (up to 150 s): opencode beside a full run on a machine at load 9 sent its first
	// request 100 s after its run and showed its answer 45 s later (s25b-1, 150 s ran out).
	for deadline := time.Now().Add(200 * time.Second); r.exit == 3 && time.Now().Before(deadline); {
		r = h.run("agent", "wait", "--timeout", "45s", name)
	}
	if want := name + "  turn_complete\n"; r.exit != 0 || r.stdout != want {
		t.Fatalf("agent wait %s: exit %d stdout %q stderr %q, want %q", name, r.exit, r.stdout, r.stderr, want)
	}
}

// lastResponse is `orcr agent logs <name> --last-response`.
func lastResponse(t testing.TB, h *home, name string) string {
	t.Helper()
	r := h.run("agent", "logs", name, "--last-response")
	if r.exit != 0 {
		t.Fatalf("agent logs %s --last-response: exit %d stderr %q", name, r.exit, r.stderr)
	}
	return r.stdout
}

// wantPromptOnce checks that the model got prompt as the user text of exactly one turn
// of api: orcr typed it once and the CLI sent it once.
// On failure it logs the model's requests and the server log's lines of the submits
// that pressed Enter or typed again (docs/lifecycle.md §9.2).
func wantPromptOnce(t *testing.T, h *home, model *modeltest.Server, api, prompt string) {
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
		if b, err := os.ReadFile(filepath.Join(h.dir, "logs", "server.log")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, "submit:") {
					t.Log("server log: " + line)
				}
			}
		}
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
	heavy(t)
	model := startModel(t)
	h, _, work := realHome(t, `{"timings": {"max_starting": "90s"}, "remote": {"listen": "127.0.0.1:0"}}`, model)
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
	wantAllConfirmed(t, h)
}

// wantAllConfirmed checks that the server log has no delivery whose input was not
// confirmed: every prompt of the test reached its TUI and was taken
// (docs/lifecycle.md §9.2).
func wantAllConfirmed(t *testing.T, h *home) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(h.dir, "logs", "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, "input not confirmed") {
			t.Errorf("server log: %s", line)
		}
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
	wantPromptOnce(t, h, model, api, "say="+p+"-first stream_ms=50")

	// Several lines left in the input box are emptied before the prompt (docs/providers.md §5.1).
	leaveInBox(t, h, name, "orcr-leftover-1\norcr-leftover-2\norcr-leftover-3")
	second := "say=" + p + "-second tokens=11,22,33,44,5"
	if r := h.run("agent", "send", name, second); r.exit != 0 {
		t.Fatalf("agent send: %+v", r)
	}
	waitTurn(t, h, name)
	if got, want := lastResponse(t, h, name), p+"-second\n"; got != want {
		t.Errorf("%s: second turn's last response %q, want %q", p, got, want)
	}
	wantPromptOnce(t, h, model, api, second)
	wantTurnUsage(t, h, p, name)

	tool := "tool=bash:echo_orcr-tool-" + p + " say=" + p + "-tooldone"
	if r := h.run("agent", "send", name, tool); r.exit != 0 {
		t.Fatalf("agent send: %+v", r)
	}
	waitTurn(t, h, name)
	if got, want := lastResponse(t, h, name), p+"-tooldone\n"; got != want {
		t.Errorf("%s: tool turn's last response %q, want %q", p, got, want)
	}
	wantPromptOnce(t, h, model, api, tool)
	wantToolEntries(t, h, model, name, "orcr-tool-"+p)
	first := "say=" + p + "-first stream_ms=50"
	wantSessionLog(t, h, name, []string{first, second, tool}, []string{p + "-first", p + "-second", p + "-tooldone"}, "orcr-tool-"+p)

	ask := "say=" + p + "-asked"
	r := h.run("agent", "ask", "-a", p, "--path", name+"_ask", "--cwd", work, "--timeout", "150s", "-p", ask)
	if want := p + "-asked\n"; r.exit != 0 || r.stdout != want {
		t.Errorf("%s: agent ask: exit %d stdout %q stderr %q, want %q", p, r.exit, r.stdout, r.stderr, want)
	}
	wantPromptOnce(t, h, model, api, ask)
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

// sessionLog reads the session log of agent name (uuid uid) from the remote stream,
// from its start, until done holds for the events read or 30 s passed.
func sessionLog(t *testing.T, h *home, name, uid string, done func([]remote.Event) bool) []remote.Event {
	t.Helper()
	tok := strings.TrimSpace(h.run("agent", "token", name).stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := (&remote.Dialer{}).Dial(ctx, remoteBase(t, h), uid, tok)
	if err != nil {
		t.Fatalf("remote stream of %s: %v", name, err)
	}
	defer c.Close()
	if err := c.Subscribe(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var evs []remote.Event
	for !done(evs) {
		f, err := c.Next(ctx)
		if err != nil {
			t.Errorf("remote stream of %s: %v after %d events", name, err, len(evs))
			return evs
		}
		if e, ok := f.(remote.Event); ok {
			evs = append(evs, e)
		}
	}
	return evs
}

// payloads returns the payloads of the events of type typ.
func payloads(evs []remote.Event, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e.Type == typ {
			var p map[string]any
			json.Unmarshal(e.Payload, &p)
			out = append(out, p)
		}
	}
	return out
}

// wantSessionLog checks that the session log of agent name carries its turns: each
// prompt once as a user/message, each answer as an assistant/message, a turn/start and
// one turn/end completed per turn, and the tool call with its result holding toolOut.
func wantSessionLog(t *testing.T, h *home, name string, prompts, answers []string, toolOut string) {
	t.Helper()
	rows := h.lsRows(t, name)
	if len(rows) != 1 {
		t.Fatalf("agent ls %s: %+v", name, rows)
	}
	ended := func(evs []remote.Event) bool { return len(payloads(evs, "turn/end")) >= len(prompts) }
	evs := sessionLog(t, h, name, rows[0].UUID, ended)
	texts := func(typ string) []string {
		var out []string
		for _, p := range payloads(evs, typ) {
			out = append(out, fmt.Sprint(p["text"]))
		}
		return out
	}
	if got := texts("user/message"); !slices.Equal(got, prompts) {
		t.Errorf("%s's session log: user/message %q, want %q", name, got, prompts)
	}
	if got := texts("assistant/message"); !slices.Equal(got, answers) {
		t.Errorf("%s's session log: assistant/message %q, want %q", name, got, answers)
	}
	var ends []string
	for _, p := range payloads(evs, "turn/end") {
		ends = append(ends, fmt.Sprint(p["status"]))
	}
	if n := len(payloads(evs, "turn/start")); n != len(prompts) || !slices.Equal(ends, slices.Repeat([]string{"completed"}, len(prompts))) {
		t.Errorf("%s's session log: %d turn/start, turn/end %q; want %d of each, completed", name, n, ends, len(prompts))
	}
	calls, results := payloads(evs, "tool/call"), payloads(evs, "tool/result")
	if len(calls) != 1 || len(results) != 1 || results[0]["ok"] != true || !strings.Contains(fmt.Sprint(results[0]["text"]), toolOut) ||
		calls[0]["call_id"] != results[0]["call_id"] {
		t.Errorf("%s's session log: tool/call %v, tool/result %v; want one call and its ok result with %q", name, calls, results, toolOut)
	}
}

// TestRealStallAndCancelLive: for claude and codex each, in parallel within one orcr
// server: a stream that stalls (headers, then silence) for longer than stall_after
// marks the working agent stalled, and the mark clears when the stream resumes and the
// turn completes; a remote cancel mid-stream reaches the CLI as its own interrupt (its
// request to the model is dropped), the turn ends cancelled, and the next prompt works.
func TestRealStallAndCancelLive(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting, turn windows): see main_test.go
	heavy(t)
	model := startModel(t)
	h, _, work := realHome(t, `{"timings": {"max_starting": "90s", "stall_after": "2s"}, "remote": {"listen": "127.0.0.1:0"}}`, model)
	providers := []string{provider.Claude, provider.Codex}
	uids := map[string]string{}
	for _, p := range providers {
		uids[p], _ = runAgent(t, h, "-a", p, "--path", "sc/"+p, "--cwd", work, "-p", "say="+p+"-resumed stall_ms=9000")
	}
	// The mark lasts only while the stream is silent: the event log keeps it for a
	// loaded machine, where a poll of `agent ls` could miss the window.
	events := followEvents(t, h)
	var wg sync.WaitGroup
	for _, p := range providers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(p, func(t *testing.T) { stallAndCancel(t, h, model, events, p, "sc/"+p, uids[p]) })
		}()
	}
	wg.Wait()
	wantAllConfirmed(t, h)
}

func stallAndCancel(t *testing.T, h *home, model *modeltest.Server, events *eventLog, p, name, uid string) {
	events.waitFor(t, 60*time.Second, name+" marked stalled while its stream is silent", func(e streamEvent) bool {
		return e.Kind == "agent.stalled" && e.UUID == uid
	})
	waitTurn(t, h, name)
	events.waitFor(t, 10*time.Second, name+"'s agent.stall_cleared after its turn", func(e streamEvent) bool {
		return e.Kind == "agent.stall_cleared" && e.UUID == uid
	})
	if got, want := lastResponse(t, h, name), p+"-resumed\n"; got != want {
		t.Errorf("%s: after the stall: last response %q, want %q", p, got, want)
	}
	if rows := h.lsRows(t, name); len(rows) != 1 || rows[0].Stalled || rows[0].Status != "idle" {
		t.Errorf("%s: after the stalled turn: %+v, want idle and not stalled", p, rows)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, next := tailStream(t, ctx, h, name)
	defer c.Close()
	held := "say=" + p + "-never stall"
	if r := h.run("agent", "send", name, held); r.exit != 0 {
		t.Fatalf("agent send: %+v", r)
	}
	poll.Eventually(t, 30*time.Second, "the held prompt at the model", func() bool {
		for _, r := range model.Turns(apiOf(p)) {
			if r.Prompt == held {
				return true
			}
		}
		return false
	})
	if err := c.Cancel(ctx, "test cancel"); err != nil {
		t.Fatal(err)
	}
	for {
		e := nextEvent(t, ctx, c, next)
		next++
		if e.Type == "turn/end" {
			var pl map[string]any
			json.Unmarshal(e.Payload, &pl)
			if pl["status"] != "cancelled" {
				t.Errorf("%s: turn/end %v after the cancel, want cancelled", p, pl)
			}
			break
		}
	}
	poll.Eventually(t, 30*time.Second, "the CLI's request to the model dropped by its interrupt", func() bool {
		for _, r := range model.Requests() {
			if r.Prompt == held && r.Status == 0 {
				return false // still answering: the CLI did not let go of it
			}
		}
		return true
	})
	after := "say=" + p + "-after"
	if r := h.run("agent", "send", name, after); r.exit != 0 {
		t.Fatalf("agent send: %+v", r)
	}
	waitTurn(t, h, name)
	if got, want := lastResponse(t, h, name), p+"-after\n"; got != want {
		t.Errorf("%s: after the cancel: last response %q, want %q", p, got, want)
	}
	wantPromptOnce(t, h, model, apiOf(p), after)
}

// TestRealKill9MidTurnLive: kill -9 of the orcr server while the real claude and codex
// are mid-turn (their streams still running); after the restart each turn completes
// with its answer, as docs/lifecycle.md says an open turn survives a crash, and the
// model got each prompt once (nothing typed twice).
func TestRealKill9MidTurnLive(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting, turn windows): see main_test.go
	heavy(t)
	model := startModel(t)
	h, _, work := realHome(t, `{"timings": {"max_starting": "90s"}}`, model)
	srv := startCrashServer(t, h)
	providers := []string{provider.Claude, provider.Codex}
	prompt := map[string]string{}
	for _, p := range providers {
		prompt[p] = "say=" + p + "-survived stream_ms=1500"
		runAgent(t, h, "-a", p, "--path", "k9/"+p, "--cwd", work, "-p", prompt[p])
	}
	poll.Eventually(t, 90*time.Second, "both prompts streaming from the model", func() bool {
		n := 0
		for _, p := range providers {
			for _, r := range model.Turns(apiOf(p)) {
				if r.Prompt == prompt[p] {
					n++
					break
				}
			}
		}
		return n == len(providers)
	})
	srv.kill9(t)
	srv = startCrashServer(t, h)
	defer srv.stop(t, h)
	for _, p := range providers {
		name := "k9/" + p
		waitTurn(t, h, name)
		if got, want := lastResponse(t, h, name), p+"-survived\n"; got != want {
			t.Errorf("%s: after the restart: last response %q, want %q", p, got, want)
		}
		wantPromptOnce(t, h, model, apiOf(p), prompt[p])
	}
}

// TestRealApprovalsLive: with remote.approvals on, the real claude and codex run
// without their permission bypass. A shell call they ask about makes the agent blocked
// and appears on the remote stream as approval/requested; approved there, the command
// runs and the turn completes with the answer; a second call denied there does not run,
// and the turn ends as the CLI ends it (the agent settles, the next prompt works).
func TestRealApprovalsLive(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting, turn windows): see main_test.go
	heavy(t)
	model := startModel(t)
	h, _, work := realHome(t, `{"timings": {"max_starting": "150s"}, "remote": {"listen": "127.0.0.1:0", "approvals": true}}`, model)
	runAgent(t, h, "-a", provider.Codex, "--path", "ap/codex", "--cwd", work, "-p", "say=codex-ready")
	// claude 2.1.328 starts in its auto mode, which runs a harmless command without
	// asking; a user who wants to be asked sets its manual mode (orcr passes no policy
	// flag, docs/providers.md §2.2). Started so the first time, claude asks whether to
	// make auto mode the default, "Yes" selected: orcr types nothing into it and the
	// start fails with the reason (§5.2).
	claudeDir := h.envValue("CLAUDE_CONFIG_DIR")
	editJSON(t, filepath.Join(claudeDir, "settings.json"), func(m map[string]any) {
		m["permissions"] = map[string]any{"defaultMode": "default"}
	})
	start := time.Now()
	nudge, _ := runAgent(t, h, "-a", provider.Claude, "--path", "ap/nudge", "--cwd", work, "-p", "say=never")
	// 150 s, the start's own bound: with the machine at 94 % and six CLIs booting, the
	// row had not ended 90 s after its run (s20b-2).
	wantEndedFailed(t, h, "ap/nudge", nudge, start, 150*time.Second,
		"claude asks a question about its own settings (`make auto mode your default permission mode` on screen)")
	for _, r := range model.Turns(modeltest.Anthropic) {
		if r.Prompt == "say=never" {
			t.Errorf("the prompt typed into claude's auto-mode question reached the model")
		}
	}
	// The user's answer "No, keep manual mode", as claude records it.
	editJSON(t, filepath.Join(claudeDir, ".claude.json"), func(m map[string]any) { m["hasSeenAutoDefaultNudge"] = true })
	runAgent(t, h, "-a", provider.Claude, "--path", "ap/claude", "--cwd", work, "-p", "say=claude-ready")
	providers := []string{provider.Claude, provider.Codex}
	var wg sync.WaitGroup
	for _, p := range providers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(p, func(t *testing.T) { approvals(t, h, model, p, "ap/"+p, work) })
		}()
	}
	wg.Wait()
}

func approvals(t *testing.T, h *home, model *modeltest.Server, p, name, work string) {
	waitTurn(t, h, name)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	c, next := tailStream(t, ctx, h, name)
	defer c.Close()
	requested := func() string {
		for {
			e := nextEvent(t, ctx, c, next)
			next++
			if e.Type == "approval/requested" {
				var pl map[string]any
				json.Unmarshal(e.Payload, &pl)
				t.Logf("%s: approval/requested %v", p, pl)
				return fmt.Sprint(pl["call_id"])
			}
		}
	}
	defer func() {
		if t.Failed() { // what the pane showed, for the failure's reader
			r := h.run("agent", "logs", "--screen", name)
			t.Logf("%s: the pane at the failure (exit %d):\n%s%s", p, r.exit, r.stdout, r.stderr)
			transcriptTails(t, h, p)
		}
	}()
	for _, verdict := range []string{"approved", "denied"} {
		file := "orcr-" + p + "-" + verdict
		prompt := "tool=bash:touch_" + file + " escalate say=" + p + "-" + verdict
		if r := h.run("agent", "send", name, prompt); r.exit != 0 {
			t.Fatalf("agent send: %+v", r)
		}
		call := requested()
		if rows := h.lsRows(t, name); len(rows) != 1 || rows[0].Status != "blocked" {
			t.Errorf("%s: at the approval request: %+v, want blocked", p, rows)
		}
		var err error
		if verdict == "approved" {
			err = c.Approve(ctx, call, "test")
		} else {
			err = c.Deny(ctx, call, "test")
		}
		if err != nil {
			t.Fatal(err)
		}
		poll.Eventually(t, 60*time.Second, name+" no longer blocked after the verdict", func() bool {
			rows := h.lsRows(t, name)
			return len(rows) == 1 && rows[0].Status != "blocked"
		})
		r := h.run("agent", "wait", "--timeout", "90s", name)
		t.Logf("%s: after %s: agent wait exit %d %q; last response %q", p, verdict, r.exit, r.stdout, lastResponse(t, h, name))
		_, statErr := os.Stat(filepath.Join(work, file))
		switch verdict {
		case "approved":
			if r.exit != 0 || statErr != nil {
				t.Errorf("%s: approved: agent wait exit %d %q, %s: %v; want turn_complete and the file", p, r.exit, r.stdout, file, statErr)
			}
			if got, want := lastResponse(t, h, name), p+"-approved\n"; got != want {
				t.Errorf("%s: approved: last response %q, want %q", p, got, want)
			}
		case "denied":
			if statErr == nil {
				t.Errorf("%s: denied, yet %s was created", p, file)
			}
		}
	}
	after := "say=" + p + "-after-deny"
	if r := h.run("agent", "send", name, after); r.exit != 0 {
		t.Fatalf("agent send: %+v", r)
	}
	waitTurn(t, h, name)
	if got, want := lastResponse(t, h, name), p+"-after-deny\n"; got != want {
		t.Errorf("%s: after the denial: last response %q, want %q", p, got, want)
	}
}

// editJSON rewrites the JSON object in path through edit.
func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	var m map[string]any
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("%s: %v", path, err)
	}
	edit(m)
	writeJSON(t, path, m)
}

// pauses reads the provider pauses from `orcr server status --json`, by provider.
func pauses(t *testing.T, h *home) map[string]map[string]any {
	t.Helper()
	ok, res, _ := h.jsonRun(t, "server.status", 0, "server", "status")
	if !ok {
		t.Fatal("server status failed")
	}
	out := map[string]map[string]any{}
	ps, _ := res["paused"].([]any)
	for _, p := range ps {
		m, _ := p.(map[string]any)
		out[fmt.Sprint(m["provider"])] = m
	}
	return out
}

// TestRealLimitFallbackLive: the model answers 429 (its limit=429 directive). The real
// codex ends the turn with its own usage-limit message ("… try again at <time>"), the
// real claude with its API error ("Request rejected (429) … rate limit"); each turn
// completes as the CLI ended it, and pauses the provider — codex until the reset its
// message names, claude (whose message names none) for timings.limit_backoff. The next
// codex agent is then rerouted by routing.fallback to the real claude, which answers
// it.
func TestRealLimitFallbackLive(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting, turn windows): see main_test.go
	heavy(t)
	model := startModel(t)
	h, _, work := realHome(t, `{"timings": {"max_starting": "90s", "limit_backoff": "1h"}, "routing": {"fallback": {"codex": "claude"}}}`, model)
	const limited = "limit=429 reset=900 say=never"
	runAgent(t, h, "-a", provider.Codex, "--path", "lf/cx", "--cwd", work, "-p", limited)
	waitTurn(t, h, "lf/cx")
	var first time.Time
	for _, r := range model.Requests() {
		if r.Prompt == limited && r.API == modeltest.OpenAI {
			first = r.At
			break
		}
	}
	// codex follows its limit message with a dialog offering a cheaper model, "Switch"
	// selected: a send types nothing into it (docs/providers.md §5.2).
	ok, _, e := h.jsonRun(t, "agent.send", 2, "agent", "send", "lf/cx", "say=not-typed")
	if ok || e["code"] != "environment_error" || errDetail(e, "cause") != wire.CauseProviderSetupRequired {
		t.Errorf("agent send to codex at its model offer: %v, want environment_error %s", e, wire.CauseProviderSetupRequired)
	}
	cx := pauses(t, h)[provider.Codex]
	reset := first.Add(900 * time.Second).UnixMilli()
	if until, _ := cx["until"].(float64); cx == nil || cx["source"] != "reset" || int64(until) < reset-60_000 || int64(until) > reset+60_000 {
		logModel(t, model)
		t.Fatalf("codex's pause %v, want until its message's reset (about %d, read to the minute)", cx, reset)
	}

	uid, _ := runAgent(t, h, "-a", provider.Codex, "--path", "lf/next", "--cwd", work, "-p", "say=fallback-done")
	waitTurn(t, h, "lf/next")
	rows := h.lsRows(t, "lf/next")
	if len(rows) != 1 || rows[0].UUID != uid || rows[0].Agent == nil || *rows[0].Agent != provider.Claude ||
		rows[0].RoutedFrom == nil || *rows[0].RoutedFrom != provider.Codex {
		t.Errorf("the queued codex agent: %+v, want rerouted to claude", rows)
	}
	if got := lastResponse(t, h, "lf/next"); got != "fallback-done\n" {
		t.Errorf("the rerouted agent's last response %q", got)
	}
	wantPromptOnce(t, h, model, modeltest.Anthropic, "say=fallback-done")

	// claude's own message names no reset: the backoff.
	if r := h.run("agent", "send", "lf/next", limited); r.exit != 0 {
		t.Fatalf("agent send: %+v", r)
	}
	waitTurn(t, h, "lf/next")
	if cl := pauses(t, h)[provider.Claude]; cl == nil || cl["source"] != "backoff" {
		t.Errorf("claude's pause %v, want the backoff", cl)
	}
}

// wantTurnUsage checks the usage of agent name's second turn, scripted tokens=11,22,33,44,5
// (docs/usage.md §2): the tokens by kind in the turn's row to the token (claude's
// Messages usage reports no reasoning, codex's Responses usage no cache writes), the
// model the transcript named, the cost at the built-in price of that model (none for a
// model without one), and `orcr usage --by agent --json` counting them.
func wantTurnUsage(t *testing.T, h *home, p, name string) {
	t.Helper()
	want := [5]int64{11, 22, 33, 44, 0}
	if p == provider.Codex {
		want[3], want[4] = 0, 5
	}
	got, model, cost := turnUsage(t, h, name, 2)
	if got != want {
		t.Errorf("%s: the second turn's usage (input, output, cache read, cache write, reasoning) %v, want %v", p, got, want)
	}
	if model == "" {
		t.Errorf("%s: the second turn names no model", p)
	}
	price, priced := config.Default().PriceFor(model)
	switch wantCost := price.CostMicros(want[0], want[1], want[2], want[3]); {
	case priced && (!cost.Valid || cost.Int64 != wantCost):
		t.Errorf("%s: model %s costs %v, want %d micro-dollars", p, model, cost, wantCost)
	case !priced && cost.Valid:
		t.Errorf("%s: model %s has no price, yet costs %d", p, model, cost.Int64)
	}
	r := h.run("usage", "--by", "agent", "--path", name, "--json")
	var env struct {
		Result api.UsageResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); r.exit != 0 || err != nil || len(env.Result.Rows) != 1 {
		t.Fatalf("%s: orcr usage: %+v (%v)", p, r, err)
	}
	row := env.Result.Rows[0]
	if row.Path != name || row.Turns != 2 || row.InputTokens < want[0] || row.CacheReadTokens != want[2] ||
		row.CacheWriteTokens != want[3] || row.ReasoningTokens != want[4] || (row.UnpricedTurns == 0) == !priced {
		t.Errorf("%s: orcr usage row %+v; want two turns holding the second's tokens (priced: %v)", p, row, priced)
	}
}

// turnUsage reads the usage recorded for turn seq of agent path from the store (read
// only, beside the running server): the tokens by kind (-1 for none), the model and the
// cost.
func turnUsage(t *testing.T, h *home, path string, seq int64) ([5]int64, string, sql.NullInt64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.dir, "orcr.db")+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var u [5]sql.NullInt64
	var model sql.NullString
	var cost sql.NullInt64
	err = db.QueryRow(`SELECT t.input_tokens, t.output_tokens, t.cache_read_tokens, t.cache_write_tokens, t.reasoning_tokens,
		t.model, t.cost_micros FROM turns t JOIN agents a ON a.uuid = t.agent_uuid WHERE a.path = ? AND t.input_seq = ?`, path, seq).
		Scan(&u[0], &u[1], &u[2], &u[3], &u[4], &model, &cost)
	if err != nil {
		t.Fatalf("the turn %d of %s: %v", seq, path, err)
	}
	var out [5]int64
	for i, v := range u {
		out[i] = v.Int64
		if !v.Valid {
			out[i] = -1
		}
	}
	return out, model.String, cost
}

// tailStream opens the remote stream of agent name and subscribes from its next entry:
// the stream and that entry's seq.
func tailStream(t *testing.T, ctx context.Context, h *home, name string) (*remote.Conn, int64) {
	t.Helper()
	uid := h.lsRows(t, name)[0].UUID
	tok := strings.TrimSpace(h.run("agent", "token", name).stdout)
	c, err := (&remote.Dialer{}).Dial(ctx, remoteBase(t, h), uid, tok)
	if err != nil {
		t.Fatal(err)
	}
	next := c.Hello().LastSeq + 1
	c.Subscribe(ctx, next)
	return c, next
}

// transcriptTails logs the last entries of provider p's transcripts under the home's
// HOME (claude's projects, codex's sessions), each cut to 400 bytes: what the provider
// had written when a test of its turns failed.
func transcriptTails(t *testing.T, h *home, p string) {
	home := ""
	for _, kv := range h.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	var pattern string
	switch p {
	case "claude":
		pattern = filepath.Join(home, ".claude", "projects", "*", "*.jsonl")
	case "codex":
		pattern = filepath.Join(home, ".codex", "sessions", "*", "*", "*", "*.jsonl")
	default:
		return
	}
	files, _ := filepath.Glob(pattern)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		lines = lines[max(0, len(lines)-8):]
		for i, l := range lines {
			if len(l) > 400 {
				lines[i] = l[:400] + "…"
			}
		}
		t.Logf("%s: the last entries of %s:\n%s", p, f, strings.Join(lines, "\n"))
	}
}
