package actors

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// maxKillRounds bounds a barrier kill (docs/decisions.md D4).
const maxKillRounds = 100

// killParallelism bounds the agents one kill call shuts down at once. A shutdown
// mostly waits (herdr's answers, the agent's exit within its grace, the store's
// commit), so many run side by side: killing N agents then costs about N pane
// closes, not N graces (docs/lifecycle.md §15.2).
const killParallelism = 64

// progressBeat is how often a kill repeats its progress while no shutdown finishes
// (each shutdown waits out its agent's grace): the caller's idle deadline then only
// runs out on a server that stopped working (docs/protocol.md §2.7).
const progressBeat = time.Second

// killTimeout bounds one agent's shutdown (shutdown line, grace, pane close).
const killTimeout = 5 * time.Minute

// Kill is agent.kill (docs/lifecycle.md §11.5) as a barrier kill (docs/decisions.md
// docs/decisions.md D4): barriers for every target go up first in the store actor (new spawns under them
// fail kill_in_progress and queued rows under them are not promoted), then rounds kill
// every active match until a round finds none, then the barriers come down — on every
// path out, including a failed or timed-out install.
func (s *System) Kill(ctx context.Context, r api.KillRequest) (api.KillResult, error) {
	targets, err := bulkTargets(r.Targets)
	if err != nil {
		return api.KillResult{}, err
	}
	caller, err := s.caller(ctx, r.Caller)
	if err != nil {
		return api.KillResult{}, err
	}
	db := s.cfg.DB.Reader()
	rows, err := agentpath.ResolveBulk(ctx, db, caller, targets)
	if wire.Is(err, wire.NotFound, "") {
		ended, eerr := agentpath.ResolveEnded(ctx, db, caller, targets)
		if eerr != nil || len(ended) == 0 {
			return api.KillResult{}, err
		}
		if r.Preview {
			return previewResult(ended), nil
		}
		skipped := make([]api.KillRef, len(ended))
		for i, row := range ended {
			skipped[i] = api.KillRef{UUID: row.UUID, Path: row.Path, Reason: "ended"}
		}
		return api.KillResult{Skipped: skipped}, nil
	}
	if err != nil {
		return api.KillResult{}, err
	}
	if r.Preview {
		return previewResult(rows), nil
	}

	key := s.killSeq.Add(1)
	defer s.sys.Root.Send(s.storePID, LiftBarriers{Key: key})
	if err := s.installBarriers(key, caller, targets, rows); err != nil {
		return api.KillResult{}, err
	}

	var res api.KillResult
	// done and total feed the caller's progress frames (docs/protocol.md §2.7): one
	// per finished shutdown, total growing as rounds find more.
	var done, total atomic.Int64
	beat := time.NewTicker(progressBeat)
	stopBeat := make(chan struct{})
	defer close(stopBeat)
	go func() {
		defer beat.Stop()
		for {
			select {
			case <-stopBeat:
				return
			case <-beat.C:
				wire.ReportProgress(ctx, int(done.Load()), int(total.Load()))
			}
		}
	}()
	killedSet := map[string]bool{}
	skip := map[string]bool{} // unmanaged rows without force: reported once, left alone
	tries := map[string]int{} // a row still active after a kill (it changed state under us) is tried again
	const maxTries = 3
	for round := 0; round < maxKillRounds && len(rows) > 0; round++ {
		var todo []store.AgentRow
		for _, row := range rows {
			if skip[row.UUID] || tries[row.UUID] >= maxTries {
				continue
			}
			if !row.Managed && !r.Force {
				skip[row.UUID] = true
				res.Skipped = append(res.Skipped, api.KillRef{UUID: row.UUID, Path: row.Path, Reason: "force_required"})
				continue
			}
			tries[row.UUID]++
			todo = append(todo, row)
		}
		// Each agent's shutdown waits on its own pane (a shutdown line, a grace, a
		// close); they run side by side, results kept in match order.
		total.Add(int64(len(todo)))
		wire.ReportProgress(ctx, int(done.Load()), int(total.Load()))
		ok := make([]bool, len(todo))
		errs := make([]error, len(todo))
		var wg sync.WaitGroup
		sem := make(chan struct{}, killParallelism)
		for i, row := range todo {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				ok[i], errs[i] = s.killOne(row)
				wire.ReportProgress(ctx, int(done.Add(1)), int(total.Load()))
			}()
		}
		wg.Wait()
		for i, row := range todo {
			if errs[i] != nil {
				return api.KillResult{}, wire.From(errs[i], wire.CauseInternal)
			}
			if ok[i] && !killedSet[row.UUID] {
				killedSet[row.UUID] = true
				res.Killed = append(res.Killed, api.KillRef{UUID: row.UUID, Path: row.Path})
			}
		}
		rows, err = agentpath.ResolveBulk(ctx, db, caller, targets)
		if wire.Is(err, wire.NotFound, "") {
			break
		}
		if err != nil {
			return api.KillResult{}, err
		}
		if len(todo) == 0 {
			break // everything still matching is skipped or out of tries
		}
	}
	res.AllKilled = len(res.Skipped) == 0
	return res, nil
}

