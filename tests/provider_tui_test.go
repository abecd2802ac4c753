package tests

// The real claude and codex TUIs in herdr stand-in panes (docs/providers.md §10): what
// `orcr agent run -a claude|codex` starts with the installed CLIs, without any login.
// The CLIs are found like the provider fidelity tests find them
// (providertest.Require): skipped without them, a failure under CI=1.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/provider/providertest"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// providerHome is a herdr stand-in home whose server finds the installed CLI name
// first on its PATH, with herdr's integration for claude and codex reported installed (the
// stand-in reads the marker files herdr's installer writes) and every CLI's state in
// throwaway directories.
func providerHome(t testing.TB, configJSON, name string) (h *home, sock string, codexHome string) {
	t.Helper()
	cli := providertest.Require(t, name)
	h, sock = herdrHome(t, configJSON)
	state := t.TempDir()
	claudeDir := filepath.Join(state, ".claude")
	codexHome = filepath.Join(state, ".codex")
	for path, version := range map[string]int{
		filepath.Join(claudeDir, "hooks", "herdr-agent-state.sh"): 11,
		filepath.Join(codexHome, "herdr-agent-state.sh"):          9,
	} {
		mustMkdir(t, filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(fmt.Sprintf("# HERDR_INTEGRATION_VERSION=%d\n", version)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Dir(cli.Path) + string(os.PathListSeparator) + os.Getenv("PATH")
	h.env = append(h.env, "PATH="+path, "HOME="+state, "CLAUDE_CONFIG_DIR="+claudeDir, "CODEX_HOME="+codexHome)
	return h, sock, codexHome
}

// agentProcs returns the pids of the processes whose environment holds ORCR_ID=uid:
// the agent's pane process and everything it started.
func agentProcs(uid string) []int { return sockettest.ProcsWithEnv("ORCR_ID=" + uid) }

// procsLeft says which of the agent uid's processes are still alive — pid, process
// group, session and command line — for a test that waited for none.
func procsLeft(uid string) string {
	var b strings.Builder
	for _, pid := range agentProcs(uid) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		pgid, _ := syscall.Getpgid(pid)
		sid, _, _ := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
		fmt.Fprintf(&b, "pid %d pgid %d sid %d: %s\n", pid, pgid, sid, strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " "))
	}
	return "processes left: \n" + b.String()
}

func cmdline(pid int) []string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// procWith returns the first of pids whose argv ends with want's flags (want[1:]; the
// npm wrapper runs as `node <path> <flags…>`, the native binary as `<path> <flags…>`).
func procWith(pids []int, want []string) (int, bool) {
	for _, pid := range pids {
		got := cmdline(pid)
		if len(got) >= len(want) && slices.Equal(got[len(got)-len(want)+1:], want[1:]) &&
			filepath.Base(got[len(got)-len(want)]) == want[0] {
			return pid, true
		}
	}
	return 0, false
}

// paneScreen reads the visible screen of the agent's pane, "" while it has none.
func paneScreen(t *testing.T, h *home, sock, name string) string {
	t.Helper()
	rows := h.lsRows(t, name)
	if len(rows) != 1 || rows[0].PaneID == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	read, err := herdr.NewRemote(sock).Read(ctx, *rows[0].PaneID, "visible", 0)
	if err != nil {
		return ""
	}
	return read.Text
}

// killAndCheck kills the agent through orcr (its shutdown recipe: for claude and codex
// the pane is closed at once, docs/providers.md §3.5, §4.5) and checks that the row
// ends killed and that no process of the agent is left.
func killAndCheck(t *testing.T, h *home, name, uid string) {
	t.Helper()
	start := time.Now()
	if ok, res, e := h.jsonRun(t, "agent.kill", 0, "agent", "kill", name); !ok || res["all_killed"] != true {
		t.Fatalf("agent kill %s: %v %v", name, res, e)
	}
	killed := time.Since(start)
	poll.Eventually(t, 30*time.Second, "the agent's processes to be gone after agent kill", func() bool {
		return len(agentProcs(uid)) == 0
	})
	t.Logf("agent kill %s answered after %s; no process left after %s", name,
		killed.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	rows := h.lsRows(t, "--all", name)
	if len(rows) != 1 || rows[0].Status != "ended" || rows[0].ExitReason == nil || *rows[0].ExitReason != "killed" {
		t.Errorf("after agent kill: %+v, want ended killed", rows)
	}
}

// runAgent is `orcr agent run --json` that must be accepted; it returns the uuid and
// the working directory the row records.
func runAgent(t testing.TB, h *home, args ...string) (uid, cwd string) {
	t.Helper()
	ok, res, e := h.jsonRun(t, "agent.run", 0, append([]string{"agent", "run"}, args...)...)
	if !ok {
		t.Fatalf("agent run %q: %v", args, e)
	}
	agent := res["agent"].(map[string]any)
	cwd, _ = agent["cwd"].(string)
	return agent["uuid"].(string), cwd
}

// TestCodexTUIInStandinPaneLive: `orcr agent run -a codex` with a model and effort the
// real catalogue lists passes routing (through the server's own catalogue fetch) and
// starts the real codex TUI in a stand-in pane with orcr's argv, environment and
// working directory; without a login its first screen is codex's sign-in, which orcr
// recognises: the row ends failed within max_starting with no process left. An
// unlisted model is refused with valid_models from the real catalogue.
func TestCodexTUIInStandinPaneLive(t *testing.T) {
	const maxStarting = 30 * time.Second
	h, sock, codexHome := providerHome(t, `{"timings": {"max_starting": "30s"}}`, provider.Codex)
	// The catalogue as the server's codex sees it (same binary, same CODEX_HOME).
	t.Setenv("CODEX_HOME", codexHome)
	bin := providertest.Require(t, provider.Codex).Path
	out, err := provider.RunAppServer(context.Background(), []string{bin, "app-server", "--stdio"}, provider.CodexRequests("test"))
	if err != nil {
		t.Fatal(err)
	}
	models, err := provider.ParseCodexModelList(out)
	if err != nil {
		t.Fatal(err)
	}

	ok, _, e := h.jsonRun(t, "agent.run", 1, "agent", "run", "-a", "codex", "--model", "orcr-no-such-model", "--effort", "high", "--name", "bad", "-p", "hi")
	if ok || e["code"] != "invalid_request" || errDetail(e, "reason") != "invalid_model" {
		t.Fatalf("an unlisted model: %v", e)
	}
	var valid []string
	for _, v := range errDetail(e, "valid_models").([]any) {
		valid = append(valid, v.(string))
	}
	if !slices.Equal(valid, models.Names()) {
		t.Errorf("valid_models %q, want the real catalogue's %q", valid, models.Names())
	}

	m := models[len(models)-1]
	effort := m.Efforts[len(m.Efforts)-1]
	start := time.Now()
	uid, cwd := runAgent(t, h, "-a", "codex", "--model", m.Model, "--effort", effort, "--name", "cx", "-p", "hello")
	t.Logf("agent run -a codex --model %s --effort %s accepted in %s", m.Model, effort, time.Since(start).Round(time.Millisecond))
	p, _ := provider.Lookup(provider.Codex, provider.Options{})
	argv, _ := p.LaunchArgv(provider.Route{Provider: provider.Codex, Model: m.Model, Effort: effort})

	var screen string
	poll.Eventually(t, 30*time.Second, "codex's sign-in screen in its pane", func() bool {
		screen = paneScreen(t, h, sock, "cx")
		return strings.Contains(strings.ToLower(screen), "sign")
	})
	t.Logf("first screen after %s:\n%s", time.Since(start).Round(time.Millisecond), screen)
	checkPaneProcess(t, uid, "cx", cwd, argv)
	// orcr recognises codex's sign-in screen before it types the prompt
	// (docs/providers.md §5.2): the row ends failed within max_starting, the reason in
	// the server log, and nothing is left running.
	wantEndedFailed(t, h, "cx", uid, start, maxStarting, "codex is at its login screen")
}

// wantEndedFailed waits until within after start for the agent's row to end, which
// must be as failed, then for its processes to be gone, and checks the server log's
// `agent failed` line for it holds logWant.
func wantEndedFailed(t *testing.T, h *home, name, uid string, start time.Time, within time.Duration, logWant string) {
	t.Helper()
	var rows []cliRow
	poll.Eventually(t, time.Until(start.Add(within)), "the row of "+name+" to end within "+within.String()+" of its run", func() bool {
		rows = h.lsRows(t, "--all", name)
		return len(rows) == 1 && rows[0].Status == "ended"
	}, func() string {
		// What the row and the pane showed, and what the agent's log says: a start that
		// did not fail as expected (once: ap/nudge still not ended after 150 s).
		r := h.run("agent", "logs", "--screen", name)
		l := h.run("agent", "logs", "--tail", "30", name)
		return fmt.Sprintf("row %+v; the screen (exit %d):\n%s%s\nthe log (exit %d):\n%s%s", rows, r.exit, r.stdout, r.stderr, l.exit, l.stdout, l.stderr)
	})
	if rows[0].ExitReason == nil || *rows[0].ExitReason != "failed" || rows[0].EndedAt == nil {
		t.Fatalf("the row ended, but not failed: %+v", rows[0])
	}
	// The row's own end time: the test may look only later.
	took := time.UnixMilli(*rows[0].EndedAt).Sub(start)
	if took > within {
		t.Errorf("the row of %s ended %s after its run, more than %s", name, took.Round(time.Millisecond), within)
	}
	t.Logf("the row of %s ended failed %s after the run", name, took.Round(time.Millisecond))
	poll.Eventually(t, 20*time.Second, "no process of the agent", func() bool { return len(agentProcs(uid)) == 0 })
	wantFailedInLog(t, h, uid, logWant)
}

// wantFailedInLog checks that the server log has an `agent failed` line for uid whose
// error contains want.
func wantFailedInLog(t *testing.T, h *home, uid, want string) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(h.dir, "logs", "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, `"msg":"agent failed"`) && strings.Contains(line, uid) && strings.Contains(line, want) {
			t.Logf("server log: %s", line)
			return
		}
	}
	t.Errorf("no `agent failed` line for %s with %q in the server log:\n%s", uid, want, log)
}

