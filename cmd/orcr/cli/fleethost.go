package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/fleet"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
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

// targetsHost strips the host qualifier of targets: the one host they name ("" when
// every target is a plain, local path) and the targets without it. Targets on more than
// one host, or a host beside a plain path, are refused in this slice.
func targetsHost(targets []string) (string, []string, error) {
	var hosts []string
	out := make([]string, len(targets))
	for i, t := range targets {
		h, rest := splitHost(t)
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
		out[i] = rest
	}
	if len(hosts) > 1 {
		named := slices.Clone(hosts)
		for i, h := range named {
			if h == "" {
				named[i] = "(local)"
			}
		}
		return "", nil, wire.Invalid(wire.ReasonFleetMixedHosts,
			"the targets of one call must all be on one host: "+strings.Join(named, ", "), "hosts", named)
	}
	if len(hosts) == 0 {
		return "", out, nil
	}
	return hosts[0], out, nil
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
	var zero Res
	if host == "" {
		return invoke(a, m, req)
	}
	fm, err := a.fleetMember()
	if err != nil {
		return zero, nil, err
	}
	ctx, cancel := a.ctx, context.CancelFunc(func() {})
	if !m.Unbounded {
		ctx, cancel = context.WithTimeout(a.ctx, fleetVerbTimeout)
	}
	defer cancel()
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

// placeRun picks the member `agent run --host any` runs on (docs/fleet.md §4.3).
func placeRun(a *app, provider string) (string, error) {
	return "", wire.Invalid(wire.ReasonNotImplemented, "agent run --host any is not implemented yet")
}
