package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// A provider declared by config only (docs/providers.md §11): the orcr-mock-agent
// binary described under providers.tinyagent — no transcript, its status from its own
// reports to herdr, /quit to end it — runs a real turn through the orcr binary and the
// herdr stand-in, with no herdr integration installed (session none needs none).
// `agent logs --last-response` reads the answer from the screen, under the prompt's
// echo, and says so (docs/providers.md §11.3).
func TestDeclaredProviderRunsATurnByConfigOnly(t *testing.T) {
	t.Parallel()
	b := sockettest.BuildBinaries(t)
	decl := map[string]any{
		"providers": map[string]any{"tinyagent": map[string]any{
			"command":       b.MockAgent,
			"bypass_args":   []string{"--skip-permissions"},
			"models":        []string{"m1", "m2"},
			"default_model": "m1",
			"env":           map[string]string{"ORCR_MOCK_NO_TRANSCRIPT": "1", "ORCR_MOCK_BANNER": "tiny agent ready"},
			"screens":       map[string]any{"ready": []string{"tiny agent ready"}},
			"transcript":    map[string]any{"format": "none"},
			"shutdown":      map[string]any{"line": "/quit", "grace": "400ms"},
		}, "gone": map[string]any{"command": "/nonexistent/agent-cli", "session": "herdr"},
			// No ready screen declared: its answer cannot be told from the screen.
			"blind": map[string]any{"command": b.MockAgent, "bypass_args": []string{"--skip-permissions"},
				"env": map[string]string{"ORCR_MOCK_NO_TRANSCRIPT": "1"}, "transcript": map[string]any{"format": "none"}}},
		"integrations": map[string]any{"tinyagent": map[string]any{
			"submit_ready_ms": 0, "submit_confirm_ms": 0, "submit_enter_delay_ms": 0,
			"fast_turn_grace_ms": 1500, "idle_stable_ms": 1200}},
	}
	decl["integrations"].(map[string]any)["blind"] = decl["integrations"].(map[string]any)["tinyagent"]
	cfg, _ := json.Marshal(decl)
	h, _ := herdrHome(t, string(cfg))

	_, _, errObj := h.jsonRun(t, "agent.run", 1, "agent", "run", "-a", "tinyagent", "--model", "m9", "--path", "decl/bad", "-p", "say=x")
	if d, _ := errObj["details"].(map[string]any); d["reason"] != "invalid_model" {
		t.Fatalf("unlisted model: %v, want invalid_model", errObj)
	}
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "tinyagent", "--path", "decl/one", "-p", "say=hello_from_a_declared_provider")
	if w := h.run("agent", "wait", "decl/one"); w.exit != 0 || w.stdout != "decl/one  turn_complete\n" {
		t.Fatalf("agent wait: exit %d stdout %q stderr %q", w.exit, w.stdout, w.stderr)
	}
	rows := h.lsRows(t, "decl/one")
	if len(rows) != 1 || rows[0].Agent == nil || *rows[0].Agent != "tinyagent" {
		t.Fatalf("rows: %+v", rows)
	}
	_, res, _ := h.jsonRun(t, "agent.logs", 0, "agent", "logs", "decl/one", "--last-response")
	if resp, _ := res["response"].(map[string]any); resp["text"] != "hello_from_a_declared_provider\nDONE" || resp["from_screen"] != true {
		t.Errorf("--last-response: %v, want the answer read from the screen", res)
	}
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "blind", "--path", "decl/blind", "-p", "say=unseen")
	if w := h.run("agent", "wait", "decl/blind"); w.exit != 0 {
		t.Fatalf("agent wait blind: exit %d stdout %q stderr %q", w.exit, w.stdout, w.stderr)
	}
	_, _, errObj = h.jsonRun(t, "agent.logs", 1, "agent", "logs", "decl/blind", "--last-response")
	if d, _ := errObj["details"].(map[string]any); errObj["code"] != "transcript_unavailable" || d["cause"] != "no_transcript" ||
		!strings.Contains(errObj["message"].(string), "cannot be told from its screen") {
		t.Errorf("--last-response without a ready screen: %v, want transcript_unavailable no_transcript", errObj)
	}
	if r := h.run("agent", "kill", "-y", "decl/one", "decl/blind"); r.exit != 0 {
		t.Fatalf("kill: %d %s", r.exit, r.stderr)
	}
	if r := h.run("agent", "ls", "--all", "decl/one"); !strings.Contains(r.stdout, "decl/one") {
		t.Errorf("ls after kill: %q", r.stdout)
	}

	// provider ls: the declared ones next to the built-ins, each with the support rule's
	// answer (gone needs herdr's integration, which the stand-in has not installed).
	_, res, _ = h.jsonRun(t, "provider.ls", 0, "provider", "ls")
	kinds := map[string]string{}
	for _, row := range res["providers"].([]any) {
		p := row.(map[string]any)
		kinds[p["name"].(string)] = p["kind"].(string) + "/" + map[bool]string{true: "supported", false: "unsupported"}[p["supported"].(bool)]
	}
	if kinds["tinyagent"] != "declared/supported" || kinds["gone"] != "declared/unsupported" || kinds["claude"] != "builtin/unsupported" {
		t.Errorf("provider ls: %v", kinds)
	}
	// The contract built-ins (docs/providers.md §12) are listed as built-ins; gemini,
	// without a herdr integration to need, is supported as it is.
	for _, name := range []string{"opencode", "pi", "qwen"} {
		if !strings.HasPrefix(kinds[name], "builtin/") {
			t.Errorf("provider ls: %s is %q, want a built-in", name, kinds[name])
		}
	}
	if kinds["gemini"] != "builtin/supported" {
		t.Errorf("provider ls: gemini is %q, want builtin/supported", kinds["gemini"])
	}
	// provider check: a live turn through the normal start path, its answer read from
	// the screen, nothing failed; a command that does not exist fails statically.
	_, res, _ = h.jsonRun(t, "provider.check", 0, "provider", "check", "tinyagent")
	states := checkStates(res)
	for part, want := range map[string]string{"command": "ok", "help": "ok", "flags": "ok", "herdr": "ok", "turn": "ok", "answer": "ok", "end": "ok"} {
		if states[part] != want {
			t.Errorf("provider check tinyagent: %s is %q, want %q (%v)", part, states[part], want, res["parts"])
		}
	}
	if res["ok"] != true {
		t.Errorf("provider check tinyagent: ok %v", res["ok"])
	}
	_, res, _ = h.jsonRun(t, "provider.check", 0, "provider", "check", "gone", "--static")
	if states := checkStates(res); res["ok"] != false || states["command"] != "failed" || states["herdr"] != "failed" || states["turn"] != "" {
		t.Errorf("provider check gone --static: %v", res)
	}
}

