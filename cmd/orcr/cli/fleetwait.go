package cli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// waitOn is agent.wait on host ("" the local server, resumed across its restarts with
// what is left of the timeout; another host over the fleet) within ctx.
func waitOn(ctx context.Context, a *app, host string, req api.WaitRequest) (api.WaitResult, json.RawMessage, error) {
	if host != "" {
		return invokeFleet(ctx, a, host, api.AgentWait, req)
	}
	start := time.Now()
	return invokeResumingCtx(ctx, a, api.AgentWait, func(attempt int) api.WaitRequest {
		if attempt > 0 {
			again := req
			again.Timeout = socketapi.Remaining(req.Timeout, time.Since(start)) // the rest of its own timeout
			return again
		}
		return req
	})
}

// fleetWaitTarget is one target of a wait across hosts: the member's own entry, with
// its host and `<host>:<path>`.
type fleetWaitTarget struct {
	api.WaitTarget
	Host   string `json:"host"`
	Target string `json:"target"`
}

// fleetWaitHost is how one host's part of a wait across hosts ended: answered (its own
// result is in targets), pending (not settled when another host's target settled an any
// wait; its wait was called off) or failed (error, e.g. fleet_unreachable).
type fleetWaitHost struct {
	Host        string      `json:"host"`
	State       string      `json:"state"`
	Targets     []string    `json:"targets"`
	DecisionSeq int64       `json:"decision_seq,omitempty"`
	Error       *wire.Error `json:"error,omitempty"`
}

// fleetWaitResult is the --json result of a wait across hosts (docs/fleet.md §4.5).
type fleetWaitResult struct {
	Targets      []fleetWaitTarget `json:"targets"`
	AllOK        bool              `json:"all_ok"`
	TimedOut     bool              `json:"timed_out"`
	FirstSettled string            `json:"first_settled,omitempty"`
	Hosts        []fleetWaitHost   `json:"hosts"`
}

// hostTargets is the targets of one call on one host ("": local), unqualified.
type hostTargets struct {
	host    string
	targets []string
}

// byHost groups targets by their host, in the order the hosts first appear.
func byHost(targets []string) []hostTargets {
	var out []hostTargets
	for _, t := range targets {
		h, rest := splitHost(t)
		i := slices.IndexFunc(out, func(g hostTargets) bool { return g.host == h })
		if i < 0 {
			out = append(out, hostTargets{host: h})
			i = len(out) - 1
		}
		out[i].targets = append(out[i].targets, rest)
	}
	return out
}

// waitAcross is `agent wait` with targets on several hosts (docs/fleet.md §4.5): one
// agent.wait per host at once, each with the whole timeout. Without --any it answers
// when every host has, and one host's error ends it with that error. With --any the
// first host whose wait settled on a target decides, and the others' waits are called
// off (their targets pending); a host that fails meanwhile is said on stderr and the
// rest still count.
func (c *agentWaitCmd) waitAcross(a *app, groups []hostTargets) (fleetWaitResult, api.WaitResult, error) {
	fm, err := a.fleetMember() // dialed once, before the calls share it
	if err != nil {
		return fleetWaitResult{}, api.WaitResult{}, err
	}
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	type answer struct {
		i   int
		res api.WaitResult
		err error
	}
	answers := make(chan answer, len(groups))
	for i, g := range groups {
		req := api.WaitRequest{Targets: g.targets, Timeout: c.Timeout, Any: c.Any}
		go func() {
			res, _, err := waitOn(ctx, a, g.host, req)
			answers <- answer{i, res, err}
		}()
	}
	hosts := make([]fleetWaitHost, len(groups))
	results := make([]*api.WaitResult, len(groups))
	for i, g := range groups {
		name := g.host
		if name == "" {
			name = fm.Host
		}
		hosts[i] = fleetWaitHost{Host: name, State: "pending", Targets: g.targets}
	}
	decided, winner := false, -1
	var failed error
	for range groups { // every call returns (the called-off ones soon): none outlives the verb
		ans := <-answers
		if decided {
			continue
		}
		h := &hosts[ans.i]
		if ans.err != nil {
			h.State = "failed"
			h.Error, _ = wire.As(ans.err)
			if h.Error == nil {
				h.Error = wire.Internal(wire.CauseDecode, ans.err.Error())
			}
			if !c.Any {
				failed, decided = ans.err, true
				cancel()
			} else {
				a.stderr("agent wait: %s did not answer the wait: %s", h.Host, h.Error.Message)
			}
			continue
		}
		h.State, h.DecisionSeq = "answered", ans.res.DecisionSeq
		results[ans.i] = &ans.res
		if c.Any && ans.res.FirstSettled != "" {
			winner, decided = ans.i, true
			cancel()
		}
	}
	if failed != nil {
		return fleetWaitResult{}, api.WaitResult{}, failed
	}
	out := fleetWaitResult{Hosts: hosts, AllOK: true}
	answered := 0
	for i, r := range results {
		if r == nil {
			out.AllOK = false
			continue
		}
		answered++
		out.AllOK = out.AllOK && r.AllOK
		out.TimedOut = out.TimedOut || r.TimedOut
		for _, t := range r.Targets {
			out.Targets = append(out.Targets, fleetWaitTarget{WaitTarget: t, Host: hosts[i].Host, Target: qualify(hosts[i].Host, t.Path)})
		}
	}
	if answered == 0 { // --any, and no host answered: the first host's error
		for _, h := range hosts {
			if h.Error != nil {
				return fleetWaitResult{}, api.WaitResult{}, h.Error
			}
		}
	}
	if winner >= 0 {
		out.FirstSettled = results[winner].FirstSettled
		out.TimedOut = false
	} else if c.Any {
		out.TimedOut = true // nobody settled: every host that answered timed out
	}
	plain := api.WaitResult{AllOK: out.AllOK, TimedOut: out.TimedOut, FirstSettled: out.FirstSettled}
	for _, t := range out.Targets {
		plain.Targets = append(plain.Targets, t.WaitTarget)
	}
	return out, plain, nil
}

// waitAcrossLines is the human output of a wait across hosts: `<host>:<path>  <reason>`
// per target, the one an any wait settled on first, then by host and path; the targets
// of a host whose wait was called off show as pending, those of one that failed with
// its error's cause (fleet_unreachable).
func waitAcrossLines(r fleetWaitResult) []string {
	targets := slices.Clone(r.Targets)
	slices.SortStableFunc(targets, func(x, y fleetWaitTarget) int {
		xf, yf := r.FirstSettled != "" && x.UUID == r.FirstSettled, r.FirstSettled != "" && y.UUID == r.FirstSettled
		if xf != yf {
			if xf {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Target, y.Target)
	})
	var out []string
	for _, t := range targets {
		out = append(out, t.Target+"  "+t.Reason)
	}
	for _, h := range r.Hosts {
		reason := "pending"
		switch {
		case h.State == "answered":
			continue
		case h.Error != nil && h.Error.Cause() != "":
			reason = h.Error.Cause()
		case h.Error != nil:
			reason = string(h.Error.Code)
		}
		for _, t := range h.Targets {
			out = append(out, qualify(h.Host, t)+"  "+reason)
		}
	}
	return out
}
