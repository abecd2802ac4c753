package store

import (
	"errors"
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
}

// Promotion lists what one queue pass did, in FIFO order.
type Promotion struct {
	Promoted []string // queued → starting: their spawn pipelines must run
	Failed   []string // stuck starting rows ended failed
	Canceled []string // starting rows ended by their deadline: their pipelines must stop
	TimedOut []string // running rows past their deadline: their agent actors shut them down
}

// Promote is one queue pass: the stuck-start sweep, the --timeout deadline sweep, then
// FIFO promotion under the global and per-provider caps, counted inside the
// transaction.
func (t *Tx) Promote(a Admission) (Promotion, error) {
	var res Promotion
	if a.MaxStartingMS > 0 {
		stuck, err := t.uuids(`SELECT uuid FROM agents WHERE managed = 1 AND status = 'starting'
			AND pane_id IS NULL AND starting_at < ?`, t.now-a.MaxStartingMS)
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
	used := map[string]int{}
	global := 0
	rows, err := t.Query(`SELECT COALESCE(agent, ''), count(*) FROM agents WHERE managed = 1
		AND status NOT IN ('queued','ended','lost') GROUP BY agent`)
	if err != nil {
		return res, sqliteErr("count running agents", err)
	}
	for rows.Next() {
		var p string
		var n int
		if err := rows.Scan(&p, &n); err != nil {
			rows.Close()
			return res, sqliteErr("count running agents", err)
		}
		used[p] = n
		global += n
	}
	if err := closeRows(rows, "count running agents"); err != nil {
		return res, err
	}
	if global >= a.Max {
		return res, nil
	}
	type cand struct{ uuid, path, provider string }
	var queued []cand
	rows, err = t.Query(`SELECT uuid, path, COALESCE(agent, '') FROM agents WHERE status = 'queued' ORDER BY queue_seq, uuid`)
	if err != nil {
		return res, sqliteErr("read queue", err)
	}
	for rows.Next() {
		var c cand
		if err := rows.Scan(&c.uuid, &c.path, &c.provider); err != nil {
			rows.Close()
			return res, sqliteErr("read queue", err)
		}
		queued = append(queued, c)
	}
	if err := closeRows(rows, "read queue"); err != nil {
		return res, err
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
		if used[c.provider] >= limit || (a.Blocked != nil && a.Blocked(c.path)) {
			continue
		}
		err := t.casStatus(c.uuid, []Status{StatusQueued}, StatusStarting, "starting_at = ?", t.now)
		if errors.Is(err, ErrStale) {
			continue
		}
		if err != nil {
			return res, err
		}
		if _, err := t.EmitAgent("queue.promoted", c.uuid, nil); err != nil {
			return res, err
		}
		if _, err := t.EmitAgent("agent.status_changed", c.uuid, map[string]any{"status": StatusStarting}); err != nil {
			return res, err
		}
		used[c.provider]++
		global++
		res.Promoted = append(res.Promoted, c.uuid)
	}
	return res, nil
}

// deadlineSweep applies --timeout: a queued row past its deadline ends timeout at
// once; a starting row gets the cancel interlock and ends timeout (its pipeline closes
// any pane it made); a running row is handed to its agent actor for a graceful
// shutdown. Rows with a move in flight wait for the next pass.
func (t *Tx) deadlineSweep(res *Promotion) error {
	rows, err := t.Query(`SELECT uuid, status FROM agents WHERE managed = 1 AND deadline_at IS NOT NULL
		AND deadline_at <= ? AND status NOT IN ('ended','lost') AND move_state = 'none'`, t.now)
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
