// Package ts embeds orcr's TypeScript SDK, @orchestratr/sdk (docs/clients.md): its built
// package — package.json, README.md and the compiled dist/ — ships inside the orcr binary,
// so its version always equals the CLI's and no registry is needed (`orcr scaffold`
// writes it into a project). The sources live beside this file (src/, scripts/, test/).
package ts

import (
	"embed"
	"io/fs"
)

//go:embed package.json README.md dist
var files embed.FS

// Files is the built package, rooted at the package directory (package.json at its top).
func Files() fs.FS { return files }
