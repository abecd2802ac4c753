// Package skill is the orchestratr skill: a SKILL.md and five references that teach a
// coding agent to drive orcr (when to delegate, the hot path of verbs, paths and scopes,
// files as results, loops, guard rails). It is embedded in the orcr binary; `orcr skill
// install <dir>` writes it into an agent's skills directory and `orcr skill show` prints
// it (docs/cli.md §5.28, docs/clients.md). The references sit beside SKILL.md, which
// links them relatively, so the folder must be copied whole.
package skill

import (
	"embed"
	"io/fs"
)

//go:embed SKILL.md references/*.md
var files embed.FS

// Files is the skill, rooted at the folder that holds SKILL.md.
func Files() fs.FS { return files }

// Names lists the skill's files, slash-separated and relative to its folder: SKILL.md,
// then the references in reading order.
func Names() []string {
	return []string{
		"SKILL.md",
		"references/cli.md",
		"references/sdk.md",
		"references/patterns.md",
		"references/loops.md",
		"references/files.md",
	}
}
