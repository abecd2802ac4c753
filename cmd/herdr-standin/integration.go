package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// integrationTarget describes where herdr's installer puts one target's marker file.
type integrationTarget struct {
	name    string // CLI spelling (dashes)
	envVar  string // override of the agent's config dir ("" = none)
	homeRel string // config dir relative to $HOME when envVar is unset
	file    string // marker file relative to the config dir
	current int    // the version herdr 0.8.2 installs (protocol 20 on)
	v072    int    // the version herdr 0.7.2 installs (protocol 16); 0: no such target
}

// integrationTargets are the lines herdr 0.8.2's `integration status` prints (0.7.2's
// lack the targets it has no version of), in its order, with its paths and the
// versions `herdr integration install` wrote (recorded in herdr/testdata/live; qwen is
// printed although the protocol-20 schema's IntegrationTarget lacks it).
var integrationTargets = []integrationTarget{
	{"pi", "PI_CODING_AGENT_DIR", ".pi/agent", "extensions/herdr-agent-state.ts", 8, 4},
	{"omp", "PI_CODING_AGENT_DIR", ".omp/agent", "extensions/herdr-omp-agent-state.ts", 8, 4},
	{"claude", "CLAUDE_CONFIG_DIR", ".claude", "hooks/herdr-agent-state.sh", 8, 7},
	{"codex", "CODEX_HOME", ".codex", "herdr-agent-state.sh", 8, 6},
	{"copilot", "COPILOT_HOME", ".copilot", "hooks/herdr-agent-state.sh", 3, 2},
	{"devin", "XDG_CONFIG_HOME/devin", ".config/devin", "herdr-agent-state.sh", 2, 2},
	{"droid", "", ".factory", "hooks/herdr-agent-state.sh", 3, 2},
	{"kimi", "KIMI_CODE_HOME", ".kimi-code", "hooks/herdr-agent-state.sh", 7, 4},
	{"opencode", "", ".config/opencode", "plugins/herdr-agent-state.js", 10, 8},
	{"kilo", "", ".config/kilo", "plugin/herdr-agent-state.js", 4, 2},
	{"hermes", "HERMES_HOME", ".hermes", "plugins/herdr-agent-state/__init__.py", 5, 3},
	{"qodercli", "QODER_CONFIG_DIR", ".qoder", "hooks/herdr-agent-state.sh", 3, 2},
	{"qwen", "", ".qwen", "hooks/herdr-agent-session.sh", 1, 0},
	{"cursor", "CURSOR_CONFIG_DIR", ".cursor", "herdr-agent-state.sh", 1, 1},
	{"mastracode", "", ".mastracode", "hooks/herdr-agent-state.sh", 2, 1},
	{"antigravity-cli", "", ".gemini/config", "hooks/herdr-agent-state.sh", 2, 0},
	{"grok", "GROK_HOME", ".grok", "hooks/herdr-agent-state.sh", 1, 0},
}

var versionMarker = regexp.MustCompile(`HERDR_INTEGRATION_VERSION=(\d+)`)

func (t integrationTarget) path() string {
	home, _ := os.UserHomeDir()
	dir := filepath.Join(home, t.homeRel)
	switch {
	case t.envVar == "XDG_CONFIG_HOME/devin":
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			dir = filepath.Join(x, "devin")
		}
	case t.envVar != "":
		if x := os.Getenv(t.envVar); x != "" {
			dir = x
		}
	}
	return filepath.Join(dir, t.file)
}

// statusLine renders one `herdr integration status` line of the herdr whose current
// version of the target is current.
func (t integrationTarget) statusLine(current int) string {
	p := t.path()
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Sprintf("%s: not installed (%s)", t.name, p)
	}
	installed := "legacy"
	n := -1
	if m := versionMarker.FindSubmatch(b); m != nil {
		n, _ = strconv.Atoi(string(m[1]))
		installed = "v" + string(m[1])
	}
	if n >= current { // herdr calls a newer hook current too
		return fmt.Sprintf("%s: current (%s) (%s)", t.name, installed, p)
	}
	return fmt.Sprintf("%s: outdated (%s < v%d) (%s)", t.name, installed, current, p)
}

func cmdIntegrationStatus(protocol int, stdout io.Writer) int {
	for _, t := range integrationTargets {
		current := t.current
		if protocol < 20 {
			current = t.v072
		}
		if current == 0 {
			continue
		}
		fmt.Fprintln(stdout, t.statusLine(current))
	}
	return 0
}
