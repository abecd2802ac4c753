package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// recordUsage writes u into turn seq of agent uuid with what a report and a budget group
// by (docs/usage.md §2): the provider and path of the agent, the loop whose run started
// it and the completion time, and returns the loop. It runs in the transaction that completes the turn, which
// completes a turn once, so a transcript read once is never counted again.
func (t *Tx) recordUsage(uuid string, seq int64, path, provider string, u *TurnUsage) (loop string, err error) {
	loop, err = t.loopOf(path)
	if err != nil {
		return "", err
	}
	var cost any
	if u.CostMicros != nil {
		cost = *u.CostMicros
	}
	return loop, t.exec("record turn usage", `UPDATE turns SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?,
		cache_write_tokens = ?, reasoning_tokens = ?, model = ?, provider = ?, path = ?, loop = ?, cost_micros = ?, usage_at = ?
		WHERE agent_uuid = ? AND input_seq = ?`, u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning, null(u.Model),
		null(provider), path, null(loop), cost, t.now, uuid, seq)
}

// loopOf is the name of the loop whose run an agent at path belongs to: a path
// <loop>/<run_id>/… whose run exists (docs/loops.md); "" for none.
func (t *Tx) loopOf(path string) (string, error) {
	parts := strings.SplitN(path, "/", 3)
	if len(parts) < 3 {
		return "", nil
	}
	n, err := t.count(`SELECT count(*) FROM loop_runs r JOIN loops l ON l.uuid = r.loop_uuid WHERE l.name = ? AND r.run_id = ?`,
		parts[0], parts[1])
	if err != nil || n == 0 {
		return "", err
	}
	return parts[0], nil
}

// usageFields is the session log's usage/reported payload (docs/remote.md §5), without
// its input_seq: the tokens by kind, the model and the cost in US dollars (absent when
// the model has no price).
func usageFields(u *TurnUsage) map[string]any {
	m := map[string]any{"input_tokens": u.Input, "output_tokens": u.Output, "cache_read_tokens": u.CacheRead,
		"cache_write_tokens": u.CacheWrite, "reasoning_tokens": u.Reasoning, "model": u.Model}
	if u.CostMicros != nil {
		m["cost_usd"] = float64(*u.CostMicros) / 1e6
	}
	return m
}

// The groupings of a usage report (docs/usage.md §4).
const (
	UsageByAgent    = "agent"
	UsageByPath     = "path"
	UsageByProvider = "provider"
	UsageByModel    = "model"
	UsageByLoop     = "loop"
	UsageByDay      = "day"
)

// UsageGroupings are the values of UsageQuery.By, "" aside (totals only).
var UsageGroupings = []string{UsageByAgent, UsageByPath, UsageByProvider, UsageByModel, UsageByLoop, UsageByDay}

// UsageQuery selects and groups the turns that reported usage.
type UsageQuery struct {
	// By is one of [UsageGroupings], or "" for the totals alone.
	By string
	// Depth, for By path, is how many leading segments of the path a group keeps
	// (at least 1).
	Depth int
	// Since keeps the turns completed at or after it (unix ms; 0 = all).
	Since int64
	// Path keeps the turns of the agent at Path and of those under it ("" = all).
	Path string
}

// UsageSum is what a group of turns used. CostMicros sums the priced turns; Unpriced
// counts the turns whose model had no price.
type UsageSum struct {
	Turns, Input, Output, CacheRead, CacheWrite, Reasoning, CostMicros, Unpriced int64
}

func (s *UsageSum) add(o UsageSum) {
	s.Turns += o.Turns
	s.Input += o.Input
	s.Output += o.Output
	s.CacheRead += o.CacheRead
	s.CacheWrite += o.CacheWrite
	s.Reasoning += o.Reasoning
	s.CostMicros += o.CostMicros
	s.Unpriced += o.Unpriced
}

