package actors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// The remote stream's use cases (docs/remote.md): tokens, opening a connection, and the
// client frames. The WebSocket face (socketapi/ws) frames, dispatches and encodes; the
// rules are here.

// tokenBytes is the size of a token's secret (docs/remote.md §3).
const tokenBytes = 32

// HashToken is the stored form of a token: the hex SHA-256 of its text.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Token is agent.token (docs/remote.md §3): a new token for the target agent (shown this
// once, stored as its SHA-256), with Rotate every older token revoked, with Revoke every
// token revoked and none issued. Open connections that presented a revoked token are
// dropped with unauthorized.
func (s *System) Token(ctx context.Context, r api.TokenRequest) (api.TokenResult, error) {
	if r.Rotate && r.Revoke {
		return api.TokenResult{}, wire.New(wire.InvalidRequest, "rotate and revoke cannot be combined", "field", "revoke")
	}
	row, _, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return api.TokenResult{}, err
	}
	res := api.TokenResult{UUID: row.UUID, Path: row.Path, URLPath: "/agents/" + row.UUID + "/ws"}
	var secret, hash string
	if !r.Revoke {
		if secret, err = newSecret(); err != nil {
			return api.TokenResult{}, err
		}
		hash = HashToken(secret)
	}
	v, err := s.write(func(tx *store.Tx) (any, error) {
		if _, err := tx.EnsureSession(row.UUID); err != nil {
			return nil, err
		}
		if r.Revoke {
			return tx.RevokeTokens(row.UUID)
		}
		return tx.IssueToken(row.UUID, hash, r.Rotate)
	})
	if err != nil {
		return api.TokenResult{}, err
	}
	revoked, _ := v.([]string)
	res.Revoked = len(revoked)
	if len(revoked) > 0 {
		s.sys.Root.Send(s.remote, hubRevoke{Agent: row.UUID, Hashes: revoked})
	}
	if secret != "" {
		res.Token = &secret
	}
	return res, nil
}

// ErrUnauthorized is returned by [System.CheckStreamToken] for a bad, missing, revoked or
// other-agent token.
var ErrUnauthorized = errors.New("unauthorized")

// CheckStreamToken checks a bearer token for agent before anything about the agent is
// resolved (docs/remote.md §3): agent must be a uuid, and the token's hash must equal one
// of that uuid's live token hashes, compared in constant time. It returns the hash.
func (s *System) CheckStreamToken(ctx context.Context, agent, token string) (string, error) {
	if token == "" || uuid.Validate(agent) != nil {
		return "", ErrUnauthorized
	}
	hashes, err := store.LiveTokens(ctx, s.cfg.DB.Reader(), strings.ToLower(agent))
	if err != nil {
		return "", err
	}
	got := HashToken(token)
	if !matchHash(got, hashes) {
		return "", ErrUnauthorized
	}
	return got, nil
}

// StreamError is a client frame's refusal with a stream error code (docs/remote.md
// §8): not_running, stale_call, unsupported, bad_frame stay open; the others close.
type StreamError struct {
	Code    string
	Message string
}

func (e *StreamError) Error() string { return e.Code + ": " + e.Message }

func streamErr(code, format string, args ...any) *StreamError {
	return &StreamError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Stream is one open stream connection: the handle the WebSocket face holds.
type Stream struct {
	root  *actor.RootContext
	props *actor.Props
	pid   *actor.PID
	// LastSeq is the log's tip when the connection opened (hello.last_seq).
	LastSeq int64
	// Agent is the agent's uuid.
	Agent string
	order int64 // [StreamSpec.Order]
}

// Start spawns the connection actor; call it after hello is queued.
func (st *Stream) Start() error {
	pid, err := st.root.SpawnNamed(st.props, fmt.Sprintf("ws-%d", st.order))
	if err != nil {
		return wire.Internal(wire.CauseActor, "cannot start a stream connection: "+err.Error())
	}
	st.pid = pid
	return nil
}

// Subscribe hands a subscribe frame to the connection actor.
func (st *Stream) Subscribe(fromSeq int64) { st.root.Send(st.pid, StreamSubscribe{FromSeq: fromSeq}) }

// Gone tells the connection actor the socket is gone; it stops.
func (st *Stream) Gone() {
	if st.pid != nil {
		st.root.Send(st.pid, streamGone{})
	}
}

var streamSeq atomic.Int64

// OpenStream opens the stream of agent for a connection that presented the token with
// hash: the agent's log is created if it has none ("connecting creates the session"),
// and a connection actor registers with the hub (superseding an older connection of the
// agent) when the caller, having queued hello with LastSeq, calls [Stream.Start].
func (s *System) OpenStream(ctx context.Context, agent, hash string, sink StreamSink) (*Stream, error) {
	agent = strings.ToLower(agent)
	v, err := s.write(func(tx *store.Tx) (any, error) { return tx.EnsureSession(agent) })
	if err != nil {
		return nil, err
	}
	cfg := s.cfg.Config.Remote
	// Numbered now, before the caller queues hello: a client that saw this hello and
	// then opened another connection has the newer one, whichever actor starts first.
	order := streamSeq.Add(1)
	props := newStreamProps(StreamSpec{Agent: agent, TokenHash: hash, Sink: sink, ReplayLimit: cfg.ReplayLimit, Order: order,
		store: s.storePID, hub: s.remote, agents: s.agents, db: s.cfg.DB, log: s.cfg.Log})
	return &Stream{root: s.sys.Root, props: props, LastSeq: v.(int64), Agent: agent, order: order}, nil
}

// SetRemoteListener records the remote listener's address (server.status); "" = off.
func (s *System) SetRemoteListener(addr string, tls bool) {
	s.remoteMu.Lock()
	s.remoteAddr, s.remoteTLS = addr, tls
	s.remoteMu.Unlock()
}

func (s *System) remoteStatus(ctx context.Context) api.RemoteStatus {
	s.remoteMu.Lock()
	addr, tls := s.remoteAddr, s.remoteTLS
	s.remoteMu.Unlock()
	out := api.RemoteStatus{Listening: addr != "", TLS: tls}
	if addr != "" {
		out.Address = &addr
	}
	if st, err := s.RemoteStats(ctx); err == nil {
		out.Connections, out.ReplaysActive, out.ReplaysWaiting, out.ReplaysPeak = st.Connections, st.ReplaysActive,
			st.ReplaysWaiting, st.ReplaysPeak
	}
	return out
}

// RemoteStats asks the hub for its counters.
func (s *System) RemoteStats(ctx context.Context) (RemoteStats, error) {
	res, err := s.sys.Root.RequestFuture(s.remote, RemoteStatsQuery{}, 10*time.Second).Result()
	if err != nil {
		return RemoteStats{}, wire.Internal(wire.CauseActor, "remote hub did not answer: "+err.Error())
	}
	return res.(RemoteStats), nil
}