// checkPaneProcess checks that a process of the agent runs argv in cwd with orcr's
// pane environment.
func checkPaneProcess(t *testing.T, uid, path, cwd string, argv []string) {
	t.Helper()
	pids := agentProcs(uid)
	pid, ok := procWith(pids, argv)
	if !ok {
		var got [][]string
		for _, p := range pids {
			got = append(got, cmdline(p))
		}
		t.Fatalf("no process of the agent runs %q: %q", argv, got)
	}
	if got, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); got != cwd {
		t.Errorf("the TUI runs in %s, want the row's cwd %s", got, cwd)
	}
	env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	for _, kv := range []string{"ORCR_PATH=" + path, "ORCR_ID=" + uid} {
		if !bytes.Contains(env, []byte("\x00"+kv+"\x00")) && !bytes.HasPrefix(env, []byte(kv+"\x00")) {
			t.Errorf("the TUI's environment lacks %s", kv)
		}
	}
}

// TestClaudeTUIInStandinPaneLive: `orcr agent run -a claude` with the real claude
// (docs/providers.md §3.2, §5.2, §10). As root without IS_SANDBOX, or with a value
// claude does not take (yes), the run is refused up front (claude would refuse orcr's --dangerously-skip-permissions and exit). With
// IS_SANDBOX=1 in the server's environment (or not as root) three agents start the
// real TUI in stand-in panes with orcr's argv, environment and working directory:
//   - in a directory claude was told to trust, with an API key it was told to use
//     (claude's state seeded as if a user had answered both questions once): its input
//     box shows, orcr's prompt reaches it (the turn opens and the transcript orcr
//     locates under CLAUDE_CONFIG_DIR holds it), and orcr's kill leaves no process;
//   - in a directory not trusted: claude asks whether to trust it, orcr types nothing
//     and the row ends failed within max_starting;
//   - with an API key claude was not told about: claude asks whether to use it, which
//     orcr treats as its login screen.
//
// Offline, claude cannot reach its API: the delivered prompt's turn stays open (claude
// retries), which is all this test needs.
func TestClaudeTUIInStandinPaneLive(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	heavy(t)
	const maxStarting = 60 * time.Second
	h, sock := claudeHome(t, `{"timings": {"max_starting": "60s"}}`)
	if os.Geteuid() == 0 {
		ok, _, e := h.jsonRun(t, "agent.run", 2, "agent", "run", "-a", "claude", "--name", "root", "-p", "hello")
		if ok || e["code"] != "environment_error" || errDetail(e, "cause") != wire.CauseProviderRefusesRoot {
			t.Fatalf("agent run -a claude as root without IS_SANDBOX: %v, want environment_error %s", e, wire.CauseProviderRefusesRoot)
		}
		if rows := h.lsRows(t, "--all"); len(rows) != 0 {
			t.Fatalf("a refused run left rows: %+v", rows)
		}
		// IS_SANDBOX=yes: claude refuses the bypass with it as without it (issue 33 #2).
		stopServer(t, h)
		h.env = append(h.env, provider.ClaudeSandboxEnv+"=yes")
		ok, _, e = h.jsonRun(t, "agent.run", 2, "agent", "run", "-a", "claude", "--name", "root", "-p", "hello")
		if ok || errDetail(e, "cause") != wire.CauseProviderRefusesRoot || errDetail(e, "value") != "yes" ||
			!strings.Contains(fmt.Sprint(e["message"]), "IS_SANDBOX=1") {
			t.Fatalf("agent run -a claude as root with IS_SANDBOX=yes: %v, want environment_error %s naming the value", e, wire.CauseProviderRefusesRoot)
		}
		if rows := h.lsRows(t, "--all"); len(rows) != 0 {
			t.Fatalf("a refused run left rows: %+v", rows)
		}
		stopServer(t, h) // the next run starts a server with IS_SANDBOX=1
	}
	claudeSandbox(h)
	trusted, work := trustClaude(t, h)
	untrusted := t.TempDir()

	start := time.Now()
	uid, cwd := runAgent(t, h, "-a", "claude", "--name", "cl", "--cwd", work, "-p", "hello from orcr")
	untrustedID, _ := runAgent(t, h, "-a", "claude", "--name", "untrusted", "--cwd", untrusted, "-p", "hello")
	claudeTookPrompt(t, h, sock, "cl", uid, cwd, provider.Route{Provider: provider.Claude, Model: "sonnet", Effort: "medium"}, "hello from orcr", start)
	wantEndedFailed(t, h, "untrusted", untrustedID, start, maxStarting, "claude asks whether to trust the agent's working directory "+untrusted)
	killAndCheck(t, h, "cl", uid)

	// An API key claude was not told to use: its question is orcr's login screen.
	stopServer(t, h)
	seedClaude(t, h.envValue("CLAUDE_CONFIG_DIR"), trusted, "")
	start = time.Now()
	keyID, _ := runAgent(t, h, "-a", "claude", "--name", "key", "--cwd", work, "-p", "hello")
	wantEndedFailed(t, h, "key", keyID, start, maxStarting, "claude is at its login screen (`do you want to use this api key` on screen)")
}

