package herdrtest

import (
	"testing"
	"time"
)

func TestIdleHold(t *testing.T) {
	t0 := time.Unix(1000, 0)
	working := published{state: StatusWorking, visibleWorking: true}
	idle := published{state: StatusIdle}
	var h idleHold
	// Three more sightings, a holdTick apart, publish the idle.
	for i := 0; i < holdConfirms; i++ {
		if !h.holds(working, idle, t0.Add(time.Duration(i)*holdTick)) {
			t.Fatalf("sighting %d published", i)
		}
	}
	if h.holds(working, idle, t0.Add(holdConfirms*holdTick)) || h.active() {
		t.Fatal("the idle is still held after the confirmations")
	}
	// The cap publishes it even when the ticks came late.
	h = idleHold{}
	h.holds(working, idle, t0)
	if h.holds(working, idle, t0.Add(holdCap)) {
		t.Fatal("held past the cap")
	}
	// A visible idle (the input box), a blocker, or any other change is not held.
	for _, next := range []published{{state: StatusIdle, visibleIdle: true}, {state: StatusBlocked, visibleBlocker: true}} {
		if h.holds(working, next, t0) {
			t.Errorf("%+v held", next)
		}
	}
	if h.holds(published{state: StatusBlocked}, idle, t0) {
		t.Error("blocked → idle held")
	}
	// Working again ends a hold.
	h.holds(working, idle, t0)
	h.holds(working, working, t0.Add(holdTick))
	if h.active() {
		t.Error("a hold survived a working screen")
	}
}

func TestAgentWatchProbes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := &agentWatch{started: t0}
	if !w.dueProbe(0, false, t0) {
		t.Fatal("no first probe")
	}
	if got := w.observeProbe("", 7, true, t0); got != identitySame {
		t.Fatalf("no agent: %v", got)
	}
	if w.dueProbe(7, false, t0.Add(probeAcquiring/2)) || !w.dueProbe(7, false, t0.Add(probeAcquiring)) {
		t.Error("acquisition pace")
	}
	if !w.dueProbe(9, false, t0.Add(time.Millisecond)) {
		t.Error("a new foreground group is not probed")
	}
	late := t0.Add(AcquisitionSpan + time.Second)
	if w.dueProbe(7, false, late) || !w.dueProbe(7, true, late) {
		t.Error("after the acquisition span only a changed screen is probed")
	}

	// claude appears: state unknown, no screen rules through the grace.
	t1 := t0.Add(time.Second)
	if got := w.observeProbe("claude", 7, true, t1); got != identityNew || w.agent != "claude" || w.pub.state != StatusUnknown {
		t.Fatalf("claude: %v %+v", got, w)
	}
	idleBox := Detection{State: StatusIdle, VisibleIdle: true}
	if w.observeScreen(idleBox, t1.Add(startupGrace-time.Millisecond)) {
		t.Fatal("published in the grace")
	}
	if !w.observeScreen(idleBox, t1.Add(startupGrace)) || w.pub.state != StatusIdle {
		t.Fatalf("no idle after the grace: %+v", w.pub)
	}
	if w.observeScreen(idleBox, t1.Add(startupGrace+detectTick)) {
		t.Error("the same state published twice")
	}
	if w.observeScreen(Detection{State: StatusUnknown, Keep: true}, t1.Add(4*time.Second)) {
		t.Error("a viewer screen published")
	}
	if w.dueProbe(7, true, t1.Add(probeIdentified-time.Millisecond)) || !w.dueProbe(7, false, t1.Add(probeIdentified)) {
		t.Error("identified pace")
	}

	// A blocker is published again every blockerRefresh while it stays.
	t2 := t1.Add(10 * time.Second)
	ask := Detection{State: StatusBlocked, VisibleBlocker: true}
	if !w.observeScreen(ask, t2) || w.observeScreen(ask, t2.Add(blockerRefresh/2)) || !w.observeScreen(ask, t2.Add(blockerRefresh)) {
		t.Error("blocker refresh")
	}

	// Misses: the agent stays until missesToForget probes in a row did not see it,
	// while something else than the pane's own program is in front.
	for i := 1; i < missesToForget; i++ {
		if got := w.observeProbe("", 8, false, t2); got != identitySame {
			t.Fatalf("miss %d: %v", i, got)
		}
	}
	if got := w.observeProbe("claude", 7, true, t2); got != identitySame {
		t.Fatalf("seen again: %v", got)
	}
	// The agent exits and the pane's shell is in front: idle (visibly), then gone.
	if got := w.observeProbe("", 7, true, t2); got != identityExited || w.pub != (published{state: StatusIdle, visibleIdle: true}) {
		t.Fatalf("exit: %v %+v", got, w.pub)
	}
	if w.observeScreen(Detection{State: StatusWorking, VisibleWorking: true}, t2) {
		t.Error("screen rules after the exit")
	}
	if !w.dueProbe(7, false, t2) {
		t.Error("no probe after an exit")
	}
	if got := w.observeProbe("", 7, true, t2); got != identityGone || w.agent != "" {
		t.Fatalf("after the exit: %v %+v", got, w)
	}
	// Started again: a new agent, with a new grace.
	if got := w.observeProbe("claude", 7, true, t2); got != identityNew {
		t.Fatalf("restart: %v", got)
	}
}

