package actors

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// The web dashboard's use cases (docs/dashboard.md): the one-time sign-in link, the
// sessions it is exchanged for, the fleet feed, revocation, and one session's sign-out.
// The face (socketapi/ws) serves the page, sets the cookie and frames; the rules are here.

// Lifetimes of the dashboard's credentials (docs/dashboard.md §2).
const (
	// DashboardLinkTTL is how long a sign-in link can be redeemed (once).
	DashboardLinkTTL = 10 * time.Minute
	// DashboardSessionTTL is how long a session (the browser's cookie) lasts.
	DashboardSessionTTL = 30 * 24 * time.Hour
)

// newSecret makes a credential: 32 random bytes as unpadded base64url (docs/remote.md §2).
func newSecret() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", wire.Internal(wire.CauseRandom, "cannot make a token: "+err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// matchHash reports whether the hash got equals one of hashes, comparing every one in
// constant time.
func matchHash(got string, hashes []string) bool {
	ok := 0
	for _, h := range hashes {
		ok |= subtle.ConstantTimeCompare([]byte(got), []byte(h))
	}
	return ok == 1
}

// DashboardLogin is dashboard.login (docs/dashboard.md §2): a one-time sign-in link on
// the remote listener; with Rotate every session and unused link is revoked first; with
// Revoke they are all revoked and no link is issued. Open dashboard connections of a
// revoked session are closed with unauthorized.
func (s *System) DashboardLogin(ctx context.Context, r api.DashboardLoginRequest) (api.DashboardLoginResult, error) {
	res := api.DashboardLoginResult{ExpiresInS: int64(DashboardLinkTTL / time.Second)}
	if r.Rotate && r.Revoke {
		return res, wire.New(wire.InvalidRequest, "rotate and revoke cannot be combined", "field", "revoke")
	}
	s.remoteMu.Lock()
	addr, tls := s.remoteAddr, s.remoteTLS
	s.remoteMu.Unlock()
	if addr == "" && !r.Revoke {
		if disk := s.configOnDisk(); disk != nil && disk.Remote.Listen != "" {
			return res, wire.Env(wire.CauseRemoteOff, "the dashboard is served on the remote listener, which is off: remote.listen is set in "+
				s.cfg.Paths.Config+" since the server started; restart the server to apply (orcr server restart)", "restart_needed", true)
		}
		return res, wire.Env(wire.CauseRemoteOff, "the dashboard is served on the remote listener, which is off: set remote.listen (docs/remote.md §1)")
	}
	var secret, hash string
	if !r.Revoke {
		var err error
		if secret, err = newSecret(); err != nil {
			return res, err
		}
		hash = HashToken(secret)
	}
	v, err := s.write(func(tx *store.Tx) (any, error) {
		var revoked []string
		if r.Rotate || r.Revoke {
			for _, owner := range []string{store.DashboardSessions, store.DashboardLogins} {
				hs, err := tx.RevokeTokens(owner)
				if err != nil {
					return nil, err
				}
				revoked = append(revoked, hs...)
			}
		}
		if hash != "" {
			if _, err := tx.IssueToken(store.DashboardLogins, hash, false); err != nil {
				return nil, err
			}
		}
		return revoked, nil
	})
	if err != nil {
		return res, err
	}
	revoked, _ := v.([]string)
	res.Revoked = len(revoked)
	s.revokeDashboard(revoked)
	if secret != "" {
		url := dashboardBase(addr, tls) + "/?token=" + secret
		res.URL, res.Token = &url, &secret
	}
	return res, nil
}

// dashboardBase is the listener's URL as a browser elsewhere would use it: an
// unspecified host (0.0.0.0, ::) becomes this machine's name.
func dashboardBase(addr string, tls bool) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			if name, err := os.Hostname(); err == nil && name != "" {
				host = name
			}
		}
		addr = net.JoinHostPort(host, port)
	}
	return scheme + "://" + addr
}

