package cli

import (
	"fmt"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// fleetKillRef is an agent a kill across hosts killed or skipped, with its host and
// `<host>:<path>`.
type fleetKillRef struct {
	api.KillRef
	Host   string `json:"host"`
	Target string `json:"target"`
}

// fleetKillHost is how one host's part of a kill across hosts ended: answered (its
// agents are among killed and skipped) or failed (error: the member did not answer, or
// its fleet.allow refuses agent.kill).
type fleetKillHost struct {
	Host    string      `json:"host"`
	State   string      `json:"state"`
	Targets []string    `json:"targets"`
	Error   *wire.Error `json:"error,omitempty"`
}

// fleetKillResult is the --json result of a kill across hosts (docs/fleet.md §4.2).
type fleetKillResult struct {
	Killed    []fleetKillRef  `json:"killed"`
	Skipped   []fleetKillRef  `json:"skipped"`
	AllKilled bool            `json:"all_killed"`
	Hosts     []fleetKillHost `json:"hosts"`
}

// killAcross is `agent kill` with targets on several hosts: one agent.kill per host, one
// after the other, after one confirmation over all of them; a host that fails does not
// stop the others. Every host's outcome is printed; the exit code is the first failed
// host's error's, else kill's own (7 when nothing was killed and something skipped).
func (c *agentKillCmd) killAcross(a *app, groups []hostTargets) error {
	if a.confirms(c.Yes) {
		var n int
		a.stderr("Matched agent(s):")
		for _, g := range groups {
			pv, _, err := invokeAt(a, g.host, api.AgentKill, api.KillRequest{Targets: g.targets, Force: c.Force, Preview: true})
			if err != nil {
				return err
			}
			for _, t := range pv.Targets {
				a.stderr("  %s [%s]", qualify(g.host, t.Path), t.Status)
			}
			n += len(pv.Targets)
		}
		if !a.ask(fmt.Sprintf("Kill these %d agent(s)?", n)) {
			return nil
		}
	}
	a.progress = "killed"
	out := fleetKillResult{Killed: []fleetKillRef{}, Skipped: []fleetKillRef{}, AllKilled: true}
	var failed *wire.Error
	for _, g := range groups {
		h := fleetKillHost{Host: g.host, State: "answered", Targets: g.targets}
		r, _, err := invokeAt(a, g.host, api.AgentKill, api.KillRequest{Targets: g.targets, Force: c.Force})
		if err != nil {
			h.State, out.AllKilled = "failed", false
			if h.Error, _ = wire.As(err); h.Error == nil {
				h.Error = wire.Internal(wire.CauseDecode, err.Error())
			}
			if failed == nil {
				failed = h.Error
			}
		}
		out.Hosts = append(out.Hosts, h)
		for _, k := range r.Killed {
			out.Killed = append(out.Killed, fleetKillRef{KillRef: k, Host: g.host, Target: qualify(g.host, k.Path)})
		}
		for _, s := range r.Skipped {
			out.Skipped = append(out.Skipped, fleetKillRef{KillRef: s, Host: g.host, Target: qualify(g.host, s.Path)})
			out.AllKilled = false
		}
	}
	if a.json {
		a.printOKValue(out)
	} else {
		for _, k := range out.Killed {
			a.stdout("killed %s", k.Target)
		}
		for _, s := range out.Skipped {
			a.stdout("skipped %s (%s)", s.Target, s.Reason)
		}
		for _, h := range out.Hosts {
			if h.Error != nil {
				a.stderr("agent kill: %s: %s", hostName(h.Host), h.Error.Message)
			}
		}
		if len(out.Killed) == 0 && len(out.Skipped) == 0 && failed == nil {
			a.stdout("no agents killed")
		}
	}
	switch {
	case failed != nil:
		return &ExitError{Code: failed.Code.Exit()}
	case len(out.Killed) == 0 && len(out.Skipped) > 0:
		return &ExitError{Code: 7}
	}
	return nil
}

// hostName is host as a line names it: "(local)" for this host's own server.
func hostName(host string) string {
	if host == "" {
		return "(local)"
	}
	return host
}
