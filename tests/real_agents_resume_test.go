package tests

// Resuming pi, gemini, qwen and opencode (docs/providers.md §12, docs/lifecycle.md
// §11.8): the real CLIs, started by hand in a pane of a user's herdr session, complete a
// turn against the model stand-in; `agent adopt` shuts that pane down and starts the CLI
// again in orcr's session on the same conversation, with the pointer orcr learned from
// the located transcript (pi's session file, gemini's sessionId) or that herdr's
// integration reported (qwen's and opencode's session ids). Skipped without the CLIs, a
// failure under CI=1 (providertest.Require).

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/provider/modeltest"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/tests/poll"
)

// userCLI starts argv in cwd in a new workspace of a user session, as a person starts
// an agent CLI by hand, and returns its pane id.
func userCLI(t *testing.T, r *herdr.Remote, label string, argv []string, cwd string) string {
	t.Helper()
	ctx := context.Background()
	ws, err := r.WorkspaceCreate(ctx, label, "")
	if err != nil {
		t.Fatal(err)
	}
	_, pane, err := r.LayoutApply(ctx, ws.Workspace.WorkspaceID, label, argv, cwd, label, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pane
}

// TestRealAgentsResumeLive: for pi, gemini, qwen and opencode each, in parallel within
// one orcr server: the CLI started by hand in a user session is discovered, a turn sent
// to it completes; `agent adopt` closes its pane and resumes its conversation in a
// managed pane (the result names the pointer: pi's session file under its cwd's session
// directory, gemini's and qwen's session id, opencode's `ses_` id); a second turn
// completes, and the model's request for it carries the first turn's prompt — the CLI
// resumed that conversation. The managed row then holds the same pointer, learned at
// the turn's completion (pi, gemini) or reported again by the resumed CLI (qwen,
// opencode).
func TestRealAgentsResumeLive(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting, turn windows): see main_test.go
	heavy(t)
	model := startModel(t)
	// The adopted pane starts with the provider's default route: pi's model is the
	// stand-in's; gemini's own default model goes to GOOGLE_GEMINI_BASE_URL anyway, qwen's
	// is OPENAI_MODEL and opencode's the one its opencode.json names.
	h, work := agentsHome(t, `{"timings": {"max_starting": "120s"}, "defaults": {"providers": {
		"pi": {"model": "standin/claude-sonnet-4-5", "effort": "medium"}}}}`, model)
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 150 * time.Second}
	user := userSession(t, h, h.envValue("XDG_CONFIG_HOME"), "work")
	var wg sync.WaitGroup
	for _, a := range contractAgents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(a.name, func(t *testing.T) { resumeTurns(t, h, c, user, model, a, work[a.name]) })
		}()
	}
	wg.Wait()
}