// claudeKey is the made-up ANTHROPIC_API_KEY of the tests with the real claude.
const claudeKey = "sk-ant-orcr-test-key"

// claudeHome is providerHome for the real claude, with [claudeKey] and no autoupdater
// in the server's environment, and without the machine's own IS_SANDBOX (if any): a
// test that runs claude as root says so with [claudeSandbox].
func claudeHome(t testing.TB, configJSON string) (h *home, sock string) {
	t.Helper()
	h, sock, _ = providerHome(t, configJSON, provider.Claude)
	h.env = append(h.env, "ANTHROPIC_API_KEY="+claudeKey, "DISABLE_AUTOUPDATER=1", provider.ClaudeSandboxEnv+"=")
	return h, sock
}

// claudeSandbox puts IS_SANDBOX=1 into the environment of h's next server when the test
// runs as root (as CI does), so that claude accepts orcr's permission bypass; the server
// passes it on to the panes. Not as root it changes nothing.
func claudeSandbox(h *home) {
	if os.Geteuid() == 0 {
		h.env = append(h.env, provider.ClaudeSandboxEnv+"=1")
	}
}

// trustClaude seeds claude's state in h's CLAUDE_CONFIG_DIR as a user who trusted a
// new directory and told claude to use [claudeKey] would have it, and installs claude's
// SessionStart and UserPromptSubmit hooks: herdr's claude integration reports each
// claude pane's session id from them, and the stand-in has none, so the mock binary's
// claude-session-hook does it (docs/providers.md §8). It returns the trusted directory
// and an agent's working directory below it.
func trustClaude(t testing.TB, h *home) (trusted, work string) {
	t.Helper()
	claudeDir, mockBin := h.envValue("CLAUDE_CONFIG_DIR"), h.envValue("ORCR_MOCK_AGENT_BIN")
	trusted, work = trustedWork(t, h)
	hook := []map[string]any{{"hooks": []map[string]any{{"type": "command", "command": mockBin + " claude-session-hook"}}}}
	writeJSON(t, filepath.Join(claudeDir, "settings.json"), map[string]any{
		"hooks": map[string]any{"SessionStart": hook, "UserPromptSubmit": hook}})
	return trusted, work
}

