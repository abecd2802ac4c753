package cli

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/cmd/orcr/cli/skill"
	"github.com/orcr-go/orcr/socketapi/wire"
)

// `orcr skill` (docs/cli.md §5.28) installs or prints the orchestratr skill embedded in
// this binary. Local only: no home, no server.

type skillCmd struct {
	Install skillInstallCmd `cmd:"" help:"Write SKILL.md and references/ into a directory (never overwrites)."`
	Show    skillShowCmd    `cmd:"" help:"Print SKILL.md or one of its references."`
}

type skillInstallCmd struct {
	Dir string `arg:"" help:"The skill's folder, e.g. ~/.claude/skills/orchestratr (created if missing)."`
}

// causeSkillInstallFailed is the environment_error of a skill that cannot be written.
const causeSkillInstallFailed = "skill_install_failed"

// Run implements `orcr skill install`: every file is checked before the first write, and
// a failed write takes back what was written.
func (c *skillInstallCmd) Run(a *app) error {
	dir, err := a.absDir(c.Dir)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		return wire.Env(causeSkillInstallFailed, "cannot write the skill: "+err.Error(), "dir", dir).Wrap(err)
	}
	tree, err := openTree(dir)
	if err != nil {
		return fail(err)
	}
	names := skill.Names()
	if f := tree.existing(names...); f != "" {
		return wire.Conflict("orcr skill install never overwrites: "+filepath.Join(dir, f)+" exists",
			"reason", "file_exists", "file", f, "dir", dir)
	}
	err = tree.mkdirAll(dir)
	for _, name := range names {
		if err != nil {
			break
		}
		var data []byte
		if data, err = fs.ReadFile(skill.Files(), name); err == nil {
			err = tree.writeFile(filepath.FromSlash(name), data)
		}
	}
	if err != nil {
		tree.undo()
		return fail(err)
	}
	if a.json {
		a.printOKValue(struct {
			Dir   string   `json:"dir"`
			Files []string `json:"files"`
		}{dir, names})
		return nil
	}
	a.stdout("installed the orchestratr skill in %s (%s)", dir, strings.Join(names, ", "))
	return nil
}

type skillShowCmd struct {
	File string `arg:"" optional:"" help:"SKILL.md (the default) or a reference: cli, sdk, patterns, loops or files."`
}

// Run implements `orcr skill show`: the file's text on stdout, exactly as installed.
func (c *skillShowCmd) Run(a *app) error {
	name, ok := skillFile(c.File)
	if !ok {
		return wire.New(wire.NotFound, fmt.Sprintf("the skill has no file %q", c.File),
			"target", c.File, "files", skill.Names())
	}
	data, err := fs.ReadFile(skill.Files(), name)
	if err != nil {
		return wire.Internal("cli", "the skill file "+name+" is not embedded: "+err.Error())
	}
	if a.json {
		a.printOKValue(struct {
			File string `json:"file"`
			Text string `json:"text"`
		}{name, string(data)})
		return nil
	}
	_, err = a.env.Stdout.Write(data)
	return err
}

// skillFile maps what `skill show` was given to a file of the skill: nothing is
// SKILL.md; a reference may be named as references/cli.md, cli.md or cli.
func skillFile(arg string) (string, bool) {
	if arg == "" {
		return "SKILL.md", true
	}
	names := skill.Names()
	for _, try := range []string{arg, "references/" + arg, "references/" + arg + ".md"} {
		if slices.Contains(names, try) {
			return try, true
		}
	}
	return "", false
}