func TestIdentifyJob(t *testing.T) {
	const codexJS = "/root/.cache/orcr-providers/node_modules/.bin/codex"
	cases := []struct {
		name  string
		pgid  int
		procs []procInfo
		want  string
	}{
		{"claude's native binary", 10, []procInfo{{pid: 10, comm: "claude.exe", argv: []string{"claude", "--dangerously-skip-permissions"}}}, "claude"},
		{"codex through node", 10, []procInfo{
			{pid: 10, comm: "node", argv: []string{"node", codexJS, "--yolo"}},
			{pid: 11, comm: "codex", argv: []string{"/x/vendor/codex/codex"}}}, "codex"},
		{"node with inline code naming codex", 10, []procInfo{{pid: 10, comm: "node", argv: []string{"node", "-e", "codex"}}}, ""},
		{"node with a required module", 10, []procInfo{{pid: 10, comm: "node", argv: []string{"node", "-r", "x", "/opt/claude.js"}}}, "claude"},
		{"python -m", 10, []procInfo{{pid: 10, comm: "python3.12", argv: []string{"python3.12", "-m", "codex"}}}, ""},
		{"shell running a script", 10, []procInfo{{pid: 10, comm: "bash", argv: []string{"bash", "/usr/local/bin/codex"}}}, "codex"},
		{"shell -c", 10, []procInfo{{pid: 10, comm: "sh", argv: []string{"sh", "-c", "codex"}}}, ""},
		{"agent below a shell leader", 10, []procInfo{
			{pid: 10, comm: "sh", argv: []string{"sh", "-c", "claude; exec cat"}},
			{pid: 12, comm: "claude", argv: []string{"claude"}}}, "claude"},
		{"renamed argv[0]", 10, []procInfo{{pid: 10, comm: "MainThread", argv: []string{"/usr/bin/codex"}}}, "codex"},
		{"hint of the leader", 10, []procInfo{{pid: 10, comm: "wrapper", hint: "claude-code"}}, "claude"},
		{"hint of a member wins over names", 10, []procInfo{
			{pid: 10, comm: "wrapper"}, {pid: 11, comm: "codex"}, {pid: 12, comm: "x", hint: "claude"}}, "claude"},
		{"an agent the stand-in has no rules for", 10, []procInfo{{pid: 10, comm: "kimi"}}, ""},
		{"gemini under node (herdr/testdata/live)", 10, []procInfo{{pid: 10, comm: "node", argv: []string{"node", "/x/.bin/gemini"}}}, "gemini"},
		{"pi by its process title", 10, []procInfo{{pid: 10, comm: "pi", argv: []string{"pi"}}}, "pi"},
		{"the mock", 10, []procInfo{{pid: 10, comm: "orcr-mock-agent", argv: []string{"/tmp/orcr-mock-agent"}}}, ""},
	}
	for _, c := range cases {
		if got := identifyJob(c.pgid, c.procs); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	for name, want := range map[string]string{"Claude.EXE": "claude", "claude-code": "claude", "codex.js": "codex", "codex.sh": "", "python3.x": ""} {
		if got := knownAgent(name); got != want {
			t.Errorf("knownAgent(%q) = %q, want %q", name, got, want)
		}
	}
	if !isPython("python3.12") || isPython("python3.") || isPython("pythonx") {
		t.Error("isPython")
	}
}
