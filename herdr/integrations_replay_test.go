package herdr

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/tests/poll"
)

// integrationsRecord is what a real herdr answered with its own claude and codex
// integrations installed and the real CLIs in its panes (the end-to-end
// TestHerdrIntegrationsLive records it as testdata/live/<version>/integrations.json).
type integrationsRecord struct {
	Version           string            `json:"version"`
	Install           map[string]string `json:"install"`
	IntegrationStatus string            `json:"integration_status"`
	AgentList         json.RawMessage   `json:"agent_list"`
}

var installedLine = regexp.MustCompile(`(?m)^([a-z-]+): current \(v(\d+)\) \((.+)\)$`)

// TestStandinReplaysIntegrations replays each recorded herdr's integrations against
// the stand-in playing its protocol: with the hook files herdr installed in place (by
// their version markers), `integration status` prints what herdr printed; and a pane
// running a process named claude or codex, showing the title the real CLI set, whose
// session is reported as herdr's own hook reports it, is an agent row of the recorded
// shape: the same keys and value types, agent_session from herdr:<agent> with the
// recorded kind, and the same terminal_title_stripped.
func TestStandinReplaysIntegrations(t *testing.T) {
	t.Parallel()
	recs := loadLiveRecords(t)
	bin := buildStandin(t)
	for name, pass := range recs {
		b, err := os.ReadFile(filepath.Join(liveFixtureDir, name, "integrations.json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var want integrationsRecord
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := privateHerdrEnv(t, fmt.Sprint("HERDR_STANDIN_PROTOCOL=", pass.Protocol))
			replayStatus(t, e, bin, want.IntegrationStatus)
			replayAgentRows(t, pass.Protocol, want.AgentList)
		})
	}
}