// RedeemDashboardLink spends a sign-in link's token (once, within DashboardLinkTTL) and
// returns a new session secret for the browser's cookie; a bad, spent or expired token
// is [ErrUnauthorized].
func (s *System) RedeemDashboardLink(ctx context.Context, token string) (string, error) {
	if token == "" {
		return "", ErrUnauthorized
	}
	session, err := newSecret()
	if err != nil {
		return "", err
	}
	v, err := s.write(func(tx *store.Tx) (any, error) {
		ok, err := tx.RedeemToken(store.DashboardLogins, HashToken(token), tx.Now()-DashboardLinkTTL.Milliseconds())
		if err != nil || !ok {
			return false, err
		}
		_, err = tx.IssueToken(store.DashboardSessions, HashToken(session), false)
		return err == nil, err
	})
	if err != nil {
		return "", err
	}
	if ok, _ := v.(bool); !ok {
		return "", ErrUnauthorized
	}
	return session, nil
}

// SignOutDashboard ends one browser's session (docs/dashboard.md §2): the session whose
// secret (the cookie) is session is revoked in the store — spent like a link, so it no
// longer authenticates, across restarts too — and its open dashboard connections are
// closed with unauthorized, as [System.DashboardLogin]'s revocation closes them. Other
// sessions are untouched. A bad, revoked or expired session is [ErrUnauthorized] and
// changes nothing.
func (s *System) SignOutDashboard(ctx context.Context, session string) error {
	if session == "" {
		return ErrUnauthorized
	}
	hash := HashToken(session)
	v, err := s.write(func(tx *store.Tx) (any, error) {
		return tx.RedeemToken(store.DashboardSessions, hash, tx.Now()-DashboardSessionTTL.Milliseconds())
	})
	if err != nil {
		return err
	}
	if ok, _ := v.(bool); !ok {
		return ErrUnauthorized
	}
	s.revokeDashboard([]string{hash})
	return nil
}

// CheckDashboardSession checks a browser's session secret (its cookie) against the live
// sessions younger than DashboardSessionTTL, in constant time, and returns its hash; a
// bad, revoked or expired one is [ErrUnauthorized].
func (s *System) CheckDashboardSession(ctx context.Context, session string) (string, error) {
	if session == "" {
		return "", ErrUnauthorized
	}
	hashes, err := s.liveSessions(ctx)
	if err != nil {
		return "", err
	}
	got := HashToken(session)
	if !matchHash(got, hashes) {
		return "", ErrUnauthorized
	}
	return got, nil
}

// liveSessions reads the hashes of the live sessions younger than DashboardSessionTTL.
func (s *System) liveSessions(ctx context.Context) ([]string, error) {
	since := time.Now().Add(-DashboardSessionTTL).UnixMilli()
	return store.LiveTokensSince(ctx, s.cfg.DB.Reader(), store.DashboardSessions, since)
}

// CheckDashboardStream is the stream's door for a dashboard session (docs/remote.md §2):
// the session must be live and agent must name an agent. It returns the session's hash,
// which the connection presents for revocation like a token's.
func (s *System) CheckDashboardStream(ctx context.Context, agent, session string) (string, error) {
	hash, err := s.CheckDashboardSession(ctx, session)
	if err != nil {
		return "", err
	}
	if uuid.Validate(agent) != nil {
		return "", ErrUnauthorized
	}
	if _, err := store.AgentByUUID(ctx, s.cfg.DB.Reader(), strings.ToLower(agent)); err != nil {
		return "", ErrUnauthorized
	}
	return hash, nil
}

// DashboardFeed is one open fleet feed (docs/dashboard.md §3): a watch.open subscription
// actor (dash-<n>) writing the same response and event frames as the socket's watch.open
// to the face's sink.
type DashboardFeed struct {
	s       *System
	pid     *actor.PID
	hash    string
	revoked chan struct{}
	once    sync.Once
}

// Revoked is closed when the session that opened the feed is revoked; the face then
// closes the connection with unauthorized.
func (f *DashboardFeed) Revoked() <-chan struct{} { return f.revoked }

func (f *DashboardFeed) revoke() { f.once.Do(func() { close(f.revoked) }) }

// Close stops the feed's subscription actor.
func (f *DashboardFeed) Close() {
	f.s.dashMu.Lock()
	delete(f.s.dashFeeds, f)
	f.s.dashMu.Unlock()
	if f.pid != nil {
		f.s.sys.Root.Stop(f.pid)
	}
}

