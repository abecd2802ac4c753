package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
)

// handler runs one method. Exactly one of inline (runs inside the connection actor's
// Receive, must not block), async (runs on a request goroutine, may block) or stream
// (spawns a subscription actor that answers the request itself) is set.
type handler struct {
	inline func(*Call) (any, error)
	async  func(context.Context, *Call) (any, error)
	stream func(actor.Context, *Call)
	debug  bool // hidden debug method: not in the catalogue
}

// methodTable binds the catalogue (socketapi.Catalogue, the one method table) to
// handlers. Every catalogue method is registered; one whose issue has not landed answers
// invalid_request not_implemented. A catalogue entry marked Implemented without a
// handler here is a programming error.
func (s *Server) methodTable() map[string]handler {
	impl := map[string]handler{
		"server.handshake": {inline: s.handshake},
		"server.status":    {async: s.status},
		"server.stop":      {inline: s.stopMethod},
		"api.schema":       {inline: func(*Call) (any, error) { return socketapi.Schema(), nil }},
		"api.snapshot":     {async: s.snapshot},
		"events.subscribe": {stream: s.subscribe},
		"watch.open":       {stream: s.watchOpen},
		"agent.run":        {async: s.agentRun},
		"agent.send":       {async: s.agentSend},
		"agent.kill":       {async: s.agentKill},
		"agent.ls":         {async: s.agentLs},
		"agent.ask":        {async: s.agentAsk},
		"agent.logs":       {async: s.agentLogs},
		"agent.wait":       {async: s.agentWait},
	}
	table := map[string]handler{}
	for _, m := range socketapi.Catalogue {
		h, ok := impl[m.Name]
		if ok != m.Implemented {
			panic(fmt.Sprintf("server: method %s: implemented=%v but handler present=%v", m.Name, m.Implemented, ok))
		}
		if !ok {
			name := m.Name
			h = handler{inline: func(*Call) (any, error) {
				return nil, wire.Invalid("not_implemented", "method `"+name+"` is not implemented yet", "method", name)
			}}
		}
		table[m.Name] = h
	}
	if s.debug {
		table["__debug.emit_event"] = handler{async: s.debugEmit, debug: true}
		table["__debug.set_agent"] = handler{async: s.debugSetAgent, debug: true}
		table["__debug.insert_loop_run"] = handler{async: s.debugInsertLoopRun, debug: true}
	}
	return table
}

func (s *Server) handshake(*Call) (any, error) {
	return socketapi.Handshake{PID: os.Getpid(), Protocol: wire.Protocol, Store: s.paths.DB, Ready: true}, nil
}

func (s *Server) stopMethod(c *Call) (any, error) {
	// The response is written first; then the connection closes and the stop begins.
	c.after = func() {
		c.s.log.Info("server.stop requested")
		s.Stop()
	}
	return map[string]any{"status": "stopping"}, nil
}

func (s *Server) snapshot(ctx context.Context, _ *Call) (any, error) {
	snap, err := s.db.Snapshot(ctx)
	if err != nil {
		return nil, wire.From(err, "sqlite")
	}
	return snap, nil
}

func (s *Server) subscribe(c actor.Context, call *Call) {
	var p struct {
		SinceSeq int64 `json:"since_seq"`
	}
	call.Params(&p)
	s.spawnSubscription(c, call, actors.KindSubscribe, p.SinceSeq)
}

func (s *Server) watchOpen(c actor.Context, call *Call) {
	s.spawnSubscription(c, call, actors.KindWatch, 0)
}

func (s *Server) spawnSubscription(c actor.Context, call *Call, kind actors.SubscriptionKind, since int64) {
	id := s.subSeq.Add(1)
	pid := c.Spawn(actors.NewSubscriptionProps(actors.SubscriptionSpec{
		ID: id, Kind: kind, SinceSeq: since, RequestID: call.Req.ID,
		Store: s.storePID, DB: s.db, Sink: call.w, Log: s.log,
	}))
	c.Actor().(*connActor).subs[id] = pid
}

