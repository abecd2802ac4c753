package herdrtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Process detection: which agent runs in a pane (docs/herdr.md §5.2, step 1), written
// from herdr 0.8.2's. herdr looks at the pane's foreground process group (the job the
// terminal belongs to): the group leader first, then every member, and names the
// agent from each process's name, its argv[0], or the script a runtime or shell runs.

// procInfo is what detection reads of one process.
type procInfo struct {
	pid, pgrp int
	comm      string   // the kernel's process name (/proc/<pid>/stat)
	argv      []string // /proc/<pid>/cmdline
	hint      string   // HERDR_AGENT from its environment ("" without)
}

// agentAliases maps every name herdr 0.8.2 knows an agent by to the agent's canonical
// label. The stand-in has screen rules for claude, codex, pi, qwen, opencode and gemini
// ([screenRules]) and detects only those; the rest serve to recognise a report naming
// another known agent.
var agentAliases = map[string]string{
	"pi": "pi", "claude": "claude", "claude-code": "claude", "codex": "codex",
	"gemini": "gemini", "cursor": "cursor", "cursor-agent": "cursor",
	"devin": "devin", "devin-cli": "devin", "devin cli": "devin",
	"agy": "agy", "antigravity": "agy", "antigravity-cli": "agy", "cline": "cline", "omp": "omp",
	"mastracode": "mastracode", "mastra-code": "mastracode", "mastra code": "mastracode",
	"opencode": "opencode", "opencode2": "opencode", "open-code": "opencode",
	"copilot": "copilot", "github-copilot": "copilot", "ghcs": "copilot",
	"kimi": "kimi", "kimi-code": "kimi", "kimi code": "kimi", "kiro": "kiro", "kiro-cli": "kiro",
	"droid": "droid", "amp": "amp", "amp-local": "amp", "grok": "grok", "grok-build": "grok",
	"hermes": "hermes", "hermes-agent": "hermes", "kilo": "kilo", "kilo-code": "kilo", "kilo code": "kilo",
	"qodercli": "qodercli", "qoderclicn": "qodercli", "qoder": "qodercli", "qodercn": "qodercli",
	"qwen": "qwen", "qwen-code": "qwen", "qwen code": "qwen", "maki": "maki",
}

// knownAgent is the canonical label of the agent name stands for ("" for none):
// case-insensitive, with one of the suffixes .exe, .cmd, .bat, .ps1 or .js dropped.
func knownAgent(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, suf := range []string{".exe", ".cmd", ".bat", ".ps1", ".js"} {
		if strings.HasSuffix(n, suf) {
			n = strings.TrimSuffix(n, suf)
			break
		}
	}
	return agentAliases[n]
}

// detectedAgent is knownAgent limited to the agents the stand-in detects.
func detectedAgent(name string) string {
	if a := knownAgent(name); screenRules[a] != nil {
		return a
	}
	return ""
}

