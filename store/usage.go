package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// recordUsage writes u into turn seq of agent uuid with what a report and a budget group
// by (docs/usage.md §2): the provider and path of the agent, the loop whose run started
// it and the completion time, adds it to the agent's totals (its row's usage) and to
// its day's row of usage_days, which reports read (§6), and returns the loop. It runs in
// the transaction that completes the turn, which completes a turn once, so a transcript
// read once is never counted again.
func (t *Tx) recordUsage(uuid string, seq int64, path, provider string, u *TurnUsage) (loop string, err error) {
	loop, err = t.loopOf(path)
	if err != nil {
		return "", err
	}
	var cost any
	micros, unpriced := int64(0), 1
	if u.CostMicros != nil {
		cost, micros, unpriced = *u.CostMicros, *u.CostMicros, 0
	}
	if err := t.exec("record turn usage", `UPDATE turns SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?,
		cache_write_tokens = ?, reasoning_tokens = ?, model = ?, provider = ?, path = ?, loop = ?, cost_micros = ?, usage_at = ?
		WHERE agent_uuid = ? AND input_seq = ?`, u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning, null(u.Model),
		null(provider), path, null(loop), cost, t.now, uuid, seq); err != nil {
		return "", err
	}
	if err := t.exec("add usage to its agent", `UPDATE agents SET usage_turns = usage_turns + 1, usage_tokens = usage_tokens + ?,
		usage_cost_micros = usage_cost_micros + ?, usage_unpriced = usage_unpriced + ? WHERE uuid = ?`,
		u.Input+u.Output+u.CacheRead+u.CacheWrite, micros, unpriced, uuid); err != nil {
		return "", err
	}
	return loop, t.exec("add usage to its day", `INSERT INTO usage_days VALUES (date(? / 1000, 'unixepoch', 'localtime'),
		?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET turns = turns + 1, input_tokens = input_tokens + excluded.input_tokens,
		output_tokens = output_tokens + excluded.output_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
		cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
		reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens, cost_micros = cost_micros + excluded.cost_micros,
		unpriced = unpriced + excluded.unpriced`, t.now, uuid, path, provider, u.Model, loop, u.Input, u.Output, u.CacheRead,
		u.CacheWrite, u.Reasoning, micros, unpriced)
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
	UsageByProvider: "provider",
	UsageByModel:    "model",
	UsageByLoop:     "loop",
	UsageByDay:      "day",
}

// usageSource is the rows a report reads, in usage_days' shape: whole days from
// usage_days and, when since is not a local midnight, the turns of since's own day at or
// after since from the turns_usage index (docs/usage.md §6).
func usageSource(ctx context.Context, db Querier, q UsageQuery) (string, []any, error) {
	pathWhere, pathArgs := "", []any(nil)
	if q.Path != "" {
		pathWhere = ` AND (path = ? OR substr(path, 1, ?) = ?)`
		pathArgs = []any{q.Path, len(q.Path) + 1, q.Path + "/"}
	}
	const days = `SELECT day, agent_uuid, path, provider, model, loop, turns, input_tokens, output_tokens, cache_read_tokens,
		cache_write_tokens, reasoning_tokens, cost_micros, unpriced FROM usage_days WHERE `
	if q.Since <= 0 {
		return days + `1` + pathWhere, pathArgs, nil
	}
	// The day since falls in, and whether since is its first second: SQLite's own local
	// days, the ones usage_days was written with.
	var day, before sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT date(? / 1000, 'unixepoch', 'localtime'), date(? / 1000 - 1, 'unixepoch', 'localtime')`,
		q.Since, q.Since).Scan(&day, &before); err != nil {
		return "", nil, sqliteErr("read usage", err)
	}
	if !day.Valid {
		// Past the last day SQLite can name: no turn completed then.
		return days + `0`, nil, nil
	}
	if q.Since%1000 == 0 && before != day {
		return days + `day >= ?` + pathWhere, append([]any{day.String}, pathArgs...), nil
	}
	// A local day lasts at most 25 hours, which bounds the index range of the first day.
	src := days + `day > ?` + pathWhere + ` UNION ALL SELECT date(usage_at / 1000, 'unixepoch', 'localtime'), agent_uuid,
		path, COALESCE(provider, ''), COALESCE(model, ''), COALESCE(loop, ''), 1, input_tokens, output_tokens,
		cache_read_tokens, cache_write_tokens, COALESCE(reasoning_tokens, 0), COALESCE(cost_micros, 0), cost_micros IS NULL
		FROM turns WHERE usage_at IS NOT NULL AND usage_at >= ? AND usage_at < ?
		AND date(usage_at / 1000, 'unixepoch', 'localtime') = ?` + pathWhere
	args := append([]any{day.String}, pathArgs...)
	args = append(append(args, q.Since, q.Since+25*3600*1000, day.String), pathArgs...)
	return src, args, nil
}

// ReadUsage runs q over the turns that reported usage. It reads usage_days, one row per
// agent and day, and at most a day of turns (docs/usage.md §6); a second pass names the
// models without a price when some turns had none.
func ReadUsage(ctx context.Context, db Querier, q UsageQuery) (UsageReport, error) {
	key, ok := usageKeys[q.By]
	if !ok {
		return UsageReport{}, fmt.Errorf("store: unknown usage grouping %q", q.By)
	}
	src, args, err := usageSource(ctx, db, q)
	if err != nil {
		return UsageReport{}, err
	}
	rows, err := db.QueryContext(ctx, `SELECT `+key+`, MAX(path), SUM(turns), SUM(input_tokens), SUM(output_tokens),
		SUM(cache_read_tokens), SUM(cache_write_tokens), SUM(reasoning_tokens), SUM(cost_micros), SUM(unpriced)
		FROM (`+src+`) GROUP BY 1 ORDER BY 1`, args...)
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
		if r.Unpriced, err = queryStrings(db, ctx, `SELECT DISTINCT model FROM (`+src+`) WHERE unpriced > 0 ORDER BY 1`,
			args...); err != nil {
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
