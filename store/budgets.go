package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Budgets (docs/usage.md §8): the rules from config, set once at start ([DB.SetBudgets]),
// and the run budgets of agent run --budget (run_budgets, schema 12), checked in the
// transaction that records a turn's usage.

// BudgetRule is a config budget rule as the store checks it.
type BudgetRule struct {
	Name string
	// Match reports whether the rule counts a turn of an agent at path, of provider,
	// under loop ("" = none).
	Match func(path, provider, loop string) bool
	// Loop is the rule's loop key ("" = none) and Fleet whether it has no match key at
	// all: the rules a loop's fires stop on (docs/usage.md §8.3).
	Loop   string
	Fleet  bool
	Limit  api.BudgetLimit
	Per    string // one of api.BudgetScopes
	WarnAt float64
	// Interrupt: reaching the limit cuts the running turns of the other agents the
	// rule counts (docs/usage.md §8.3).
	Interrupt bool
	// Window is the quota window (api.BudgetWindows) of a percent limit; Provider the
	// rule's provider key ("" = any), which names the windows budget.ls lists.
	Window, Provider string
}

// RunBudgetPrefix starts the name of a run budget: run:<path of the agent it was given to>.
const RunBudgetPrefix = "run:"

// runBudgetWarnAt is the warn_at of a run budget.
const runBudgetWarnAt = 0.8

// SetBudgets sets the budget rules every later turn completion checks. It is called
// once, before the first write.
func (db *DB) SetBudgets(rules []BudgetRule) {
	db.budgets.Store(&rules)
}

func (db *DB) budgetRules() []BudgetRule {
	if p := db.budgets.Load(); p != nil {
		return *p
	}
	return nil
}

// budgetAmount is what a budget counts of a spend: its cost or its non-cached tokens.
func budgetAmount(l api.BudgetLimit, costMicros, tokens int64) int64 {
	if l.IsCost() {
		return costMicros
	}
	return tokens
}

func budgetBase(l api.BudgetLimit) int64 {
	if l.IsPercent() {
		return l.Centipercent
	}
	return budgetAmount(l, l.CostMicros, l.Tokens)
}

// spendRow is what the turns of one agent spent, with what a rule matches on.
type spendRow struct {
	uuid, path, provider, loop string
	cost, tokens               int64
}

// nonCached is the token count a budget counts (docs/usage.md §8): input, output with
// reasoning, cache writes — not cache reads.
const nonCached = `SUM(input_tokens + output_tokens + cache_write_tokens)`

// readSpend sums the turns with usage completed at or after since by agent, provider and
// loop (agent = "": every agent), over the turns_usage index.
func readSpend(ctx context.Context, q Querier, since int64, agent string) ([]spendRow, error) {
	where, args := `usage_at IS NOT NULL AND usage_at >= ?`, []any{since}
	if agent != "" {
		where += ` AND agent_uuid = ?`
		args = append(args, agent)
	}
	return queryRows(ctx, q, `SELECT agent_uuid, MAX(path), COALESCE(provider, ''), COALESCE(loop, ''),
		COALESCE(SUM(cost_micros), 0), COALESCE(`+nonCached+`, 0) FROM turns WHERE `+where+`
		GROUP BY agent_uuid, provider, loop`, args, func(s Scanner) (r spendRow, err error) {
		return r, s.Scan(&r.uuid, &r.path, &r.provider, &r.loop, &r.cost, &r.tokens)
	})
}

// localDay is the server's local day of ms and the ms of its midnight.
func localDay(ms int64) (string, int64) {
	t := time.UnixMilli(ms)
	midnight := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.Local)
	return midnight.Format(time.DateOnly), midnight.UnixMilli()
}

// turnScope is the scope of a per-turn rule: turn seq of agent uuid.
func turnScope(uuid string, seq int64) string { return uuid + "#" + strconv.FormatInt(seq, 10) }

// ruleScope is the scope of rule r a turn seq of agent uuid at now falls in, and the
// completion time its turns start at.
func ruleScope(r BudgetRule, uuid string, seq, now int64) (scope string, since int64) {
	switch r.Per {
	case api.BudgetPerTurn:
		return turnScope(uuid, seq), 0
	case api.BudgetPerAgent:
		return uuid, 0
	case api.BudgetPerDay:
		return localDay(now)
	}
	return "", 0
}

// ruleSpent is what rule r's scope spent: the turns since since (of agent, for per
// agent; turn seq of agent, for per turn) that r matches.
func ruleSpent(ctx context.Context, q Querier, r BudgetRule, since int64, agent string, seq int64) (int64, error) {
	if r.Per == api.BudgetPerTurn {
		var cost, tokens int64
		err := q.QueryRowContext(ctx, `SELECT COALESCE(cost_micros, 0), input_tokens + output_tokens + cache_write_tokens
			FROM turns WHERE agent_uuid = ? AND input_seq = ? AND usage_at IS NOT NULL`, agent, seq).Scan(&cost, &tokens)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		return budgetAmount(r.Limit, cost, tokens), sqliteErr("read turn spend", err)
	}
	rows, err := readSpend(ctx, q, since, agent)
	var n int64
	for _, s := range rows {
		if r.Match(s.path, s.provider, s.loop) {
			n += budgetAmount(r.Limit, s.cost, s.tokens)
		}
	}
	return n, err
}