func baseName(path string) string {
	path = strings.TrimRight(path, "/")
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// runtimeOrShell reports whether name (a process name or path) is an interpreter or
// shell that runs agents as scripts rather than being one.
func runtimeOrShell(name string) bool {
	n := strings.ToLower(baseName(name))
	switch n {
	case "sh", "bash", "zsh", "fish", "tmux", "node", "bun", "cmd", "powershell", "pwsh":
		return true
	}
	return isPython(n)
}

func isPython(n string) bool {
	v, ok := strings.CutPrefix(n, "python")
	if !ok {
		return false
	}
	if v == "" {
		return true
	}
	for _, part := range strings.Split(v, ".") {
		if _, err := strconv.ParseUint(part, 10, 32); err != nil || part == "" || part[0] == '+' {
			return false
		}
	}
	return true
}

// agentFromPathToken names the agent a command word runs: by its base name, or, for a
// path with a directory, by the name of the file a symlink resolves to.
func agentFromPathToken(tok string) string {
	tok = strings.Trim(tok, `"'`)
	if tok == "" || strings.HasPrefix(tok, "-") {
		return ""
	}
	if a := knownAgent(baseName(tok)); a != "" {
		return a
	}
	if strings.Contains(tok, "/") {
		if real, err := filepath.EvalSymlinks(tok); err == nil {
			return knownAgent(baseName(real))
		}
	}
	return ""
}

// optionTakesValue lists a runtime's options whose value is the next argument.
var optionTakesValue = map[string]bool{
	"-r": true, "--require": true, "--loader": true, "--import": true, "--experimental-loader": true,
	"--inspect-port": true, "-W": true, "-X": true, "-S": true, "-L": true, "-o": true,
}

// scriptAgent names the agent of the script a runtime or shell runs: its first
// operand (or the one after "--"); none when code is given inline (stop flags).
func scriptAgent(argv []string, stop ...string) string {
	for i := 1; i < len(argv); i++ {
		arg := argv[i]
		if arg == "--" {
			if i+1 < len(argv) {
				return agentFromPathToken(argv[i+1])
			}
			return ""
		}
		for _, f := range stop {
			if arg == f || (!strings.HasPrefix(f, "--") && strings.HasPrefix(arg, f)) || strings.HasPrefix(arg, f+"=") {
				return ""
			}
		}
		if strings.HasPrefix(arg, "-") {
			if optionTakesValue[arg] {
				i++
			}
			continue
		}
		return agentFromPathToken(arg)
	}
	return ""
}

// wrappedAgent names the agent a runtime or shell process runs as a script.
func wrappedAgent(runtime string, argv []string) string {
	n := strings.ToLower(baseName(runtime))
	switch {
	case n == "node" || n == "bun":
		return scriptAgent(argv, "-e", "--eval", "-p", "--print")
	case isPython(n):
		return scriptAgent(argv, "-c", "-m")
	case n == "sh" || n == "bash" || n == "zsh" || n == "fish":
		return scriptAgent(argv, "-c")
	}
	return ""
}

// processAgent names the agent p is, and how sure that is: 3 when named by something
// other than its process name (a script, argv[0]), 2 by its own name, 1 for a runtime
// or shell that is itself named like an agent (never, in practice).
func processAgent(p procInfo) (agent string, rank int) {
	name := p.comm
	if runtimeOrShell(name) {
		if a := wrappedAgent(name, p.argv); a != "" {
			return detectedAgent(a), 3
		}
	}
	if a := detectedAgent(name); a != "" {
		if runtimeOrShell(name) {
			return a, 1
		}
		return a, 2
	}
	if len(p.argv) > 0 {
		if a := agentFromPathToken(p.argv[0]); a != "" {
			return detectedAgent(a), 3
		}
	}
	return "", 0
}

// identifyJob names the agent of a pane's foreground job pgid, whose processes are
// procs: a HERDR_AGENT hint of the group leader, the leader itself, a hint of another
// member, then the member named most surely (the first of equals).
func identifyJob(pgid int, procs []procInfo) string {
	var leader *procInfo
	for i := range procs {
		if procs[i].pid == pgid {
			leader = &procs[i]
		}
	}
	if leader != nil {
		if a := detectedAgent(leader.hint); a != "" {
			return a
		}
		if a, _ := processAgent(*leader); a != "" {
			return a
		}
	}
	for _, p := range procs {
		if p.pid != pgid {
			if a := detectedAgent(p.hint); a != "" {
				return a
			}
		}
	}
	best, bestRank := "", 0
	for _, p := range procs {
		if a, r := processAgent(p); a != "" && r > bestRank {
			best, bestRank = a, r
		}
	}
	return best
}

// ---- reading /proc (Linux) ----

// statFields are the fields of /proc/<pid>/stat after the process name: state, ppid,
// pgrp, session, tty_nr, tpgid, …; comm is the name between the parentheses.
func readStat(pid int) (comm string, fields []string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", nil, false
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return "", nil, false
	}
	return s[open+1 : closing], strings.Fields(s[closing+1:]), true
}

// foregroundGroup is the foreground process group of the terminal pid runs on (0 when
// it cannot be read).
func foregroundGroup(pid int) int {
	_, f, ok := readStat(pid)
	if !ok || len(f) < 6 {
		return 0
	}
	g, _ := strconv.Atoi(f[5])
	return max(g, 0)
}

// readProc reads what detection needs of pid.
func readProc(pid int) (procInfo, bool) {
	comm, f, ok := readStat(pid)
	if !ok || len(f) < 3 {
		return procInfo{}, false
	}
	p := procInfo{pid: pid, comm: comm}
	p.pgrp, _ = strconv.Atoi(f[2])
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
		p.argv = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil {
		for _, kv := range strings.Split(string(b), "\x00") {
			if v, ok := strings.CutPrefix(kv, "HERDR_AGENT="); ok {
				p.hint = v
				break
			}
		}
	}
	return p, true
}

// foregroundJob lists the processes of group pgid among root and its descendants.
func foregroundJob(root, pgid int) []procInfo {
	var out []procInfo
	queue, seen := []int{root}, map[int]bool{}
	for len(queue) > 0 && len(seen) < 512 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if p, ok := readProc(pid); ok && p.pgrp == pgid {
			out = append(out, p)
		}
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			for _, c := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(c); err == nil {
					queue = append(queue, n)
				}
			}
		}
	}
	return out
}

// probeAgent names the agent in the foreground of the pane whose process is root, and
// reports whether that foreground is root itself (the pane's own program or shell).
func probeAgent(root int) (agent string, pgid int, ownGroup bool) {
	pgid = foregroundGroup(root)
	if pgid <= 0 {
		return "", 0, false
	}
	if leader, ok := readProc(pgid); ok {
		if a := identifyJob(pgid, []procInfo{leader}); a != "" {
			return a, pgid, pgid == root
		}
	}
	job := foregroundJob(root, pgid)
	for _, p := range job {
		if p.pid == root {
			ownGroup = true
		}
	}
	return identifyJob(pgid, job), pgid, ownGroup
}
