package actors

import (
	"context"
	"strings"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/api/wire/pathglob"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/store"
)

// budgetRules compiles the config's budget rules for the store (docs/usage.md §8.1);
// config.Load validated every pattern.
func budgetRules(rules []config.BudgetRule) []store.BudgetRule {
	out := make([]store.BudgetRule, 0, len(rules))
	for _, r := range rules {
		var pat *pathglob.Pattern
		if r.Path != "" {
			pat, _ = pathglob.Compile("", r.Path)
		}
		want := r
		out = append(out, store.BudgetRule{Name: r.Name, Limit: r.Limit, Per: r.Per, WarnAt: r.WarnAt, Loop: r.Loop,
			Interrupt: r.Interrupt, Window: r.Window, Provider: r.Provider,
			Fleet: r.Path == "" && r.Provider == "" && r.Loop == "",
			Match: func(path, provider, loop string) bool {
				return (pat == nil || pat.Match(path)) && (want.Provider == "" || want.Provider == provider) &&
					(want.Loop == "" || want.Loop == loop)
			}})
	}
	return out
}

// BudgetLs is budget.ls (docs/usage.md §8.4).
func (s *System) BudgetLs(ctx context.Context, _ api.BudgetLsRequest) (api.BudgetLsResult, error) {
	rows, err := store.ReadBudgets(ctx, s.cfg.DB.Reader(), s.budgets, time.Now().UnixMilli())
	if err != nil {
		return api.BudgetLsResult{}, wire.From(err, wire.CauseSQLite)
	}
	if rows == nil {
		rows = []api.BudgetRow{}
	}
	return api.BudgetLsResult{Budgets: rows}, nil
}

// BudgetExtend is budget.extend (docs/usage.md §8.4): the target is a rule's name, a run
// budget's name (run:<path>) or an agent (the budget that paused it); the scope's limit
// grows by r.By and the agents it resumed get what waits in their inboxes.
func (s *System) BudgetExtend(ctx context.Context, r api.BudgetExtendRequest) (api.BudgetExtendResult, error) {
	by, err := api.ParseBudget(r.By)
	if err != nil {
		return api.BudgetExtendResult{}, err
	}
	return s.extendBudget(ctx, r, by)
}

// extendBudget is budget.extend's use case; a zero by is an Approve (docs/usage.md
// §8.5): the limit becomes what is spent plus the budget's own limit.
func (s *System) extendBudget(ctx context.Context, r api.BudgetExtendRequest, by api.BudgetLimit) (api.BudgetExtendResult, error) {
	b, err := s.budgetTarget(ctx, r)
	if err != nil {
		return api.BudgetExtendResult{}, err
	}
	type extended struct {
		row     api.BudgetRow
		resumed []store.Resumed
	}
	v, err := s.write(func(tx *store.Tx) (any, error) {
		row, resumed, err := tx.ExtendBudget(b, by)
		return extended{row, resumed}, err
	})
	if err != nil {
		return api.BudgetExtendResult{}, err
	}
	e := v.(extended)
	out := api.BudgetExtendResult{Budget: e.row, Resumed: make([]string, len(e.resumed))}
	for i, a := range e.resumed {
		out.Resumed[i] = a.Path
		s.sys.Root.Send(s.agents, drainInbox{UUID: a.UUID})
	}
	return out, nil
}

// cutTurns sends the interrupt recipe (docs/decisions.md D6) to the panes of the turns
// an interrupt budget cut in a committed transaction (docs/usage.md §8.3), after the deny
// answer of a turn parked on an approval the cut denied; a plain send through agents, so
// each agent actor types them between its own ops. A crash before the keys leaves the
// pause in place and the turn running to its end.
func cutTurns(send func(sendKeys), keysOf func(provider string) (RemoteKeys, bool), cuts []store.BudgetCut) {
	for _, c := range cuts {
		keys, ok := keysOf(c.Provider)
		if !ok {
			continue
		}
		var seq []string
		if c.Deny {
			seq = append(seq, keys.Deny...)
		}
		if seq = append(seq, keys.Interrupt...); len(seq) > 0 {
			send(sendKeys{UUID: c.UUID, Keys: seq, Why: "budget"})
		}
	}
}

// approveBudget is an approve frame naming a budget pause (docs/remote.md §7.1): the
// pause must be the agent's standing one (else stale_call); then budget.extend's use
// case through the agent, with Approve's amount.
func (s *System) approveBudget(ctx context.Context, agent, pauseID string) error {
	if _, err := s.streamRow(ctx, agent); err != nil {
		return err
	}
	id, err := store.BudgetPauseID(ctx, s.cfg.DB.Reader(), agent)
	if err != nil {
		return err
	}
	if id == "" || id != pauseID {
		return streamErr(string(remote.StaleCall), "%q is not the agent's standing budget pause", pauseID)
	}
	_, err = s.extendBudget(ctx, api.BudgetExtendRequest{Target: agent}, api.BudgetLimit{})
	if pe, ok := wire.As(err); ok && (pe.Code == wire.StateConflict || pe.Code == wire.NotFound) {
		return streamErr(string(remote.StaleCall), "%s", pe.Message) // resumed meanwhile, or its rule is gone
	}
	return err
}

// budgetTarget resolves budget.extend's target: a config rule (per agent: only through
// an agent), run:<path>, or an agent whose pause names the budget.
func (s *System) budgetTarget(ctx context.Context, r api.BudgetExtendRequest) (store.BudgetTarget, error) {
	if r.Target == "" {
		return store.BudgetTarget{}, wire.Invalid(wire.ReasonTargetRequired, "a budget or an agent is required")
	}
	if path, ok := strings.CutPrefix(r.Target, store.RunBudgetPrefix); ok {
		return store.BudgetTarget{RunPath: path}, nil
	}
	for i := range s.budgets {
		if rule := &s.budgets[i]; rule.Name == r.Target {
			if rule.Per == api.BudgetPerAgent || rule.Per == api.BudgetPerTurn {
				return store.BudgetTarget{}, wire.Invalid(wire.ReasonTargetRequired, "budget "+rule.Name+
					" is per "+rule.Per+": extend it through the agent it paused (orcr budget extend <agent> --by …)", "target", r.Target)
			}
			return store.BudgetTarget{Rule: rule}, nil
		}
	}
	row, _, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return store.BudgetTarget{}, err
	}
	paused := ""
	if row.BudgetPaused != nil {
		paused = *row.BudgetPaused
	}
	if paused == "" {
		return store.BudgetTarget{}, wire.Conflict("agent "+row.Path+" is not paused on a budget", "target", r.Target)
	}
	if path, ok := strings.CutPrefix(paused, store.RunBudgetPrefix); ok {
		return store.BudgetTarget{RunPath: path}, nil
	}
	for i := range s.budgets {
		if rule := &s.budgets[i]; rule.Name == paused {
			b := store.BudgetTarget{Rule: rule}
			if rule.Per == api.BudgetPerAgent || rule.Per == api.BudgetPerTurn || rule.Limit.IsPercent() {
				b.Agent = row.UUID
			}
			return b, nil
		}
	}
	return store.BudgetTarget{}, wire.Conflict("agent "+row.Path+" is paused on budget "+paused+
		", which the config no longer names; add it back or extend another", "target", r.Target)
}
