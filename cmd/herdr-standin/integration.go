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
	current int    // the stand-in's assumed current integration version
}

// integrationTargets are the lines herdr 0.8.2's `integration status` prints (0.7.2's
// lack the targets of [newerThanProtocol16]), in its
// order and with its paths (recorded in herdr/testdata/live; qwen is printed although
// the protocol-20 schema's IntegrationTarget lacks it); current versions are
// assumptions of the stand-in.
var integrationTargets = []integrationTarget{
	{"pi", "PI_CODING_AGENT_DIR", ".pi/agent", "extensions/herdr-agent-state.ts", 10},
	{"omp", "PI_CODING_AGENT_DIR", ".omp/agent", "extensions/herdr-omp-agent-state.ts", 10},
	{"claude", "CLAUDE_CONFIG_DIR", ".claude", "hooks/herdr-agent-state.sh", 11},
	{"codex", "CODEX_HOME", ".codex", "herdr-agent-state.sh", 9},
	{"copilot", "COPILOT_HOME", ".copilot", "hooks/herdr-agent-state.sh", 1},
	{"devin", "XDG_CONFIG_HOME/devin", ".config/devin", "herdr-agent-state.sh", 1},
	{"droid", "", ".factory", "hooks/herdr-agent-state.sh", 1},
	{"kimi", "KIMI_CODE_HOME", ".kimi-code", "hooks/herdr-agent-state.sh", 8},
	{"opencode", "", ".config/opencode", "plugins/herdr-agent-state.js", 1},
	{"kilo", "", ".config/kilo", "plugin/herdr-agent-state.js", 1},
	{"hermes", "HERMES_HOME", ".hermes", "plugins/herdr-agent-state/__init__.py", 1},
	{"qodercli", "QODER_CONFIG_DIR", ".qoder", "hooks/herdr-agent-state.sh", 1},
	{"qwen", "", ".qwen", "hooks/herdr-agent-session.sh", 1},
	{"cursor", "CURSOR_CONFIG_DIR", ".cursor", "herdr-agent-state.sh", 1},
	{"mastracode", "", ".mastracode", "hooks/herdr-agent-state.sh", 1},
	{"antigravity-cli", "", ".gemini/config", "hooks/herdr-agent-state.sh", 1},
	{"grok", "GROK_HOME", ".grok", "hooks/herdr-agent-state.sh", 1},
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

// statusLine renders one `herdr integration status` line.
func (t integrationTarget) statusLine() string {
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
	if n == t.current {
		return fmt.Sprintf("%s: current (%s) (%s)", t.name, installed, p)
	}
	return fmt.Sprintf("%s: outdated (%s < v%d) (%s)", t.name, installed, t.current, p)
}

// newerThanProtocol16 are the targets herdr 0.7.2 (protocol 16) does not print yet.
var newerThanProtocol16 = map[string]bool{"qwen": true, "antigravity-cli": true, "grok": true}

func cmdIntegrationStatus(protocol int, stdout io.Writer) int {
	for _, t := range integrationTargets {
		if protocol < 20 && newerThanProtocol16[t.name] {
			continue
		}
		fmt.Fprintln(stdout, t.statusLine())
	}
	return 0
}
