package herdrtest

import (
	"encoding/json"
	"os"
	"testing"
)

// agentsRecord is what a real herdr reported for panes running pi, qwen, opencode and
// gemini (herdr/testdata/live/<version>/agents.json, measured by hand: docs/herdr.md
// §12): per run, the CLI's foreground processes and, at each phase of a turn, the pane's
// agent, status, session pointer and title, and the screen herdr's rules saw.
type agentsRecord struct {
	Version string `json:"version"`
	Runs    []struct {
		CLI         string `json:"cli"`
		Integration string `json:"integration"`
		Processes   []struct {
			Comm       string   `json:"comm"`
			Argv       []string `json:"argv"`
			Foreground bool     `json:"foreground"`
		} `json:"processes"`
		Phases []struct {
			Phase        string            `json:"phase"`
			Agent        string            `json:"agent"`
			Status       string            `json:"agent_status"`
			AgentSession *AgentSessionInfo `json:"agent_session"`
			Title        string            `json:"terminal_title"`
			Screen       string            `json:"screen"`
		} `json:"phases"`
	} `json:"runs"`
}

// TestStandinReplaysAgents holds the stand-in's detection of pi, qwen, opencode and
// gemini against every recorded herdr: the foreground processes the CLI ran name the
// agent herdr named, and at each recorded phase the screen rules, given the screen and
// title herdr saw, give the status herdr reported (done is an idle nobody looked at
// yet, docs/herdr.md §13.4).
func TestStandinReplaysAgents(t *testing.T) {
	dirs, err := os.ReadDir("../testdata/live")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range dirs {
		b, err := os.ReadFile("../testdata/live/" + d.Name() + "/agents.json")
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var rec agentsRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		for _, run := range rec.Runs {
			name := d.Name() + "/" + run.CLI
			if run.Integration != "" {
				name += "/integration"
			}
			t.Run(name, func(t *testing.T) {
				if len(run.Phases) == 0 {
					t.Fatal("a run without phases")
				}
				want := run.Phases[0].Agent
				var job []procInfo
				for i, p := range run.Processes {
					if p.Foreground {
						job = append(job, procInfo{pid: 100 + i, pgrp: 100, comm: p.Comm, argv: p.Argv})
					}
				}
				if len(job) > 0 {
					if got := identifyJob(100, job); got != want {
						t.Errorf("processes %+v: the stand-in detects %q, herdr %q", run.Processes, got, want)
					}
				}
				for _, ph := range run.Phases {
					seen++
					if got, w := replaySession(want, ph.AgentSession), ph.AgentSession; w != nil && (got == nil || *got != *w) {
						t.Errorf("%s: the stand-in keeps agent_session %+v of the same report, herdr %+v", ph.Phase, got, w)
					}
					if ph.Agent != want {
						t.Errorf("%s: herdr's agent %q, at ready %q", ph.Phase, ph.Agent, want)
					}
					status := ph.Status
					if status == StatusDone {
						status = StatusIdle
					}
					s := Screen{Text: detectionText(ph.Screen), Title: ph.Title}
					if got := DetectAgentScreen(want, s); got.State != status {
						t.Errorf("%s: the stand-in reads %s (rule %q), herdr %s; title %q, screen:\n%s",
							ph.Phase, got.State, got.Rule, ph.Status, ph.Title, ph.Screen)
					}
				}
			})
		}
	}
	if seen == 0 {
		t.Fatal("no recorded agent phases under testdata/live")
	}
}

// replaySession is what the stand-in keeps of the report an integration sent for the
// agent_session herdr showed (an id, or pi's path): nil without one.
func replaySession(agent string, shown *AgentSessionInfo) *AgentSessionInfo {
	if shown == nil {
		return nil
	}
	var id, path *string
	if shown.Kind == "path" {
		path = &shown.Value
	} else {
		id = &shown.Value
	}
	p := &pane{}
	(&Session{}).recordSessionLocked(p, shown.Source, agent, id, path)
	return p.session
}
