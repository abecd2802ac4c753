package config_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/config"
)

func TestParseRemote(t *testing.T) {
	src := `{"remote":{"listen":"0.0.0.0:8443","tls_cert":"/c.pem","tls_key":"/k.pem","allow_insecure":true,
		"heartbeat":"15s","replay_limit":500,"max_concurrent_replays":2,"outbound_queue":64,"approvals":true}}`
	cfg, warns, err := parse(t, src, nil)
	if err != nil {
		t.Fatalf("Parse(remote): %v", err)
	}
	want := config.Remote{
		Listen: "0.0.0.0:8443", TLSCert: "/c.pem", TLSKey: "/k.pem", AllowInsecure: true,
		Heartbeat: 15 * time.Second, ReplayLimit: 500, MaxConcurrentReplays: 2, OutboundQueue: 64, Approvals: true,
	}
	if diff := cmp.Diff(want, cfg.Remote); diff != "" {
		t.Errorf("Parse(remote) mismatch (-want +got):\n%s", diff)
	}
	if len(warns) != 0 {
		t.Errorf("Parse(remote): got warnings %q, want none", warns)
	}
}

func TestParseRemoteErrors(t *testing.T) {
	tests := []struct{ name, src, msg string }{
		{"not object", `{"remote":1}`, "`remote` must be a JSON object"},
		{"listen type", `{"remote":{"listen":8080}}`, "`remote.listen` must be a string"},
		{"tls_key type", `{"remote":{"tls_key":false}}`, "`remote.tls_key` must be a string"},
		{"allow_insecure type", `{"remote":{"allow_insecure":"yes"}}`, "`remote.allow_insecure` must be a boolean"},
		{"approvals type", `{"remote":{"approvals":1}}`, "`remote.approvals` must be a boolean"},
		{"heartbeat", `{"remote":{"heartbeat":"20"}}`, `remote.heartbeat: invalid duration "20": missing unit (want <positive integer><ms|s|m|h|d>, e.g. 30s)`},
		{"replay_limit zero", `{"remote":{"replay_limit":0}}`, "remote.replay_limit must be >= 1"},
		{"outbound_queue float", `{"remote":{"outbound_queue":1.0}}`, "`remote.outbound_queue` must be a non-negative integer"},
		{"max_concurrent_replays large", `{"remote":{"max_concurrent_replays":4294967296}}`, "`remote.max_concurrent_replays` is too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parse(t, tt.src, nil)
			checkEnvErr(t, "Parse("+tt.src+")", err, "config_invalid", tt.msg)
		})
	}
}

func TestRemoteCheckListen(t *testing.T) {
	tests := []struct {
		name string
		r    config.Remote
		msg  string // "" = ok
	}{
		{"off", config.Remote{}, ""},
		{"loopback v4", config.Remote{Listen: "127.0.0.1:8080"}, ""},
		{"loopback v6", config.Remote{Listen: "[::1]:8080"}, ""},
		{"localhost", config.Remote{Listen: "localhost:8080"}, ""},
		{"public with tls", config.Remote{Listen: "0.0.0.0:443", TLSCert: "c", TLSKey: "k"}, ""},
		{"public insecure allowed", config.Remote{Listen: ":8080", AllowInsecure: true}, ""},
		{"public without tls", config.Remote{Listen: "0.0.0.0:8080"}, "remote.listen `0.0.0.0:8080` is not a loopback address and TLS is not configured; set remote.tls_cert and remote.tls_key, or remote.allow_insecure to true"},
		{"all interfaces without tls", config.Remote{Listen: ":8080"}, "remote.listen `:8080` is not a loopback address and TLS is not configured; set remote.tls_cert and remote.tls_key, or remote.allow_insecure to true"},
		{"cert without key", config.Remote{Listen: "127.0.0.1:1", TLSCert: "c"}, "remote.tls_cert and remote.tls_key must be set together"},
		{"bad address", config.Remote{Listen: "8080"}, "remote.listen `8080` is not a host:port address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.CheckListen()
			if tt.msg == "" {
				if err != nil {
					t.Errorf("CheckListen(%+v): got %v, want nil", tt.r, err)
				}
				return
			}
			checkEnvErr(t, "CheckListen", err, "config_invalid", tt.msg)
		})
	}
}
