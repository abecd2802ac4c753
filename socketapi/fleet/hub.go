package fleet

import (
	"crypto/rand"
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

// StartHub starts the embedded NATS server with JetStream: its store under dir
// (<home>/fleet/jetstream), the token of [EnsureToken] required of every client, TLS
// when h has a certificate. Errors are environment_error listen_failed.
func StartHub(dir string, h config.FleetHub, token string) (*Hub, error) {
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
		Authorization: token,
		NoSigs:        true, NoLog: true,
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
