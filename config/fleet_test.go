package config_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/config"
)

func TestParseFleet(t *testing.T) {
	cfg, _, err := parse(t, `{}`, nil)
	if err != nil || cfg.Fleet.On {
		t.Fatalf("no fleet section: on=%v err=%v, want off", cfg.Fleet.On, err)
	}
	cfg, warns, err := parse(t, `{"fleet":{"host":"gpu1","url":"tls://nats.example:4222","creds":"/c/orcr.creds",
		"ca":"/c/ca.pem","cert":"/c/me.pem","key":"/c/me.key","allow":["agent.ls","agent.ls","agent.run","agent.kill"],
		"labels":["gpu","big-disk","gpu"],"default_host":"any","caps":{"claude":4,"codex":1},"lease_ttl":"10s",
		"allow_from":{"hub":["agent.ls","agent.kill"],"web":[]}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Fleet{On: true, Host: "gpu1", URL: "tls://nats.example:4222", Creds: "/c/orcr.creds",
		CA: "/c/ca.pem", Cert: "/c/me.pem", Key: "/c/me.key", Allow: []string{"agent.ls", "agent.run", "agent.kill"},
		Labels: []string{"gpu", "big-disk"}, DefaultHost: "any", Caps: map[string]int{"claude": 4, "codex": 1}, LeaseTTL: 10 * time.Second,
		AllowFrom: map[string][]string{"hub": {"agent.ls", "agent.kill"}, "web": {}}}
	if diff := cmp.Diff(want, cfg.Fleet); diff != "" || len(warns) != 0 {
		t.Fatalf("fleet (-want +got):\n%s\nwarnings %q", diff, warns)
	}
	// A caller with its own entry gets it; any other, fleet.allow.
	for caller, w := range map[string]struct {
		allow  []string
		policy string
	}{"hub": {[]string{"agent.ls", "agent.kill"}, "fleet.allow_from.hub"}, "web": {[]string{}, "fleet.allow_from.web"},
		"db": {[]string{"agent.ls", "agent.run", "agent.kill"}, "fleet.allow"}} {
		if allow, policy := cfg.Fleet.AllowFor(caller); !cmp.Equal(allow, w.allow) || policy != w.policy {
			t.Errorf("AllowFor(%s) = %v %s, want %v %s", caller, allow, policy, w.allow, w.policy)
		}
	}
	cfg, _, err = parse(t, `{"fleet":{"hub":{"listen":"127.0.0.1:4222"}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if cfg.Fleet.Host != config.HostFromHostname(host) || !config.ValidHost(cfg.Fleet.Host) ||
		cfg.Fleet.Hub == nil || cfg.Fleet.Hub.Listen != "127.0.0.1:4222" || !cmp.Equal(cfg.Fleet.Allow, config.DefaultFleetAllow) ||
		len(cfg.Fleet.Labels) != 0 || cfg.Fleet.DefaultHost != "" || cfg.Fleet.Caps != nil || cfg.Fleet.LeaseTTL != config.DefaultLeaseTTL {
		t.Fatalf("hub with defaults: %+v", cfg.Fleet)
	}
	// A default host naming this host is the local server.
	cfg, _, err = parse(t, `{"fleet":{"host":"web","default_host":"web","hub":{"listen":"127.0.0.1:4222"}}}`, nil)
	if err != nil || cfg.Fleet.DefaultHost != "" {
		t.Fatalf("default_host of this host: %q, %v; want \"\"", cfg.Fleet.DefaultHost, err)
	}
}

func TestHostFromHostname(t *testing.T) {
	for in, want := range map[string]string{"GPU1.lan": "gpu1", "build_box.example.com": "build-box", "web-2": "web-2"} {
		if got := config.HostFromHostname(in); got != want {
			t.Errorf("HostFromHostname(%q) = %q, want %q", in, got, want)
		}
	}
}

// Bad fleet config is refused at load with a message naming the key; a fleet reachable
// beyond loopback is never without TLS, and a member never without a credential.
func TestParseFleetErrors(t *testing.T) {
	tests := []struct{ name, src, msg string }{
		{"not object", `{"fleet":1}`, "`fleet` must be a JSON object"},
		{"neither", `{"fleet":{"host":"a"}}`, "`fleet` needs `fleet.url` (join a fleet) or `fleet.hub` (serve one)"},
		{"both", `{"fleet":{"host":"a","url":"nats://127.0.0.1:4222","token_file":"/t","hub":{"listen":"127.0.0.1:1"}}}`,
			"`fleet.url` and `fleet.hub` are exclusive: a member joins a fleet at url, or serves it as the hub"},
		{"bad host", `{"fleet":{"host":"Web_1","hub":{"listen":"127.0.0.1:1"}}}`,
			"`fleet.host` `Web_1` is not a valid host name (lowercase letters, digits and '-', at most 63)"},
		{"host type", `{"fleet":{"host":7}}`, "`fleet.host` must be a string"},
		{"hub public without tls", `{"fleet":{"host":"a","hub":{"listen":"0.0.0.0:4222"}}}`,
			"`fleet.hub.listen` `0.0.0.0:4222` is not a loopback address and TLS is not configured; set fleet.hub.cert and fleet.hub.key (a fleet off loopback is always TLS plus credentials)"},
		{"hub listen", `{"fleet":{"host":"a","hub":{"listen":"4222"}}}`, "`fleet.hub.listen` `4222` is not a host:port address"},
		{"hub cert alone", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1","cert":"/c"}}}`, "`fleet.hub.cert` and `fleet.hub.key` must be set together"},
		{"no credential", `{"fleet":{"host":"a","url":"nats://127.0.0.1:4222"}}`,
			"`fleet.url` needs a credential: set one of fleet.creds, fleet.nkey or fleet.token_file"},
		{"two credentials", `{"fleet":{"host":"a","url":"nats://127.0.0.1:4222","creds":"/c","nkey":"/n"}}`,
			"`fleet.creds`, `fleet.nkey` and `fleet.token_file` are exclusive: set one"},
		{"public url without tls", `{"fleet":{"host":"a","url":"nats://nats.example:4222","creds":"/c"}}`,
			"`fleet.url` `nats://nats.example:4222` is not a loopback address and TLS is not configured; use a tls:// url or set fleet.ca"},
		{"url scheme", `{"fleet":{"host":"a","url":"http://127.0.0.1:4222","creds":"/c"}}`, "`fleet.url` `http://127.0.0.1:4222` must use the nats:// or tls:// scheme"},
		{"url user", `{"fleet":{"host":"a","url":"nats://u:p@127.0.0.1:4222","creds":"/c"}}`,
			"`fleet.url` must not carry a user or password; use fleet.creds, fleet.nkey or fleet.token_file"},
		{"host any", `{"fleet":{"host":"any","hub":{"listen":"127.0.0.1:1"}}}`,
			"`fleet.host` `any` is reserved: `agent run --host any` places a run on any member"},
		{"allow a local verb", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"allow":["agent.kill","agent.attach.prepare"]}}`,
			"`fleet.allow[1]` must be a method served over the fleet: one of " + strings.Join(config.FleetReadVerbs, ", ") + ", " +
				strings.Join(config.FleetWriteVerbs, ", ") + ", agent.attach"},
		{"allow a name", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"allow":[1]}}`,
			"`fleet.allow[0]` must be a method served over the fleet: one of " + strings.Join(config.FleetReadVerbs, ", ") + ", " +
				strings.Join(config.FleetWriteVerbs, ", ") + ", agent.attach"},
		{"allow type", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"allow":"agent.ls"}}`, "`fleet.allow` must be an array of method names"},
		{"labels type", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"labels":"gpu"}}`, "`fleet.labels` must be an array of labels"},
		{"allow_from type", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"allow_from":["hub"]}}`, "`fleet.allow_from` must be a JSON object"},
		{"allow_from host", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"allow_from":{"Web 2":["agent.ls"]}}}`,
			"`fleet.allow_from.Web 2` does not name a host (lowercase letters, digits and '-', at most 63)"},
		{"allow_from method", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"allow_from":{"hub":["agent.ls","agent.adopt"]}}}`,
			"`fleet.allow_from.hub[1]` must be a method served over the fleet: one of " + strings.Join(config.FleetReadVerbs, ", ") + ", " +
				strings.Join(config.FleetWriteVerbs, ", ") + ", agent.attach"},
		{"allow_from list", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"allow_from":{"hub":"agent.ls"}}}`,
			"`fleet.allow_from.hub` must be an array of method names"},
		{"bad label", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"labels":["gpu","GPU 2"]}}`,
			"`fleet.labels[1]` must be a label: lowercase letters, digits and '-', at most 63"},
		{"bad default host", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"default_host":"web:1"}}`,
			"`fleet.default_host` `web:1` is not a fleet host name (or any)"},
		{"caps type", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"caps":[1]}}`, "`fleet.caps` must be a JSON object"},
		{"caps provider", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"caps":{"Claude Code":1}}}`,
			"`fleet.caps.Claude Code` does not name a provider (lowercase letters, digits, '_' and '-', at most 32)"},
		{"caps zero", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"caps":{"claude":0}}}`, "`fleet.caps.claude` must be >= 1"},
		{"caps float", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"caps":{"claude":1.5}}}`, "`fleet.caps.claude` must be a non-negative integer"},
		{"caps huge", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"caps":{"claude":10001}}}`, "`fleet.caps.claude` is too large"},
		{"lease ttl short", `{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"lease_ttl":"500ms"}}`, "`fleet.lease_ttl` must be at least 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parse(t, tt.src, nil)
			checkEnvErr(t, "Parse("+tt.src+")", err, "config_invalid", tt.msg)
		})
	}
}
