package store

import (
	"database/sql"
	"errors"

	"github.com/orcr-go/orcr/socketapi/api"
)

// Admission is what one queue pass needs to know (docs/lifecycle.md §7.2–§7.3).
type Admission struct {
	Max int // global cap on running managed agents
	// ProviderCap returns a provider's own cap, if it has one.
	ProviderCap func(provider string) (int, bool)
	// MaxStartingMS ends starting rows that never got a pane after this long (0 = off).
	MaxStartingMS int64
	// Blocked reports whether a kill barrier covers path: such rows are not promoted.
	Blocked func(path string) bool
	// Paused holds the providers' accounts paused at a usage limit or a quota window
	// (docs/lifecycle.md §7.6, docs/usage.md §7.3): their queued rows are not promoted,
	// unless Fallback routes them elsewhere.
	Paused PauseSet
	// Fallback returns the provider (and its model and effort) a paused provider's
	// queued rows are promoted as (routing.fallback); ok false: none.
	Fallback func(provider string) (to Fallback, ok bool)
}

// Fallback is where routing.fallback sends a paused provider's queued rows: the other
// provider with its configured model and effort.
type Fallback struct {
	Provider, Model, Effort string
	// Account is the login the fallback provider's agents run under (docs/usage.md §7.3).
	Account string
}

// Promotion lists what one queue pass did, in FIFO order.
type Promotion struct {
	Promoted []string // queued → starting: their spawn pipelines must run
	Failed   []string // stuck starting rows ended failed
	Canceled []string // starting rows ended by their deadline: their pipelines must stop
	TimedOut []string // running rows past their deadline: their agent actors shut them down
	// Resumed: agents whose quota percent budget pause the pass lifted (the window reset,
	// docs/usage.md §8.1): what waits in their inboxes must be delivered. Set by the
	// queue actor's pass from [Tx.ResumeQuotaResets].
	Resumed []string
	// Left is how many queued rows the pass left queued (waiting for a slot, a pause's
	// end or a barrier's lift): while any is left the queue actor keeps its fast pace.
	Left int
	// NextDeadline is the earliest `--timeout` deadline of a live managed row (ms since
	// the epoch; 0 when none): one the pass could not act on yet (a move in flight, a
	// shutdown under way) is at or before the pass's now.
	NextDeadline int64
	// NextPauseEnd is the earliest `until` of the provider pauses the pass left standing
	// (ms since the epoch; 0 when none). Set by the queue actor's pass.
	NextPauseEnd int64
}

// The queue pass's reads. Each reads an index that holds only the rows it may select
// (agents_status_queue by status, agents_deadline; docs/config.md §3.3): the partial
// index's WHERE clause is written here word for word, as SQLite uses a partial index
// only when the query's WHERE holds its terms.
const (
	queryStuck = `SELECT uuid FROM agents WHERE managed = 1 AND status = 'starting'
		AND pane_id IS NULL AND starting_at < ?`
	queryDeadlines = `SELECT uuid, status FROM agents WHERE managed = 1 AND deadline_at IS NOT NULL
		AND deadline_at <= ? AND status NOT IN ('ended','lost') AND move_state = 'none'`
	queryQueued           = `SELECT uuid, path, COALESCE(agent, ''), account FROM agents WHERE status = 'queued' ORDER BY queue_seq, uuid`
	queryQueuedByProvider = `SELECT COALESCE(agent, ''), count(*) FROM agents WHERE status = 'queued' GROUP BY agent`
	querySlots            = `SELECT COALESCE(agent, ''), count(*) FROM agents WHERE managed = 1
		AND status IN ('starting','working','idle','blocked','parked') GROUP BY agent`
	queryNextDeadline = `SELECT COALESCE(min(deadline_at), 0) FROM agents WHERE deadline_at IS NOT NULL
		AND status NOT IN ('ended','lost') AND managed = 1`
)

// readSlots reads querySlots's rows: the managed agents holding a slot, by provider.
func readSlots(rows *sql.Rows, err error) (map[string]int64, error) {
	if err != nil {
		return nil, sqliteErr("count slots", err)
	}
	used := map[string]int64{}
	for rows.Next() {
		var p string
		var n int64
		if err := rows.Scan(&p, &n); err != nil {
			rows.Close()
			return nil, sqliteErr("count slots", err)
		}
		used[p] = n
	}
	return used, closeRows(rows, "count slots")
}