// runSpent is what the lineage of run budget owner spent: the agents that count against
// it and those that count against a run budget given inside its lineage, at any depth
// (docs/usage.md §8.2). A nested budget's owner is an agent whose parent counts against
// an enclosing one.
func runSpent(ctx context.Context, q Querier, owner string, l api.BudgetLimit) (int64, error) {
	var cost, tokens int64
	err := q.QueryRowContext(ctx, `WITH RECURSIVE sub(owner) AS (SELECT ? UNION SELECT rb.agent_uuid FROM run_budgets rb
		JOIN agents o ON o.uuid = rb.agent_uuid JOIN agents p ON p.uuid = o.parent_id JOIN sub ON p.run_budget = sub.owner)
		SELECT COALESCE(SUM(t.cost_micros), 0), COALESCE(SUM(t.input_tokens + t.output_tokens + t.cache_write_tokens), 0)
		FROM agents a JOIN turns t ON t.agent_uuid = a.uuid
		WHERE a.run_budget IN (SELECT owner FROM sub) AND t.usage_at IS NOT NULL`, owner).Scan(&cost, &tokens)
	return budgetAmount(l, cost, tokens), sqliteErr("read run budget spend", err)
}

// runChain is the run budgets an agent counting against owner counts against: owner,
// then the one its agent's parent counts against, and so on up the lineage.
func (t *Tx) runChain(owner string) ([]string, error) {
	chain := []string{owner}
	for seen := map[string]bool{owner: true}; ; {
		var up sql.NullString
		err := t.QueryRow(`SELECT p.run_budget FROM agents o JOIN agents p ON p.uuid = o.parent_id WHERE o.uuid = ?`,
			chain[len(chain)-1]).Scan(&up)
		if errors.Is(err, sql.ErrNoRows) || err == nil && (!up.Valid || seen[up.String]) {
			return chain, nil
		}
		if err != nil {
			return nil, sqliteErr("read enclosing run budget", err)
		}
		seen[up.String] = true
		chain = append(chain, up.String)
	}
}

// runBudget is a run_budgets row.
type runBudget struct {
	owner, path string
	limit       api.BudgetLimit
}

func scanRunBudget(s Scanner) (b runBudget, err error) {
	return b, s.Scan(&b.owner, &b.path, &b.limit.CostMicros, &b.limit.Tokens)
}

const runBudgetSelect = `SELECT agent_uuid, path, cost_micros, tokens FROM run_budgets`

// budgetCheck is one budget a completed turn counts against, summed.
type budgetCheck struct {
	budget, scope string
	limit         api.BudgetLimit
	warnAt        float64
	spent         int64
	// rule is the config rule (nil: a run budget), whose interrupt cuts the running
	// turns it counts when its scope reaches the limit.
	rule *BudgetRule
}

// scopeState reads what budget's scope was told and reached: the amount extended and
// the state ("ok" and 0 when none).
func scopeState(ctx context.Context, q Querier, budget, scope string) (extra int64, state string, err error) {
	err = q.QueryRowContext(ctx, `SELECT extra, state FROM budget_scopes WHERE budget = ? AND scope = ?`, budget, scope).
		Scan(&extra, &state)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, api.BudgetStateOK, nil
	}
	return extra, state, sqliteErr("read budget scope", err)
}

// budgetState is the state spent reaches against limit (the base and the extension).
func budgetState(spent, limit int64, warnAt float64) string {
	switch {
	case spent >= limit:
		return api.BudgetStateExceeded
	case float64(spent) >= warnAt*float64(limit):
		return api.BudgetStateWarned
	}
	return api.BudgetStateOK
}

var budgetRank = map[string]int{api.BudgetStateOK: 0, api.BudgetStateWarned: 1, api.BudgetStateExceeded: 2}

// checkBudgets checks every budget turn seq of agent uuid (at path, of provider, under
// loop) counts against, after its usage was recorded (docs/usage.md §8.3): a scope that
// first reaches warn_at emits budget.warned; one at its limit emits budget.exceeded and
// pauses the agent at this boundary (agents.budget_paused).
func (t *Tx) checkBudgets(uuid string, seq int64, path, provider, loop string) error {
	checks, err := t.budgetChecks(uuid, seq, path, provider, loop)
	if err != nil {
		return err
	}
	for _, c := range checks {
		if err := t.settleBudget(uuid, c); err != nil {
			return err
		}
	}
	return nil
}

