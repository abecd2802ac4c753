package config

import (
	"net"
	"time"
)

// Defaults of the `remote` section (docs/remote.md §2).
const (
	DefaultRemoteHeartbeat            = 20 * time.Second
	DefaultRemoteReplayLimit          = 10000
	DefaultRemoteMaxConcurrentReplays = 4
	DefaultRemoteOutboundQueue        = 1024
)

var remoteKeys = []string{
	"listen", "tls_cert", "tls_key", "allow_insecure", "heartbeat",
	"replay_limit", "max_concurrent_replays", "outbound_queue", "approvals",
}

// Remote is the `remote` section: the per-agent WebSocket listener of docs/remote.md §2. It is
// processed after `integrations`. Listen-address rules that only matter when the server
// starts are checked by [Remote.CheckListen], not by Load.
type Remote struct {
	Listen               string        // host:port; "" = listener off
	TLSCert              string        // PEM certificate file; TLS when set (with TLSKey)
	TLSKey               string        // PEM key file
	AllowInsecure        bool          // permit a non-loopback Listen without TLS
	Heartbeat            time.Duration // ping interval (duration string, §1.5)
	ReplayLimit          int           // most events one subscribe replays, >= 1
	MaxConcurrentReplays int           // replay reads at once across connections, >= 1
	OutboundQueue        int           // live-tail frames buffered per connection, >= 1
	Approvals            bool          // mount the approvals row for new agents
}

func defaultRemote() Remote {
	return Remote{
		Heartbeat:            DefaultRemoteHeartbeat,
		ReplayLimit:          DefaultRemoteReplayLimit,
		MaxConcurrentReplays: DefaultRemoteMaxConcurrentReplays,
		OutboundQueue:        DefaultRemoteOutboundQueue,
	}
}

func (l *loader) remote(obj map[string]any) error {
	l.unknown("remote", obj, remoteKeys)
	r := &l.cfg.Remote
	strs := []struct {
		key string
		dst *string
	}{{"listen", &r.Listen}, {"tls_cert", &r.TLSCert}, {"tls_key", &r.TLSKey}}
	for _, s := range strs {
		v, ok, err := stringKey(obj, s.key, "remote."+s.key)
		if err != nil {
			return err
		}
		if ok {
			*s.dst = v
		}
	}
	if b, ok, err := boolKey(obj, "allow_insecure", "remote.allow_insecure"); err != nil {
		return err
	} else if ok {
		r.AllowInsecure = b
	}
	if d, ok, err := durationKey(obj, "heartbeat", "remote.heartbeat"); err != nil {
		return err
	} else if ok {
		r.Heartbeat = d
	}
	ints := []struct {
		key string
		dst *int
	}{{"replay_limit", &r.ReplayLimit}, {"max_concurrent_replays", &r.MaxConcurrentReplays}, {"outbound_queue", &r.OutboundQueue}}
	for _, s := range ints {
		n, ok, err := intKey(obj, s.key, "remote."+s.key, max32)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if n < 1 {
			return invalid("remote." + s.key + " must be >= 1")
		}
		*s.dst = int(n)
	}
	if b, ok, err := boolKey(obj, "approvals", "remote.approvals"); err != nil {
		return err
	} else if ok {
		r.Approvals = b
	}
	return nil
}

// CheckListen checks the listener settings when the server starts (docs/remote.md §2). An
// empty Listen is always fine. Otherwise Listen must be a host:port address, TLSCert and
// TLSKey must be set together, and a listener without TLS must bind a loopback host
// ("localhost" or a loopback IP) unless AllowInsecure is true. Errors are
// environment_error config_invalid.
func (r Remote) CheckListen() error {
	if r.Listen == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(r.Listen)
	if err != nil {
		return invalid("remote.listen `" + r.Listen + "` is not a host:port address").Wrap(err)
	}
	if (r.TLSCert == "") != (r.TLSKey == "") {
		return invalid("remote.tls_cert and remote.tls_key must be set together")
	}
	if r.TLSCert != "" || r.AllowInsecure || isLoopbackHost(host) {
		return nil
	}
	return invalid("remote.listen `" + r.Listen + "` is not a loopback address and TLS is not configured; " +
		"set remote.tls_cert and remote.tls_key, or remote.allow_insecure to true")
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
