package actors

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// turnUsage is the usage of the last turn of st's transcript at path, priced
// (docs/usage.md §2): the transcript's model, else the agent's, at the price table's
// price; no cost when the model has none. nil when the transcript reported no usage.
func (env *AgentEnv) turnUsage(st store.Agent, path string) *store.TurnUsage {
	if env.Transcripts == nil || path == "" {
		return nil
	}
	u, ok := env.Transcripts.Usage(st.Provider, path)
	if !ok {
		return nil
	}
	return env.priceUsage(st, u)
}

// priceUsage is u priced as [AgentEnv.turnUsage] prices it.
func (env *AgentEnv) priceUsage(st store.Agent, u store.TurnUsage) *store.TurnUsage {
	if u.Model == "" {
		u.Model = st.Model
	}
	if p, ok := env.providers().Price(u.Model); ok {
		c := p.CostMicros(u.Input, u.Output, u.CacheRead, u.CacheWrite)
		u.CostMicros = &c
	}
	return &u
}

// Usage is usage.report (docs/usage.md §4): the turns that reported usage, selected by
// since and path, grouped by req.By, from the turns_usage index.
func (s *System) Usage(ctx context.Context, r api.UsageRequest) (api.UsageResult, error) {
	if r.By != "" && !slices.Contains(store.UsageGroupings, r.By) {
		return api.UsageResult{}, wire.Invalid(wire.ReasonInvalidGrouping, fmt.Sprintf("cannot group usage by %q (by %s)",
			r.By, strings.Join(store.UsageGroupings, ", ")), "value", r.By, "valid", store.UsageGroupings)
	}
	rep, err := store.ReadUsage(ctx, s.cfg.DB.Reader(), store.UsageQuery{By: r.By, Depth: r.Depth, Since: r.Since,
		Path: strings.Trim(r.Path, "/")})
	if err != nil {
		return api.UsageResult{}, wire.From(err, wire.CauseSQLite)
	}
	out := api.UsageResult{By: r.By, Rows: make([]api.UsageRow, len(rep.Groups)), Total: usageSum(rep.Total),
		UnpricedModels: rep.Unpriced}
	for i, g := range rep.Groups {
		out.Rows[i] = api.UsageRow{Key: g.Key, Path: g.Path, UsageSum: usageSum(g.UsageSum)}
	}
	if out.UnpricedModels == nil {
		out.UnpricedModels = []string{}
	}
	if r.Quota {
		if out.Quota, err = s.quota(ctx); err != nil {
			return api.UsageResult{}, wire.From(err, wire.CauseSQLite)
		}
	}
	return out, nil
}

func usageSum(s store.UsageSum) api.UsageSum {
	return api.UsageSum{Turns: s.Turns, InputTokens: s.Input, OutputTokens: s.Output, CacheReadTokens: s.CacheRead,
		CacheWriteTokens: s.CacheWrite, ReasoningTokens: s.Reasoning, CostUSD: float64(s.CostMicros) / 1e6,
		UnpricedTurns: s.Unpriced}
}

// usageToday is what the turns completed since local midnight used (server.status).
func (s *System) usageToday(ctx context.Context) api.UsageSum {
	now := time.Now()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.Local)
	rep, err := store.ReadUsage(ctx, s.cfg.DB.Reader(), store.UsageQuery{Since: midnight.UnixMilli()})
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot read today's usage", "err", err)
	}
	return usageSum(rep.Total)
}

// quota is the last report of every quota window (docs/usage.md §7), judged now
// against quota.warn_at and quota.pause_at ([api.QuotaWindow.Judge]), never nil.
func (s *System) quota(ctx context.Context) ([]api.QuotaWindow, error) {
	ws, err := s.cfg.DB.QuotaWindows(ctx)
	if ws == nil {
		ws = []api.QuotaWindow{}
	}
	now := time.Now().UnixMilli()
	for i := range ws {
		ws[i] = ws[i].Judge(now, s.cfg.Config.Quota.WarnAt, s.cfg.Config.Quota.PauseAt)
	}
	return ws, err
}