// trustedWork seeds claude's state in h's CLAUDE_CONFIG_DIR as a user who trusted a new
// directory and told claude to use [claudeKey] would have it, without hooks: the
// trusted directory and an agent's working directory below it.
func trustedWork(t testing.TB, h *home) (trusted, work string) {
	t.Helper()
	trusted = t.TempDir()
	work = filepath.Join(trusted, "work")
	mustMkdir(t, work, 0o700)
	seedClaude(t, h.envValue("CLAUDE_CONFIG_DIR"), trusted, claudeKey)
	return trusted, work
}

// claudeTookPrompt checks that the agent name (uuid uid, started at start in cwd) runs
// the real claude with orcr's argv for route, cwd and pane environment, that claude's
// input box shows and that prompt reaches it: claude's own transcript, which orcr
// locates from herdr's session pointer, has it as the user's line in `orcr agent logs`,
// and the row is working (or idle).
func claudeTookPrompt(t *testing.T, h *home, sock, name, uid, cwd string, route provider.Route, prompt string, start time.Time) {
	t.Helper()
	p, _ := provider.Lookup(provider.Claude, provider.Options{})
	argv, err := p.LaunchArgv(route)
	if err != nil {
		t.Fatalf("claude's launch argv for %+v: %v", route, err)
	}
	// orcr's claude panes carry its status line (docs/providers.md §3.2).
	argv = provider.WithClaudeStatusLine(argv, bins.orcr)
	var screen string
	poll.Eventually(t, 60*time.Second, "claude's input box in its pane", func() bool {
		screen = paneScreen(t, h, sock, name)
		return strings.Contains(screen, "bypass permissions on")
	})
	t.Logf("first screen after %s:\n%s", time.Since(start).Round(time.Millisecond), screen)
	checkPaneProcess(t, uid, name, cwd, argv)
	poll.Eventually(t, 90*time.Second, "the prompt in claude's transcript as orcr reads it", func() bool {
		r := h.run("agent", "logs", name, "--json")
		return r.exit == 0 && strings.Contains(r.stdout, prompt)
	})
	t.Logf("the prompt in claude's transcript %s after the run", time.Since(start).Round(time.Millisecond))
	// Offline the turn stays open (claude retries); where claude reaches its API the
	// made-up key's refusal may end the turn: idle then.
	rows := h.lsRows(t, name)
	if len(rows) != 1 || rows[0].Status != "working" && rows[0].Status != "idle" {
		t.Errorf("after the prompt: %+v, want working (or idle)", rows)
	}
}

