package fleet

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// hubMaxPayload is the largest message the embedded hub accepts (docs/fleet.md §4).
const hubMaxPayload = 16 << 20

// hubReady bounds the embedded server's start.
const hubReady = 10 * time.Second

// Hub is the fleet's NATS server embedded in this orcr (fleet.hub, docs/fleet.md §3).
type Hub struct {
	srv *server.Server
	url string
}

// MemberAuth maps a token presented to the hub to the host it was issued for by
// `orcr fleet token` (ok false: no live member token).
type MemberAuth func(token string) (host string, ok bool)

// StartHub starts the embedded NATS server with JetStream: its store under dir
// (<home>/fleet/jetstream), TLS when h has a certificate, and a credential required of
// every client: the hub's own token ([EnsureToken]), which may do anything, or a member
// token members maps to its host, which may act only as that host
// ([MemberPermissions], docs/fleet.md §3.1). Errors are environment_error listen_failed.
func StartHub(dir string, h config.FleetHub, token string, members MemberAuth) (*Hub, error) {
	host, port, err := net.SplitHostPort(h.Listen)
	if err != nil {
		return nil, wire.Env(wire.CauseListenFailed, "fleet.hub.listen: "+err.Error())
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return nil, wire.Env(wire.CauseListenFailed, "fleet.hub.listen `"+h.Listen+"` has no valid port")
	}
	if p == 0 {
		p = server.RANDOM_PORT
	}
	opts := &server.Options{
		ServerName: "orcr-hub", Host: host, Port: p,
		JetStream: true, StoreDir: filepath.Join(dir, JetStreamDirName),
		CustomClientAuthentication: &hubAuth{token: token, members: members},
		NoSigs:                     true, NoLog: true,
		// A fleet answer (agent.ls of a large host) may exceed NATS's 1 MiB default.
		MaxPayload: hubMaxPayload,
	}
	scheme := "nats"
	if h.Cert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: h.Cert, KeyFile: h.Key, CaFile: h.CA, Verify: h.CA != ""})
		if err != nil {
			return nil, wire.Env(wire.CauseListenFailed, "fleet.hub TLS: "+err.Error())
		}
		opts.TLSConfig, opts.TLS, opts.TLSVerify = tc, true, h.CA != ""
		scheme = "tls"
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, wire.Env(wire.CauseListenFailed, "fleet hub: "+err.Error())
	}
	go srv.Start()
	if !srv.ReadyForConnections(hubReady) {
		srv.Shutdown()
		return nil, wire.Env(wire.CauseListenFailed, "fleet hub did not start listening on "+h.Listen)
	}
	addr := srv.Addr().(*net.TCPAddr)
	return &Hub{srv: srv, url: fmt.Sprintf("%s://%s", scheme, net.JoinHostPort(host, strconv.Itoa(addr.Port)))}, nil
}

// hubAuth checks every client of the hub: the hub's token, or a member token.
type hubAuth struct {
	token   string
	members MemberAuth
}

// HubUser is the NATS user of a client that presented the hub's own token.
const HubUser = "orcr-hub"

func (a *hubAuth) Check(c server.ClientAuthentication) bool {
	if c.Kind() != server.CLIENT {
		return false
	}
	tok := c.GetOpts().Token
	if tok == "" {
		return false
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(a.token)) == 1 {
		c.RegisterUser(&server.User{Username: HubUser})
		return true
	}
	if a.members == nil {
		return false
	}
	host, ok := a.members(tok)
	if !ok || !config.ValidHost(host) {
		return false
	}
	c.RegisterUser(&server.User{Username: host, Permissions: MemberPermissions(host)})
	return true
}

