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
	"github.com/orcr-go/orcr/fleet"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// fleetCallTimeout is how long `--fleet` waits for each member: one that has not
// answered by then is shown unreachable (docs/fleet.md §4).
const fleetCallTimeout = 3 * time.Second

// fleetAgent is one row of `agent ls --fleet --json`: the agent row with its host and
// its host-qualified target `<host>:<path>`.
type fleetAgent struct {
	api.AgentRow
	Host   string `json:"host"`
	Target string `json:"target"`
}

// fleetHost is one member's line of `agent ls --fleet --json`.
type fleetHost struct {
	Host      string      `json:"host"`
	Reachable bool        `json:"reachable"`
	Error     *wire.Error `json:"error,omitempty"`
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
// before the table, and a line per member that did not answer in time (its agents are
// not shown, never as lost).
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
	for _, r := range replies {
		h := fleetHost{Host: r.Host, Reachable: !r.Unreachable(), Error: r.Err}
		res.Hosts = append(res.Hosts, h)
		if r.Err != nil {
			continue
		}
		var ls api.LsResult
		if err := json.Unmarshal(r.Result, &ls); err != nil {
			return wire.Internal(wire.CauseDecode, "agent.ls of "+r.Host+": "+err.Error())
		}
		for _, row := range ls.Agents {
			res.Agents = append(res.Agents, fleetAgent{AgentRow: row, Host: r.Host, Target: r.Host + ":" + row.Path})
			rows = append(rows, row)
			hosts = append(hosts, r.Host)
		}
	}
	if a.json {
		a.printOKValue(res)
		return nil
	}
	_, err = io.WriteString(a.env.Stdout, renderFleetLs(rows, hosts, res.Hosts, time.Now()))
	return err
}

// renderFleetLs is the `agent ls --fleet` table: HOST (the widest host name) before the
// `agent ls` columns, then one line per member that did not answer.
func renderFleetLs(rows []api.AgentRow, hosts []string, members []fleetHost, now time.Time) string {
	width := len("HOST")
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
		case !m.Reachable:
			fmt.Fprintf(&b, "%-*s unreachable: %s\n", width, m.Host, m.Error.Message)
		case m.Error != nil:
			fmt.Fprintf(&b, "%-*s error: %s\n", width, m.Host, m.Error.Message)
		}
	}
	return b.String()
}