func previewResult(rows []store.AgentRow) api.KillResult {
	out := make([]api.PreviewTarget, len(rows))
	for i, r := range rows {
		out[i] = api.PreviewTarget{UUID: r.UUID, Path: r.Path, Status: r.Status, Managed: r.Managed}
	}
	return api.KillResult{Preview: true, Targets: out}
}

// installBarriers puts one barrier per pattern target and one per matched row in place
// in the store actor, and waits until it has taken them: every write ordered after that
// (an agent.run insert, a promotion) sees them.
func (s *System) installBarriers(key int64, caller agentpath.Caller, targets []string, rows []store.AgentRow) error {
	scope, _ := caller.Scope()
	var bs []Barrier
	for _, t := range targets {
		if agentpath.LooksLikeUUIDPrefix(t) || strings.Contains(t, "-") {
			continue // uuid targets are covered by the exact rows below
		}
		if pat, err := agentpath.CompilePattern(scope, t); err == nil {
			bs = append(bs, Barrier{Target: t, M: pat})
		}
	}
	for _, r := range rows {
		if pat, err := agentpath.CompilePattern("", "/"+r.Path); err == nil {
			bs = append(bs, Barrier{Target: r.Path, M: pat})
		}
	}
	if _, err := s.sys.Root.RequestFuture(s.storePID, AddBarriers{Key: key, Barriers: bs}, 60*time.Second).Result(); err != nil {
		return wire.Internal(wire.CauseStore, "store actor did not take the kill barriers: "+err.Error())
	}
	return nil
}

// killOne ends one row by its status at action time: queued → canceled (if promotion
// won the race, it is killed live instead); starting → cancel interlock, then the agent
// actor waits for the pipeline to wind down and closes any pane it left; live → the
// agent actor's graceful shutdown. It reports whether this call ended the row.
func (s *System) killOne(r store.AgentRow) (bool, error) {
	switch r.Status {
	case store.StatusQueued:
		_, err := WriteSync(s.sys.Root, s.storePID, func(tx *store.Tx) (any, error) {
			return nil, tx.EndAgent(r.UUID, []store.Status{store.StatusQueued}, store.ExitCanceled)
		})
		if err == nil || !isStale(err) {
			return err == nil, err
		}
	case store.StatusStarting:
		_, err := WriteSync(s.sys.Root, s.storePID, func(tx *store.Tx) (any, error) {
			return nil, tx.CancelStarting(r.UUID, store.ExitCanceled)
		})
		if err != nil && !isStale(err) {
			return false, err
		}
		s.sys.Root.Send(s.agents, CancelSpawn{UUID: r.UUID})
		// The cancel found the spawn already done (the row is running now): the agent
		// actor's kill is then the one that ends it.
		killed, kerr := s.askKill(r.UUID)
		if kerr != nil {
			return false, kerr
		}
		return err == nil || killed, nil
	}
	return s.askKill(r.UUID)
}

func (s *System) askKill(uuid string) (bool, error) {
	res, err := s.sys.Root.RequestFuture(s.agents, KillAgent{UUID: uuid}, killTimeout).Result()
	if err != nil {
		return false, wire.Internal(wire.CauseActor, "agent actor did not answer: "+err.Error())
	}
	kr := res.(KillOutcome)
	return kr.Killed, kr.Err
}