// replayStatus writes each hook the recorded status calls current, with its version
// marker, into a private home and compares the stand-in's status with the record.
func replayStatus(t *testing.T, e herdrEnv, bin, want string) {
	t.Helper()
	xdg, home := e.xdg, e.home
	paths := strings.NewReplacer("<C>", filepath.Join(xdg, "herdr"), "<XDG>", xdg, "<HOME>", home)
	installed := installedLine.FindAllStringSubmatch(want, -1)
	if len(installed) == 0 {
		t.Fatalf("the recorded status has no installed integration:\n%s", want)
	}
	for _, m := range installed {
		p := paths.Replace(m[3])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		hook := fmt.Sprintf("#!/bin/sh\n# HERDR_INTEGRATION_ID=%s\n# HERDR_INTEGRATION_VERSION=%s\n", m[1], m[2])
		if err := os.WriteFile(p, []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out, err := e.cli(bin).run(context.Background(), "integration", "status")
	if err != nil {
		t.Fatal(err)
	}
	back := strings.NewReplacer(filepath.Join(xdg, "herdr"), "<C>", xdg, "<XDG>", home, "<HOME>")
	if got := back.Replace(string(out)); got != want {
		t.Errorf("integration status: the stand-in printed\n%s\nherdr printed\n%s", got, want)
	}
}

// recordedAgent is the part of a recorded agent row the replay starts from.
type recordedAgent struct {
	Agent         string        `json:"agent"`
	TerminalTitle string        `json:"terminal_title"`
	Stripped      string        `json:"terminal_title_stripped"`
	AgentSession  *AgentSession `json:"agent_session"`
}

// replayAgentRows starts a stand-in session playing protocol, runs a stand-in of each
// recorded agent in a pane of its own and compares the stand-in's agent.list rows with
// the recorded ones.
func replayAgentRows(t *testing.T, protocol int, recorded json.RawMessage) {
	t.Helper()
	var rec struct {
		Agents []json.RawMessage `json:"agents"`
	}
	if err := json.Unmarshal(recorded, &rec); err != nil {
		t.Fatal(err)
	}
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh", Protocol: protocol}, "orcr")
	d := fixtureDriver(t, f, "orcr")
	s := d.Owned()
	ctx := context.Background()
	work, dir := shortDir(t), shortDir(t)
	sock := f.Sessions["orcr"].SocketPath()
	c := &Client{Socket: sock}
	want := map[string]json.RawMessage{}
	wantRow := map[string]recordedAgent{}
	for _, raw := range rec.Agents {
		var a recordedAgent
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		if a.AgentSession == nil {
			t.Fatalf("recorded row without agent_session: %s", raw)
		}
		want[a.Agent], wantRow[a.Agent] = raw, a
		// A process named like the CLI that sets the title the CLI set and waits
		// (herdr 0.7.2 reports no terminal title: the CLIs' usual one then).
		title := a.TerminalTitle
		if title == "" {
			title = map[string]string{"claude": "✳ Claude Code", "codex": "codex | work"}[a.Agent]
		}
		prog := filepath.Join(dir, a.Agent)
		script := fmt.Sprintf("#!/bin/sh\nprintf '\\033]0;%%s\\007' %q\nread -r _\n", title)
		if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		pl, err := s.Spawn(ctx, SpawnSpec{Workspace: "w", Label: "w/" + a.Agent, Argv: []string{prog}, Cwd: work})
		if err != nil {
			t.Fatalf("Spawn %s: %v", a.Agent, err)
		}
		// herdr's hook reports the session from SessionStart: claude's with the
		// transcript's path as well, herdr keeps the id.
		params := map[string]any{"pane_id": pl.PaneID, "source": a.AgentSession.Source, "agent": a.Agent,
			"seq": time.Now().UnixNano(), "agent_session_id": a.AgentSession.Value, "session_start_source": "startup"}
		if a.Agent == "claude" {
			params["agent_session_path"] = filepath.Join(work, a.AgentSession.Value+".jsonl")
		}
		poll.Eventually(t, 10*time.Second, a.Agent+" detected in its pane", func() bool {
			p, err := s.PaneGet(ctx, pl.PaneID)
			return err == nil && p.Agent == a.Agent
		})
		if _, err := c.Call(ctx, "pane.report_agent_session", params, "ok"); err != nil {
			t.Fatalf("pane.report_agent_session: %v", err)
		}
	}
	var got map[string]json.RawMessage
	poll.Eventually(t, 10*time.Second, "every agent idle (or done) with its session", func() bool {
		raw, err := c.Call(ctx, "agent.list", map[string]any{}, "agent_list")
		if err != nil {
			return false
		}
		var l struct {
			Agents []json.RawMessage `json:"agents"`
		}
		json.Unmarshal([]byte(strings.ReplaceAll(string(raw), work, "<WORK>")), &l)
		got = map[string]json.RawMessage{}
		for _, r := range l.Agents {
			var a struct {
				Agent        string        `json:"agent"`
				Status       string        `json:"agent_status"`
				AgentSession *AgentSession `json:"agent_session"`
			}
			json.Unmarshal(r, &a)
			if a.Status != "idle" && a.Status != "done" || a.AgentSession == nil {
				return false
			}
			got[a.Agent] = r
		}
		return len(got) == len(want)
	})
	for agent, w := range want {
		g := got[agent]
		var ga recordedAgent
		json.Unmarshal(g, &ga)
		if *ga.AgentSession != *wantRow[agent].AgentSession {
			t.Errorf("%s: agent_session %+v, herdr %+v", agent, *ga.AgentSession, *wantRow[agent].AgentSession)
		}
		if ga.Stripped != wantRow[agent].Stripped {
			t.Errorf("%s: terminal_title_stripped %q, herdr %q (title %q)", agent, ga.Stripped, wantRow[agent].Stripped, ga.TerminalTitle)
		}
		if sw, sg := rowShape(t, w), rowShape(t, g); sw != sg {
			t.Errorf("%s: the stand-in's row\n%s\nherdr's\n%s\nshapes\n%s\n%s", agent, compact(g), compact(w), sg, sw)
		}
	}
}

// rowShape is [shape] of an agent row with which pane has the focus left out (it
// follows the order the panes were made in).
func rowShape(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	v["focused"] = false
	b, _ := json.Marshal(shape(v, ""))
	return string(b)
}