// MemberPermissions is what a client holding member host's token may do on the hub
// (docs/fleet.md §3.1): publish its own events, call any member's API as itself
// (orcr.api.*.<host>) and attach its agents as itself, answer calls to its API and
// relay the attaches of its own agents, read the fleet's stream and buckets,
// write its own keys of the members and seen buckets and the shared leases; and
// subscribe only to calls to its own API and to replies below its own inbox prefix. It
// cannot publish as another host, answer for one, read another's replies, or change
// or delete the stream.
func MemberPermissions(host string) *server.Permissions {
	js := func(s ...string) []string {
		out := make([]string, len(s))
		for i, x := range s {
			out[i] = "$JS.API." + x
		}
		return out
	}
	pub := []string{
		EventSubject(host), APISubject("*", host), PingSubject("*"),
		// Attaches (§4.10): asked as itself, its keys into sessions it opened, the screens
		// of sessions opened on it.
		AttachSubject("*", host), ttySubject("*", host, "*", "in"), ttySubject(host, "*", "*", "out"),
		// Replies: to a caller's inbox, and the flow control of ordered consumers.
		"_INBOX.>", "$JS.FC.>", "$JS.ACK.>",
		"$KV." + MembersBucket + "." + host, "$KV." + SeenBucket + "." + host, "$KV." + LeasesBucket + ".>",
	}
	pub = append(pub, js("INFO", "STREAM.INFO.>", "STREAM.NAMES", "STREAM.LIST", "STREAM.MSG.GET.>", "DIRECT.GET.>",
		"CONSUMER.CREATE.>", "CONSUMER.INFO.>", "CONSUMER.DELETE.>", "CONSUMER.MSG.NEXT.>",
		// A member creates what the hub has not yet (Member.Setup, Leases).
		"STREAM.CREATE."+Stream, "STREAM.CREATE.KV_"+MembersBucket, "STREAM.CREATE.KV_"+SeenBucket,
		"STREAM.CREATE.KV_"+LeasesBucket)...)
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: pub},
		Subscribe: &server.SubjectPermission{Allow: []string{APICalls(host), PingSubject(host), InboxPrefix(host) + ".>",
			attachCalls(host), ttySubject(host, "*", "*", "in"), ttySubject("*", host, "*", "out")}},
	}
}

// Disconnect closes every connection of member host (its token rotated or revoked): it
// reconnects with the token it has, which the hub then refuses.
func (h *Hub) Disconnect(host string) {
	cz, err := h.srv.Connz(&server.ConnzOptions{User: host, Username: true, Limit: 1 << 16})
	if err != nil {
		return
	}
	for _, c := range cz.Conns {
		_ = h.srv.DisconnectClientByID(c.Cid)
	}
}

// URL is the address members connect to (the bound port when fleet.hub.listen asked
// for port 0).
func (h *Hub) URL() string { return h.url }

// Close shuts the server down and waits for it.
func (h *Hub) Close() {
	h.srv.Shutdown()
	h.srv.WaitForShutdown()
}

// EnsureToken returns the hub's credential in <dir>/hub.token, generating it (32 random
// bytes, hex) with mode 0600 when absent. A token file readable by anyone but its owner
// is refused: loopback is no boundary on a machine with other users (docs/fleet.md §3).
func EnsureToken(dir string) (string, error) { return ensureSecret(dir, HubTokenName) }

// EnsureMemberID returns this home's member id in <dir>/member.id, generated like the
// token when absent ([MemberInfo.ID]).
func EnsureMemberID(dir string) (string, error) { return ensureSecret(dir, MemberIDName) }

func ensureSecret(dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", wire.Env(wire.CauseHomeCreateFailed, "cannot create "+dir+": "+err.Error())
	}
	path := filepath.Join(dir, name)
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", wire.Internal(wire.CauseRandom, err.Error())
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		tok := hex.EncodeToString(b)
		_, err = f.WriteString(tok + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", wire.Env(wire.CauseHomeCreateFailed, "cannot write "+path+": "+err.Error())
		}
		return tok, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return "", wire.Env(wire.CauseHomeCreateFailed, "cannot create "+path+": "+err.Error())
	}
	return ReadToken(path)
}

// ReadToken reads a token file (fleet.token_file, or the hub's own). It must be a
// regular file of mode 0600 or stricter holding one non-empty line. Errors are
// environment_error config_invalid naming the file.
func ReadToken(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", wire.Env(wire.CauseConfigInvalid, "fleet token file: "+err.Error())
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return "", wire.Env(wire.CauseConfigInvalid, fmt.Sprintf("fleet token file %s must be a regular file of mode 0600 (is %v)", path, fi.Mode()))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", wire.Env(wire.CauseConfigInvalid, "fleet token file: "+err.Error())
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", wire.Env(wire.CauseConfigInvalid, "fleet token file "+path+" must hold one token")
	}
	return tok, nil
}