// budgetChecks sums every budget turn seq of agent uuid counts against: the rules that
// match it, then its run budgets. seq 0 (an agent at rest) skips the per-turn rules.
func (t *Tx) budgetChecks(uuid string, seq int64, path, provider, loop string) ([]budgetCheck, error) {
	var checks []budgetCheck
	var owner sql.NullString
	var account string
	if err := t.QueryRow(`SELECT run_budget, account FROM agents WHERE uuid = ?`, uuid).Scan(&owner, &account); err != nil {
		return nil, sqliteErr("read run budget", err)
	}
	rules := t.db.budgetRules()
	for i := range rules {
		r := &rules[i]
		if !r.Match(path, provider, loop) || (r.Per == api.BudgetPerTurn && seq == 0) {
			continue
		}
		if r.Limit.IsPercent() {
			// The window of the agent's own account (docs/usage.md §8.1); none
			// reported yet: nothing to check.
			ws, err := quotaScopes(t.ctx, t, *r, t.now)
			if err != nil {
				return nil, err
			}
			for _, w := range ws {
				if w.provider == provider && w.account == account {
					checks = append(checks, budgetCheck{budget: r.Name, scope: w.scope, limit: r.Limit, warnAt: r.WarnAt,
						spent: w.spent, rule: r})
				}
			}
			continue
		}
		scope, since := ruleScope(*r, uuid, seq, t.now)
		agent := ""
		if r.Per == api.BudgetPerAgent || r.Per == api.BudgetPerTurn {
			agent = uuid
		}
		spent, err := ruleSpent(t.ctx, t, *r, since, agent, seq)
		if err != nil {
			return nil, err
		}
		checks = append(checks, budgetCheck{budget: r.Name, scope: scope, limit: r.Limit, warnAt: r.WarnAt, spent: spent, rule: r})
	}
	if !owner.Valid {
		return checks, nil
	}
	chain, err := t.runChain(owner.String)
	if err != nil {
		return nil, err
	}
	for _, o := range chain {
		b, err := scanRunBudget(t.QueryRow(runBudgetSelect+` WHERE agent_uuid = ?`, o))
		if err != nil {
			return nil, sqliteErr("read run budget", err)
		}
		spent, err := runSpent(t.ctx, t, b.owner, b.limit)
		if err != nil {
			return nil, err
		}
		checks = append(checks, budgetCheck{budget: RunBudgetPrefix + b.path, limit: b.limit, warnAt: runBudgetWarnAt,
			spent: spent})
	}
	return checks, nil
}