// status answers server.status (protocol.md §5.2): herdr as the driver sees it (binary,
// owned session, ping), per-provider integration layers, counts, loops and drift.
func (s *Server) status(ctx context.Context, _ *Call) (any, error) {
	counts := map[string]int64{"live": 0, "queued": 0, "blocked": 0, "unmanaged": 0,
		"unmarked_panes": 0, "unknown_marked_panes": 0}
	r := s.db.Reader()
	row := r.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(managed = 1 AND status NOT IN ('ended','lost')), 0),
		COALESCE(SUM(managed = 1 AND status = 'queued'), 0),
		COALESCE(SUM(managed = 1 AND status = 'blocked'), 0),
		COALESCE(SUM(managed = 0 AND status != 'ended'), 0)
		FROM agents`)
	var live, queued, blocked, unmanaged int64
	if err := row.Scan(&live, &queued, &blocked, &unmanaged); err == nil {
		counts["live"], counts["queued"], counts["blocked"], counts["unmanaged"] = live, queued, blocked, unmanaged
	}
	loops := []map[string]any{}
	if rows, err := r.QueryContext(ctx, `SELECT name, status, next_fire_at FROM loops
		WHERE status IN ('active','paused') ORDER BY created_at`); err == nil {
		for rows.Next() {
			var name, st string
			var next *int64
			if rows.Scan(&name, &st, &next) == nil {
				loops = append(loops, map[string]any{"name": name, "status": st, "next_fire_at": next})
			}
		}
		rows.Close()
	}
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	herdrStatus := s.driver.Status(hctx)
	cancel()
	integrations := provider.Integrations(s.herdrInstalled(ctx))
	return map[string]any{
		"version":      socketapi.Version,
		"protocol":     wire.Protocol,
		"pid":          os.Getpid(),
		"uptime_ms":    time.Since(s.started).Milliseconds(),
		"socket":       s.paths.Socket,
		"store":        s.paths.DB,
		"herdr":        herdrStatus,
		"integrations": integrations,
		"counts":       counts,
		"loops_firing": unitFileExists(s.getenv),
		"loops":        loops,
		"drift":        map[string]int64{"lost": 0, "repaired": 0, "unknown_marked_panes": 0, "unmarked_panes": 0},
	}, nil
}

// unitFileExists reports whether the start-at-login unit is installed (cli.md §5.21).
func unitFileExists(getenv func(string) string) bool {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return false
		}
		dir = filepath.Join(home, ".config")
	}
	_, err := os.Stat(filepath.Join(dir, "systemd", "user", "orcr.service"))
	return err == nil
}

// debugEmit is the hidden __debug.emit_event (ORCR_DEBUG_METHODS=1): it appends one
// event through the store actor, like any state change would.
func (s *Server) debugEmit(ctx context.Context, c *Call) (any, error) {
	var p struct {
		Kind    string         `json:"kind"`
		RefUUID string         `json:"ref_uuid"`
		Payload map[string]any `json:"payload"`
	}
	c.Params(&p)
	if p.Kind == "" {
		p.Kind = "debug.tick"
	}
	if p.Payload == nil {
		p.Payload = map[string]any{}
	}
	res, err := s.write(ctx, func(tx *store.Tx) (any, error) {
		return tx.Emit(p.Kind, p.RefUUID, p.Payload)
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"seq": res}, nil
}

// write runs op through the store actor (the only writer) and waits for its result,
// as a protocol error. Only request goroutines (edge code) call it.
func (s *Server) write(ctx context.Context, op store.Op) (any, error) {
	v, err := actors.WriteSync(s.sys.Root, s.storePID, op)
	if err != nil {
		return nil, wire.From(err, "sqlite")
	}
	return v, nil
}

// debugSetAgent is a hidden test method (ORCR_DEBUG_METHODS=1): it creates or updates a
// managed agent row with the given status and emits the events a real transition would
// (agent.created, agent.status_changed, agent.ended), each embedding the row after the
// change (decisions.md D2). Optional blocked_kind sets the column (cleared when absent);
// optional exit_reason replaces the default "killed" of an ended row ("" stores none).
// Tests use it to churn state without herdr.
func (s *Server) debugSetAgent(ctx context.Context, c *Call) (any, error) {
	var p struct {
		UUID   string `json:"uuid"`
		Path   string `json:"path"`
		Status string `json:"status"`

		BlockedKind string  `json:"blocked_kind"`
		ExitReason  *string `json:"exit_reason"`
	}
	c.Params(&p)
	if p.UUID == "" || p.Status == "" {
		return nil, wire.Invalid("target_required", "uuid and status are required")
	}
	return s.write(ctx, func(tx *store.Tx) (any, error) {
		now := tx.Now()
		var exists int
		tx.QueryRow(`SELECT COUNT(*) FROM agents WHERE uuid = ?`, p.UUID).Scan(&exists)
		var exit any
		var ended any
		if p.Status == "ended" {
			exit, ended = "killed", now
			if p.ExitReason != nil {
				exit = nullable(*p.ExitReason)
			}
		}
		if exists == 0 {
			if _, err := tx.Exec(`INSERT INTO agents (uuid, path, managed, origin, agent, status, created_at,
				updated_at, last_status_change_at, exit_reason, ended_at, blocked_kind) VALUES (?, ?, 1, 'run', 'mock', ?, ?, ?, ?, ?, ?, ?)`,
				p.UUID, p.Path, p.Status, now, now, now, exit, ended, nullable(p.BlockedKind)); err != nil {
				return nil, err
			}
		} else if _, err := tx.Exec(`UPDATE agents SET status = ?, updated_at = ?, last_status_change_at = ?,
				exit_reason = ?, ended_at = ?, blocked_kind = ? WHERE uuid = ?`, p.Status, now, now, exit, ended,
			nullable(p.BlockedKind), p.UUID); err != nil {
			return nil, err
		}
		row, err := store.AgentByUUID(tx.Context(), tx, p.UUID)
		if err != nil {
			return nil, err
		}
		kind := "agent.status_changed"
		if exists == 0 {
			kind = "agent.created"
		}
		seq, err := tx.Emit(kind, p.UUID, map[string]any{"uuid": p.UUID, "path": row.Path, "status": row.Status, "agent": row})
		if err != nil {
			return nil, err
		}
		if p.Status == "ended" {
			if seq, err = tx.Emit("agent.ended", p.UUID, map[string]any{"uuid": p.UUID, "exit_reason": exit, "agent": row}); err != nil {
				return nil, err
			}
		}
		return map[string]any{"seq": seq}, nil
	})
}

// debugInsertLoopRun is a hidden test method (ORCR_DEBUG_METHODS=1) standing in for
// loop.create until loops land: it inserts an active loop named loop (unless one is
// already active) and a loop run run_id of it with status (default running), and returns
// the run's uuid, so tests can call agent verbs with a loop-run caller.
func (s *Server) debugInsertLoopRun(ctx context.Context, c *Call) (any, error) {
	var p struct {
		Loop   string `json:"loop"`
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	c.Params(&p)
	if p.Loop == "" || p.RunID == "" {
		return nil, wire.Invalid("target_required", "loop and run_id are required")
	}
	if p.Status == "" {
		p.Status = "running"
	}
	return s.write(ctx, func(tx *store.Tx) (any, error) {
		now := tx.Now()
		var loopUUID string
		tx.QueryRow(`SELECT uuid FROM loops WHERE name = ? AND status IN ('active','paused')`, p.Loop).Scan(&loopUUID)
		if loopUUID == "" {
			id, err := uuid.NewV7()
			if err != nil {
				return nil, err
			}
			loopUUID = id.String()
			if _, err := tx.Exec(`INSERT INTO loops (uuid, name, cadence_kind, cadence_value, tz, cwd,
				max_concurrency, overlap, status, created_at, updated_at)
				VALUES (?, ?, 'cron', '*/5 * * * *', 'UTC', '/tmp', 1, 'queue', 'active', ?, ?)`, loopUUID, p.Loop, now, now); err != nil {
				return nil, err
			}
		}
		id, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO loop_runs (uuid, loop_uuid, run_id, kind, status, started_at, created_at,
			updated_at) VALUES (?, ?, ?, 'manual', ?, ?, ?, ?)`, id.String(), loopUUID, p.RunID, p.Status, now, now, now); err != nil {
			return nil, err
		}
		return map[string]any{"loop_uuid": loopUUID, "run_uuid": id.String()}, nil
	})
}
