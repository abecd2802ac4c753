package cli

import (
	"github.com/orcr-go/orcr/socketapi/api"
)

type dashboardCmd struct {
	Rotate bool `help:"Sign every browser out first, then issue a new link."`
	Revoke bool `help:"Sign every browser out; issue no link."`
}

// Run implements `orcr dashboard` (docs/cli.md §5.31, docs/dashboard.md §2): the link is
// printed alone on stdout (so it can be handed to a browser); what it is goes to stderr.
func (c *dashboardCmd) Run(a *app) error {
	req := api.DashboardLoginRequest{Rotate: c.Rotate, Revoke: c.Revoke}
	return request(a, api.DashboardLogin, req, func(r api.DashboardLoginResult) error {
		if r.URL == nil {
			a.stdout("%d dashboard session(s) and link(s) revoked", r.Revoked)
			return nil
		}
		a.stdout("%s", *r.URL)
		a.stderr("one-time sign-in link for the web dashboard: it works once, within %d minutes%s",
			r.ExpiresInS/60, revokedNote(r.Revoked))
		return nil
	})
}
