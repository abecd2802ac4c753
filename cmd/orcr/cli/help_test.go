package cli_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// helpCommands parses the Commands section of `orcr --help` into verb → help text,
// joining the lines kong wraps.
func helpCommands(t *testing.T, help string) map[string]string {
	t.Helper()
	_, section, ok := strings.Cut(help, "\nCommands:\n")
	if !ok {
		t.Fatalf("no Commands section in:\n%s", help)
	}
	out := map[string]string{}
	var verb string
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			return out
		case strings.HasPrefix(line, "  ") && line[2] != ' ':
			name, text, _ := strings.Cut(strings.TrimSpace(line), "  ")
			verb = name
			out[verb] = strings.TrimSpace(text)
		case verb != "":
			out[verb] += " " + strings.TrimSpace(line)
		}
	}
	return out
}

// notImplementedProbes run every verb with harmless arguments against a real server;
// only a verb that is not implemented answers not_implemented. `server stop` and
// `server restart` get a home of their own so the server keeps running.
var notImplementedProbes = map[string][]string{
	"agent run":      {"agent", "run", "--name", "probe", "-a", "nosuch"},
	"agent ask":      {"agent", "ask", "--name", "probe", "-a", "nosuch"},
	"agent send":     {"agent", "send", "nosuch", "hi"},
	"agent logs":     {"agent", "logs", "nosuch"},
	"agent wait":     {"agent", "wait", "nosuch"},
	"agent attach":   {"agent", "attach", "nosuch"},
	"agent kill":     {"agent", "kill", "nosuch"},
	"agent ls":       {"agent", "ls"},
	"agent adopt":    {"agent", "adopt", "nosuch", "--path", "team/x"},
	"agent token":    {"agent", "token", "nosuch"},
	"dashboard":      {"dashboard", "--revoke"},
	"loop create":    {"loop", "create", "probe", "* * * * *", "--", "true"},
	"loop pause":     {"loop", "pause", "probe"},
	"loop resume":    {"loop", "resume", "probe"},
	"loop rm":        {"loop", "rm", "probe"},
	"loop ls":        {"loop", "ls"},
	"loop logs":      {"loop", "logs", "probe"},
	"loop run start": {"loop", "run", "start", "probe"},
	"loop run stop":  {"loop", "run", "stop", "probe"},
	"loop run ls":    {"loop", "run", "ls", "probe"},
	"server start":   {"server", "start"},
	"server stop":    {"server", "stop"},
	"server restart": {"server", "restart"},
	"server status":  {"server", "status"},
	"server logs":    {"server", "logs"},
	"server enable":  {"server", "enable"},
	"server disable": {"server", "disable"},
	"api schema":     {"api", "schema"},
	"api snapshot":   {"api", "snapshot"},
	// scaffold and skill install must fail before they write: the harness has no PATH
	// (node_missing), and /dev/null is no directory (skill_install_failed).
	"scaffold":       {"scaffold", "/nonexistent/orcr-probe"},
	"skill install":  {"skill", "install", "/dev/null"},
	"skill show":     {"skill", "show"},
	"top":            {"top"},
	"usage":          {"usage"},
	"statusline":     {"statusline"},
	"budget ls":      {"budget", "ls"},
	"provider ls":    {"provider", "ls"},
	"provider check": {"provider", "check", "nosuch", "--static"},
	"fleet members":  {"fleet", "members"},
	"fleet call":     {"fleet", "call", "web", "agent.ls"},
	"fleet events":   {"fleet", "events"},
	"fleet token":    {"fleet", "token", "web"},
	"budget extend":  {"budget", "extend", "x", "--by", "1usd"},
	"mcp serve":      {"mcp"},
	"mcp token":      {"mcp", "token"},
}

// `orcr --help` marks exactly the commands that answer not_implemented when run, and
// `orcr <noun> --help` marks a noun all of whose commands are.
func TestHelpMarksNotImplementedCommands(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := h.run(t, "--help")
	if out.code != 0 {
		t.Fatalf("orcr --help: exit %d %s", out.code, out.stderr)
	}
	listed := helpCommands(t, out.stdout)
	verbs := cli.Verbs()
	if len(listed) != len(verbs) {
		t.Errorf("orcr --help lists %d commands, want the %d of the tree: %v", len(listed), len(verbs), listed)
	}

	srv := sockettest.NewServer(t)
	h.vars["ORCR_HOME"] = srv.Home
	var marked, pending []string
	for _, verb := range verbs {
		help, ok := listed[verb]
		if !ok {
			t.Errorf("orcr --help does not list %q", verb)
		}
		if strings.HasSuffix(help, "(not implemented yet)") {
			marked = append(marked, verb)
		}
		args, ok := notImplementedProbes[verb]
		if !ok {
			t.Errorf("no probe for %q: add one to notImplementedProbes", verb)
			continue
		}
		ph := h
		if verb == "server stop" || verb == "server restart" {
			ph = newHarness(t)
		}
		got := ph.run(t, append([]string{"--json"}, args...)...)
		if env := decodeEnvelope(t, got.stdout); env.Error != nil && env.Error.Reason() == "not_implemented" {
			pending = append(pending, verb)
		}
	}
	if !slices.Equal(marked, pending) {
		t.Errorf("--help marks %q\nbut these answer not_implemented: %q", marked, pending)
	}
	if got := h.run(t, "--json", "agent", "ls"); got.code != 0 {
		t.Errorf("the probes are not reaching the server: agent ls exit %d %s", got.code, got.stdout)
	}

	for noun, want := range map[string]bool{"loop": false, "loop run": false, "agent": false, "server": false, "skill": false} {
		got := h.run(t, append(strings.Fields(noun), "--help")...)
		_, rest, _ := strings.Cut(got.stdout, "\n\n")
		about, _, _ := strings.Cut(rest, "\n")
		if strings.HasSuffix(about, "(not implemented yet)") != want {
			t.Errorf("orcr %s --help: description %q, want marked=%v", noun, about, want)
		}
	}
}
