package fleet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// DuplicateWindow is the stream's de-duplication window. A member's publisher resumes
// from the last seq the stream holds for its host, so the window only has to cover the
// acks lost in flight.
const DuplicateWindow = 10 * time.Minute

// Member is one orcr's connection to the fleet: a NATS connection that reconnects
// forever (a member cut off keeps working locally) and its JetStream context.
type Member struct {
	Host   string
	nc     *nats.Conn
	js     jetstream.JetStream
	log    *slog.Logger
	closed chan struct{} // closed when the connection is
	// registered: this member holds its host in the members bucket; until then it
	// answers no fleet call, so a second orcr claiming the host never answers for it.
	registered atomic.Bool
}

// PingEvery and MaxPingsOut are how a member finds a link that went silent: a ping
// every PingEvery, and the connection taken for lost (then re-made) once
// MaxPingsOut are unanswered; NATS's own defaults (2 minutes, 2) kept a partitioned
// member "connected" for minutes.
const (
	PingEvery   = 10 * time.Second
	MaxPingsOut = 2
)

// drainTimeout bounds a drain at Close: a member whose hub is down stops at once.
const drainTimeout = 2 * time.Second

// MemberInfo is a member's row in the members bucket.
type MemberInfo struct {
	Host string `json:"host"`
	// ID tells two orcrs apart that claim the same host: the random id in the
	// member's <home>/fleet/member.id.
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	Started string `json:"started"` // RFC 3339
}

// Connect joins the fleet at url with the credential of f (token is the hub's own for
// the hub, else read from f.TokenFile). It does not wait for the server: a member whose
// hub is down starts anyway and connects when the hub comes back.
func Connect(f config.Fleet, url, token string, log *slog.Logger) (*Member, error) {
	opts, err := connectOptions(f, token)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	closed := make(chan struct{})
	opts = append(opts, nats.Name("orcr "+f.Host), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.DrainTimeout(drainTimeout), nats.ClosedHandler(func(*nats.Conn) { close(closed) }),
		nats.ReconnectWait(500*time.Millisecond),
		// A partition loses packets instead of closing the connection: pings find it
		// (docs/fleet.md §5.2), in PingEvery × (MaxPingsOut+1) at most.
		nats.PingInterval(PingEvery), nats.MaxPingsOutstanding(MaxPingsOut),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { log.Warn("fleet: disconnected", "err", err) }),
		// A permission violation (a member token used beyond its host) is said here.
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			log.Warn("fleet: the NATS server refused", "err", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("fleet: reconnected", "url", nc.ConnectedUrlRedacted()) }))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, wire.Env(wire.CauseConfigInvalid, "fleet: cannot connect to "+url+": "+err.Error())
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, wire.Env(wire.CauseConfigInvalid, "fleet: "+err.Error())
	}
	return &Member{Host: f.Host, nc: nc, js: js, log: log, closed: closed}, nil
}

// Dial is [Connect] for a short-lived client (the CLI's --fleet calls): it fails at once
// when the fleet cannot be reached or refuses the credential.
func Dial(f config.Fleet, url, token string) (*Member, error) {
	opts, err := connectOptions(f, token)
	if err != nil {
		return nil, err
	}
	closed := make(chan struct{})
	opts = append(opts, nats.Name("orcr cli "+f.Host), nats.Timeout(5*time.Second),
		nats.DrainTimeout(drainTimeout), nats.ClosedHandler(func(*nats.Conn) { close(closed) }))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, wire.Env(wire.CauseServerUnreachable, "fleet: cannot connect to "+url+": "+err.Error(), "url", url)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, wire.Env(wire.CauseServerUnreachable, "fleet: "+err.Error())
	}
	return &Member{Host: f.Host, nc: nc, js: js, log: slog.New(slog.DiscardHandler), closed: closed}, nil
}

func connectOptions(f config.Fleet, token string) ([]nats.Option, error) {
	// Replies come below the member's own prefix, the only inboxes a member token may
	// read on the hub (docs/fleet.md §3.1).
	opts := []nats.Option{nats.CustomInboxPrefix(InboxPrefix(f.Host))}
	switch {
	case token != "":
		opts = append(opts, nats.Token(token))
	case f.TokenFile != "":
		tok, err := ReadToken(f.TokenFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Token(tok))
	case f.Creds != "":
		opts = append(opts, nats.UserCredentials(f.Creds))
	case f.NKey != "":
		o, err := nats.NkeyOptionFromSeed(f.NKey)
		if err != nil {
			return nil, wire.Env(wire.CauseConfigInvalid, "fleet.nkey: "+err.Error())
		}
		opts = append(opts, o)
	}
	switch {
	case f.CA != "":
		opts = append(opts, nats.RootCAs(f.CA))
	case f.Hub != nil && f.Hub.Cert != "":
		// The hub's own server and CLI connect to its TLS listener trusting its own
		// certificate, which need not chain to a public root.
		tc, err := hubTLS(f.Hub.Cert)
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Secure(tc))
	}
	if f.Cert != "" {
		opts = append(opts, nats.ClientCert(f.Cert, f.Key))
	}
	return opts, nil
}