// seedClaude writes claude's state as a user who finished its onboarding, trusted dir
// and (unless key is "") told it to use key would have it (claude 2.1.328's
// .claude.json in CLAUDE_CONFIG_DIR).
func seedClaude(t testing.TB, claudeDir, dir, key string) {
	t.Helper()
	approved := []string{}
	if key != "" {
		approved = append(approved, key)
	}
	state := map[string]any{
		"hasCompletedOnboarding":        true,
		"bypassPermissionsModeAccepted": true,
		"customApiKeyResponses":         map[string]any{"approved": approved, "rejected": []string{}},
		"projects":                      map[string]any{dir: map[string]any{"hasTrustDialogAccepted": true}},
	}
	writeJSON(t, filepath.Join(claudeDir, ".claude.json"), state)
}

// writeJSON writes v as JSON to path, creating its directory.
func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// envValue is the last value h.env gives key ("" when none).
func (h *home) envValue(key string) string {
	v := ""
	for _, kv := range h.env {
		if val, ok := strings.CutPrefix(kv, key+"="); ok {
			v = val
		}
	}
	return v
}

// TestLoginScreenEndsStartFailed: the login-screen rule (docs/providers.md §5.2) with the
// mock, so it runs without any provider CLI: a mock whose screen shows the phrase
// $ORCR_MOCK_LOGIN_SCREEN names is not typed into; its row ends failed within
// max_starting with the reason in the server log, and its pane is closed. A send to
// such an agent started without a prompt is refused the same way.
func TestLoginScreenEndsStartFailed(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"timings": {"max_starting": "30s"}, "integrations": {"mock": {"submit_ready_ms": 5000}}}`)
	h.env = append(h.env, "ORCR_MOCK_BANNER=Please Log In to the mock", "ORCR_MOCK_LOGIN_SCREEN=log in to the mock")
	start := time.Now()
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "lg", "-p", "say=hi")
	wantEndedFailed(t, h, "lg", uid, start, 30*time.Second, "mock is at its login screen (`log in to the mock` on screen)")
	// The prompt was never typed: the mock's transcript has no user line.
	if b, err := os.ReadFile(filepath.Join(h.dir, "data", "lg", uid, provider.MockTranscriptFile)); err == nil && bytes.Contains(b, []byte("say=hi")) {
		t.Errorf("the prompt reached the mock at its login screen:\n%s", b)
	}

	// An agent started without a prompt is not checked; a send to it is refused with
	// the same cause and the row keeps the status it had.
	idleID, _ := runAgent(t, h, "-a", "mock", "--name", "lg2")
	poll.Eventually(t, 30*time.Second, "lg2 to be idle", func() bool {
		rows := h.lsRows(t, "lg2")
		return len(rows) == 1 && rows[0].Status == "idle"
	})
	ok, _, e := h.jsonRun(t, "agent.send", 2, "agent", "send", "lg2", "say=later")
	if ok || e["code"] != "environment_error" || errDetail(e, "cause") != wire.CauseProviderLoginRequired {
		t.Fatalf("agent send to a mock at its login screen: %v, want environment_error %s", e, wire.CauseProviderLoginRequired)
	}
	if rows := h.lsRows(t, "lg2"); len(rows) != 1 || rows[0].Status != "idle" {
		t.Errorf("after the refused send: %+v, want idle", rows)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, "data", "lg2", idleID, provider.MockTranscriptFile)); err == nil && bytes.Contains(b, []byte("say=later")) {
		t.Errorf("the send reached the mock at its login screen:\n%s", b)
	}
}

// TestLateLoginScreenEndsStartFailed: a TUI that draws its input box and asks its
// question a moment later (claude's auto-mode question on a loaded machine,
// docs/providers.md §5.2) is not typed into either: the screen is read again for the
// provider's gate_settle_ms after the readiness wait, and the start fails as at a
// question shown first. Without the settle the prompt was typed before the question.
func TestLateLoginScreenEndsStartFailed(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"timings": {"max_starting": "30s"}, "integrations": {"mock": {"submit_ready_ms": 5000, "gate_settle_ms": 4000}}}`)
	h.env = append(h.env, "ORCR_MOCK_LATE_BANNER=Please Log In to the mock", "ORCR_MOCK_LATE_BANNER_MS=1500",
		"ORCR_MOCK_LOGIN_SCREEN=log in to the mock")
	start := time.Now()
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "late", "-p", "say=hi")
	wantEndedFailed(t, h, "late", uid, start, 30*time.Second, "mock is at its login screen (`log in to the mock` on screen)")
	if b, err := os.ReadFile(filepath.Join(h.dir, "data", "late", uid, provider.MockTranscriptFile)); err == nil && bytes.Contains(b, []byte("say=hi")) {
		t.Errorf("the prompt reached the mock before its late login screen:\n%s", b)
	}
}