// Promote is one queue pass: the stuck-start sweep, the --timeout deadline sweep, then
// FIFO promotion under the global and per-provider caps, counted inside the
// transaction. Every query reads an index that holds only rows that can change
// (docs/config.md §3.3), and the slots are counted only when something is queued, so an
// idle pass costs the same with ten thousand ended rows as with none.
func (t *Tx) Promote(a Admission) (Promotion, error) {
	var res Promotion
	if a.MaxStartingMS > 0 {
		stuck, err := t.uuids(queryStuck, t.now-a.MaxStartingMS)
		if err != nil {
			return res, err
		}
		for _, u := range stuck {
			err := t.EndAgent(u, []Status{StatusStarting}, ExitFailed)
			if err == nil {
				res.Failed = append(res.Failed, u)
			} else if !errors.Is(err, ErrStale) {
				return res, err
			}
		}
	}
	if err := t.deadlineSweep(&res); err != nil {
		return res, err
	}
	if err := t.QueryRow(queryNextDeadline).Scan(&res.NextDeadline); err != nil {
		return res, sqliteErr("read next deadline", err)
	}
	type cand struct{ uuid, path, provider, account string }
	var queued []cand
	rows, err := t.Query(queryQueued)
	if err != nil {
		return res, sqliteErr("read queue", err)
	}
	for rows.Next() {
		var c cand
		if err := rows.Scan(&c.uuid, &c.path, &c.provider, &c.account); err != nil {
			rows.Close()
			return res, sqliteErr("read queue", err)
		}
		queued = append(queued, c)
	}
	if err := closeRows(rows, "read queue"); err != nil {
		return res, err
	}
	if len(queued) == 0 { // nothing to promote: the slots need no count
		return res, nil
	}
	holding, err := readSlots(t.Query(querySlots))
	if err != nil {
		return res, err
	}
	used := map[string]int{}
	global := 0
	for p, n := range holding {
		used[p] = int(n)
		global += int(n)
	}
	res.Left = len(queued)
	if global >= a.Max {
		return res, nil
	}
	for _, c := range queued {
		if global >= a.Max {
			break
		}
		limit := a.Max
		if a.ProviderCap != nil {
			if n, ok := a.ProviderCap(c.provider); ok && n < limit {
				limit = n
			}
		}
		var reroute *Fallback
		if a.Paused.Holds(c.provider, c.account) {
			fb, ok := Fallback{}, false
			if a.Fallback != nil {
				fb, ok = a.Fallback(c.provider)
			}
			if !ok || a.Paused.Holds(fb.Provider, fb.Account) {
				continue
			}
			reroute, limit = &fb, a.Max
			if a.ProviderCap != nil {
				if n, ok := a.ProviderCap(fb.Provider); ok && n < limit {
					limit = n
				}
			}
			c.provider = fb.Provider
		}
		if used[c.provider] >= limit || (a.Blocked != nil && a.Blocked(c.path)) {
			continue
		}
		if reroute != nil {
			if err := t.reroute(c.uuid, *reroute); err != nil {
				return res, err
			}
		}
		err := t.casStatus(c.uuid, []Status{StatusQueued}, StatusStarting, "starting_at = ?", t.now)
		if errors.Is(err, ErrStale) {
			continue
		}
		if err != nil {
			return res, err
		}
		if _, err := t.EmitAgent(c.uuid, &api.QueuePromoted{}); err != nil {
			return res, err
		}
		if _, err := t.EmitAgent(c.uuid, &api.AgentStatusChanged{Status: StatusStarting}); err != nil {
			return res, err
		}
		used[c.provider]++
		global++
		res.Left--
		res.Promoted = append(res.Promoted, c.uuid)
	}
	return res, nil
}

// reroute makes a queued row fb's provider, model and effort, keeping the provider it
// was queued for in routed_from, with agent.rerouted {uuid, from, to, model, effort}
// (docs/lifecycle.md §7.6). The spawn pipeline builds its launch for the new provider.
func (t *Tx) reroute(uuid string, fb Fallback) error {
	var from string
	if err := t.QueryRow(`SELECT COALESCE(agent, '') FROM agents WHERE uuid = ?`, uuid).Scan(&from); err != nil {
		return sqliteErr("read agent", err)
	}
	if err := t.exec("reroute", `UPDATE agents SET agent = ?, model = ?, effort = ?, account = ?, routed_from = COALESCE(routed_from, ?),
		updated_at = ? WHERE uuid = ? AND status = 'queued'`, fb.Provider, fb.Model, fb.Effort, fb.Account, from, t.now, uuid); err != nil {
		return err
	}
	_, err := t.EmitAgent(uuid, &api.AgentRerouted{From: from, To: fb.Provider, Model: fb.Model, Effort: fb.Effort})
	return err
}

// deadlineSweep applies --timeout: a queued row past its deadline ends timeout at
// once; a starting row gets the cancel interlock and ends timeout (its pipeline closes
// any pane it made); a running row is handed to its agent actor for a graceful
// shutdown. Rows with a move in flight wait for the next pass.
func (t *Tx) deadlineSweep(res *Promotion) error {
	rows, err := t.Query(queryDeadlines, t.now)
	if err != nil {
		return sqliteErr("read deadlines", err)
	}
	type due struct {
		uuid   string
		status Status
	}
	var all []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.uuid, &d.status); err != nil {
			rows.Close()
			return sqliteErr("read deadlines", err)
		}
		all = append(all, d)
	}
	if err := closeRows(rows, "read deadlines"); err != nil {
		return err
	}
	for _, d := range all {
		var err error
		switch d.status {
		case StatusQueued:
			err = t.EndAgent(d.uuid, []Status{StatusQueued}, ExitTimeout)
		case StatusStarting:
			if err = t.CancelStarting(d.uuid, ExitTimeout); err == nil {
				res.Canceled = append(res.Canceled, d.uuid)
			}
		default:
			res.TimedOut = append(res.TimedOut, d.uuid)
		}
		if err != nil && !errors.Is(err, ErrStale) {
			return err
		}
	}
	return nil
}

// uuids runs a query selecting one text column.
func (t *Tx) uuids(q string, args ...any) ([]string, error) {
	return queryStrings(t, t.ctx, q, args...)
}
