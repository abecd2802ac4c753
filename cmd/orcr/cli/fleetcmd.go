package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

type fleetCmd struct {
	Members fleetMembersCmd `cmd:"" help:"List the fleet's members: reachable or not, and when each was last seen."`
	Call    fleetCallCmd    `cmd:"" help:"Call a socket method on a fleet member through this server (its fleet.allow decides)."`
}

type fleetMembersCmd struct{}

// Run implements `orcr fleet members` (docs/cli.md §5.38).
func (c *fleetMembersCmd) Run(a *app) error {
	return request(a, api.FleetMembers, api.NoParams{}, func(r api.FleetMembersResult) error {
		var sb strings.Builder
		tw := tabwriter.NewWriter(&sb, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "HOST\tSTATE\tLAST SEEN")
		now := time.Now()
		for _, m := range r.Members {
			name, state, seen := m.Host, "reachable", "-"
			if m.Self {
				name += " (this host)"
			}
			if !m.Reachable {
				state = "unreachable"
			}
			if m.LastSeen != nil {
				seen = formatAge(now.Sub(time.UnixMilli(*m.LastSeen))) + " ago"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", name, state, seen)
		}
		tw.Flush()
		_, err := a.env.Stdout.Write([]byte(sb.String()))
		return err
	})
}

type fleetCallCmd struct {
	Host   string `arg:"" help:"The member (its fleet.host)."`
	Method string `arg:"" help:"The socket method, e.g. agent.ls."`
	Params string `arg:"" optional:"" help:"The method's params as a JSON object (default {})."`
}

// Run implements `orcr fleet call` (docs/cli.md §5.39): the member's result, as JSON.
func (c *fleetCallCmd) Run(a *app) error {
	req := api.FleetCallRequest{Host: c.Host, Method: c.Method}
	if c.Params != "" {
		var obj map[string]any
		if err := json.Unmarshal([]byte(c.Params), &obj); err != nil {
			return wire.Invalid(wire.ReasonCLIParse, "the params must be a JSON object: "+err.Error(), "value", c.Params)
		}
		req.Params = api.Open(c.Params)
	}
	return request(a, api.FleetCall, req, func(r api.FleetCallResult) error { return a.pretty(r.Result) })
}
