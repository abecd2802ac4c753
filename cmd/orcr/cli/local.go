package cli

import (
	"os"
	"strings"

	"github.com/orcr-go/orcr/cmd/orcr/top"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store/agentpath"
)

type topCmd struct {
	Pattern   string `arg:"" optional:"" help:"Pattern or uuid to show."`
	Agent     string `short:"a" help:"Only this provider."`
	Status    string `help:"Only this status."`
	Managed   bool   `help:"Only managed agents (the default)."`
	Unmanaged bool   `help:"Only unmanaged agents."`
	Loops     bool   `help:"Loops and their active runs only."`
	Fleet     bool   `help:"Also the agents of the other members of this server's fleet, each under its host."`
}

// Run implements `orcr top` (docs/cli.md §5.25, docs/top.md): check the flags, auto-start
// the server, resolve a uuid-looking argument to its agent's path, then run the
// dashboard on this terminal until q, Ctrl-C or SIGTERM. It has no --json: machines read
// `orcr api snapshot --json` or `orcr agent ls --json`.
func (c *topCmd) Run(a *app) error {
	if c.Managed && c.Unmanaged {
		return wire.Invalid(wire.ReasonConflictingFlags, "--managed and --unmanaged are mutually exclusive")
	}
	if a.json {
		return wire.Invalid(wire.ReasonJSONNotSupported, "orcr top is a terminal UI and has no --json; use orcr api snapshot --json or orcr agent ls --json")
	}
	in, inOK := a.env.Stdin.(*os.File)
	if !inOK || !a.env.IsTTY() {
		return wire.Env(wire.CauseNotATerminal, "orcr top needs a terminal on stdin and stdout; use orcr agent ls or orcr api snapshot --json in scripts")
	}
	cl, err := a.connect()
	if err != nil {
		return err
	}
	if c.Fleet {
		// A home in no fleet is told so before the screen takes the terminal.
		if _, err := socketapi.Invoke(a.ctx, cl, api.FleetMembers, api.NoParams{}); err != nil {
			return err
		}
	}
	scope := cl.CurrentScope()
	pattern := c.Pattern
	if looksLikeUUID(pattern) {
		if ls, err := cl.Ls(a.ctx, api.LsRequest{Pattern: pattern}); err == nil && len(ls.Agents) == 1 {
			pattern = "/" + ls.Agents[0].Path
		}
	}
	keep, err := agentpath.CompileFilter(scope, agentpath.ListFilter{Pattern: pattern, Agent: c.Agent, Status: c.Status,
		Managed: !c.Unmanaged, Unmanaged: c.Unmanaged})
	if err != nil {
		return err
	}
	self, err := a.env.Executable()
	if err != nil {
		self = "orcr"
	}
	cfg := top.Config{
		Options: top.Options{Keep: keep, Unmanaged: c.Unmanaged, Loops: c.Loops},
		Scope:   scope,
		Actions: top.ClientActions(cl, self),
		NoColor: a.env.Getenv("NO_COLOR") != "",
		Fleet:   c.Fleet,
	}
	return top.Run(a.ctx, cl, cfg, in, a.env.Stdout)
}

// looksLikeUUID is the rule of docs/cli.md §5.25 for top's argument: it contains "-", or
// it is at least 8 hex digits.
func looksLikeUUID(s string) bool {
	if strings.Contains(s, "-") {
		return true
	}
	if len(s) < 8 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
