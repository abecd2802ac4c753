package providertest

import (
	"fmt"
	"slices"
	"strings"
)

// HelpFlags returns the flags a --help text declares. It reads the option lines of
// both styles the providers print: claude's (`  -r, --resume [value]   Resume …`,
// `  --allowedTools, --allowed-tools <tools...>`) and codex's (`  -c, --config
// <key=value>`, `      --stdio`): a line whose first non-blank character is `-` starts
// with a comma-separated list of flags, each ending at the first space, `=`, `[` or
// `<`. Only lines indented by at most [maxOptionIndent] columns count: both CLIs indent
// their descriptions further, and a wrapped description may start with another
// option's name. Prose lines that start with a dash followed by a space (`- never: …`)
// declare nothing.
func HelpFlags(help string) map[string]bool {
	flags := map[string]bool{}
	for _, line := range strings.Split(help, "\n") {
		line = strings.TrimSuffix(line, "\r")
		rest := strings.TrimLeft(line, " ")
		if len(line)-len(rest) > maxOptionIndent {
			continue
		}
		for strings.HasPrefix(rest, "-") {
			end := strings.IndexAny(rest, " \t,=[<")
			if end < 0 {
				end = len(rest)
			}
			if flag := rest[:end]; validFlag(flag) {
				flags[flag] = true
			}
			rest = rest[end:]
			// Skip a value placeholder so `-c, --config <key=value>` keeps going only
			// through the comma list.
			after, ok := strings.CutPrefix(rest, ",")
			if !ok {
				break
			}
			rest = strings.TrimLeft(after, " \t")
		}
	}
	return flags
}

// maxOptionIndent is the deepest indentation of an option line: claude indents them by
// 2 columns, codex by 2 (with a short flag) or 6 (without); descriptions start at 10
// or more, or at 6 with a letter.
const maxOptionIndent = 6

// validFlag accepts `-x` and `--name` with letters, digits and inner dashes or
// underscores.
func validFlag(s string) bool {
	name, long := strings.CutPrefix(s, "--")
	if !long {
		name = strings.TrimPrefix(s, "-")
		if len(name) != 1 {
			return false
		}
	}
	if name == "" || name[0] == '-' {
		return false
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// ArgvFlags returns the flags of an argv in order, each once: the elements that start
// with `-` (a lone `-` is not one), `--name=value` counted as `--name`.
func ArgvFlags(argv []string) []string {
	var flags []string
	for _, a := range argv {
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		if i := strings.IndexByte(a, '='); i > 0 && strings.HasPrefix(a, "--") {
			a = a[:i]
		}
		if !slices.Contains(flags, a) {
			flags = append(flags, a)
		}
	}
	return flags
}

// MissingFlags returns the flags of argv that help does not declare, in argv order.
func MissingFlags(argv []string, help map[string]bool) []string {
	var missing []string
	for _, f := range ArgvFlags(argv) {
		if !help[f] {
			missing = append(missing, f)
		}
	}
	return missing
}

// FlagDrift is a drift between the argv orcr launches and the installed CLI.
type FlagDrift struct {
	CLI     CLI
	Help    []string // the help command, `codex resume --help`
	Argv    []string // orcr's argv
	Missing []string // its flags the help does not declare
}

func (d *FlagDrift) Error() string {
	var b strings.Builder
	for _, f := range d.Missing {
		fmt.Fprintf(&b, "%s %s: flag %s that orcr launches (`%s`) is not in `%s`\n",
			d.CLI.Name, d.CLI.Version, f, strings.Join(d.Argv, " "), strings.Join(d.Help, " "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// CheckFlags compares argv with the text of the help command helpArgs (its arguments,
// without the CLI name, e.g. ["resume", "--help"]) printed by c: every flag must be
// declared, else a *FlagDrift naming the provider, its version and each missing flag.
// It also fails when the help declares no flag at all: then the parser no longer
// understands the CLI's help.
func CheckFlags(c CLI, helpArgs []string, help string, argv []string) error {
	declared := HelpFlags(help)
	cmd := append([]string{c.Name}, helpArgs...)
	if len(declared) == 0 {
		return fmt.Errorf("%s %s: `%s` declares no flag that orcr can parse:\n%s",
			c.Name, c.Version, strings.Join(cmd, " "), help)
	}
	if missing := MissingFlags(argv, declared); len(missing) > 0 {
		return &FlagDrift{CLI: c, Help: cmd, Argv: argv, Missing: missing}
	}
	return nil
}
