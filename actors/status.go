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

// The read-only use cases: agent.ls, api.snapshot, server.status.

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
	herdrErr := s.findHerdr()
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	herdrStatus := s.driver.Status(hctx)
	cancel()
	if pe, ok := wire.As(herdrErr); ok {
		herdrStatus.Error = pe // what discovery tried, rather than the driver's "no binary"
	}
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