// settleBudget moves c's scope to the state its spend reached (never back: only an
// extension lowers it) and pauses agent uuid when the scope is exceeded.
func (t *Tx) settleBudget(uuid string, c budgetCheck) error {
	extra, was, err := scopeState(t.ctx, t, c.budget, c.scope)
	if err != nil {
		return err
	}
	limit := budgetBase(c.limit) + extra
	now := budgetState(c.spent, limit, c.warnAt)
	ev := api.BudgetEvent{Budget: c.budget, Scope: c.scope, Unit: budgetUnit(c.limit), Spent: budgetFigure(c.limit, c.spent),
		Limit: budgetFigure(c.limit, limit)}
	if budgetRank[now] > budgetRank[was] {
		if err := t.exec("settle budget", `INSERT INTO budget_scopes (budget, scope, state, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (budget, scope) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
			c.budget, c.scope, now, t.now); err != nil {
			return err
		}
		if now == api.BudgetStateWarned {
			if _, err := t.EmitAgent(uuid, &api.BudgetWarned{BudgetEvent: ev}); err != nil {
				return err
			}
		}
		if now == api.BudgetStateExceeded && c.rule != nil && c.rule.Interrupt {
			if err := t.cutRunning(uuid, *c.rule, ev); err != nil {
				return err
			}
		}
	}
	if now != api.BudgetStateExceeded {
		return nil
	}
	err = t.execOne("pause on budget", `UPDATE agents SET budget_paused = ?, updated_at = ? WHERE uuid = ?
		AND budget_paused IS NULL`, c.budget, t.now, uuid)
	if errors.Is(err, ErrStale) {
		return nil // paused already (by this budget or another)
	}
	if err != nil {
		return err
	}
	if _, err = t.EmitAgent(uuid, &api.BudgetExceeded{BudgetEvent: ev}); err != nil {
		return err
	}
	return t.logBudgetPause(uuid, ev, false)
}

// BudgetCut is a running turn an interrupt rule cut (docs/usage.md §8.3): once the
// transaction commits, the provider's interrupt keys reach the agent's pane — after
// its deny answer when the turn was parked on an approval it denied.
type BudgetCut struct {
	UUID, Provider string
	Deny           bool
}

// BudgetCuts returns the turns the transaction's ops cut so far and forgets them.
func (t *Tx) BudgetCuts() []BudgetCut {
	cuts := t.cuts
	t.cuts = nil
	return cuts
}

// cutRunning pauses every other managed agent rule r counts whose turn is running
// (working or blocked) and not paused yet, and cuts the turn: the session log's turn
// closes as cancelled with reason budget (as a stream cancel does), budget.exceeded
// with interrupted, and a [BudgetCut] for the keys.
func (t *Tx) cutRunning(except string, r BudgetRule, ev api.BudgetEvent) error {
	type running struct{ uuid, path, provider, status string }
	rows, err := queryRows(t.ctx, t, `SELECT uuid, path, COALESCE(agent, ''), status FROM agents WHERE managed = 1
		AND status IN (`+BusyStatuses.SQL()+`) AND budget_paused IS NULL AND uuid != ? ORDER BY path`, []any{except},
		func(s Scanner) (a running, err error) { return a, s.Scan(&a.uuid, &a.path, &a.provider, &a.status) })
	if err != nil {
		return err
	}
	for _, a := range rows {
		loop, err := t.loopOf(a.path)
		if err != nil {
			return err
		}
		if !r.Match(a.path, a.provider, loop) {
			continue
		}
		if err := t.exec("pause on budget", `UPDATE agents SET budget_paused = ?, updated_at = ? WHERE uuid = ?`,
			r.Name, t.now, a.uuid); err != nil {
			return err
		}
		denied, err := t.CancelTurn(a.uuid, "budget "+r.Name)
		if err != nil && !errors.Is(err, ErrNoTurn) {
			return err
		}
		if _, err := t.EmitAgent(a.uuid, &api.BudgetExceeded{BudgetEvent: ev, Interrupted: true}); err != nil {
			return err
		}
		if err := t.logBudgetPause(a.uuid, ev, true); err != nil {
			return err
		}
		t.cuts = append(t.cuts, BudgetCut{UUID: a.uuid, Provider: a.provider,
			Deny: len(denied) > 0 && a.status == string(StatusBlocked)})
	}
	return nil
}

func budgetUnit(l api.BudgetLimit) string { return l.Unit() }

// budgetFigure is an amount in the wire's unit: dollars, tokens or percent.
func budgetFigure(l api.BudgetLimit, n int64) float64 {
	switch {
	case l.IsCost():
		return float64(n) / 1e6
	case l.IsPercent():
		return float64(n) / 100
	}
	return float64(n)
}

// enqueueRunBudget records agent uuid's run budget (agent run --budget), or lets it
// inherit its parent's, in the transaction that enqueues it.
func (t *Tx) enqueueRunBudget(n NewAgent) error {
	if n.Budget != (api.BudgetLimit{}) {
		if err := t.exec("insert run budget", `INSERT INTO run_budgets (agent_uuid, path, cost_micros, tokens, created_at)
			VALUES (?, ?, ?, ?, ?)`, n.UUID, n.Path, n.Budget.CostMicros, n.Budget.Tokens, t.now); err != nil {
			return err
		}
		return t.exec("set run budget", `UPDATE agents SET run_budget = ? WHERE uuid = ?`, n.UUID, n.UUID)
	}
	if n.ParentID == "" {
		return nil
	}
	return t.exec("inherit run budget", `UPDATE agents SET run_budget = (SELECT run_budget FROM agents p WHERE p.uuid = ?)
		WHERE uuid = ?`, n.ParentID, n.UUID)
}

// BudgetTarget is what budget.extend extends: a config rule's scope, or a run budget.
type BudgetTarget struct {
	// Rule is the config rule; nil: the run budget run:<RunPath> (the last one given to
	// an agent at that path).
	Rule    *BudgetRule
	RunPath string
	// Agent is the agent of a per-agent rule's scope.
	Agent string
}

// Resumed is an agent an extension resumed.
type Resumed struct{ UUID, Path string }

// ExtendBudget raises the limit of b's scope (the current one: today for per day) by
// by, in the budget's unit (else invalid_budget; zero: an Approve, which raises it to
// what is spent plus the budget's limit), recomputes its state and, unless it is
// still exceeded, clears the pause of the agents that scope paused, emitting
// budget.extended and budget.resumed for each; it returns the scope after and the
// agents resumed.
func (t *Tx) ExtendBudget(b BudgetTarget, by api.BudgetLimit) (BudgetRow, []Resumed, error) {
	var c budgetCheck
	var path string
	var err error
	var held *quotaScope // a quota percent scope: the account whose agents it resumes
	if r := b.Rule; r != nil && r.Limit.IsPercent() {
		w, err := t.quotaTarget(*r, b.Agent)
		if err != nil {
			return BudgetRow{}, nil, err
		}
		held = &w
		c = budgetCheck{budget: r.Name, scope: w.scope, limit: r.Limit, warnAt: r.WarnAt, spent: w.spent}
	} else if r != nil {
		var seq int64
		if r.Per == api.BudgetPerTurn {
			if seq, err = t.pausedTurn(r.Name, b.Agent); err != nil {
				return BudgetRow{}, nil, err
			}
		}
		scope, since := ruleScope(*r, b.Agent, seq, t.now)
		c = budgetCheck{budget: r.Name, scope: scope, limit: r.Limit, warnAt: r.WarnAt}
		if c.spent, err = ruleSpent(t.ctx, t, *r, since, b.Agent, seq); err != nil {
			return BudgetRow{}, nil, err
		}
	} else {
		rb, err := scanRunBudget(t.QueryRow(runBudgetSelect+` WHERE path = ? ORDER BY created_at DESC LIMIT 1`, b.RunPath))
		if errors.Is(err, sql.ErrNoRows) {
			return BudgetRow{}, nil, wire.New(wire.NotFound, "no budget "+RunBudgetPrefix+b.RunPath, "target",
				RunBudgetPrefix+b.RunPath)
		}
		if err != nil {
			return BudgetRow{}, nil, sqliteErr("read run budget", err)
		}
		path = rb.path
		c = budgetCheck{budget: RunBudgetPrefix + rb.path, limit: rb.limit, warnAt: runBudgetWarnAt}
		if c.spent, err = runSpent(t.ctx, t, rb.owner, rb.limit); err != nil {
			return BudgetRow{}, nil, err
		}
	}
	approve := by == (api.BudgetLimit{})
	if !approve && by.Unit() != c.limit.Unit() {
		return BudgetRow{}, nil, wire.Invalid(wire.ReasonInvalidBudget, "budget "+c.budget+" counts "+budgetUnit(c.limit)+
			", not "+budgetUnit(by), "value", by.String())
	}
	extra, _, err := scopeState(t.ctx, t, c.budget, c.scope)
	if err != nil {
		return BudgetRow{}, nil, err
	}
	if approve {
		// Approve (docs/usage.md §8.5): the limit becomes what is spent plus the
		// budget's own limit once more.
		extra += max(0, c.spent-budgetBase(c.limit)-extra) + budgetBase(c.limit)
	} else {
		extra += budgetBase(by)
	}
	limit := budgetBase(c.limit) + extra
	state := budgetState(c.spent, limit, c.warnAt)
	if err := t.exec("extend budget", `INSERT INTO budget_scopes (budget, scope, extra, state, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (budget, scope) DO UPDATE SET extra = excluded.extra, state = excluded.state, updated_at = excluded.updated_at`,
		c.budget, c.scope, extra, state, t.now); err != nil {
		return BudgetRow{}, nil, err
	}
	if _, err := t.Emit("", &api.BudgetExtended{BudgetEvent: api.BudgetEvent{Budget: c.budget, Scope: c.scope,
		Unit: budgetUnit(c.limit), Spent: budgetFigure(c.limit, c.spent), Limit: budgetFigure(c.limit, limit)}, State: state}); err != nil {
		return BudgetRow{}, nil, err
	}
	var resumed []Resumed
	if state != api.BudgetStateExceeded {
		q, args := `SELECT uuid, path FROM agents WHERE budget_paused = ?`, []any{c.budget}
		if held != nil {
			q += ` AND COALESCE(agent, '') = ? AND account = ?`
			args = append(args, held.provider, held.account)
		} else if b.Agent != "" {
			q += ` AND uuid = ?`
			args = append(args, b.Agent)
		}
		if resumed, err = queryRows(t.ctx, t, q+` ORDER BY path`, args, func(s Scanner) (r Resumed, err error) {
			return r, s.Scan(&r.UUID, &r.Path)
		}); err != nil {
			return BudgetRow{}, nil, err
		}
		for _, r := range resumed {
			if err := t.logBudgetResume(r.UUID, c.budget, c.scope, budgetFigure(c.limit, limit)); err != nil {
				return BudgetRow{}, nil, err
			}
			if err := t.exec("resume on budget", `UPDATE agents SET budget_paused = NULL, updated_at = ? WHERE uuid = ?`,
				t.now, r.UUID); err != nil {
				return BudgetRow{}, nil, err
			}
			if _, err := t.EmitAgent(r.UUID, &api.BudgetResumed{Budget: c.budget, Scope: c.scope}); err != nil {
				return BudgetRow{}, nil, err
			}
		}
	}
	if b.Agent != "" {
		if err := t.QueryRow(`SELECT path FROM agents WHERE uuid = ?`, b.Agent).Scan(&path); err != nil {
			return BudgetRow{}, nil, sqliteErr("read agent path", err)
		}
	}
	row, err := budgetRow(t.ctx, t, c.budget, c.scope, path, b.Agent, c.limit, c.warnAt, c.spent)
	if err == nil && held != nil {
		row, err = quotaRow(t.ctx, t, row, *held)
	}
	return row, resumed, err
}

// pausedTurn is the turn of agent whose per-turn rule budget exceeded its limit last
// (the scope budget extend through the agent raises).
func (t *Tx) pausedTurn(budget, agent string) (int64, error) {
	var scope string
	err := t.QueryRow(`SELECT scope FROM budget_scopes WHERE budget = ? AND scope LIKE ? || '#%' AND state = ?
		ORDER BY updated_at DESC, rowid DESC LIMIT 1`, budget, agent, api.BudgetStateExceeded).Scan(&scope)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, wire.Conflict("budget "+budget+" has no exceeded turn of this agent", "target", agent)
	}
	if err != nil {
		return 0, sqliteErr("read paused turn", err)
	}
	_, seq, _ := strings.Cut(scope, "#")
	n, _ := strconv.ParseInt(seq, 10, 64)
	return n, nil
}

// BudgetRow is one budget scope as budget.ls shows it.
type BudgetRow = api.BudgetRow

// ReadBudgets lists every budget scope with its spend (docs/usage.md §8.4): each rule's
// current scope (total; today for per day) and, per agent, every agent that spent
// anything it counts; then every run budget. The paused agents' paths are listed with
// their scope.
func ReadBudgets(ctx context.Context, q Querier, rules []BudgetRule, now int64) ([]BudgetRow, error) {
	var out []BudgetRow
	all, err := readSpend(ctx, q, 0, "")
	if err != nil {
		return nil, err
	}
	day, midnight := localDay(now)
	var today []spendRow
	for _, r := range rules {
		if r.Limit.IsPercent() {
			qs, err := quotaRows(ctx, q, r, now)
			if err != nil {
				return nil, err
			}
			out = append(out, qs...)
			continue
		}
		rows := all
		scope := ""
		if r.Per == api.BudgetPerDay {
			if today == nil {
				if today, err = readSpend(ctx, q, midnight, ""); err != nil {
					return nil, err
				}
			}
			rows, scope = today, day
		}
		if r.Per == api.BudgetPerTurn {
			turns, err := readTurnScopes(ctx, q, r)
			if err != nil {
				return nil, err
			}
			out = append(out, turns...)
			continue
		}
		if r.Per != api.BudgetPerAgent {
			var spent int64
			for _, s := range rows {
				if r.Match(s.path, s.provider, s.loop) {
					spent += budgetAmount(r.Limit, s.cost, s.tokens)
				}
			}
			row, err := budgetRow(ctx, q, r.Name, scope, "", "", r.Limit, r.WarnAt, spent)
			if err != nil {
				return nil, err
			}
			out = append(out, row)
			continue
		}
		byAgent := map[string]*spendRow{}
		var order []string
		for _, s := range rows {
			if !r.Match(s.path, s.provider, s.loop) {
				continue
			}
			if a, ok := byAgent[s.uuid]; ok {
				a.cost, a.tokens = a.cost+s.cost, a.tokens+s.tokens
				continue
			}
			c := s
			byAgent[s.uuid] = &c
			order = append(order, s.uuid)
		}
		for _, id := range order {
			a := byAgent[id]
			row, err := budgetRow(ctx, q, r.Name, id, a.path, id, r.Limit, r.WarnAt, budgetAmount(r.Limit, a.cost, a.tokens))
			if err != nil {
				return nil, err
			}
			out = append(out, row)
		}
	}
	runs, err := queryRows(ctx, q, runBudgetSelect+` ORDER BY created_at`, nil, scanRunBudget)
	if err != nil {
		return nil, err
	}
	for _, b := range runs {
		spent, err := runSpent(ctx, q, b.owner, b.limit)
		if err != nil {
			return nil, err
		}
		row, err := budgetRow(ctx, q, RunBudgetPrefix+b.path, "", b.path, "", b.limit, runBudgetWarnAt, spent)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

// readTurnScopes is the rows of per-turn rule r: the turns that reached its warn_at or
// its limit (a turn under it leaves no scope row), with the agent's path.
func readTurnScopes(ctx context.Context, q Querier, r BudgetRule) ([]BudgetRow, error) {
	type turnScope struct {
		scope, uuid, path string
		seq, cost, tokens int64
	}
	scopes, err := queryRows(ctx, q, `SELECT s.scope, a.uuid, a.path, t.input_seq, COALESCE(t.cost_micros, 0),
		t.input_tokens + t.output_tokens + t.cache_write_tokens FROM budget_scopes s
		JOIN turns t ON t.agent_uuid || '#' || t.input_seq = s.scope JOIN agents a ON a.uuid = t.agent_uuid
		WHERE s.budget = ? ORDER BY s.updated_at, s.scope`, []any{r.Name}, func(s Scanner) (ts turnScope, err error) {
		return ts, s.Scan(&ts.scope, &ts.uuid, &ts.path, &ts.seq, &ts.cost, &ts.tokens)
	})
	if err != nil {
		return nil, err
	}
	out := make([]BudgetRow, 0, len(scopes))
	for _, ts := range scopes {
		row, err := budgetRow(ctx, q, r.Name, ts.scope, ts.path, ts.uuid, r.Limit, r.WarnAt, budgetAmount(r.Limit, ts.cost, ts.tokens))
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

func budgetRow(ctx context.Context, q Querier, budget, scope, path, agent string, l api.BudgetLimit, warnAt float64, spent int64) (BudgetRow, error) {
	extra, _, err := scopeState(ctx, q, budget, scope)
	if err != nil {
		return BudgetRow{}, err
	}
	limit := budgetBase(l) + extra
	row := BudgetRow{Budget: budget, Scope: scope, Path: path, Unit: budgetUnit(l), Spent: budgetFigure(l, spent),
		Limit: budgetFigure(l, limit), WarnAt: warnAt, State: budgetState(spent, limit, warnAt), Paused: []string{}}
	pq, args := `SELECT path FROM agents WHERE budget_paused = ?`, []any{budget}
	if agent != "" {
		pq += ` AND uuid = ?`
		args = append(args, agent)
	}
	paused, err := queryStrings(q, ctx, pq+` ORDER BY path`, args...)
	if paused != nil {
		row.Paused = paused
	}
	return row, err
}

// QueueIfBudgetPaused puts prompt, from a sender of source, into agent uuid's inbox as a
// wake when a budget paused the agent (docs/usage.md §8.3), unless put is false (the
// prompt already waits there); it returns the budget's name ("" = not paused: deliver).
func (t *Tx) QueueIfBudgetPaused(uuid, prompt, source string, put bool) (string, error) {
	var budget sql.NullString
	if err := t.QueryRow(`SELECT budget_paused FROM agents WHERE uuid = ?`, uuid).Scan(&budget); err != nil {
		return "", sqliteErr("read budget pause", err)
	}
	if !budget.Valid {
		// An agent at rest is at a turn boundary: a budget another agent's turn spent
		// pauses it now (docs/usage.md §8.3).
		name, err := t.pauseIfSpent(uuid)
		if err != nil || name == "" {
			return "", err
		}
		budget.String = name
	}
	if !put {
		return budget.String, nil
	}
	_, err := t.InboxPut(uuid, prompt, source, true)
	return budget.String, err
}

// pauseIfSpent pauses agent uuid on the first budget it counts against that is at its
// limit (budget.exceeded), and returns its name ("" = none).
func (t *Tx) pauseIfSpent(uuid string) (string, error) {
	var path, provider string
	if err := t.QueryRow(`SELECT path, COALESCE(agent, '') FROM agents WHERE uuid = ?`, uuid).Scan(&path, &provider); err != nil {
		return "", sqliteErr("read agent", err)
	}
	loop, err := t.loopOf(path)
	if err != nil {
		return "", err
	}
	checks, err := t.budgetChecks(uuid, 0, path, provider, loop)
	if err != nil {
		return "", err
	}
	for _, c := range checks {
		extra, _, err := scopeState(t.ctx, t, c.budget, c.scope)
		if err != nil {
			return "", err
		}
		if budgetState(c.spent, budgetBase(c.limit)+extra, c.warnAt) == api.BudgetStateExceeded {
			return c.budget, t.settleBudget(uuid, c)
		}
	}
	return "", nil
}

// LoopBudgetSpent is the name of an exceeded budget that stops loop's fires ("" = none):
// a rule on that loop or on the whole fleet, per day or in total, whose current scope
// reached its limit (docs/usage.md §8.3).
func (t *Tx) LoopBudgetSpent(loop string) (string, error) {
	for _, r := range t.db.budgetRules() {
		if r.Per == api.BudgetPerAgent || r.Per == api.BudgetPerTurn || (r.Loop != loop && !r.Fleet) {
			continue
		}
		if r.Limit.IsPercent() {
			// Any window the rule watches at its limit (the loop's agents' account is
			// not known before they start): docs/usage.md §8.3.
			rows, err := quotaRows(t.ctx, t, r, t.now)
			if err != nil {
				return "", err
			}
			for _, row := range rows {
				if row.State == api.BudgetStateExceeded {
					return r.Name, nil
				}
			}
			continue
		}
		scope, _ := ruleScope(r, "", 0, t.now)
		_, state, err := scopeState(t.ctx, t, r.Name, scope)
		if err != nil {
			return "", err
		}
		if state == api.BudgetStateExceeded {
			return r.Name, nil
		}
	}
	return "", nil
}

// quotaWindowNames are the stored windows (docs/usage.md §7) of a budget rule's window:
// codex's and claude's name for it.
var quotaWindowNames = map[string][2]string{
	api.BudgetWindow5h: {"primary", "five_hour"},
	api.BudgetWindow7d: {"secondary", "seven_day"},
}

// quotaScope is one stored window a quota percent rule watches: the scope it is counted
// in — `<provider>/<account>#<window>@<resets_at>`, so a window's next period starts a
// new scope — and its used share in hundredths of a percent (0 once the reset is past).
type quotaScope struct {
	scope, provider, account string
	spent                    int64
}

// quotaScopes lists the stored windows rule r watches at now, by provider and account,
// those of r's provider key alone when it has one.
func quotaScopes(ctx context.Context, q Querier, r BudgetRule, now int64) ([]quotaScope, error) {
	names := quotaWindowNames[r.Window]
	return queryRows(ctx, q, `SELECT provider, account, window, used_percent, resets_at FROM quota_windows
		WHERE window IN (?, ?) AND (? = '' OR provider = ?) ORDER BY provider, account, window`,
		[]any{names[0], names[1], r.Provider, r.Provider}, func(s Scanner) (w quotaScope, err error) {
			var window string
			var used float64
			var reset int64
			if err := s.Scan(&w.provider, &w.account, &window, &used, &reset); err != nil {
				return w, err
			}
			w.scope = w.provider + "/" + w.account + "#" + window + "@" + strconv.FormatInt(reset, 10)
			if reset == 0 || reset > now {
				w.spent = int64(used*100 + 0.5)
			}
			return w, nil
		})
}

// quotaTarget is the scope budget extend raises for quota percent rule r: the window
// of agent's account, or (no agent) the scope the rule last found exceeded, at 0% when
// its window has been reported for a later period since.
func (t *Tx) quotaTarget(r BudgetRule, agent string) (quotaScope, error) {
	ws, err := quotaScopes(t.ctx, t, r, t.now)
	if err != nil {
		return quotaScope{}, err
	}
	if agent != "" {
		var provider, account string
		if err := t.QueryRow(`SELECT COALESCE(agent, ''), account FROM agents WHERE uuid = ?`, agent).
			Scan(&provider, &account); err != nil {
			return quotaScope{}, sqliteErr("read agent", err)
		}
		for _, w := range ws {
			if w.provider == provider && w.account == account {
				return w, nil
			}
		}
		return quotaScope{}, wire.Conflict("budget "+r.Name+" has no window of this agent's account", "target", agent)
	}
	var scope string
	err = t.QueryRow(`SELECT scope FROM budget_scopes WHERE budget = ? AND state = ? ORDER BY updated_at DESC, rowid DESC
		LIMIT 1`, r.Name, api.BudgetStateExceeded).Scan(&scope)
	if errors.Is(err, sql.ErrNoRows) {
		return quotaScope{}, wire.Conflict("budget "+r.Name+" has no exceeded window; name an agent to extend its account's",
			"target", r.Name)
	}
	if err != nil {
		return quotaScope{}, sqliteErr("read budget scope", err)
	}
	for _, w := range ws {
		if w.scope == scope {
			return w, nil
		}
	}
	provider, rest, _ := strings.Cut(scope, "/")
	account := rest[:max(0, strings.LastIndex(rest, "#"))]
	return quotaScope{scope: scope, provider: provider, account: account}, nil
}

// quotaRows is budget.ls's rows of quota percent rule r: one per window it watches
// (none reported yet: one row at 0 without a scope), each listing the agents of that
// provider and account the rule paused.
func quotaRows(ctx context.Context, q Querier, r BudgetRule, now int64) ([]BudgetRow, error) {
	ws, err := quotaScopes(ctx, q, r, now)
	if err != nil {
		return nil, err
	}
	if len(ws) == 0 {
		row, err := budgetRow(ctx, q, r.Name, "", "", "", r.Limit, r.WarnAt, 0)
		return []BudgetRow{row}, err
	}
	out := make([]BudgetRow, 0, len(ws))
	for _, w := range ws {
		row, err := budgetRow(ctx, q, r.Name, w.scope, "", "", r.Limit, r.WarnAt, w.spent)
		if err == nil {
			row, err = quotaRow(ctx, q, row, w)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

// quotaRow narrows row's paused agents to those of w's provider and account.
func quotaRow(ctx context.Context, q Querier, row BudgetRow, w quotaScope) (BudgetRow, error) {
	paused, err := queryStrings(q, ctx, `SELECT path FROM agents WHERE budget_paused = ? AND COALESCE(agent, '') = ?
		AND account = ? ORDER BY path`, row.Budget, w.provider, w.account)
	row.Paused = []string{}
	if paused != nil {
		row.Paused = paused
	}
	return row, err
}

// ResumeQuotaResets resumes every agent a quota percent rule paused whose window, the
// one of its account the rule watches, is below the rule's limit again (docs/usage.md
// §8.1): its reset is past (spent 0 until the next report), or a report for the
// window's next period came in under the limit. Each gets budget/resumed in its log and
// budget.resumed naming the scope it is counted in now. The queue pass calls it on every
// tick while a quota percent rule is configured; the paused rows are found through
// agents_budget_paused.
func (t *Tx) ResumeQuotaResets() ([]Resumed, error) {
	rules := map[string]*BudgetRule{}
	var names []any
	all := t.db.budgetRules()
	for i := range all {
		if r := &all[i]; r.Limit.IsPercent() {
			rules[r.Name] = r
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	type held struct{ uuid, path, budget, provider, account string }
	rows, err := queryRows(t.ctx, t, `SELECT uuid, path, budget_paused, COALESCE(agent, ''), account FROM agents
		WHERE budget_paused IN (?`+strings.Repeat(", ?", len(names)-1)+`) ORDER BY path`, names,
		func(s Scanner) (h held, err error) {
			return h, s.Scan(&h.uuid, &h.path, &h.budget, &h.provider, &h.account)
		})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	scopes := map[string][]quotaScope{}
	var resumed []Resumed
	for _, h := range rows {
		r := rules[h.budget]
		ws, ok := scopes[r.Name]
		if !ok {
			if ws, err = quotaScopes(t.ctx, t, *r, t.now); err != nil {
				return nil, err
			}
			scopes[r.Name] = ws
		}
		for _, w := range ws {
			if w.provider != h.provider || w.account != h.account {
				continue
			}
			extra, _, err := scopeState(t.ctx, t, r.Name, w.scope)
			if err != nil {
				return nil, err
			}
			limit := budgetBase(r.Limit) + extra
			if budgetState(w.spent, limit, r.WarnAt) == api.BudgetStateExceeded {
				break
			}
			if err := t.logBudgetResume(h.uuid, r.Name, w.scope, budgetFigure(r.Limit, limit)); err != nil {
				return nil, err
			}
			if err := t.exec("resume on budget", `UPDATE agents SET budget_paused = NULL, updated_at = ? WHERE uuid = ?`,
				t.now, h.uuid); err != nil {
				return nil, err
			}
			if _, err := t.EmitAgent(h.uuid, &api.BudgetResumed{Budget: r.Name, Scope: w.scope}); err != nil {
				return nil, err
			}
			resumed = append(resumed, Resumed{UUID: h.uuid, Path: h.path})
			break
		}
	}
	return resumed, nil
}
