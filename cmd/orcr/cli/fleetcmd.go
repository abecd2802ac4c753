package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

type fleetCmd struct {
	Members fleetMembersCmd `cmd:"" help:"List the fleet's members: reachable or not, and when each was last seen."`
	Call    fleetCallCmd    `cmd:"" help:"Call a socket method on a fleet member through this server (its fleet.allow decides)."`
	Events  fleetEventsCmd  `cmd:"" help:"Print every member's events from the fleet's stream, after a cursor per host."`
	Token   fleetTokenCmd   `cmd:"" help:"On the hub: issue, rotate or revoke a member's credential, good for that host alone."`
}

type fleetTokenCmd struct {
	Host   string `arg:"" help:"The member's fleet.host: the only host the token may act as."`
	Rotate bool   `help:"Issue a new token for the host and revoke its older ones."`
	Revoke bool   `help:"Revoke the host's tokens and drop its connections; issue none."`
}

// Run implements `orcr fleet token` (docs/cli.md §5.41, docs/fleet.md §3.1): the token
// is printed once, on stdout alone, so it can be captured into the member's token file;
// how to use it goes to stderr.
func (c *fleetTokenCmd) Run(a *app) error {
	req := api.FleetTokenRequest{Host: c.Host, Rotate: c.Rotate, Revoke: c.Revoke}
	return request(a, api.FleetToken, req, func(r api.FleetTokenResult) error {
		if r.Token == nil {
			a.stdout("%d fleet token(s) of %s revoked", r.Revoked, r.Host)
			return nil
		}
		a.stdout("%s", *r.Token)
		a.stderr("fleet credential of member %s, shown once: put it in a file of mode 0600 named by that member's fleet.token_file, e.g. (umask 077; orcr fleet token %s > %s.token)%s",
			r.Host, r.Host, r.Host, revokedNote(r.Revoked))
		return nil
	})
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

type fleetEventsCmd struct {
	Since  []string `help:"Start after this seq of a host, <host>=<seq> (repeatable); a host not named starts at its oldest event." placeholder:"HOST=SEQ"`
	Host   []string `help:"Only this host's events (repeatable; default every host)."`
	Limit  int      `help:"At most this many events a read (default 500, at most 10000)."`
	Follow bool     `short:"f" help:"Keep printing the events the members commit, until interrupted."`
}

// fleetFollowWait is how long one read of `fleet events --follow` waits for an event.
const fleetFollowWait = 20 * time.Second

// Run implements `orcr fleet events` (docs/cli.md §5.40): the events after the cursors,
// one line each (with --json the result; with --follow one JSON object an event), and
// with more than the limit on stderr the --since that reads on.
func (c *fleetEventsCmd) Run(a *app) error {
	req := api.FleetEventsRequest{Hosts: c.Host, Limit: c.Limit, Since: map[string]int64{}}
	for _, s := range c.Since {
		host, seq, ok := strings.Cut(s, "=")
		n, err := strconv.ParseInt(seq, 10, 64)
		if !ok || err != nil || n < 0 {
			return wire.Invalid(wire.ReasonCLIParse, fmt.Sprintf("--since %q is not <host>=<seq>, e.g. --since web=120", s), "value", s)
		}
		req.Since[host] = n
	}
	emit := func(e api.FleetEvent) {
		if a.json {
			a.writeJSONLine(e)
		} else {
			fmt.Fprintln(a.env.Stdout, fleetEventLine(e))
		}
	}
	if !c.Follow {
		return request(a, api.FleetEvents, req, func(r api.FleetEventsResult) error {
			for _, e := range r.Events {
				emit(e)
			}
			if r.More {
				a.stderr("more events: read on with %s", sinceFlags(r.Cursors))
			}
			return nil
		})
	}
	req.WaitMS = fleetFollowWait.Milliseconds()
	for a.ctx.Err() == nil {
		r, _, err := invoke(a, api.FleetEvents, req)
		if a.ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range r.Events {
			emit(e)
		}
		req.Since = r.Cursors
	}
	return nil
}

// fleetEventLine is one event of `fleet events`: `<host>:<seq>  <time>  <kind>` and what
// it is about (an agent's path, its status).
func fleetEventLine(e api.FleetEvent) string {
	var ev struct {
		Kind   string `json:"kind"`
		Path   string `json:"path"`
		Status string `json:"status"`
		Agent  struct {
			Path string `json:"path"`
		} `json:"agent"`
	}
	_ = json.Unmarshal(e.Event, &ev)
	line := fmt.Sprintf("%s:%d  %s  %s", e.Host, e.Seq, time.UnixMilli(e.TS).Format("15:04:05"), ev.Kind)
	for _, w := range []string{cmp.Or(ev.Path, ev.Agent.Path), ev.Status} {
		if w != "" {
			line += "  " + w
		}
	}
	return line
}

// sinceFlags are the --since flags that read on from cursors, by host.
func sinceFlags(cursors map[string]int64) string {
	var out []string
	for _, h := range slices.Sorted(maps.Keys(cursors)) {
		out = append(out, fmt.Sprintf("--since %s=%d", h, cursors[h]))
	}
	return strings.Join(out, " ")
}
