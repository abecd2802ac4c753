package top

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// fleetEvery is how often `orcr top --fleet` reads the other members' agents through
// its own server (docs/top.md §7): fleet.members, then one fleet.call agent.ls per
// member that answered its probe.
const fleetEvery = 2 * time.Second

// Bounds of one round: fleet.members probes every member (up to 3 s each, at once),
// and an agent.ls over the fleet gets the member's 10 s and the way back.
const (
	membersBound  = 8 * time.Second
	memberLsBound = 12 * time.Second
)

// Remote is what top knows of another member of the fleet: whether it answered this
// round, why not, when it last wrote its view (ms) and its agents as top last read
// them (At: when; zero when never).
type Remote struct {
	Host      string
	Reachable bool
	Err       string
	LastSeen  *int64
	Rows      []api.AgentRow
	At        time.Time
}

// fleetMsg is one round of the fleet reader: every member but this server, by host.
// Err is set when the round itself failed (fleet.members did not answer).
type fleetMsg struct {
	hosts []Remote
	err   error
}

// FeedFleet reads the other members of cl's fleet into send every fleetEvery until
// ctx ends. A member that did not answer keeps no rows here: the model keeps the last
// ones it had (docs/top.md §7).
func FeedFleet(ctx context.Context, cl *socketapi.Client, send func(tea.Msg)) {
	t := time.NewTicker(fleetEvery)
	defer t.Stop()
	for {
		send(readFleet(ctx, cl))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// readFleet is one round: fleet.members, then agent.ls on every reachable member at
// once.
func readFleet(ctx context.Context, cl *socketapi.Client) fleetMsg {
	mctx, cancel := context.WithTimeout(ctx, membersBound)
	mem, err := socketapi.Invoke(mctx, cl, api.FleetMembers, api.NoParams{})
	cancel()
	if err != nil {
		return fleetMsg{err: err}
	}
	var (
		mu    sync.Mutex
		hosts []Remote
		wg    sync.WaitGroup
	)
	for _, m := range mem.Members {
		if m.Self {
			continue
		}
		r := Remote{Host: m.Host, Reachable: m.Reachable, LastSeen: m.LastSeen}
		if m.Error != nil {
			r.Err = m.Error.Message
		}
		wg.Go(func() {
			if r.Reachable {
				r.Rows, r.Err, r.Reachable = remoteLs(ctx, cl, r.Host)
				if r.Reachable {
					r.At = time.Now()
				}
			}
			mu.Lock()
			hosts = append(hosts, r)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.SortFunc(hosts, func(a, b Remote) int { return cmp.Compare(a.Host, b.Host) })
	return fleetMsg{hosts: hosts}
}

// remoteLs is agent.ls on host through the local server; a failure says why and leaves
// the host unreachable for this round.
func remoteLs(ctx context.Context, cl *socketapi.Client, host string) ([]api.AgentRow, string, bool) {
	var ls api.LsResult
	if err := fleetCall(ctx, cl, host, api.AgentLs.Name, api.LsRequest{}, &ls, memberLsBound); err != nil {
		return nil, shortErr(err), false
	}
	return ls.Agents, "", true
}

// fleetCall calls method on member host through cl's server (fleet.call,
// docs/fleet.md §4.6) and decodes the member's result into out; bound 0 leaves ctx's
// own deadline.
func fleetCall(ctx context.Context, cl *socketapi.Client, host, method string, params, out any, bound time.Duration) error {
	if bound > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, bound)
		defer cancel()
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var p api.Open
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	res, err := socketapi.Invoke(ctx, cl, api.FleetCall, api.FleetCallRequest{Host: host, Method: method, Params: p})
	if err != nil {
		return err
	}
	b, err := json.Marshal(res.Result)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// onHost calls m with req on member host through cl's server (fleet.call), or with
// local on cl's own server when host is "".
func onHost[Req, Res any](ctx context.Context, cl *socketapi.Client, host string, m *api.Method[Req, Res], req Req,
	local func(context.Context, Req) (Res, error)) (Res, error) {
	if host == "" {
		return local(ctx, req)
	}
	var r Res
	return r, fleetCall(ctx, cl, host, m.Name, req, &r, 0)
}

// graftRemote puts each remote host's agents under a node of its own, after t's roots:
// the host node "<host>:" (KindHost), its agents built as [Build] builds local ones
// (under opts), every node below keyed "<host>:<id>" and carrying the host.
func graftRemote(t *Tree, remotes []Remote, opts Options) {
	for _, r := range remotes {
		sub := Build(api.Snapshot{Agents: r.Rows}, opts)
		h := &Node{Kind: KindHost, Key: r.Host, ID: r.Host + ":", Host: r.Host, Remote: &r}
		t.byID[h.ID] = h
		var walk func(n, parent *Node)
		walk = func(n, parent *Node) {
			n.ID, n.Host, n.Parent = r.Host+":"+n.ID, r.Host, parent
			t.byID[n.ID] = n
			for _, c := range n.Children {
				walk(c, n)
			}
		}
		for _, n := range sub.Roots {
			walk(n, h)
		}
		h.Children = sub.Roots
		count([]*Node{h})
		t.Agents += h.Agents
		t.Blocked += h.Blocked
		t.Roots = append(t.Roots, h)
	}
}
