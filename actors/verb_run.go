package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// Run is agent.run (docs/protocol.md §5.8, docs/lifecycle.md §7.1): every check first
// (the prompt's included, [CheckPrompt]), then the data dir and launch.json, then one store transaction that checks the kill
// barriers and the loop namespace and inserts the queued row with agent.created. The
// queue is poked so promotion does not wait for its next tick.
func (s *System) Run(ctx context.Context, r api.RunRequest) (api.RunResult, error) {
	switch {
	case r.Name != "" && r.Path != "":
		return api.RunResult{}, wire.Invalid(wire.ReasonNameAndPath, "give either name or path, not both")
	case r.Name == "" && r.Path == "":
		return api.RunResult{}, wire.Invalid(wire.ReasonNameRequired, "a name or a path is required")
	}
	prompt, err := CheckPrompt(r.Prompt)
	if err != nil {
		return api.RunResult{}, err
	}
	r.Prompt = prompt
	provName := r.Agent
	if provName == "" {
		provName = s.cfg.Config.Defaults.Agent
	}
	herdrErr := s.findHerdr()
	prov, err := provider.Lookup(provName, s.providerOptions())
	if err != nil {
		if provName != provider.Mock {
			return api.RunResult{}, provider.CheckSupport(provName, false, s.herdrInstalled(ctx))
		}
		return api.RunResult{}, err
	}
	// Every agent runs in a herdr pane: without a usable binary nothing is enqueued, and
	// the error says how to install herdr rather than one of its integrations.
	if herdrErr != nil {
		return api.RunResult{}, herdrErr
	}
	if provName != provider.Mock {
		if err := s.providerOptions().Support(provName, s.herdrInstalled(ctx)); err != nil {
			return api.RunResult{}, err
		}
	}
	gc := store.GCMode(r.GC)
	switch gc {
	case "":
		gc = store.GCAuto
	case store.GCAuto, store.GCImmediate, store.GCNever:
	default:
		return api.RunResult{}, wire.Invalid(wire.ReasonInvalidGC, "gc must be auto, immediate or never", "value", r.GC)
	}
	route, err := prov.Route(s.cfg.Config, r.Model, r.Effort)
	if err != nil {
		return api.RunResult{}, err
	}
	// Agents started while remote.approvals is on ask before risky tool calls: they run
	// without the provider's permission bypass and their approvals row is mounted
	// (docs/remote.md §7).
	route.Approvals = s.cfg.Config.Remote.Approvals
	if err := prov.Preflight(route, os.Geteuid(), s.serverEnv()); err != nil {
		return api.RunResult{}, err
	}
	timeout, err := parseTimeout(r.Timeout)
	if err != nil {
		return api.RunResult{}, err
	}
	var budget api.BudgetLimit
	if r.Budget != "" {
		if budget, err = api.ParseBudget(r.Budget); err != nil {
			return api.RunResult{}, err
		}
		if budget.IsPercent() {
			return api.RunResult{}, wire.Invalid(wire.ReasonInvalidBudget, "a run budget is a cost (2usd) or a token "+
				"count (500k); a quota percent is for a budget rule with a window", "value", r.Budget)
		}
	}
	caller, err := s.caller(ctx, r.Caller)
	if err != nil {
		return api.RunResult{}, err
	}
	scope, _ := caller.Scope()
	path, err := agentpath.Creation(scope, r.Name, r.Path, nil)
	if err != nil {
		return api.RunResult{}, err
	}
	argv, err := prov.LaunchArgv(route)
	if err != nil {
		return api.RunResult{}, err
	}

	id, err := uuid.NewV7()
	if err != nil {
		return api.RunResult{}, wire.Internal(wire.CauseUUID, err.Error())
	}
	uid, token := id.String(), uuid.NewString()
	// The worktree is planned here and made by the spawn (docs/lifecycle.md §8.4): a
	// refusal comes before anything is written. The agent's cwd is the worktree.
	wt, err := s.planWorktree(ctx, r, path, uid)
	if err != nil {
		return api.RunResult{}, err
	}
	if wt != nil {
		r.Cwd = wt.Path
	}
	home := s.cfg.Home
	dir := AgentDataDir(home, path, uid)
	parentID, parentPath := caller.Parent()
	env := s.paneEnv(prov, uid, path, token)
	if parentID != "" && parentPath != "" {
		env["ORCR_PARENT_ID"], env["ORCR_PARENT_PATH"] = parentID, parentPath
	}
	if first := agentpath.FirstSegment(path); first != path {
		active, err := s.cfg.DB.LoopActive(ctx, first)
		if err != nil {
			return api.RunResult{}, err
		}
		if active {
			env["ORCR_LOOP_DATA_DIR"] = home + "/data/" + first
		}
	}
	l := &Launch{Version: 1, UUID: uid, Path: path, Provider: provName, Argv: argv,
		Model: route.Model, Effort: route.Effort, GCMode: string(gc), LaunchToken: token,
		EffectivePath: path, Env: env, CreatedAt: time.Now().UnixMilli(), Approvals: route.Approvals}
	if r.Prompt != "" {
		l.Prompt = &r.Prompt
	}
	l.Cwd, l.Timeout, l.Scope = optional(r.Cwd), optional(r.Timeout), optional(scope)
	if err := WriteLaunch(dir, l); err != nil {
		return api.RunResult{}, err
	}
	n := store.NewAgent{UUID: uid, Path: path, ParentID: parentID, Provider: provName, Model: route.Model,
		Effort: route.Effort, GCMode: gc, Cwd: r.Cwd, Session: s.cfg.Config.Herdr.Session, LaunchToken: token,
		Budget: budget, Account: s.accountOf(provName, env)}
	if wt != nil {
		n.Worktree = *wt
	}
	_, err = s.writeGuarded(func(tx *store.Tx, b BarrierView) (any, error) {
		if target, ok := b.Covering(path); ok {
			return nil, wire.Conflict(fmt.Sprintf("a kill of `%s` is in progress", target),
				"reason", wire.ReasonKillInProgress, "target", target)
		}
		if err := agentpath.CheckLoopNamespace(tx.Context(), tx, path, r.CallerPath); err != nil {
			return nil, err
		}
		if timeout > 0 {
			n.DeadlineAt = tx.Now() + timeout.Milliseconds()
		}
		row, err := tx.Enqueue(n)
		if err == nil && route.Approvals {
			err = tx.MountApprovals(uid)
		}
		return row, err
	})
	if err != nil {
		os.RemoveAll(dir)
		var inUse *store.PathInUseError
		if errors.As(err, &inUse) {
			return api.RunResult{}, pathInUse(inUse)
		}
		var wtInUse *store.WorktreeInUseError
		if errors.As(err, &wtInUse) {
			return api.RunResult{}, worktreeInUse(wtInUse)
		}
		return api.RunResult{}, wire.From(err, wire.CauseSQLite)
	}
	s.sys.Root.Send(s.queue, PokeQueue{})

	res := api.RunAgent{UUID: uid, Path: path, Agent: provName, Managed: true, DataDir: dir, Status: store.StatusQueued}
	if r.Cwd != "" {
		res.Cwd = &r.Cwd
	}
	// The row as it is now: the promotion pass poked above may already have moved it.
	if row, err := store.AgentByUUID(ctx, s.cfg.DB.Reader(), uid); err == nil {
		res.Status, res.QueuePosition, res.Worktree = row.Status, row.QueuePosition, row.Worktree
	}
	if parentID != "" {
		res.ParentID, res.ParentPath = parentID, parentPath
	}
	perms := "bypass"
	if route.Approvals {
		perms = "approvals" // docs/remote.md §7: the provider asks; the stream's clients decide
	}
	return api.RunResult{Agent: res, Permissions: perms}, nil
}

func pathInUse(e *store.PathInUseError) error {
	if e.Occupant == nil {
		return wire.Conflict(e.Error(), "reason", wire.ReasonPathInUse, "path", e.Path)
	}
	o := e.Occupant
	return wire.Conflict(e.Error(), "reason", wire.ReasonPathInUse, "current_status", o.Status,
		"occupant", map[string]any{"uuid": o.UUID, "path": o.Path, "status": o.Status})
}

func parseTimeout(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := config.ParseDuration(s)
	if err != nil {
		return 0, wire.Invalid(wire.ReasonBadDuration, "bad timeout: "+err.Error(), "value", s)
	}
	return d, nil
}