// checkStates maps a provider.check result's parts to their states.
func checkStates(res map[string]any) map[string]string {
	m := map[string]string{}
	for _, p := range res["parts"].([]any) {
		part := p.(map[string]any)
		m[part["part"].(string)] = part["state"].(string)
	}
	return m
}

// A provider declared with `status: screen` (docs/providers.md §11.4) and no transcript:
// the mock agent never reports to herdr (ORCR_MOCK_NO_REPORT), and the stand-in, like
// herdr, detects no agent in a program it does not know, so herdr's agent rows say
// nothing of it. Its turn still completes, by the status its screen shows (`[working]`,
// then `[idle]` on its status line) — with a fast-turn grace far longer than the test,
// only a working seen on screen can complete it; each turn works 3 s, many screen polls
// (400 ms) even on a loaded machine — and `--last-response --json` answers
// from the screen, marked from_screen, as the human output says.
func TestDeclaredProviderStatusFromScreen(t *testing.T) {
	t.Parallel()
	b := sockettest.BuildBinaries(t)
	decl := map[string]any{
		"providers": map[string]any{"screenagent": map[string]any{
			"command":     b.MockAgent,
			"bypass_args": []string{"--skip-permissions"},
			"env":         map[string]string{"ORCR_MOCK_NO_TRANSCRIPT": "1", "ORCR_MOCK_NO_REPORT": "1"},
			"status":      "screen",
			"screens":     map[string]any{"ready": []string{`\[idle\]`}, "working": []string{`\[working\]`}},
			"transcript":  map[string]any{"format": "none"},
			"shutdown":    map[string]any{"line": "/quit", "grace": "400ms"},
		}},
		"integrations": map[string]any{"screenagent": map[string]any{
			"submit_ready_ms": 0, "submit_confirm_ms": 0, "submit_enter_delay_ms": 0,
			"fast_turn_grace_ms": 600000, "idle_stable_ms": 800}},
	}
	cfg, _ := json.Marshal(decl)
	h, _ := herdrHome(t, string(cfg))

	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "screenagent", "--path", "scr/one", "-p", "turn_ms=3000 say=seen_on_screen")
	if w := h.run("agent", "wait", "--timeout", "60s", "scr/one"); w.exit != 0 || w.stdout != "scr/one  turn_complete\n" {
		t.Fatalf("agent wait: exit %d stdout %q stderr %q", w.exit, w.stdout, w.stderr)
	}
	_, res, _ := h.jsonRun(t, "agent.logs", 0, "agent", "logs", "scr/one", "--last-response")
	if resp, _ := res["response"].(map[string]any); resp["text"] != "seen_on_screen\nDONE" || resp["from_screen"] != true || resp["final"] != true {
		t.Errorf("--last-response: %v, want the answer read from the screen", res)
	}
	r := h.run("agent", "logs", "scr/one", "--last-response")
	if r.exit != 0 || r.stdout != "seen_on_screen\nDONE\n" || !strings.Contains(r.stderr, "read from its screen") {
		t.Errorf("--last-response for humans: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	// A second turn: the answer is the one under the last prompt's echo.
	h.jsonRun(t, "agent.send", 0, "agent", "send", "scr/one", "turn_ms=3000 say=second_answer")
	if w := h.run("agent", "wait", "--timeout", "60s", "scr/one"); w.exit != 0 {
		t.Fatalf("agent wait after send: exit %d stdout %q stderr %q", w.exit, w.stdout, w.stderr)
	}
	_, res, _ = h.jsonRun(t, "agent.logs", 0, "agent", "logs", "scr/one", "--last-response")
	if resp, _ := res["response"].(map[string]any); resp["text"] != "second_answer\nDONE" || resp["from_screen"] != true {
		t.Errorf("--last-response after the second turn: %v", res)
	}
	if r := h.run("agent", "kill", "-y", "scr/one"); r.exit != 0 {
		t.Fatalf("kill: %d %s", r.exit, r.stderr)
	}
}
