package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/store/agentpath"
)

// fleetCallTimeout is how long `--fleet` waits for each member: one that has not
// answered by then is shown unreachable (docs/fleet.md §4).
const fleetCallTimeout = 3 * time.Second

// fleetSeenTimeout bounds the read of the last-seen views of the members that did not
// answer.
const fleetSeenTimeout = 2 * time.Second

// fleetAgent is one row of `agent ls --fleet --json`: the agent row with its host and
// its host-qualified target `<host>:<path>`; stale when the member did not answer and
// the row is its last view (docs/fleet.md §4.4).
type fleetAgent struct {
	api.AgentRow
	Host   string `json:"host"`
	Target string `json:"target"`
	Stale  bool   `json:"stale,omitempty"`
}

// fleetHost is one member's line of `agent ls --fleet --json`. LastSeen is when an
// unreachable member last wrote its view (ms; absent when it never did).
type fleetHost struct {
	Host      string      `json:"host"`
	Reachable bool        `json:"reachable"`
	Error     *wire.Error `json:"error,omitempty"`
	LastSeen  *int64      `json:"last_seen,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
}

type fleetLsResult struct {
	Hosts  []fleetHost  `json:"hosts"`
	Agents []fleetAgent `json:"agents"`
}

// dialFleet joins the fleet of this home's config as a client: at fleet.url with the
// member's credential, or, on the hub, at the address and with the token the hub wrote
// under <home>/fleet.
func (a *app) dialFleet() (*fleet.Member, error) {
	home, cfg, err := a.prepareHomeConfig()
	if err != nil {
		return nil, err
	}
	f := cfg.Fleet
	if !f.On {
		return nil, wire.Env(wire.CauseConfigInvalid, "--fleet needs a `fleet` section in config.json (docs/fleet.md §2)")
	}
	url, token := f.URL, ""
	if f.Hub != nil {
		dir := filepath.Join(home, config.FleetDirName)
		b, err := os.ReadFile(filepath.Join(dir, fleet.HubURLName))
		if err != nil {
			return nil, wire.Env(wire.CauseFleetUnreachable, "the fleet hub of this home has not started: "+err.Error())
		}
		url = strings.TrimSpace(string(b))
		if token, err = fleet.ReadToken(filepath.Join(dir, fleet.HubTokenName)); err != nil {
			return nil, err
		}
	}
	return fleet.Dial(f, url, token)
}

// runFleet is `orcr agent ls --fleet`: agent.ls on every member at once, a HOST column
// before the table, and a line per member that did not answer in time, with its last
// view of its agents (as it was then, never as lost) when it wrote one.
func (c *agentLsCmd) runFleet(a *app, req api.LsRequest) error {
	m, err := a.dialFleet()
	if err != nil {
		return err
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(a.ctx, fleetCallTimeout)
	defer cancel()
	replies, err := m.CallAll(ctx, api.AgentLs.Name, req)
	if err != nil {
		return err
	}
	res := fleetLsResult{Hosts: []fleetHost{}, Agents: []fleetAgent{}}
	var rows []api.AgentRow
	var hosts []string
	add := func(host string, ls []api.AgentRow, stale bool) {
		column := host // the HOST column marks a last view's rows with `*`
		if stale {
			column += "*"
		}
		for _, row := range ls {
			res.Agents = append(res.Agents, fleetAgent{AgentRow: row, Host: host, Target: host + ":" + row.Path, Stale: stale})
			rows = append(rows, row)
			hosts = append(hosts, column)
		}
	}
	for _, r := range replies {
		h := fleetHost{Host: r.Host, Reachable: !r.Unreachable(), Error: r.Err}
		if !h.Reachable {
			if seen := lastSeen(a.ctx, m, r.Host, req); seen != nil {
				at := seen.At.UnixMilli()
				h.LastSeen, h.Truncated = &at, seen.Truncated
				add(r.Host, seen.Agents, true)
			}
		}
		res.Hosts = append(res.Hosts, h)
		if r.Err != nil {
			continue
		}
		var ls api.LsResult
		if err := json.Unmarshal(r.Result, &ls); err != nil {
			return wire.Internal(wire.CauseDecode, "agent.ls of "+r.Host+": "+err.Error())
		}
		add(r.Host, ls.Agents, false)
	}
	if a.json {
		a.printOKValue(res)
		return nil
	}
	_, err = io.WriteString(a.env.Stdout, renderFleetLs(rows, hosts, res.Hosts, time.Now()))
	return err
}

// lastSeen is host's last view of its agents, filtered as req asks for (nil when it
// wrote none or it cannot be read: the member is then shown without agents).
func lastSeen(ctx context.Context, m *fleet.Member, host string, req api.LsRequest) *fleet.Seen {
	ctx, cancel := context.WithTimeout(ctx, fleetSeenTimeout)
	defer cancel()
	seen, err := m.LastSeen(ctx, host)
	if err != nil || seen == nil {
		return nil
	}
	// agent.ls's own predicate; a pattern that is no selector is a uuid or its prefix.
	f, err := agentpath.CompileFilter("", agentpath.ListFilter{Pattern: req.Pattern, Agent: req.Agent, Status: req.Status,
		Managed: req.Managed, Unmanaged: req.Unmanaged, All: req.All})
	if err != nil {
		f, _ = agentpath.CompileFilter("", agentpath.ListFilter{Agent: req.Agent, Status: req.Status, Managed: req.Managed,
			Unmanaged: req.Unmanaged, All: req.All})
	}
	kept := seen.Agents[:0]
	for _, row := range seen.Agents {
		if f.Keep(row) && (err == nil || strings.HasPrefix(row.UUID, req.Pattern)) {
			kept = append(kept, row)
		}
	}
	seen.Agents = kept
	return seen
}

// renderFleetLs is the `agent ls --fleet` table: HOST (the widest host name) before the
// `agent ls` columns, then one line per member that did not answer. The rows of such a
// member are its last view, their host marked `*`.
func renderFleetLs(rows []api.AgentRow, hosts []string, members []fleetHost, now time.Time) string {
	width := len("HOST")
	for _, h := range hosts {
		width = max(width, len(h))
	}
	for _, m := range members {
		width = max(width, len(m.Host))
	}
	var b strings.Builder
	if len(rows) == 0 {
		b.WriteString("no agents\n")
	} else {
		lines := strings.Split(strings.TrimSuffix(renderLs(rows, nil, now), "\n"), "\n")
		fmt.Fprintf(&b, "%-*s %s\n", width, "HOST", lines[0])
		for i, l := range lines[1:] {
			fmt.Fprintf(&b, "%-*s %s\n", width, hosts[i], l)
		}
	}
	for _, m := range members {
		switch {
		case !m.Reachable && m.LastSeen != nil:
			fmt.Fprintf(&b, "%-*s unreachable: %s; last seen %s ago, its agents (%s*) as they were then\n", width, m.Host,
				m.Error.Message, formatAge(now.Sub(time.UnixMilli(*m.LastSeen))), m.Host)
		case !m.Reachable:
			fmt.Fprintf(&b, "%-*s unreachable: %s\n", width, m.Host, m.Error.Message)
		case m.Error != nil:
			fmt.Fprintf(&b, "%-*s error: %s\n", width, m.Host, m.Error.Message)
		}
	}
	return b.String()
}
