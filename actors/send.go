package actors

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// SendRequest is agent.send's params.
type SendRequest struct {
	Caller
	Target string `json:"target"`
	Prompt string `json:"prompt"`
}

// SendResult is agent.send's result.
type SendResult struct {
	UUID           string       `json:"uuid"`
	Path           string       `json:"path"`
	DeliveredWhile store.Status `json:"delivered_while"`
	InputSeq       int64        `json:"input_seq"`
}

// sendTimeout bounds one delivery (a parked agent is moved home first, and a real
// provider's submit confirmation may take a while).
const sendTimeout = 10 * time.Minute

// Send is agent.send (docs/lifecycle.md §11.1): the agent actor serializes it with the
// agent's other operations and opens the turn before typing.
func (s *System) Send(ctx context.Context, r SendRequest) (SendResult, error) {
	row, _, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return SendResult{}, err
	}
	if row.Status.Gone() {
		return SendResult{}, wire.New(wire.NotFound, "agent "+row.Path+" is "+string(row.Status), "target", r.Target)
	}
	if !row.Managed {
		return SendResult{}, wire.Conflict("sending to unmanaged agents is not available yet")
	}
	res, err := s.sys.Root.RequestFuture(s.agents, SendInput{UUID: row.UUID, Prompt: r.Prompt}, sendTimeout).Result()
	if err != nil {
		return SendResult{}, wire.Internal("actor", "agent actor did not answer: "+err.Error())
	}
	out := res.(SendOutcome)
	if wire.Is(out.Err, wire.NotFound, "") {
		return SendResult{}, wire.New(wire.NotFound, "agent "+row.Path+" has ended", "target", r.Target)
	}
	if out.Err != nil {
		return SendResult{}, wire.From(out.Err, "internal")
	}
	return out.Result, nil
}

// LsRequest is agent.ls's params.
type LsRequest struct {
	Caller
	agentpath.ListFilter
}

// LsResult is agent.ls's result.
type LsResult struct {
	Agents []store.AgentRow `json:"agents"`
}

// Ls is agent.ls (docs/protocol.md §5.17): rows in tree order, filtered.
func (s *System) Ls(ctx context.Context, r LsRequest) (LsResult, error) {
	caller, err := s.caller(ctx, r.Caller)
	if err != nil {
		return LsResult{}, err
	}
	rows, err := agentpath.List(ctx, s.cfg.DB.Reader(), caller, r.ListFilter)
	if err != nil {
		return LsResult{}, err
	}
	if rows == nil {
		rows = []store.AgentRow{}
	}
	return LsResult{Agents: rows}, nil
}

// Snapshot is api.snapshot: agents, loops and queue at one event cursor.
func (s *System) Snapshot(ctx context.Context) (*store.Snapshot, error) {
	snap, err := s.cfg.DB.Snapshot(ctx)
	if err != nil {
		return nil, wire.From(err, "sqlite")
	}
	return snap, nil
}

// StatusResult is server.status's result (docs/protocol.md §5.2).
type StatusResult struct {
	Version      string                          `json:"version"`
	Protocol     int64                           `json:"protocol"`
	PID          int                             `json:"pid"`
	UptimeMS     int64                           `json:"uptime_ms"`
	Socket       string                          `json:"socket"`
	Store        string                          `json:"store"`
	Herdr        herdr.StatusInfo                `json:"herdr"`
	Integrations map[string]provider.Integration `json:"integrations"`
	Counts       map[string]int64                `json:"counts"`
	LoopsFiring  bool                            `json:"loops_firing"`
	Loops        []store.LoopSummary             `json:"loops"`
	Drift        map[string]int64                `json:"drift"`
}

// Status is server.status: herdr as the driver sees it (binary, owned session, ping),
// per-provider integration layers, counts, loops and drift.
func (s *System) Status(ctx context.Context) (StatusResult, error) {
	counts := map[string]int64{"live": 0, "queued": 0, "blocked": 0, "unmanaged": 0,
		"unmarked_panes": 0, "unknown_marked_panes": 0}
	c, err := s.cfg.DB.AgentCounts(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot count agents", "err", err)
	}
	counts["live"], counts["queued"], counts["blocked"], counts["unmanaged"] = c.Live, c.Queued, c.Blocked, c.Unmanaged
	loops, err := s.cfg.DB.ActiveLoops(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot read loops", "err", err)
		loops = []store.LoopSummary{}
	}
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	herdrStatus := s.driver.Status(hctx)
	cancel()
	return StatusResult{
		Version:      s.cfg.Version,
		Protocol:     wire.Protocol,
		PID:          os.Getpid(),
		UptimeMS:     time.Since(s.cfg.Started).Milliseconds(),
		Socket:       s.cfg.Paths.Socket,
		Store:        s.cfg.Paths.DB,
		Herdr:        herdrStatus,
		Integrations: provider.Integrations(s.herdrInstalled(ctx)),
		Counts:       counts,
		LoopsFiring:  unitFileExists(s.getenv),
		Loops:        loops,
		Drift:        map[string]int64{"lost": 0, "repaired": 0, "unknown_marked_panes": 0, "unmarked_panes": 0},
	}, nil
}

// unitFileExists reports whether the start-at-login unit is installed (docs/cli.md
// §5.21).
func unitFileExists(getenv func(string) string) bool {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return false
		}
		dir = filepath.Join(home, ".config")
	}
	_, err := os.Stat(filepath.Join(dir, "systemd", "user", "orcr.service"))
	return err == nil
}