// UsageGroup is one group of a report: its key (the agent's uuid, the path prefix, the
// provider, model or loop name — "" for none — or the local day YYYY-MM-DD) and, by
// agent, the agent's path.
type UsageGroup struct {
	Key, Path string
	UsageSum
}

// UsageReport is a report: its groups in key order (by day: oldest first), their total
// and the models of its turns that had no price, sorted.
type UsageReport struct {
	Groups   []UsageGroup
	Total    UsageSum
	Unpriced []string
}

var usageKeys = map[string]string{
	"":              "''",
	UsageByAgent:    "agent_uuid",
	UsageByPath:     "path",
	UsageByProvider: "COALESCE(provider, '')",
	UsageByModel:    "COALESCE(model, '')",
	UsageByLoop:     "COALESCE(loop, '')",
	UsageByDay:      "date(usage_at / 1000, 'unixepoch', 'localtime')",
}

// ReadUsage runs q over the turns that reported usage. It reads the turns_usage index
// alone (docs/usage.md §6): two statements whatever the number of turns.
func ReadUsage(ctx context.Context, db Querier, q UsageQuery) (UsageReport, error) {
	key, ok := usageKeys[q.By]
	if !ok {
		return UsageReport{}, fmt.Errorf("store: unknown usage grouping %q", q.By)
	}
	where, args := `usage_at IS NOT NULL AND usage_at >= ?`, []any{q.Since}
	if q.Path != "" {
		where += ` AND (path = ? OR substr(path, 1, ?) = ?)`
		args = append(args, q.Path, len(q.Path)+1, q.Path+"/")
	}
	rows, err := db.QueryContext(ctx, `SELECT `+key+`, MAX(path), count(*), SUM(input_tokens), SUM(output_tokens),
		SUM(cache_read_tokens), SUM(cache_write_tokens), COALESCE(SUM(reasoning_tokens), 0), COALESCE(SUM(cost_micros), 0),
		SUM(cost_micros IS NULL) FROM turns WHERE `+where+` GROUP BY 1 ORDER BY 1`, args...)
	if err != nil {
		return UsageReport{}, sqliteErr("read usage", err)
	}
	defer rows.Close()
	var r UsageReport
	for rows.Next() {
		var g UsageGroup
		if err := rows.Scan(&g.Key, &g.Path, &g.Turns, &g.Input, &g.Output, &g.CacheRead, &g.CacheWrite, &g.Reasoning,
			&g.CostMicros, &g.Unpriced); err != nil {
			return UsageReport{}, sqliteErr("read usage", err)
		}
		if q.By != UsageByAgent {
			g.Path = ""
		}
		r.Total.add(g.UsageSum)
		if q.By != "" {
			r.Groups = append(r.Groups, g)
		}
	}
	if err := rows.Err(); err != nil {
		return UsageReport{}, sqliteErr("read usage", err)
	}
	if q.By == UsageByPath {
		r.Groups = foldPaths(r.Groups, max(q.Depth, 1))
	}
	if r.Total.Unpriced > 0 {
		if r.Unpriced, err = queryStrings(db, ctx, `SELECT DISTINCT COALESCE(model, '') FROM turns WHERE `+where+
			` AND cost_micros IS NULL ORDER BY 1`, args...); err != nil {
			return UsageReport{}, err
		}
	}
	return r, nil
}

// foldPaths merges groups keyed by full path into their first depth segments.
func foldPaths(gs []UsageGroup, depth int) []UsageGroup {
	by := map[string]*UsageGroup{}
	var keys []string
	for _, g := range gs {
		k := g.Key
		if parts := strings.SplitN(k, "/", depth+1); len(parts) > depth {
			k = strings.Join(parts[:depth], "/")
		}
		if by[k] == nil {
			by[k] = &UsageGroup{Key: k}
			keys = append(keys, k)
		}
		by[k].add(g.UsageSum)
	}
	sort.Strings(keys)
	out := make([]UsageGroup, len(keys))
	for i, k := range keys {
		out[i] = *by[k]
	}
	return out
}
