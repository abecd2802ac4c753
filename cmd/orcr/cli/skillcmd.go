package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/cmd/orcr/cli/skill"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// `orcr skill` (docs/cli.md §5.28) installs or prints the orchestratr skill embedded in
// this binary. Local only: no home, no server.

type skillCmd struct {
	Install skillInstallCmd `cmd:"" help:"Write SKILL.md and references/ into a directory (overwrites only with --force)."`
	Show    skillShowCmd    `cmd:"" help:"Print SKILL.md or one of its references."`
}

type skillInstallCmd struct {
	Dir   string `arg:"" help:"The skill's folder, e.g. ~/.claude/skills/orchestratr (created if missing)."`
	Force bool   `help:"Replace the skill's files that are already there (an upgrade); other files are left alone."`
}

// Run implements `orcr skill install`: every file is checked before the first write, and
// a failed write takes back what was written. With --force the skill's files already
// there are replaced: each new content is written beside its file first, and only when
// every one is written are they renamed over the old ones.
func (c *skillInstallCmd) Run(a *app) error {
	dir, err := a.absDir(c.Dir)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		return wire.Env(wire.CauseSkillInstallFailed, "cannot write the skill: "+err.Error(), "dir", dir).Wrap(err)
	}
	tree, err := openTree(dir)
	if err != nil {
		return fail(err)
	}
	names := skill.Names()
	var replace []string
	for _, name := range names {
		f := tree.existing(name)
		if f == "" {
			continue
		}
		if !c.Force || f != name || !replaceable(filepath.Join(dir, filepath.FromSlash(name))) {
			hint := " (--force replaces the skill's files)"
			if c.Force {
				hint = " and is not a file --force replaces"
			}
			return wire.Conflict("orcr skill install never overwrites: "+filepath.Join(dir, f)+" exists"+hint,
				"reason", wire.ReasonFileExists, "file", f, "dir", dir)
		}
		replace = append(replace, name)
	}
	staged := map[string]string{} // a replaced file → its new content, written beside it
	unstage := func() {
		for _, tmp := range staged {
			os.Remove(tmp)
		}
	}
	stage := func(p string, data []byte) error {
		if err := writeNew(p+".orcr-new", data); err != nil {
			return err
		}
		staged[p] = p + ".orcr-new"
		return nil
	}
	err = tree.mkdirAll(dir)
	for _, name := range names {
		if err != nil {
			break
		}
		var data []byte
		if data, err = fs.ReadFile(skill.Files(), name); err != nil {
			break
		}
		if !slices.Contains(replace, name) {
			err = tree.writeFile(filepath.FromSlash(name), data)
			continue
		}
		err = stage(filepath.Join(dir, filepath.FromSlash(name)), data)
	}
	for p, tmp := range staged {
		if err != nil {
			break
		}
		err = os.Rename(tmp, p)
	}
	if err != nil {
		unstage()
		tree.undo()
		return fail(err)
	}
	if a.json {
		a.printOKValue(struct {
			Dir      string   `json:"dir"`
			Files    []string `json:"files"`
			Replaced []string `json:"replaced"`
		}{dir, names, append([]string{}, replace...)})
		return nil
	}
	if len(replace) > 0 {
		a.stdout("installed the orchestratr skill in %s (%s; replaced %s)", dir, strings.Join(names, ", "), strings.Join(replace, ", "))
		return nil
	}
	a.stdout("installed the orchestratr skill in %s (%s)", dir, strings.Join(names, ", "))
	return nil
}

// replaceable reports whether --force may replace p: a regular file, or a symlink (the
// link is replaced, never what it points to).
func replaceable(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && (fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0)
}

// writeNew creates p, which must not exist, holding data; a failed write removes it.
func writeNew(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
	}
	return err
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
		return wire.Internal(wire.CauseCLI, "the skill file "+name+" is not embedded: "+err.Error())
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
