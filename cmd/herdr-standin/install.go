package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// installers are the targets `integration install` knows: the two whose CLIs report
// their session to herdr only through herdr's integration (qwen's SessionStart hook,
// opencode's plugin), in the tests with the real CLIs (docs/providers.md §10.1). The
// files are the stand-in's own: they do what herdr 0.8.2's do for orcr — report the
// session id with pane.report_agent_session from the source herdr:<agent> over the
// pane's HERDR_SOCKET_PATH — at the paths herdr writes (so that `integration status`
// reads them as installed), with herdr's version markers, and print herdr's install
// messages (herdr/testdata/live/0.8.2/integrations.json).
var installers = map[string]func(t integrationTarget, stdout io.Writer) error{
	"qwen":     installQwen,
	"opencode": installOpencode,
}

func cmdIntegrationInstall(target string, stdout, stderr io.Writer) int {
	install, ok := installers[target]
	var t integrationTarget
	for _, x := range integrationTargets {
		if x.name == target {
			t = x
		}
	}
	if !ok || t.name == "" {
		fmt.Fprintf(stderr, "error: the stand-in installs no integration for %q (it knows qwen, opencode)\n", target)
		return 1
	}
	// herdr refuses to install into a config dir the agent has not made.
	dir := filepath.Dir(filepath.Dir(t.path()))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		what := map[string]string{"qwen": "qwen code"}[target]
		if what == "" {
			what = target
		}
		fmt.Fprintf(stderr, "%s config directory not found at %s. install %s first\n", what, dir, what)
		return 1
	}
	if err := install(t, stdout); err != nil {
		fmt.Fprintf(stderr, "error: install %s integration: %v\n", target, err)
		return 1
	}
	return 0
}

// reportSessionJS is a node program that reports the session id it is given to herdr
// as the official integration of its agent: `node -e <it> <agent> [<id> [<start source>]]`;
// without an id it reads a hook's JSON input on stdin (session_id, source). It stays
// silent and exits 0 on any failure: a hook must not get in its agent's way. No single
// quotes: it is quoted in a shell script.
const reportSessionJS = `
const net = require("node:net");
const [agent, givenID, givenStart] = process.argv.slice(1);
const env = process.env;
function report(id, start) {
  if (typeof id !== "string" || !id || env.HERDR_ENV !== "1" || !env.HERDR_PANE_ID || !env.HERDR_SOCKET_PATH) return;
  const params = {pane_id: env.HERDR_PANE_ID, source: "herdr:" + agent, agent: agent,
    agent_session_id: id, seq: Date.now() * 1000};
  if (["startup", "resume", "clear", "compact", "branch", "select"].includes(start)) params.session_start_source = start;
  const c = net.createConnection(env.HERDR_SOCKET_PATH, () => {
    c.write(JSON.stringify({id: "standin:" + agent + ":" + params.seq, method: "pane.report_agent_session", params}) + "\n");
  });
  c.setTimeout(1000, () => c.destroy());
  c.on("data", () => c.destroy());
  c.on("error", () => {});
}
if (givenID) {
  report(givenID, givenStart);
} else {
  let input = "";
  process.stdin.on("data", (d) => { input += d; });
  process.stdin.on("end", () => {
    try {
      const hook = JSON.parse(input);
      report(hook.session_id, hook.source);
    } catch (e) {}
  });
}
`

// installQwen writes qwen's SessionStart hook (a shell script running
// [reportSessionJS] with the node that runs qwen) and adds it to ~/.qwen/settings.json,
// keeping the rest of that file.
func installQwen(t integrationTarget, stdout io.Writer) error {
	hook := t.path()
	script := "#!/bin/sh\n# herdr-standin's qwen integration: reports the session to herdr.\n" +
		"# HERDR_INTEGRATION_ID=qwen\n" + fmt.Sprintf("# HERDR_INTEGRATION_VERSION=%d\n", t.current) +
		"[ \"${1:-}\" = session ] || exit 0\n" +
		"exec node -e '" + reportSessionJS + "' qwen 2>/dev/null\n"
	if err := writeInstalled(hook, script, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed qwen integration hook to %s\n", hook)
	settings := filepath.Join(filepath.Dir(filepath.Dir(hook)), "settings.json")
	m := map[string]any{}
	if b, err := os.ReadFile(settings); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s: %w", settings, err)
		}
	}
	hooks, _ := m["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	command := "sh '" + hook + "' session"
	starts, _ := hooks["SessionStart"].([]any)
	if !strings.Contains(fmt.Sprint(starts), command) {
		starts = append(starts, map[string]any{"matcher": "*", "hooks": []any{
			map[string]any{"type": "command", "command": command, "timeout": 10000}}})
	}
	hooks["SessionStart"] = starts
	m["hooks"] = hooks
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := writeInstalled(settings, string(b)+"\n", 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ensured qwen settings at %s\n", settings)
	return nil
}

// opencodePlugin is opencode's server plugin: it reports the root session of each
// event that names one (a child session, a subagent's, is not the pane's).
const opencodePlugin = `// herdr-standin's opencode integration: reports the session to herdr.
// HERDR_INTEGRATION_ID=opencode
// HERDR_INTEGRATION_VERSION=%d
import net from "node:net";

const children = new Set();
let reported, sending;

// report sends the session once herdr has answered for it; a report that got no answer
// (herdr slow to answer on a loaded machine) is sent again at the next event.
function report(sessionID) {
  const env = process.env;
  if (!sessionID || sessionID === reported || sessionID === sending || children.has(sessionID) ||
      env.HERDR_ENV !== "1" || !env.HERDR_PANE_ID || !env.HERDR_SOCKET_PATH) return Promise.resolve();
  sending = sessionID;
  const seq = Date.now() * 1000;
  const req = {id: "standin:opencode:" + seq, method: "pane.report_agent_session",
    params: {pane_id: env.HERDR_PANE_ID, source: "herdr:opencode", agent: "opencode", agent_session_id: sessionID, seq}};
  return new Promise((resolve) => {
    const c = net.createConnection(env.HERDR_SOCKET_PATH, () => c.write(JSON.stringify(req) + "\n"));
    const done = (answered) => {
      if (answered) reported = sessionID;
      if (sending === sessionID) sending = undefined;
      c.destroy();
      resolve();
    };
    c.setTimeout(3000, () => done(false));
    c.on("data", () => done(true));
    c.on("error", () => done(false));
    c.on("close", () => done(false));
  });
}

export const HerdrStandinSession = async () => ({
  "chat.message": async (input) => report(input?.sessionID),
  event: async ({ event }) => {
    const info = event?.properties?.info;
    if ((event?.type === "session.created" || event?.type === "session.updated") && info?.id) {
      if (info.parentID) {
        children.add(info.id);
        return;
      }
      return report(info.id);
    }
    if (event?.type === "session.status") return report(event.properties?.sessionID);
  },
});
`

func installOpencode(t integrationTarget, stdout io.Writer) error {
	p := t.path()
	if err := writeInstalled(p, fmt.Sprintf(opencodePlugin, t.current), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed opencode integration plugin to %s\n", p)
	return nil
}

func writeInstalled(path, content string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), mode)
}