// resumeTurns is one provider's part of TestRealAgentsResumeLive.
func resumeTurns(t *testing.T, h *home, c *socketapi.Client, user *herdr.Remote, model *modeltest.Server, a contractAgent, cwd string) {
	ctx, p, name, start := context.Background(), a.name, "rs/"+a.name, time.Now()
	phase := func(what string) {
		t.Logf("%s: %s %s after the start", p, what, time.Since(start).Round(time.Millisecond))
	}
	modelFlag := map[string]string{provider.Pi: "--model", provider.Gemini: "-m", provider.Qwen: "-m", provider.Opencode: "-m"}[p]
	pane := userCLI(t, user, "hand-"+p, []string{p, modelFlag, a.model}, cwd)
	from := "unmanaged/work/" + strings.ReplaceAll(pane, ":", "_")
	defer func() {
		if t.Failed() {
			for _, target := range []string{from, name} {
				r := h.run("agent", "logs", "--screen", target)
				t.Logf("%s: the pane of %s at the failure (exit %d):\n%s%s", p, target, r.exit, r.stdout, r.stderr)
				r = h.run("agent", "logs", "--last-response", target)
				t.Logf("%s: the last response of %s (exit %d): %s%s", p, target, r.exit, r.stdout, r.stderr)
			}
			logModel(t, model)
			// Whether a prompt the model got twice was typed twice (it is then in the
			// request's body twice) or sent again by the CLI (once).
			for _, r := range model.Turns(a.api) {
				if strings.HasPrefix(r.Prompt, "say="+p+"-") {
					t.Logf("%s: a request for %q holds it %d times", p, r.Prompt, strings.Count(string(r.Body), r.Prompt))
				}
			}
		}
	}()
	poll.Eventually(t, 120*time.Second, p+" discovered idle in the user's session", func() bool {
		return unmanagedRows(t, c)[from].Status == api.StatusIdle
	})
	phase("discovered idle")
	// A send to an unmanaged agent is typed unconfirmed (docs/lifecycle.md §11.1), as a
	// person types: once the CLI's input box shows and the screen has held still for a
	// second (gemini drew its banner after herdr already reported it idle).
	prov, err := provider.Lookup(p, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := provider.Spec(prov)
	prev, since := "", time.Now()
	// opencode's TUI drew its input box 20–50 s after the start on the loaded machine
	// (docs/providers.md §10.1), and took its first prompt up to a minute after that.
	poll.Eventually(t, 240*time.Second, p+"'s input box in the user's pane", func() bool {
		r, err := user.Read(ctx, pane, "", 0)
		if err != nil || r.Text != prev {
			prev, since = r.Text, time.Now()
			return false
		}
		return provider.ClassifyScreen(spec, r.Text) == provider.ScreenReady && time.Since(since) >= time.Second
	})
	first := "say=" + p + "-before-resume"
	phase("input box shown; the hand-started prompt sent")
	if _, err := c.Send(ctx, api.SendRequest{Target: from, Prompt: first}); err != nil {
		t.Fatal(err)
	}
	// That send presses Enter once, unconfirmed: gemini once kept the prompt in its input
	// box (the Enter lost under load), opencode up to three more times while it was still
	// loading. A person presses Enter again; so does the test, once the screen has held
	// still for 3 s with the prompt still unsent (on opencode's screen the prompt also
	// shows once sent, and an Enter in its empty input box does nothing).
	prev, since = "", time.Now()
	poll.Eventually(t, 240*time.Second, "the model gets "+first, func() bool {
		for _, r := range model.Turns(a.api) {
			if r.Prompt == first {
				return true
			}
		}
		r, err := user.Read(ctx, pane, "", 0)
		if err != nil || r.Text != prev {
			prev, since = r.Text, time.Now()
			return false
		}
		if strings.Contains(r.Text, first) && time.Since(since) >= 3*time.Second {
			t.Logf("%s: the prompt is still in the input box; Enter again", p)
			if err := user.SendKeys(ctx, pane, "Enter"); err != nil {
				t.Fatal(err)
			}
			since = time.Now()
		}
		return false
	})
	phase("the model got the hand-started prompt")
	// The turn is over when its answer is in the transcript orcr locates for the agent.
	poll.Eventually(t, 120*time.Second, p+"'s hand-started turn answered in its transcript", func() bool {
		l, err := c.Logs(ctx, api.LogsRequest{Target: from, LastResponse: true})
		return err == nil && l.Response != nil && strings.TrimSpace(l.Response.Text) == p+"-before-resume"
	})
	if w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{from}, Timeout: "120s"}); err != nil || !w.AllOK {
		t.Fatalf("wait for the hand-started turn: %+v %v", w, err)
	}
	wantPromptOnce(t, h, model, a.api, first)
	phase("hand-started turn complete")

	res, err := c.Adopt(ctx, api.AdoptRequest{Target: from, Path: name})
	if err != nil {
		t.Fatalf("adopt: %v", err)
	}
	switch p {
	case provider.Pi: // the session file of the cwd (docs/providers.md §12.1)
		if !strings.HasPrefix(res.Resume, filepath.Join(h.envValue("HOME"), ".pi", "agent", "sessions")+"/") || !strings.HasSuffix(res.Resume, ".jsonl") {
			t.Errorf("pi resumes %q, want its session file", res.Resume)
		}
	case provider.Gemini, provider.Qwen: // the header's sessionId (docs/providers.md §12.2); herdr's (§12.3)
		if res.Resume == "" || strings.ContainsAny(res.Resume, "/.") {
			t.Errorf("%s resumes %q, want a session id", p, res.Resume)
		}
	case provider.Opencode: // herdr's, from opencode's plugin (docs/providers.md §12.4)
		if !strings.HasPrefix(res.Resume, "ses_") {
			t.Errorf("opencode resumes %q, want its ses_ session id", res.Resume)
		}
	}
	// opencode's export was kept in the unmanaged row's data dir; the adopted row has its
	// own under the new path, so nothing is left under the old one (docs/providers.md §12.4).
	if _, err := os.Stat(filepath.Join(h.dir, "data", from, res.Agent.UUID)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: the data dir of %s is left after the adoption: %v", p, from, err)
	}
	if _, err := user.PaneGet(ctx, pane); err == nil {
		t.Errorf("%s: the user's pane is still open after the adoption", p)
	}
	poll.Eventually(t, 150*time.Second, p+" resumed idle in orcr's session", func() bool {
		rows := h.lsRows(t, name)
		return len(rows) == 1 && rows[0].Status == string(api.StatusIdle)
	})
	phase("resumed idle")

	second := "say=" + p + "-after-resume"
	agentTurn(t, h, model, a, name, second, second, p+"-after-resume")
	phase("resumed turn complete")
	var req *modeltest.Request
	for _, r := range model.Turns(a.api) {
		if r.Prompt == second {
			req = &r
		}
	}
	if req == nil {
		t.Fatalf("%s: no request of the model carries %q", p, second)
	}
	if body := string(req.Body); !strings.Contains(body, first) {
		t.Errorf("%s: the request of the resumed turn lacks the earlier prompt %q:\n%s", p, first, body)
	}
	uid := h.lsRows(t, name)[0].UUID
	if kind, value := storedSession(t, h, uid); value != res.Resume {
		t.Errorf("%s: the resumed row records %s %q, want the pointer it resumed, %q", p, kind, value, res.Resume)
	}
	if r := h.run("agent", "kill", "-y", name); r.exit != 0 {
		t.Fatalf("agent kill %s: exit %d stderr %q", name, r.exit, r.stderr)
	}
	poll.Eventually(t, 30*time.Second, p+"'s processes gone after the kill", func() bool { return len(agentProcs(uid)) == 0 },
		func() string { return procsLeft(uid) })
}