var dashSeq atomic.Int64

// OpenDashboardFeed opens the fleet feed of a browser whose session has hash: the
// subscription's first frame is watch.open's response (snapshot and cursor), then one
// event frame per committed event. The feed is registered for revocation before the
// session is checked once more, so a revocation that commits meanwhile always reaches it.
func (s *System) OpenDashboardFeed(ctx context.Context, hash string, sink FrameSink) (*DashboardFeed, error) {
	f := &DashboardFeed{s: s, hash: hash, revoked: make(chan struct{})}
	s.dashMu.Lock()
	s.dashFeeds[f] = struct{}{}
	s.dashMu.Unlock()
	hashes, err := s.liveSessions(ctx)
	if err != nil {
		f.Close()
		return nil, err
	}
	if !matchHash(hash, hashes) {
		f.revoke()
	}
	n := dashSeq.Add(1)
	props := s.SubscriptionProps(SubscriptionSpec{ID: n, Kind: KindWatch, Store: s.storePID, DB: s.cfg.DB, Sink: sink,
		MaxInFlight: DefaultMaxInFlight, Log: s.cfg.Log})
	if f.pid, err = s.sys.Root.SpawnNamed(props, fmt.Sprintf("dash-%d", n)); err != nil {
		f.Close()
		return nil, wire.Internal(wire.CauseActor, "cannot start a dashboard feed: "+err.Error())
	}
	return f, nil
}

// revokeDashboard reaches the open connections of revoked sessions (after the
// revocation committed): fleet feeds here, agent streams through the hub.
func (s *System) revokeDashboard(hashes []string) {
	if len(hashes) == 0 {
		return
	}
	s.dashMu.Lock()
	for f := range s.dashFeeds {
		if matchHash(f.hash, hashes) {
			f.revoke()
		}
	}
	s.dashMu.Unlock()
	s.sys.Root.Send(s.remote, hubRevoke{Hashes: hashes})
}

// DashboardQuota is the dashboard's read of the quota windows (docs/dashboard.md §6):
// server.status's quota, judged now.
func (s *System) DashboardQuota(ctx context.Context) ([]api.QuotaWindow, error) {
	ws, err := s.quota(ctx)
	if err != nil {
		return nil, wire.From(err, wire.CauseSQLite)
	}
	return ws, nil
}

// DashboardMember is another member of the fleet as the dashboard shows it
// (docs/dashboard.md §6.1): fleet.members's line and, when it answered agent.ls over
// the fleet just now, its agents.
type DashboardMember struct {
	api.FleetMember
	Agents []api.AgentRow `json:"agents"`
}

// DashboardFleet is the dashboard's read of the other members of the fleet
// (docs/dashboard.md §6.1): fleet.members, then agent.ls on every member that answered
// its probe, at once, as `orcr top --fleet` reads them (docs/top.md §7). A member whose
// agent.ls fails is unreachable with that error and no agents. Without a fleet it is
// empty.
func (s *System) DashboardFleet(ctx context.Context) ([]DashboardMember, error) {
	out := []DashboardMember{}
	if s.fleetCaller == nil {
		return out, nil
	}
	mem, err := s.FleetMembers(ctx, api.NoParams{})
	if err != nil {
		return nil, err
	}
	for _, m := range mem.Members {
		if !m.Self {
			out = append(out, DashboardMember{FleetMember: m})
		}
	}
	var wg sync.WaitGroup
	for i := range out {
		if !out[i].Reachable {
			continue
		}
		wg.Go(func() {
			m := &out[i]
			res, err := s.FleetCall(ctx, api.FleetCallRequest{Host: m.Host, Method: api.AgentLs.Name})
			var ls api.LsResult
			if err == nil {
				if jerr := json.Unmarshal(res.Result, &ls); jerr != nil {
					err = wire.Env(wire.CauseFleetUnreachable, "fleet: "+m.Host+"'s agent.ls answer cannot be read: "+jerr.Error())
				}
			}
			if err != nil {
				m.Reachable, m.Error = false, wire.From(err, wire.CauseFleetUnreachable)
				return
			}
			m.Agents = ls.Agents
		})
	}
	wg.Wait()
	return out, nil
}
