package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

type killParams struct {
	callerParams
	Targets []string `json:"targets"`
	Force   bool     `json:"force"`
	Preview bool     `json:"preview"`
}

// maxKillRounds bounds a barrier kill (decisions.md D4).
const maxKillRounds = 100

// killParallelism bounds the agents one kill call shuts down at once.
const killParallelism = 16

type killRef struct {
	UUID   string `json:"uuid"`
	Path   string `json:"path"`
	Reason string `json:"reason,omitempty"`
}

// agentKill is agent.kill (lifecycle.md §11.5) as a barrier kill (decisions.md D4):
// barriers for every target go up first (new spawns under them fail kill_in_progress
// and queued rows under them are not promoted), then rounds kill every active match
// until a round finds none, then the barriers come down.
func (s *Server) agentKill(ctx context.Context, c *Call) (any, error) {
	var p killParams
	c.Params(&p)
	targets, err := bulkTargets(p.Targets)
	if err != nil {
		return nil, err
	}
	caller, err := s.caller(ctx, p.callerParams)
	if err != nil {
		return nil, err
	}
	rows, err := agentpath.ResolveBulk(ctx, s.db.Reader(), caller, targets)
	if wire.Is(err, wire.NotFound, "") {
		ended, eerr := agentpath.ResolveEnded(ctx, s.db.Reader(), caller, targets)
		if eerr != nil || len(ended) == 0 {
			return nil, err
		}
		if p.Preview {
			return previewResult(ended), nil
		}
		skipped := make([]killRef, len(ended))
		for i, r := range ended {
			skipped[i] = killRef{UUID: r.UUID, Path: r.Path, Reason: "ended"}
		}
		return map[string]any{"killed": []killRef{}, "skipped": skipped, "all_killed": false}, nil
	}
	if err != nil {
		return nil, err
	}
	if p.Preview {
		return previewResult(rows), nil
	}

	ids, err := s.installBarriers(ctx, caller, targets, rows)
	if err != nil {
		return nil, err
	}
	defer s.barriers.Remove(ids...)

	killed, skipped := []killRef{}, []killRef{}
	killedSet := map[string]bool{}
	skip := map[string]bool{} // unmanaged rows without force: reported once, left alone
	tries := map[string]int{} // a row still active after a kill (it changed state under us) is tried again
	const maxTries = 3
	for round := 0; round < maxKillRounds && len(rows) > 0; round++ {
		var todo []store.AgentRow
		for _, r := range rows {
			if skip[r.UUID] || tries[r.UUID] >= maxTries {
				continue
			}
			if !r.Managed && !p.Force {
				skip[r.UUID] = true
				skipped = append(skipped, killRef{UUID: r.UUID, Path: r.Path, Reason: "force_required"})
				continue
			}
			tries[r.UUID]++
			todo = append(todo, r)
		}
		progress := len(todo) > 0
		// Each agent's shutdown waits on its own pane (a shutdown line, a grace, a
		// close); they run side by side, results kept in match order.
		ok := make([]bool, len(todo))
		errs := make([]error, len(todo))
		var wg sync.WaitGroup
		sem := make(chan struct{}, killParallelism)
		for i, r := range todo {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				ok[i], errs[i] = s.killOne(ctx, r)
			}()
		}
		wg.Wait()
		for i, r := range todo {
			if errs[i] != nil {
				return nil, errs[i]
			}
			if ok[i] && !killedSet[r.UUID] {
				killedSet[r.UUID] = true
				killed = append(killed, killRef{UUID: r.UUID, Path: r.Path})
			}
		}
		rows, err = agentpath.ResolveBulk(ctx, s.db.Reader(), caller, targets)
		if wire.Is(err, wire.NotFound, "") {
			break
		}
		if err != nil {
			return nil, err
		}
		if !progress {
			// Everything still matching is skipped or out of tries: done.
			break
		}
	}
	return map[string]any{"killed": killed, "skipped": skipped, "all_killed": len(skipped) == 0}, nil
}

func previewResult(rows []store.AgentRow) map[string]any {
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		out[i] = map[string]any{"uuid": r.UUID, "path": r.Path, "status": r.Status, "managed": r.Managed}
	}
	return map[string]any{"preview": true, "targets": out}
}

// installBarriers puts one barrier per target in place through the store actor, so
// every write ordered after it (an agent.run insert, a promotion) sees it.
func (s *Server) installBarriers(ctx context.Context, caller agentpath.Caller, targets []string, rows []store.AgentRow) ([]int64, error) {
	scope, _ := caller.Scope()
	v, err := s.write(ctx, func(*store.Tx) (any, error) {
		var ids []int64
		for _, t := range targets {
			if agentpath.LooksLikeUUIDPrefix(t) || containsDash(t) {
				continue // uuid targets are covered by the exact rows below
			}
			pat, err := agentpath.CompilePattern(scope, t)
			if err != nil {
				continue
			}
			ids = append(ids, s.barriers.Add(t, pat))
		}
		for _, r := range rows {
			pat, err := agentpath.CompilePattern("", "/"+r.Path)
			if err == nil {
				ids = append(ids, s.barriers.Add(r.Path, pat))
			}
		}
		return ids, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]int64), nil
}

func containsDash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			return true
		}
	}
	return false
}

// killOne ends one row by its status at action time: queued → canceled (if promotion
// won the race, it is killed live instead); starting → cancel interlock, then the agent
// actor waits for the pipeline to wind down and closes any pane it left; live → the
// agent actor's graceful shutdown. It reports whether this call ended the row.
func (s *Server) killOne(ctx context.Context, r store.AgentRow) (bool, error) {
	switch r.Status {
	case "queued":
		_, err := s.write(ctx, opEndQueued(r.UUID))
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, actors.ErrStale) {
			return false, err
		}
	case "starting":
		_, err := s.write(ctx, actors.OpCancelStarting(r.UUID))
		if err != nil && !errors.Is(err, actors.ErrStale) {
			return false, err
		}
		s.sys.Root.Send(s.agentsPID, actors.CancelSpawn{UUID: r.UUID})
		if _, kerr := s.askKill(r.UUID); kerr != nil {
			return false, kerr
		}
		return err == nil, nil
	}
	return s.askKill(r.UUID)
}

func opEndQueued(uuid string) store.Op { return actors.OpEnd(uuid, []string{"queued"}, "canceled") }

func (s *Server) askKill(uuid string) (bool, error) {
	res, err := s.sys.Root.RequestFuture(s.agentsPID, actors.KillAgent{UUID: uuid}, 5*time.Minute).Result()
	if err != nil {
		return false, wire.Internal("actor", "agent actor did not answer: "+err.Error())
	}
	kr := res.(actors.KillResult)
	return kr.Killed, kr.Err
}
