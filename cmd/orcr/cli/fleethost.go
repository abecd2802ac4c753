package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
)

// fleetVerbTimeout bounds a bounded verb's call on another host once the member answered
// the probe (fleet.PingTimeout): the member's own 10 s for the call and the way back
// (docs/fleet.md §4.2). agent.wait and agent.ask are bounded by their own timeout.
const fleetVerbTimeout = 15 * time.Second

// splitHost splits a host-qualified target `<host>:<rest>` (docs/fleet.md §4.2). A
// target whose part before the first ':' is no host name is local, whole: no path,
// pattern or uuid holds a ':'.
func splitHost(target string) (host, rest string) {
	h, r, ok := strings.Cut(target, ":")
	if !ok || !config.ValidHost(h) {
		return "", target
	}
	return h, r
}

// qualify is path as the human output shows it: `<host>:<path>` for another host.
func qualify(host, path string) string {
	if host == "" {
		return path
	}
	return host + ":" + path
}

// fleetMember is the invocation's connection to the fleet, dialed at its first use.
func (a *app) fleetMember() (*fleet.Member, error) {
	if a.fleet == nil {
		m, err := a.dialFleet()
		if err != nil {
			return nil, err
		}
		a.fleet = m
	}
	return a.fleet, nil
}

func (a *app) closeFleet() {
	if a.fleet != nil {
		a.fleet.Close()
		a.fleet = nil
	}
}

// invokeAt is invoke on host: "" is the local server (over its socket, auto-started);
// another host is called over the fleet, after a probe that fails fast when the member is
// gone or hung (environment_error fleet_unreachable), with the member's own envelopes and
// errors. The raw result of another host carries `host` (docs/fleet.md §4.2).
func invokeAt[Req, Res any](a *app, host string, m *api.Method[Req, Res], req Req) (Res, json.RawMessage, error) {
	if host == "" {
		return invoke(a, m, req)
	}
	return invokeFleet(a.ctx, a, host, m, req)
}

// invokeFleet is invokeAt on another host, within ctx.
func invokeFleet[Req, Res any](ctx context.Context, a *app, host string, m *api.Method[Req, Res], req Req) (Res, json.RawMessage, error) {
	var zero Res
	fm, err := a.fleetMember()
	if err != nil {
		return zero, nil, err
	}
	cancel := context.CancelFunc(func() {})
	// A kill goes on while the member reports its progress (docs/fleet.md §4.9), each
	// frame within fleet.ProgressIdle, and shows it on stderr as a local kill does.
	if !m.Unbounded && !api.ReportsProgress(m.Name) {
		ctx, cancel = context.WithTimeout(ctx, fleetVerbTimeout)
	}
	defer cancel()
	if a.progress != "" {
		printer := a.progressPrinter()
		ctx = wire.WithProgress(ctx, func(p wire.Progress) { printer(m.Name, p) })
	}
	raw, werr := fm.CallHost(ctx, host, m.Name, req)
	if werr != nil {
		return zero, nil, werr
	}
	var res Res
	if err := json.Unmarshal(raw, &res); err != nil {
		return zero, nil, wire.Internal(wire.CauseDecode, m.Name+" of "+host+": "+err.Error())
	}
	return res, withHost(raw, host), nil
}

// withHost adds `host` to a result object.
func withHost(raw json.RawMessage, host string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return raw
	}
	obj["host"], _ = json.Marshal(host)
	return bytes.TrimSuffix(marshal(obj), []byte("\n"))
}

// requestAt is request on host (see invokeAt): it prints the result, with --json the
// envelope of the raw result, else human renders the typed result (nil human prints it
// as indented JSON).
func requestAt[Req, Res any](a *app, host string, m *api.Method[Req, Res], req Req, human func(Res) error) error {
	res, raw, err := invokeAt(a, host, m, req)
	if err != nil {
		return err
	}
	if a.json {
		a.printOK(raw)
		return nil
	}
	if human == nil {
		return a.pretty(raw)
	}
	return human(res)
}

// placeTimeout bounds the server.status each member is asked for by `agent run --host
// any`: its herdr probe takes up to 5 s.
const placeTimeout = 6 * time.Second

// placement is one member `agent run --host any` may run on.
type placement struct {
	host string
	free int64
}

// placements asks every member for its slots at once (server.status over the fleet)
// and ranks those that answered and carry every one of labels by their free slots for
// provider ("" : each member's defaults.agent), most first, ties by host name
// (docs/fleet.md §4.3).
func placements(a *app, provider string, labels []string) ([]placement, error) {
	fm, err := a.fleetMember()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(a.ctx, placeTimeout)
	defer cancel()
	replies, err := fm.CallAll(ctx, api.ServerStatus.Name, nil)
	if err != nil {
		return nil, err
	}
	var out []placement
	for _, r := range replies {
		var st api.StatusResult
		if r.Err != nil || json.Unmarshal(r.Result, &st) != nil || !hasLabels(st.Fleet, labels) {
			continue
		}
		out = append(out, placement{host: r.Host, free: st.Slots.FreeFor(provider)})
	}
	slices.SortStableFunc(out, func(x, y placement) int {
		if x.free != y.free {
			return int(y.free - x.free)
		}
		return strings.Compare(x.host, y.host)
	})
	return out, nil
}

// hasLabels reports whether a member's fleet status carries every one of labels.
func hasLabels(f *api.FleetStatus, labels []string) bool {
	for _, l := range labels {
		if f == nil || !slices.Contains(f.Labels, l) {
			return false
		}
	}
	return true
}

// anywhere is `agent run --host any` and `agent ask --host any`: the call goes to the
// member with the most free slots for provider among those carrying labels; a member
// whose fleet.allow refuses the method is passed over for the next. Where it went is
// said on stderr; the raw result names the host.
func anywhere[Req, Res any](a *app, m *api.Method[Req, Res], provider string, labels []string, req Req) (string, Res, json.RawMessage, error) {
	var zero Res
	verb := m.CLI + " --host any"
	places, err := placements(a, provider, labels)
	if err != nil {
		return "", zero, nil, err
	}
	if len(places) == 0 && len(labels) > 0 {
		return "", zero, nil, wire.Env(wire.CauseFleetUnreachable, verb+": no fleet member with the label(s) "+strings.Join(labels, ", ")+
			" answered with its slots", "host", config.FleetAnyHost, "labels", labels)
	}
	if len(places) == 0 {
		return "", zero, nil, wire.Env(wire.CauseFleetUnreachable, verb+": no fleet member answered with its slots", "host", config.FleetAnyHost)
	}
	if provider == "" {
		provider = "its default provider"
	}
	for _, p := range places {
		res, raw, err := invokeAt(a, p.host, m, req)
		if wire.Is(err, wire.InvalidRequest, wire.ReasonFleetNotAllowed) {
			a.stderr("%s: %s does not allow %s over the fleet; trying the next member", verb, p.host, m.Name)
			continue
		}
		if err != nil {
			return "", zero, nil, err
		}
		a.stderr("%s: on %s (%d free slot(s) for %s)", verb, p.host, p.free, provider)
		return p.host, res, raw, nil
	}
	return "", zero, nil, wire.Invalid(wire.ReasonFleetNotAllowed, verb+": no member that answered allows "+m.Name+" over the fleet",
		"method", m.Name, "host", config.FleetAnyHost, "policy", "fleet.allow")
}
