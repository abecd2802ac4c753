package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/orcr-go/orcr/socketapi/api"
)

type providerCmd struct {
	Ls    providerLsCmd    `cmd:"" help:"List the built-in and declared providers and whether they are supported."`
	Check providerCheckCmd `cmd:"" help:"Check which parts of a provider's contract hold, running one real turn unless --static."`
}

type providerLsCmd struct{}

// Run implements `orcr provider ls` (docs/cli.md §5.35).
func (c *providerLsCmd) Run(a *app) error {
	return request(a, api.ProviderLs, api.ProviderLsRequest{}, func(r api.ProviderLsResult) error {
		var sb strings.Builder
		tw := tabwriter.NewWriter(&sb, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PROVIDER\tKIND\tHERDR\tSUPPORTED")
		for _, p := range r.Providers {
			herdr := "installed"
			switch {
			case !p.NeedsHerdr:
				herdr = "not needed"
			case !p.Herdr:
				herdr = "missing"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, p.Kind, herdr, yesNo(p.Supported))
		}
		tw.Flush()
		_, err := a.env.Stdout.Write([]byte(sb.String()))
		return err
	})
}

type providerCheckCmd struct {
	Name   string `arg:"" help:"The provider: built in or declared in config.json (providers.<name>)."`
	Static bool   `help:"Start nothing: check the command, its flags and the herdr layer only."`
}

// Run implements `orcr provider check` (docs/cli.md §5.36).
func (c *providerCheckCmd) Run(a *app) error {
	return request(a, api.ProviderCheck, api.ProviderCheckRequest{Name: c.Name, Static: c.Static}, func(r api.ProviderCheckResult) error {
		for _, p := range r.Parts {
			line := fmt.Sprintf("%-8s %-7s", p.Part, p.State)
			if p.Reason != "" {
				line += " " + p.Reason
			}
			a.stdout("%s", strings.TrimRight(line, " "))
		}
		if r.OK {
			a.stdout("%s: every part checked holds or is unknown", r.Name)
		} else {
			a.stdout("%s: some parts failed", r.Name)
		}
		return nil
	})
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