// stopServer stops h's server, so that the next CLI call starts one with h.env.
func stopServer(t *testing.T, h *home) {
	t.Helper()
	if r := h.run("server", "stop", "--json"); r.exit != 0 {
		t.Fatalf("server stop: %+v", r)
	}
}

// TestSlowFirstScreenTypedOnce: a TUI that takes the terminal but draws nothing for
// longer than submit_ready_ms (claude on a busy machine took 19 s) is not typed into
// until it shows its first screen, and a blank screen is never taken for a lost prompt
// (docs/lifecycle.md §9.2). Typed into early, the prompt waits in the terminal; typed
// again at every confirmation poll, all the copies reach the TUI in one read when it
// starts (claude glued them into one multi-line prompt; the mock takes each as a turn).
func TestSlowFirstScreenTypedOnce(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	h, _ := herdrHome(t, `{"integrations": {"mock": {"submit_ready_ms": 500, "submit_confirm_ms": 6000, "submit_attempts": 6}}}`)
	h.env = append(h.env, "ORCR_MOCK_START_DELAY_MS=3000")
	start := time.Now()
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "slow", "-p", "say=once")
	var rows []cliRow
	poll.Eventually(t, 30*time.Second, "the first turn to complete", func() bool {
		rows = h.lsRows(t, "slow")
		return len(rows) == 1 && rows[0].Status == "idle"
	})
	t.Logf("idle %s after the run", time.Since(start).Round(time.Millisecond))
	b, err := os.ReadFile(filepath.Join(h.dir, "data", "slow", uid, provider.MockTranscriptFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(`"type":"user"`)); n != 1 {
		t.Errorf("the mock got %d prompts, want 1:\n%s", n, b)
	}
}

// mockTurnDone waits until the mock agent name is idle and its transcript holds the
// answer "<word>\nDONE", and returns the transcript.
func mockTurnDone(t *testing.T, h *home, name, transcript, word string) []byte {
	t.Helper()
	var b []byte
	poll.Eventually(t, 30*time.Second, "the turn answering "+word+" to complete", func() bool {
		b, _ = os.ReadFile(transcript)
		rows := h.lsRows(t, name)
		return bytes.Contains(b, []byte(word+`\nDONE`)) && len(rows) == 1 && rows[0].Status == "idle"
	}, func() string { return string(b) })
	return b
}

