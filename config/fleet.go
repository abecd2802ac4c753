package config

import (
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FleetDirName is the fleet's directory under the home: the hub's credential, its
// JetStream store and the member's publish cursor (docs/fleet.md §2).
const FleetDirName = "fleet"

// FleetReadVerbs are the read verbs a member may answer over the fleet: they change
// nothing on it (docs/fleet.md §4). They are fleet.allow's default.
var FleetReadVerbs = []string{"server.status", "api.snapshot", "agent.ls", "agent.logs", "agent.wait",
	"loop.ls", "loop.logs", "loop.run.ls", "usage.report", "budget.ls", "provider.ls"}

// FleetWriteVerbs are the verbs that act on a member, which fleet.allow names to let a
// fleet caller call them (docs/fleet.md §4): run an agent, send it a prompt, kill it,
// ask one, and extend a budget (the approve of a budget pause). Attach, adopt, tokens
// and logins are local to a host and never served over the fleet.
var FleetWriteVerbs = []string{"agent.run", "agent.send", "agent.kill", "agent.ask", "budget.extend"}

// DefaultFleetAllow is fleet.allow's default: the read verbs (docs/fleet.md §4).
var DefaultFleetAllow = FleetReadVerbs

// FleetServable reports whether fleet.allow may name method (docs/fleet.md §4).
func FleetServable(method string) bool {
	return slices.Contains(FleetReadVerbs, method) || slices.Contains(FleetWriteVerbs, method) || method == FleetAttachVerb
}

// fleetVerbsWant is what an item of fleet.allow must be, in its refusals.
func fleetVerbsWant() string {
	return "a method served over the fleet: one of " + strings.Join(slices.Concat(FleetReadVerbs, FleetWriteVerbs, []string{FleetAttachVerb}), ", ")
}

// FleetAttachVerb is the name fleet.allow gives `orcr agent attach <host>:<path>`: the
// member runs herdr's attach for the caller and relays the terminal (docs/fleet.md
// §4.10). Not a method of the table: the attach has subjects of its own.
const FleetAttachVerb = "agent.attach"

var (
	fleetKeys    = []string{"host", "url", "creds", "nkey", "token_file", "ca", "cert", "key", "hub", "allow", "allow_from", "labels", "default_host", "caps", "lease_ttl"}
	fleetHubKeys = []string{"listen", "cert", "key", "ca"}
)

// hostRe is a fleet host name: a DNS label of lowercase letters, digits and '-' (a NATS
// subject token, and a prefix of `<host>:<path>`).
var hostRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// FleetAnyHost is the host of `agent run --host any`, placing the run on the member with
// the most free slots (docs/fleet.md §4.3); no member may take it as its name.
const FleetAnyHost = "any"

// ValidHost reports whether h is a valid fleet host name (docs/fleet.md §2).
func ValidHost(h string) bool { return hostRe.MatchString(h) }

// Fleet is the `fleet` section (docs/fleet.md §2). It is off unless the section is
// present; then exactly one of URL and Hub is set.
type Fleet struct {
	On   bool
	Host string // this member's name in the fleet
	// URL is an existing NATS server or cluster ("nats://…" or "tls://…").
	URL string
	// The member's credential: one of a NATS .creds file, an nkey seed file or a file
	// holding a token (the hub's generated one, docs/fleet.md §3).
	Creds, NKey, TokenFile string
	// CA, Cert, Key: TLS to the NATS server (CA to trust; Cert and Key for mutual TLS).
	CA, Cert, Key string
	Hub           *FleetHub // nil: a member of a fleet served elsewhere
	// Allow is the methods a fleet caller may call on this member.
	Allow []string
	// AllowFrom replaces Allow for the callers it names: caller host → the methods
	// that caller may call (docs/fleet.md §4.1). The caller is the host a call comes
	// from, which the hub binds to the member's credential (docs/fleet.md §3.1).
	AllowFrom map[string][]string
	// Labels name what this member offers (e.g. gpu): `agent run --host any --label gpu`
	// places only on members that carry every label asked for (docs/fleet.md §4.3).
	Labels []string
	// DefaultHost is where this home's `agent run` and `agent ask` go without --host:
	// "" (this host), a member's host, or any (docs/fleet.md §4.3).
	DefaultHost string
	// Caps are fleet-wide provider caps (per account, not per host): a member starts a
	// capped provider's agent only while it holds a lease for its slot in the fleet's
	// ORCR_LEASES bucket, on top of its own caps (docs/fleet.md §4.7). Empty: none.
	Caps map[string]int
	// LeaseTTL is how long a lease outlives its holder's last renewal (renewed every
	// third of it): the time a dead member's slots stay taken.
	LeaseTTL time.Duration
}

// DefaultLeaseTTL is fleet.lease_ttl's default (docs/fleet.md §4.7).
const DefaultLeaseTTL = 30 * time.Second

// MinLeaseTTL is fleet.lease_ttl's floor: renewals every third of it must fit a round
// trip to the hub.
const MinLeaseTTL = time.Second

// FleetHub is `fleet.hub`: this orcr embeds the fleet's NATS server.
type FleetHub struct {
	Listen        string // host:port
	Cert, Key, CA string // TLS of the listener; required off loopback
}

func (l *loader) fleet(obj map[string]any) error {
	l.unknown("fleet", obj, fleetKeys)
	f := &l.cfg.Fleet
	f.On = true
	for _, s := range []struct {
		key string
		dst *string
	}{{"host", &f.Host}, {"url", &f.URL}, {"creds", &f.Creds}, {"nkey", &f.NKey}, {"token_file", &f.TokenFile},
		{"ca", &f.CA}, {"cert", &f.Cert}, {"key", &f.Key}, {"default_host", &f.DefaultHost}} {
		v, ok, err := stringKey(obj, s.key, "fleet."+s.key)
		if err != nil {
			return err
		}
		if ok {
			*s.dst = v
		}
	}
	if v, ok := obj["hub"]; ok {
		hobj, err := object(v, "fleet.hub")
		if err != nil {
			return err
		}
		l.unknown("fleet.hub", hobj, fleetHubKeys)
		h := &FleetHub{}
		for _, s := range []struct {
			key string
			dst *string
		}{{"listen", &h.Listen}, {"cert", &h.Cert}, {"key", &h.Key}, {"ca", &h.CA}} {
			v, ok, err := stringKey(hobj, s.key, "fleet.hub."+s.key)
			if err != nil {
				return err
			}
			if ok {
				*s.dst = v
			}
		}
		f.Hub = h
	}
	var err error
	if f.Allow, err = stringSet(obj, "allow", "fleet.allow", "method names", func(s string) bool { return FleetServable(s) },
		fleetVerbsWant()); err != nil {
		return err
	}
	if f.AllowFrom, err = fleetAllowFrom(obj); err != nil {
		return err
	}
	if f.Labels, err = stringSet(obj, "labels", "fleet.labels", "labels", ValidHost, "a label: lowercase letters, digits and '-', at most 63"); err != nil {
		return err
	}
	if f.Caps, err = fleetCaps(obj); err != nil {
		return err
	}
	f.LeaseTTL = DefaultLeaseTTL
	if d, ok, err := durationKey(obj, "lease_ttl", "fleet.lease_ttl"); err != nil {
		return err
	} else if ok {
		if d < MinLeaseTTL {
			return invalid("`fleet.lease_ttl` must be at least 1s")
		}
		f.LeaseTTL = d
	}
	return f.check()
}

// fleetAllowFrom reads fleet.allow_from: caller host → the methods it may call, each
// list checked like fleet.allow (nil when absent).
func fleetAllowFrom(obj map[string]any) (map[string][]string, error) {
	v, ok := obj["allow_from"]
	if !ok {
		return nil, nil
	}
	aobj, err := object(v, "fleet.allow_from")
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, h := range sortedKeys(aobj) {
		if !ValidHost(h) {
			return nil, invalid("`fleet.allow_from." + h + "` does not name a host (lowercase letters, digits and '-', at most 63)")
		}
		methods, err := stringSet(aobj, h, "fleet.allow_from."+h, "method names", FleetServable,
			fleetVerbsWant())
		if err != nil {
			return nil, err
		}
		out[h] = methods
	}
	return out, nil
}

// AllowFor is what caller (the host a call over the fleet comes from) may call on this
// member, and the key that says so: its fleet.allow_from entry, else fleet.allow
// (docs/fleet.md §4.1).
func (f Fleet) AllowFor(caller string) (allow []string, policy string) {
	if a, ok := f.AllowFrom[caller]; ok {
		return a, "fleet.allow_from." + caller
	}
	return f.Allow, "fleet.allow"
}

// fleetCaps reads fleet.caps: provider name → a cap of at least 1 (nil when absent).
func fleetCaps(obj map[string]any) (map[string]int, error) {
	v, ok := obj["caps"]
	if !ok {
		return nil, nil
	}
	cobj, err := object(v, "fleet.caps")
	if err != nil {
		return nil, err
	}
	caps := map[string]int{}
	for _, p := range sortedKeys(cobj) {
		if !providerNameRE.MatchString(p) {
			return nil, invalid("`fleet.caps." + p + "` does not name a provider (lowercase letters, digits, '_' and '-', at most 32)")
		}
		n, _, err := intKey(cobj, p, "fleet.caps."+p, maxFleetCap)
		if err != nil {
			return nil, err
		}
		if n < 1 {
			return nil, invalid("`fleet.caps." + p + "` must be >= 1")
		}
		caps[p] = int(n)
	}
	return caps, nil
}

// maxFleetCap bounds a fleet cap: each slot is a key a member may try.
const maxFleetCap = 10000

// stringSet reads obj's key, an array of strings each passing valid, without repeats
// (nil when the key is absent); path is its name in the refusals (fleet.<key>), what
// and want name the items.
func stringSet(obj map[string]any, key, path, what string, valid func(string) bool, want string) ([]string, error) {
	v, ok := obj[key]
	if !ok {
		return nil, nil
	}
	arr, isArr := v.([]any)
	if !isArr {
		return nil, invalid("`" + path + "` must be an array of " + what)
	}
	out := []string{}
	for i, e := range arr {
		s, isStr := e.(string)
		if !isStr || !valid(s) {
			return nil, invalid("`" + path + "[" + strconv.Itoa(i) + "]` must be " + want)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// check validates a present fleet section (docs/fleet.md §2–§3).
func (f *Fleet) check() error {
	if f.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return invalid("`fleet.host` is not set and the hostname cannot be read: " + err.Error())
		}
		f.Host = HostFromHostname(h)
	}
	if !ValidHost(f.Host) {
		return invalid("`fleet.host` `" + f.Host + "` is not a valid host name (lowercase letters, digits and '-', at most 63)")
	}
	if f.Host == FleetAnyHost {
		return invalid("`fleet.host` `any` is reserved: `agent run --host any` places a run on any member")
	}
	if f.Allow == nil {
		f.Allow = slices.Clone(DefaultFleetAllow)
	}
	if f.Labels == nil {
		f.Labels = []string{}
	}
	if d := f.DefaultHost; d != "" && d != FleetAnyHost && !ValidHost(d) {
		return invalid("`fleet.default_host` `" + d + "` is not a fleet host name (or any)")
	}
	if f.DefaultHost == f.Host {
		f.DefaultHost = "" // this host: the local server
	}
	if (f.Cert == "") != (f.Key == "") {
		return invalid("`fleet.cert` and `fleet.key` must be set together")
	}
	switch {
	case f.URL != "" && f.Hub != nil:
		return invalid("`fleet.url` and `fleet.hub` are exclusive: a member joins a fleet at url, or serves it as the hub")
	case f.URL == "" && f.Hub == nil:
		return invalid("`fleet` needs `fleet.url` (join a fleet) or `fleet.hub` (serve one)")
	case f.Hub != nil:
		return f.Hub.check()
	}
	return f.checkURL()
}

// creds counts the member credentials set.
func (f *Fleet) creds() int {
	n := 0
	for _, s := range []string{f.Creds, f.NKey, f.TokenFile} {
		if s != "" {
			n++
		}
	}
	return n
}

func (f *Fleet) checkURL() error {
	u, err := url.Parse(f.URL)
	if err != nil || u.Host == "" {
		return invalid("`fleet.url` `" + f.URL + "` is not a URL such as nats://host:4222 or tls://host:4222")
	}
	if u.Scheme != "nats" && u.Scheme != "tls" {
		return invalid("`fleet.url` `" + f.URL + "` must use the nats:// or tls:// scheme")
	}
	if u.User != nil {
		return invalid("`fleet.url` must not carry a user or password; use fleet.creds, fleet.nkey or fleet.token_file")
	}
	switch n := f.creds(); {
	case n == 0:
		return invalid("`fleet.url` needs a credential: set one of fleet.creds, fleet.nkey or fleet.token_file")
	case n > 1:
		return invalid("`fleet.creds`, `fleet.nkey` and `fleet.token_file` are exclusive: set one")
	}
	if !isLoopbackHost(u.Hostname()) && u.Scheme != "tls" && f.CA == "" {
		return invalid("`fleet.url` `" + f.URL + "` is not a loopback address and TLS is not configured; " +
			"use a tls:// url or set fleet.ca")
	}
	return nil
}

func (h *FleetHub) check() error {
	host, _, err := net.SplitHostPort(h.Listen)
	if err != nil {
		return invalid("`fleet.hub.listen` `" + h.Listen + "` is not a host:port address").Wrap(err)
	}
	if (h.Cert == "") != (h.Key == "") {
		return invalid("`fleet.hub.cert` and `fleet.hub.key` must be set together")
	}
	if h.Cert == "" && !isLoopbackHost(host) {
		return invalid("`fleet.hub.listen` `" + h.Listen + "` is not a loopback address and TLS is not configured; " +
			"set fleet.hub.cert and fleet.hub.key (a fleet off loopback is always TLS plus credentials)")
	}
	return nil
}

// HostFromHostname turns a machine's hostname into a fleet host name: its first label,
// lowercased, with characters outside [a-z0-9-] replaced by '-'.
func HostFromHostname(h string) string {
	h, _, _ = strings.Cut(strings.ToLower(h), ".")
	b := []byte(h)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), "-")
}
