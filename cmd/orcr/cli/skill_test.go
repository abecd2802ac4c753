package cli_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/cmd/orcr/cli/skill"
)

// skillText returns the embedded skill files by name.
func skillText(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range skill.Names() {
		b, err := fs.ReadFile(skill.Files(), name)
		if err != nil {
			t.Fatalf("skill file %s: %v", name, err)
		}
		out[name] = string(b)
	}
	return out
}

// Names lists exactly the embedded files.
func TestSkillNamesAreTheFiles(t *testing.T) {
	t.Parallel()
	var embedded []string
	fs.WalkDir(skill.Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded = append(embedded, p)
		}
		return err
	})
	names := slices.Clone(skill.Names())
	slices.Sort(names)
	if !slices.Equal(embedded, names) {
		t.Errorf("embedded %v, Names %v", embedded, skill.Names())
	}
}

// SKILL.md: front matter with the name and trigger phrases, at most 150 lines, the
// eleven numbered sections in order, and a link to every reference.
func TestSkillShape(t *testing.T) {
	t.Parallel()
	text := skillText(t)["SKILL.md"]
	if n := strings.Count(text, "\n"); n > 150 {
		t.Errorf("SKILL.md has %d lines, the budget is 150", n)
	}
	front, ok := strings.CutPrefix(text, "---\n")
	front, _, closed := strings.Cut(front, "\n---\n")
	if !ok || !closed {
		t.Fatalf("SKILL.md does not start with YAML front matter")
	}
	if !strings.Contains(front, "\nname: orchestratr\n") && !strings.HasPrefix(front, "name: orchestratr\n") {
		t.Errorf("front matter lacks name: orchestratr:\n%s", front)
	}
	desc := strings.Join(strings.Fields(front), " ")
	for _, phrase := range []string{"run agents in parallel", "fan out", "delegate to codex", "delegate to claude",
		"background this", "review with a different model", "schedule", "run every N minutes",
		"keep trying until it passes", "spawn a subagent", "have one agent check another"} {
		if !strings.Contains(desc, phrase) {
			t.Errorf("description lacks the trigger %q", phrase)
		}
	}
	var numbers []string
	for _, m := range regexp.MustCompile(`(?m)^## (\d+)\. `).FindAllStringSubmatch(text, -1) {
		numbers = append(numbers, m[1])
	}
	if want := strings.Fields("1 2 3 4 5 6 7 8 9 10 11"); !slices.Equal(numbers, want) {
		t.Errorf("numbered sections %v, want %v", numbers, want)
	}
	for _, name := range skill.Names()[1:] {
		if !strings.Contains(text, "]("+name+")") {
			t.Errorf("SKILL.md does not link %s", name)
		}
	}
}

// invocation is one `orcr …` command found in the skill's text.
type invocation struct {
	file, line string
	verb       string   // the command path, "" for the root
	flags      []string // the flags given to it, as written (--name, -a)
}

var flagToken = regexp.MustCompile(`^(--[a-z0-9][a-z0-9-]*|-[a-zA-Z])(=.*)?$`)

// findInvocations returns every orcr command in text. Lines ending in a backslash, and
// indented lines that start with [ or ( right after a line holding one (the wrapped
// synopses), are joined first. A command ends at the end of the line or at what ends a
// shell command or a markdown span outside quotes and brackets: a backtick, a lone |,
// ;, &&, ||, a closing ) it did not open, a # comment, or the next orcr; the argv after
// a lone -- is not its own.
func findInvocations(file, text string, commands map[string]bool) []invocation {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		n := len(lines)
		switch {
		case n > 0 && strings.HasSuffix(lines[n-1], "\\"):
			lines[n-1] = strings.TrimSuffix(lines[n-1], "\\") + " " + trimmed
		case n > 0 && line != trimmed && (strings.HasPrefix(trimmed, "[") || strings.HasPrefix(trimmed, "(")) && strings.Contains(lines[n-1], "orcr "):
			lines[n-1] += " " + trimmed
		default:
			lines = append(lines, line)
		}
	}
	var out []invocation
	for _, line := range lines {
		for i := 0; ; {
			j := strings.Index(line[i:], "orcr ")
			if j < 0 {
				break
			}
			at := i + j
			i = at + len("orcr ")
			if at > 0 && strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-@", rune(line[at-1])) {
				continue
			}
			words := shellWords(line[i:])
			inv := invocation{file: file, line: strings.TrimSpace(line)}
			k := 0
			for k < len(words) && commands[strings.TrimSpace(inv.verb+" "+words[k])] {
				inv.verb = strings.TrimSpace(inv.verb + " " + words[k])
				k++
			}
			if inv.verb == "" && (k >= len(words) || !strings.HasPrefix(words[k], "-")) {
				continue // prose: "orcr runs coding agents"
			}
			for _, w := range words[k:] {
				w = strings.TrimLeft(w, "[(")
				w = strings.TrimRight(w, "]).,")
				if m := flagToken.FindStringSubmatch(w); m != nil {
					inv.flags = append(inv.flags, m[1])
				}
			}
			out = append(out, inv)
		}
	}
	return out
}