// TestDroppedPromptTypedAgainDespiteTranscriptWrite: a TUI that drops a prompt but
// writes its transcript meanwhile (a resumed gemini writes its session file as it
// starts) has not taken it: only a transcript that holds the prompt counts, so the
// confirmation loop types it again and the turn runs (docs/lifecycle.md §9.2). Taken
// for delivered, the prompt was lost and the turn answered with the one before.
func TestDroppedPromptTypedAgainDespiteTranscriptWrite(t *testing.T) {
	t.Parallel() // mostly waits (turn windows): see main_test.go
	h, _ := herdrHome(t, `{"integrations": {"mock": {"submit_confirm_ms": 6000, "submit_attempts": 6}}}`)
	h.env = append(h.env, "ORCR_MOCK_NO_ECHO=1", "ORCR_MOCK_DROP_FIRST_SENDS=1", "ORCR_MOCK_DROP_TOUCHES=1")
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "deaf", "-p", "say=first no_working")
	transcript := filepath.Join(h.dir, "data", "deaf", uid, provider.MockTranscriptFile)
	b := mockTurnDone(t, h, "deaf", transcript, "first")
	if n := bytes.Count(b, []byte(`"type":"user"`)); n != 1 {
		t.Errorf("the mock got %d prompts, want 1:\n%s", n, b)
	}
}

// TestTakenPromptWrittenLaterTypedOnce: a TUI that takes a prompt without showing it
// and writes its transcript at once but the prompt's own line only later (qwen writes
// telemetry lines first) is given time: a transcript written moments ago that does not
// hold the prompt yet is no reason to type it again (docs/lifecycle.md §9.2). Typed
// again, the model got the prompt twice.
func TestTakenPromptWrittenLaterTypedOnce(t *testing.T) {
	t.Parallel() // mostly waits (turn windows): see main_test.go
	h, _ := herdrHome(t, `{"integrations": {"mock": {"submit_confirm_ms": 6000, "submit_attempts": 6}}}`)
	h.env = append(h.env, "ORCR_MOCK_NO_ECHO=1", "ORCR_MOCK_TAKE_TOUCHES=1")
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "slow", "-p", "say=first no_working turn_ms=1500")
	transcript := filepath.Join(h.dir, "data", "slow", uid, provider.MockTranscriptFile)
	mockTurnDone(t, h, "slow", transcript, "first")
	// A second copy would be queued behind the first turn: give it that turn's time.
	if r := h.run("agent", "send", "slow", "say=second no_working"); r.exit != 0 {
		t.Fatalf("agent send: exit %d: %s", r.exit, r.stderr)
	}
	b := mockTurnDone(t, h, "slow", transcript, "second")
	if n := bytes.Count(b, []byte(`"text":"say=first`)); n != 1 {
		t.Errorf("the mock got the first prompt %d times, want 1:\n%s", n, b)
	}
}

// TestEnterDroppedDespiteTranscriptWrite: a TUI that drops the Enter — the prompt left
// in its input box — while it writes its transcript on its own (a resumed gemini) has
// not taken the prompt: on screen and a transcript written since the Enter is not
// enough without the prompt in it, so the confirmation presses Enter again and the turn
// runs (docs/lifecycle.md §9.2). Taken for delivered, the prompt stayed in the box and
// the turn completed with the previous answer.
func TestEnterDroppedDespiteTranscriptWrite(t *testing.T) {
	t.Parallel() // mostly waits (turn windows): see main_test.go
	h, _ := herdrHome(t, `{"integrations": {"mock": {"submit_confirm_ms": 8000}}}`)
	h.env = append(h.env, "ORCR_MOCK_DROP_FIRST_ENTERS=1", "ORCR_MOCK_DROP_TOUCHES=1")
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "stuck", "-p", "say=first no_working")
	transcript := filepath.Join(h.dir, "data", "stuck", uid, provider.MockTranscriptFile)
	b := mockTurnDone(t, h, "stuck", transcript, "first")
	if n := bytes.Count(b, []byte(`"text":"say=first`)); n != 1 {
		t.Errorf("the mock got the prompt %d times, want 1:\n%s", n, b)
	}
}

