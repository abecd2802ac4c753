package tests

// Resuming pi and gemini (docs/providers.md §12, docs/lifecycle.md §11.8): the real
// CLIs, started by hand in a pane of a user's herdr session, complete a turn against
// the model stand-in; `agent adopt` shuts that pane down and starts the CLI again in
// orcr's session on the same conversation, with the pointer orcr learned from the
// located transcript (pi's session file, gemini's sessionId). Skipped without the CLIs,
// a failure under CI=1 (providertest.Require).

import (
	"context"
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

// TestRealAgentsResumeLive: for pi and gemini each, in parallel within one orcr server:
// the CLI started by hand in a user session is discovered, a turn sent to it completes;
// `agent adopt` closes its pane and resumes its conversation in a managed pane (the
// result names the pointer: pi's session file under its cwd's session directory,
// gemini's session id); a second turn completes, and the model's request for it
// carries the first turn's prompt — the CLI resumed that conversation. The
// managed row then holds the same pointer, learned at the turn's completion.
func TestRealAgentsResumeLive(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting, turn windows): see main_test.go
	heavy(t)
	model := startModel(t)
	var agents []contractAgent
	for _, a := range contractAgents {
		if a.name == provider.Pi || a.name == provider.Gemini {
			agents = append(agents, a)
		}
	}
	// The adopted pane starts with the provider's default route: pi's model is the
	// stand-in's; gemini's own default model goes to GOOGLE_GEMINI_BASE_URL anyway.
	h, work := agentsHome(t, `{"timings": {"max_starting": "120s"}, "defaults": {"providers": {
		"pi": {"model": "standin/claude-sonnet-4-5", "effort": "medium"}}}}`, model)
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 150 * time.Second}
	user := userSession(t, h, h.envValue("XDG_CONFIG_HOME"), "work")
	var wg sync.WaitGroup
	for _, a := range agents {
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
	ctx, p, name := context.Background(), a.name, "rs/"+a.name
	modelFlag := map[string]string{provider.Pi: "--model", provider.Gemini: "-m"}[p]
	pane := userCLI(t, user, "hand-"+p, []string{p, modelFlag, a.model}, cwd)
	from := "unmanaged/work/" + strings.ReplaceAll(pane, ":", "_")
	defer func() {
		if t.Failed() {
			for _, target := range []string{from, name} {
				r := h.run("agent", "logs", "--screen", target)
				t.Logf("%s: the pane of %s at the failure (exit %d):\n%s%s", p, target, r.exit, r.stdout, r.stderr)
			}
			logModel(t, model)
		}
	}()
	poll.Eventually(t, 120*time.Second, p+" discovered idle in the user's session", func() bool {
		return unmanagedRows(t, c)[from].Status == api.StatusIdle
	})
	// A send to an unmanaged agent is typed unconfirmed (docs/lifecycle.md §11.1), as a
	// person types: once the CLI's input box shows and the screen has held still for a
	// second (gemini drew its banner after herdr already reported it idle).
	prov, err := provider.Lookup(p, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := provider.Spec(prov)
	prev, since := "", time.Now()
	poll.Eventually(t, 120*time.Second, p+"'s input box in the user's pane", func() bool {
		r, err := user.Read(ctx, pane, "", 0)
		if err != nil || r.Text != prev {
			prev, since = r.Text, time.Now()
			return false
		}
		return provider.ClassifyScreen(spec, r.Text) == provider.ScreenReady && time.Since(since) >= time.Second
	})
	first := "say=" + p + "-before-resume"
	if _, err := c.Send(ctx, api.SendRequest{Target: from, Prompt: first}); err != nil {
		t.Fatal(err)
	}
	// That send presses Enter once, unconfirmed: gemini once kept the prompt in its input
	// box (the Enter lost under load). A person presses Enter again; so does the test,
	// once the screen has held still for 3 s with the prompt still unsent.
	prev, since = "", time.Now()
	poll.Eventually(t, 120*time.Second, "the model gets "+first, func() bool {
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
	// The turn is over when its answer is in the transcript orcr locates for the agent.
	poll.Eventually(t, 120*time.Second, p+"'s hand-started turn answered in its transcript", func() bool {
		l, err := c.Logs(ctx, api.LogsRequest{Target: from, LastResponse: true})
		return err == nil && l.Response != nil && strings.TrimSpace(l.Response.Text) == p+"-before-resume"
	})
	if w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{from}, Timeout: "120s"}); err != nil || !w.AllOK {
		t.Fatalf("wait for the hand-started turn: %+v %v", w, err)
	}
	wantPromptOnce(t, model, a.api, first)

	res, err := c.Adopt(ctx, api.AdoptRequest{Target: from, Path: name})
	if err != nil {
		t.Fatalf("adopt: %v", err)
	}
	switch p {
	case provider.Pi: // the session file of the cwd (docs/providers.md §12.1)
		if !strings.HasPrefix(res.Resume, filepath.Join(h.envValue("HOME"), ".pi", "agent", "sessions")+"/") || !strings.HasSuffix(res.Resume, ".jsonl") {
			t.Errorf("pi resumes %q, want its session file", res.Resume)
		}
	case provider.Gemini: // the header's sessionId (docs/providers.md §12.2)
		if res.Resume == "" || strings.ContainsAny(res.Resume, "/.") {
			t.Errorf("gemini resumes %q, want a session id", res.Resume)
		}
	}
	if _, err := user.PaneGet(ctx, pane); err == nil {
		t.Errorf("%s: the user's pane is still open after the adoption", p)
	}
	poll.Eventually(t, 150*time.Second, p+" resumed idle in orcr's session", func() bool {
		rows := h.lsRows(t, name)
		return len(rows) == 1 && rows[0].Status == string(api.StatusIdle)
	})

	second := "say=" + p + "-after-resume"
	agentTurn(t, h, model, a, name, second, second, p+"-after-resume")
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
	poll.Eventually(t, 30*time.Second, p+"'s processes gone after the kill", func() bool { return len(agentProcs(uid)) == 0 })
}