// shellWords splits the start of s into the words of one command, stopping where the
// command ends (see findInvocations). Quoted text is dropped (prompts are not flags): a
// word with a quoted part comes out as "”".
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	quoted := false
	depth := 0 // of ( and [ outside quotes
	// flush ends the current word and reports whether the command ends with it.
	flush := func() bool {
		w := cur.String()
		cur.Reset()
		wasQuoted := quoted
		quoted = false
		if w == "" && !wasQuoted {
			return false
		}
		depth += strings.Count(w, "(") + strings.Count(w, "[") - strings.Count(w, ")") - strings.Count(w, "]")
		switch {
		case depth < 0:
			words = append(words, strings.TrimRight(w, ")"))
			return true
		case wasQuoted:
			words = append(words, "''")
			return false
		case w == "orcr", w == "--", w == "&&", w == "||", strings.HasPrefix(w, "#"), w == "|" && depth == 0:
			return true
		}
		words = append(words, w)
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return words // the command started inside a quote that ends here
			}
			quoted = true
			i += end + 1
		case ' ', '\t':
			if flush() {
				return words
			}
		case '`', ';':
			flush()
			return words
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return words
}

// commandSet is every command path of the tree: the verbs and the nouns above them.
func commandSet() map[string]bool {
	set := map[string]bool{}
	for _, v := range cli.Verbs() {
		parts := strings.Fields(v)
		for i := range parts {
			set[strings.Join(parts[:i+1], " ")] = true
		}
	}
	return set
}