// Log is the member's logger (the server log).
func (m *Member) Log() *slog.Logger { return m.log }

// Close drains the connection (pending publishes and replies go out first, for at most
// drainTimeout) and waits until it is closed; a connection that is down closes at once.
func (m *Member) Close() {
	if !m.nc.IsConnected() || m.nc.Drain() != nil {
		m.nc.Close()
	}
	<-m.closed
}

// Connection is the state of the member's link to the fleet — connected, connecting,
// reconnecting, disconnected or closed — and the server it is connected to, without
// credentials ("" while not connected).
func (m *Member) Connection() (state, url string) {
	switch m.nc.Status() {
	case nats.CONNECTED, nats.DRAINING_SUBS, nats.DRAINING_PUBS:
		return "connected", m.nc.ConnectedUrlRedacted()
	case nats.CONNECTING:
		return "connecting", ""
	case nats.RECONNECTING:
		return "reconnecting", ""
	case nats.CLOSED:
		return "closed", ""
	default:
		return "disconnected", ""
	}
}

// Setup creates the stream and the buckets when they are missing and registers this
// member. The hub calls it at start; a member calls it before it publishes, so a fleet
// on an existing NATS needs no setup of its own. What exists is left as it is: a member
// token may create the fleet's stream and buckets but not change them (§3.1).
func (m *Member) Setup(ctx context.Context, info MemberInfo) error {
	if _, err := m.js.Stream(ctx, Stream); errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = m.js.CreateStream(ctx, jetstream.StreamConfig{
			Name: Stream, Subjects: []string{"orcr.events.>"}, Storage: jetstream.FileStorage, Duplicates: DuplicateWindow,
		})
		if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return err
		}
	} else if err != nil {
		return err
	}
	if _, err := m.bucket(ctx, jetstream.KeyValueConfig{Bucket: SeenBucket}); err != nil {
		return err
	}
	kv, err := m.bucket(ctx, jetstream.KeyValueConfig{Bucket: MembersBucket})
	if err != nil {
		return err
	}
	b, _ := json.Marshal(info)
	e, err := kv.Get(ctx, info.Host)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		if _, err = kv.Create(ctx, info.Host, b); err == nil {
			m.registered.Store(true)
		}
		return err
	case err != nil:
		return err
	}
	var was MemberInfo
	if json.Unmarshal(e.Value(), &was) == nil && was.ID != "" && was.ID != info.ID {
		return &HostTakenError{Host: info.Host}
	}
	if _, err = kv.Update(ctx, info.Host, b, e.Revision()); err == nil {
		m.registered.Store(true)
	}
	return err
}

// bucket opens the KV bucket of cfg, creating it when it is missing.
func (m *Member) bucket(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := m.js.KeyValue(ctx, cfg.Bucket)
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return kv, err
	}
	kv, err = m.js.CreateKeyValue(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return m.js.KeyValue(ctx, cfg.Bucket) // created meanwhile by another member
	}
	return kv, err
}

// HostTakenError is [Member.Setup]'s refusal when another orcr (another home) is
// registered under the same host: its events would be taken for this member's and
// dropped as duplicates, so this member publishes nothing (docs/fleet.md §2).
type HostTakenError struct{ Host string }

func (e *HostTakenError) Error() string {
	return "fleet host " + e.Host + " is registered by another orcr; set a unique fleet.host"
}

// Members lists the registered hosts.
func (m *Member) Members(ctx context.Context) ([]string, error) {
	kv, err := m.js.KeyValue(ctx, MembersBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	return keys, err
}

// hubTLS is the TLS of a connection to this home's own hub: its certificate (the first
// of certFile) as the only root, and the name checked against it its first DNS name or
// IP address, since the hub's url holds its listen address, which may be 0.0.0.0.
func hubTLS(certFile string) (*tls.Config, error) {
	b, err := os.ReadFile(certFile)
	if err != nil {
		return nil, wire.Env(wire.CauseConfigInvalid, "fleet.hub.cert: "+err.Error())
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "CERTIFICATE" {
		return nil, wire.Env(wire.CauseConfigInvalid, "fleet.hub.cert "+certFile+" holds no PEM certificate")
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, wire.Env(wire.CauseConfigInvalid, "fleet.hub.cert: "+err.Error())
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	tc := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	switch {
	case len(cert.DNSNames) > 0:
		tc.ServerName = cert.DNSNames[0]
	case len(cert.IPAddresses) > 0:
		tc.ServerName = cert.IPAddresses[0].String()
	}
	return tc, nil
}
