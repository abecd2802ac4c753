package cli

type topCmd struct {
	Pattern   string `arg:"" optional:"" help:"Pattern or uuid to show."`
	Agent     string `short:"a" help:"Only this provider."`
	Status    string `help:"Only this status."`
	Managed   bool   `help:"Only managed agents (the default)."`
	Unmanaged bool   `help:"Only unmanaged agents."`
	Loops     bool   `help:"Loops and their active runs only."`
}

// Run implements `orcr top` (docs/cli.md §5.25); the dashboard has not landed yet.
func (c *topCmd) Run(a *app) error { return notImplemented("top") }