// helpFlags returns the flags (long and short) `orcr <verb> --help` lists.
func helpFlags(t *testing.T, h *harness, verb string) map[string]bool {
	t.Helper()
	got := h.run(t, append(strings.Fields(verb), "--help")...)
	_, section, ok := strings.Cut(got.stdout, "\nFlags:\n")
	if got.code != 0 || !ok {
		t.Fatalf("orcr %s --help: exit %d, no Flags section:\n%s", verb, got.code, got.stdout)
	}
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:(-[a-zA-Z]), )?(--[a-z0-9-]+)`).FindAllStringSubmatch(section, -1) {
		flags[m[2]] = true
		if m[1] != "" {
			flags[m[1]] = true
		}
	}
	return flags
}

// globalFlags are every command's; a mention like `orcr agent run --json` is no sample.
var globalFlags = map[string]bool{"--json": true, "--help": true, "-h": true, "--version": true, "-V": true}

// Every flag given to an orcr command in the skill exists in that command's live
// --help, and every agent run / agent ask sample with flags names --name or --path.
func TestSkillFlagsExist(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	commands := commandSet()
	help := map[string]map[string]bool{}
	checked := 0
	for name, text := range skillText(t) {
		for _, inv := range findInvocations(name, text, commands) {
			if _, ok := help[inv.verb]; !ok {
				help[inv.verb] = helpFlags(t, h, inv.verb)
			}
			for _, f := range inv.flags {
				checked++
				if !help[inv.verb][f] {
					t.Errorf("%s: `orcr %s` has no flag %s, in: %s", inv.file, inv.verb, f, inv.line)
				}
			}
			sample := slices.ContainsFunc(inv.flags, func(f string) bool { return !globalFlags[f] })
			if (inv.verb == "agent run" || inv.verb == "agent ask") && sample &&
				!slices.Contains(inv.flags, "--name") && !slices.Contains(inv.flags, "--path") {
				t.Errorf("%s: an %s sample without --name or --path: %s", inv.file, inv.verb, inv.line)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d flags checked: the scanner is not finding the samples", checked)
	}
}

// The scanner reads commands the way the gate needs.
func TestFindInvocations(t *testing.T) {
	t.Parallel()
	commands := commandSet()
	cases := []struct {
		text string
		want []string // "verb: flags"
	}{
		{"orcr agent run --name a -p 'say --nope' --timeout 5m", []string{"agent run: --name -p --timeout"}},
		{"x=$(orcr agent logs w --last-response) && orcr agent kill \"w/**\" -y", []string{"agent logs: --last-response", "agent kill: -y"}},
		{"`orcr agent ls --all` lists; orcr runs agents", []string{"agent ls: --all"}},
		{"orcr loop create n \"* * * * *\" --timeout 1m -- sh -c 'x' --bogus", []string{"loop create: --timeout"}},
		{"orcr agent run (--name <n> | --path <p>) [-a <provider>]\n               [--gc auto|immediate|never]", []string{"agent run: --name --path -a --gc"}},
		{"orcr agent wait a \\\n  --timeout 3m  # --not-a-flag", []string{"agent wait: --timeout"}},
		{"orcr server start [--foreground]    orcr server status [--all]", []string{"server start: --foreground", "server status: --all"}},
		{"orcr --json agent ls", []string{": --json"}},
		{"github.com/orcr-go/orcr socketapi", nil},
	}
	for _, tc := range cases {
		var got []string
		for _, inv := range findInvocations("t", tc.text, commands) {
			got = append(got, strings.TrimSpace(inv.verb+": "+strings.Join(inv.flags, " ")))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// skill install writes every file, byte for byte.
func TestSkillInstall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir := filepath.Join(t.TempDir(), "skills", "orchestratr")
	got := h.run(t, "--json", "skill", "install", dir)
	env := decodeEnvelope(t, got.stdout)
	var res struct {
		Dir   string   `json:"dir"`
		Files []string `json:"files"`
	}
	json.Unmarshal(env.Result, &res)
	if got.code != 0 || res.Dir != dir || !slices.Equal(res.Files, skill.Names()) {
		t.Fatalf("got exit %d %s %s", got.code, got.stdout, got.stderr)
	}
	for name, text := range skillText(t) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(b) != text {
			t.Errorf("%s: %v, or it differs from the embedded file", name, err)
		}
	}
	if n := len(listTree(t, dir)); n != len(skill.Names())+1 {
		t.Errorf("%d entries installed, want the %d files and references/", n, len(skill.Names()))
	}

	other := filepath.Join(t.TempDir(), "s")
	got = h.run(t, "skill", "install", other)
	if want := "installed the orchestratr skill in " + other + " (" + strings.Join(skill.Names(), ", ") + ")\n"; got.code != 0 || got.stdout != want {
		t.Errorf("human: got exit %d %q, want %q", got.code, got.stdout, want)
	}
}

// skill install refuses a folder that already holds any skill file, and touches nothing.
func TestSkillInstallNeverOverwrites(t *testing.T) {
	t.Parallel()
	for _, existing := range []string{"SKILL.md", "references/loops.md", "references"} {
		t.Run(existing, func(t *testing.T) {
			h := newHarness(t)
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(existing))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("mine"), 0o644)
			before := listTree(t, dir)
			got := h.run(t, "--json", "skill", "install", dir)
			details := wantError(t, got, 7, "state_conflict", "reason", "file_exists")
			if details["file"] != existing || details["dir"] != dir {
				t.Errorf("details %v, want file %s", details, existing)
			}
			if after := listTree(t, dir); !slices.Equal(before, after) {
				t.Errorf("tree changed: %v → %v", before, after)
			}
			if b, _ := os.ReadFile(p); string(b) != "mine" {
				t.Errorf("%s overwritten", existing)
			}
		})
	}
	t.Run("not a directory", func(t *testing.T) {
		h := newHarness(t)
		file := filepath.Join(t.TempDir(), "f")
		os.WriteFile(file, []byte("x"), 0o644)
		wantError(t, h.run(t, "--json", "skill", "install", file), 2, "environment_error", "cause", "skill_install_failed")
	})
	t.Run("write fails", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes into read-only directories")
		}
		h := newHarness(t)
		parent := t.TempDir()
		os.Chmod(parent, 0o555)
		defer os.Chmod(parent, 0o755)
		wantError(t, h.run(t, "--json", "skill", "install", filepath.Join(parent, "s")), 2, "environment_error", "cause", "skill_install_failed")
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("left behind: %v", entries)
		}
	})
}

// skill show prints SKILL.md or a reference, by any of its names.
func TestSkillShow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	text := skillText(t)
	for args, want := range map[string]string{
		"":                    "SKILL.md",
		"SKILL.md":            "SKILL.md",
		"cli":                 "references/cli.md",
		"sdk.md":              "references/sdk.md",
		"references/loops.md": "references/loops.md",
	} {
		got := h.run(t, append([]string{"skill", "show"}, strings.Fields(args)...)...)
		if got.code != 0 || got.stdout != text[want] {
			t.Errorf("skill show %s: exit %d, output is not %s", args, got.code, want)
		}
	}
	got := h.run(t, "--json", "skill", "show", "patterns")
	env := decodeEnvelope(t, got.stdout)
	var res struct{ File, Text string }
	json.Unmarshal(env.Result, &res)
	if got.code != 0 || res.File != "references/patterns.md" || res.Text != text["references/patterns.md"] {
		t.Errorf("skill show patterns --json: exit %d, file %q", got.code, res.File)
	}
	wantError(t, h.run(t, "--json", "skill", "show", "nosuch"), 6, "not_found", "target", "nosuch")
}

// Issue 33 item 8: `skill install --force` upgrades an installed skill: the skill's files
// get this binary's text, a file of the user's in the folder is left alone, and the
// result names what was replaced. A path in the way that is not a file is still refused.
func TestSkillInstallForceUpgrades(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir := t.TempDir()
	if got := h.run(t, "skill", "install", dir); got.code != 0 {
		t.Fatalf("first install: exit %d %s", got.code, got.stderr)
	}
	old := filepath.Join(dir, "SKILL.md")
	os.WriteFile(old, []byte("an older skill"), 0o644)
	mine := filepath.Join(dir, "references", "mine.md")
	os.WriteFile(mine, []byte("mine"), 0o644)

	got := h.run(t, "--json", "skill", "install", dir)
	details := wantError(t, got, 7, "state_conflict", "reason", "file_exists")
	if details["file"] != "SKILL.md" {
		t.Errorf("without --force: details %v, want file SKILL.md", details)
	}
	got = h.run(t, "--json", "skill", "install", "--force", dir)
	var res struct {
		Files    []string `json:"files"`
		Replaced []string `json:"replaced"`
	}
	json.Unmarshal(decodeEnvelope(t, got.stdout).Result, &res)
	if got.code != 0 || !slices.Equal(res.Files, skill.Names()) || !slices.Equal(res.Replaced, skill.Names()) {
		t.Fatalf("--force: exit %d %s %s", got.code, got.stdout, got.stderr)
	}
	for name, text := range skillText(t) {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || string(b) != text {
			t.Errorf("%s after --force: %v, or it differs from the embedded file", name, err)
		}
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine" {
		t.Errorf("--force touched a file that is not the skill's: %q", b)
	}
	if n := len(listTree(t, dir)); n != len(skill.Names())+2 {
		t.Errorf("%d entries after --force, want the skill's files, references/ and mine.md: %v", n, listTree(t, dir))
	}

	// Only what is missing is written next to what is replaced.
	os.Remove(filepath.Join(dir, "references", "loops.md"))
	got = h.run(t, "skill", "install", "--force", dir)
	_, replaced, _ := strings.Cut(got.stdout, "; replaced ")
	if got.code != 0 || !strings.HasPrefix(replaced, "SKILL.md, ") || strings.Contains(replaced, "loops.md") {
		t.Errorf("--force with a file missing: exit %d %q, want loops.md written and the rest replaced", got.code, got.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "references", "loops.md")); err != nil {
		t.Errorf("--force did not write the missing loops.md: %v", err)
	}

	os.RemoveAll(filepath.Join(dir, "references", "cli.md"))
	os.Mkdir(filepath.Join(dir, "references", "cli.md"), 0o755)
	got = h.run(t, "--json", "skill", "install", "--force", dir)
	if d := wantError(t, got, 7, "state_conflict", "reason", "file_exists"); d["file"] != "references/cli.md" {
		t.Errorf("--force over a directory: details %v", d)
	}
	if b, _ := os.ReadFile(old); string(b) != skillText(t)["SKILL.md"] {
		t.Errorf("the refused --force changed SKILL.md")
	}
}