// TestEnterWaitsUntilTheTextShows: a TUI busy when a prompt is typed (a resumed gemini
// loading its session beside other CLIs) processes the text and an Enter that arrived a
// second later back to back, and gemini reads an Enter that soon after a paste as a
// newline; the Enter then retyped gave the model the prompt twice. A confirmed delivery
// presses Enter only once the text shows on screen (docs/lifecycle.md §9.1), so the
// mock, busy 2.5 s and reading an Enter within 40 ms of text as a newline, never gets
// one. Without the wait the first Enter was a newline.
func TestEnterWaitsUntilTheTextShows(t *testing.T) {
	t.Parallel() // mostly waits (turn windows): see main_test.go
	h, _ := herdrHome(t, `{"integrations": {"mock": {"submit_ready_ms": 5000, "submit_confirm_ms": 8000, "submit_enter_delay_ms": 300}}}`)
	h.env = append(h.env, "ORCR_MOCK_BUSY_MS=2500", "ORCR_MOCK_FAST_RETURN_MS=40")
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "busy", "-p", "say=first no_working")
	dir := filepath.Join(h.dir, "data", "busy", uid)
	b := mockTurnDone(t, h, "busy", filepath.Join(dir, provider.MockTranscriptFile), "first")
	if n := bytes.Count(b, []byte(`"text":"say=first`)); n != 1 {
		t.Errorf("the mock got the prompt %d times, want 1:\n%s", n, b)
	}
	log, err := os.ReadFile(filepath.Join(dir, "mock.log"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(log, []byte("taken as a newline")) {
		t.Errorf("an Enter reached the busy mock right after the text and became a newline:\n%s", log)
	}
}

// TestBusyTUIGetsOneEnter: a TUI busy as the prompt arrives has drawn the text and then
// reads nothing for a while (ORCR_MOCK_TEXT_BUSY_MS), so the confirmation loop finds the
// text still in the input box. While nothing was drawn since its Enter, the TUI may not
// have read that Enter yet, and the loop presses no other: gemini reads two Enters in one
// burst and submits the prompt once for each (ORCR_MOCK_STALE_ENTER_MS;
// docs/lifecycle.md §9.2). Before the fix the mock got the prompt twice.
func TestBusyTUIGetsOneEnter(t *testing.T) {
	t.Parallel() // mostly waits (turn windows): see main_test.go
	// The Enter 300 ms after the text shows, the loop's first look 400 ms later: the
	// mock, busy 2.5 s from the text's draw, still shows it in the box. It reads the
	// Enter (and whatever came since) at least 0.8 s before the loop would press
	// another (3 s after its Enter).
	h, _ := herdrHome(t, `{"integrations": {"mock": {"submit_confirm_ms": 8000, "submit_enter_delay_ms": 300}}}`)
	h.env = append(h.env, "ORCR_MOCK_TEXT_BUSY_MS=2500", "ORCR_MOCK_STALE_ENTER_MS=300")
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "burst", "-p", "say=first no_working")
	dir := filepath.Join(h.dir, "data", "burst", uid)
	b := mockTurnDone(t, h, "burst", filepath.Join(dir, provider.MockTranscriptFile), "first")
	log, err := os.ReadFile(filepath.Join(dir, "mock.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(log, []byte("busy for 2500 ms after the text")) {
		t.Fatalf("the mock was never busy after the text, so this test shows nothing:\n%s", log)
	}
	if n := bytes.Count(b, []byte(`"type":"user"`)); n != 1 || bytes.Contains(log, []byte("again")) {
		t.Errorf("the mock got %d prompts, want 1 (a second Enter reached it in the same burst):\n%s\n%s", n, b, log)
	}
}

// TestTakenPromptNotShownTypedOnce: a TUI that takes a prompt without showing it (gemini
// redraws its whole screen as it does, and a poll can land in that gap) has written its
// transcript, so the confirmation loop takes the prompt as delivered and never types it
// again (docs/lifecycle.md §9.2). Typed again, gemini kept the copy and sent it glued to
// the next prompt; the mock takes it as a turn of its own.
func TestTakenPromptNotShownTypedOnce(t *testing.T) {
	t.Parallel() // mostly waits (turn windows): see main_test.go
	h, _ := herdrHome(t, `{"integrations": {"mock": {"submit_confirm_ms": 6000, "submit_attempts": 6}}}`)
	h.env = append(h.env, "ORCR_MOCK_NO_ECHO=1")
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "quiet", "-p", "say=first no_working")
	transcript := filepath.Join(h.dir, "data", "quiet", uid, provider.MockTranscriptFile)
	mockTurnDone(t, h, "quiet", transcript, "first")
	// Deliveries to one agent run one at a time: once the second prompt's turn is over,
	// a retyped first prompt would have been typed before it.
	if r := h.run("agent", "send", "quiet", "say=second no_working"); r.exit != 0 {
		t.Fatalf("agent send: exit %d: %s", r.exit, r.stderr)
	}
	b := mockTurnDone(t, h, "quiet", transcript, "second")
	if n := bytes.Count(b, []byte(`"type":"user"`)); n != 2 {
		t.Errorf("the mock got %d prompts, want 2 (a taken prompt was typed again):\n%s", n, b)
	}
}
