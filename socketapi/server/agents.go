package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// callerParams are the caller identity params every agent verb takes (protocol.md §4.1).
type callerParams struct {
	CallerID   string `json:"caller_id"`
	CallerPath string `json:"caller_path"`
}

func (s *Server) caller(ctx context.Context, p callerParams) (agentpath.Caller, error) {
	return agentpath.ResolveCaller(ctx, s.db.Reader(), p.CallerID, p.CallerPath)
}

// exactTarget resolves the target of an exact-target verb (send, logs) in the
// caller's scope: target_required when empty, then agentpath.ResolveExact.
func (s *Server) exactTarget(ctx context.Context, p callerParams, target string) (store.AgentRow, string, error) {
	if target == "" {
		return store.AgentRow{}, "", wire.Invalid("target_required", "a target is required")
	}
	caller, err := s.caller(ctx, p)
	if err != nil {
		return store.AgentRow{}, "", err
	}
	return agentpath.ResolveExact(ctx, s.db.Reader(), caller, target)
}

// bulkTargets drops empty targets of a bulk verb (wait, kill): none left is
// target_required.
func bulkTargets(raw []string) ([]string, error) {
	var targets []string
	for _, t := range raw {
		if t != "" {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return nil, wire.Invalid("target_required", "at least one target is required")
	}
	return targets, nil
}

// herdrIntegrations caches `herdr integration status` (the herdr layer of the support
// gate, providers.md §1.1) for a short while.
type herdrIntegrations struct {
	mu      sync.Mutex
	at      time.Time
	present map[string]bool
}

const integrationsTTL = 30 * time.Second

func (s *Server) herdrInstalled(ctx context.Context) map[string]bool {
	s.integ.mu.Lock()
	defer s.integ.mu.Unlock()
	if s.integ.present != nil && time.Since(s.integ.at) < integrationsTTL {
		return s.integ.present
	}
	present := map[string]bool{}
	if s.herdrBin != "" {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		rows, err := herdr.IntegrationStatus(cctx, s.herdrBin)
		cancel()
		if err != nil {
			s.log.Warn("herdr integration status failed", "err", err)
		} else {
			present = provider.HerdrInstalled(rows)
		}
	}
	s.integ.present, s.integ.at = present, time.Now()
	return present
}

func (s *Server) providerOptions() provider.Options { return provider.OptionsFromEnv(s.getenv) }

// serverEnv is the server's environment as KEY=VALUE entries (for the mock's knobs).
func (s *Server) serverEnv() []string {
	if s.opts.Getenv == nil {
		return os.Environ()
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if v := s.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

type runParams struct {
	callerParams
	Name    string `json:"name"`
	Path    string `json:"path"`
	Agent   string `json:"agent"`
	Prompt  string `json:"prompt"`
	GC      string `json:"gc"`
	Model   string `json:"model"`
	Effort  string `json:"effort"`
	Cwd     string `json:"cwd"`
	Timeout string `json:"timeout"`
}

// agentRun is agent.run (protocol.md §5.8, lifecycle.md §7.1): every check first, then
// the data dir and launch.json, then one store transaction that checks the kill
// barriers and the loop namespace and inserts the queued row with agent.created.
func (s *Server) agentRun(ctx context.Context, c *Call) (any, error) {
	var p runParams
	c.Params(&p)
	return s.enqueue(ctx, p)
}

func (s *Server) enqueue(ctx context.Context, p runParams) (map[string]any, error) {
	switch {
	case p.Name != "" && p.Path != "":
		return nil, wire.Invalid("name_and_path", "give either name or path, not both")
	case p.Name == "" && p.Path == "":
		return nil, wire.Invalid("name_required", "a name or a path is required")
	}
	provName := p.Agent
	if provName == "" {
		provName = s.cfg.Defaults.Agent
	}
	opts := s.providerOptions()
	prov, err := provider.Lookup(provName, opts)
	if err != nil {
		if provName != provider.Mock {
			return nil, provider.CheckSupport(provName, false, s.herdrInstalled(ctx))
		}
		return nil, err
	}
	if provName != provider.Mock {
		if err := provider.CheckSupport(provName, true, s.herdrInstalled(ctx)); err != nil {
			return nil, err
		}
	}
	gc := p.GC
	switch gc {
	case "":
		gc = "auto"
	case "auto", "immediate", "never":
	default:
		return nil, wire.Invalid("invalid_gc", "gc must be auto, immediate or never", "value", gc)
	}
	route, err := prov.Route(s.cfg, p.Model, p.Effort)
	if err != nil {
		return nil, err
	}
	var timeout time.Duration
	if p.Timeout != "" {
		if timeout, err = config.ParseDuration(p.Timeout); err != nil {
			return nil, wire.Invalid("bad_duration", "bad timeout: "+err.Error(), "value", p.Timeout)
		}
	}
	caller, err := s.caller(ctx, p.callerParams)
	if err != nil {
		return nil, err
	}
	scope, _ := caller.Scope()
	path, err := agentpath.Creation(scope, p.Name, p.Path, nil)
	if err != nil {
		return nil, err
	}
	argv, err := prov.LaunchArgv(route)
	if err != nil {
		return nil, err
	}

	id, err := uuid.NewV7()
	if err != nil {
		return nil, wire.Internal("uuid", err.Error())
	}
	uid, token := id.String(), uuid.NewString()
	dir := actors.AgentDataDir(s.opts.Home, path, uid)
	parentID, parentPath := caller.Parent()
	env := prov.Env(s.serverEnv())
	env["ORCR_ID"], env["ORCR_PATH"] = uid, path
	env["ORCR_AGENT_DATA_DIR"], env["ORCR_HOME"] = dir, s.opts.Home
	env["ORCR_LAUNCH_TOKEN"] = token
	if parentID != "" && parentPath != "" {
		env["ORCR_PARENT_ID"], env["ORCR_PARENT_PATH"] = parentID, parentPath
	}
	if first := agentpath.FirstSegment(path); first != path && s.activeLoop(ctx, first) {
		env["ORCR_LOOP_DATA_DIR"] = s.opts.Home + "/data/" + first
	}
	now := time.Now().UnixMilli()
	l := &actors.Launch{Version: 1, UUID: uid, Path: path, Provider: provName, Argv: argv,
		Model: route.Model, Effort: route.Effort, GCMode: gc, LaunchToken: token,
		EffectivePath: path, Env: env, CreatedAt: now}
	if p.Prompt != "" {
		l.Prompt = &p.Prompt
	}
	if p.Cwd != "" {
		l.Cwd = &p.Cwd
	}
	if p.Timeout != "" {
		l.Timeout = &p.Timeout
	}
	if scope != "" {
		l.Scope = &scope
	}
	if err := actors.WriteLaunch(dir, l); err != nil {
		return nil, err
	}
	_, err = s.write(ctx, func(tx *store.Tx) (any, error) {
		if target, ok := s.barriers.Match(path); ok {
			return nil, wire.Conflict(fmt.Sprintf("a kill of `%s` is in progress", target),
				"reason", "kill_in_progress", "target", target)
		}
		if err := agentpath.CheckLoopNamespace(tx.Context(), tx, path, p.CallerPath); err != nil {
			return nil, err
		}
		var occ store.AgentRow
		occ, err := store.AgentByUUID(tx.Context(), tx, activeUUIDAt(tx, path))
		if err == nil {
			return nil, wire.Conflict(fmt.Sprintf("path %s is in use by %s (%s)", path, occ.UUID, occ.Status),
				"reason", "path_in_use", "current_status", occ.Status,
				"occupant", map[string]any{"uuid": occ.UUID, "path": occ.Path, "status": occ.Status})
		}
		var deadline any
		if timeout > 0 {
			deadline = tx.Now() + timeout.Milliseconds()
		}
		_, err = tx.Exec(`INSERT INTO agents (uuid, path, managed, origin, parent_id, agent, model, effort, gc_mode,
			cwd, herdr_session, launch_token, status, queue_seq, enqueued_at, deadline_at, last_status_change_at,
			created_at, updated_at)
			VALUES (?, ?, 1, 'run', ?, ?, ?, ?, ?, ?, ?, ?, 'queued',
			(SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM agents), ?, ?, ?, ?, ?)`,
			uid, path, nullable(parentID), provName, route.Model, route.Effort, gc, nullable(p.Cwd),
			s.cfg.Herdr.Session, token, tx.Now(), deadline, tx.Now(), tx.Now(), tx.Now())
		if err != nil {
			if strings.Contains(err.Error(), "UNIQUE") {
				return nil, wire.Conflict("path "+path+" is in use", "reason", "path_in_use", "path", path)
			}
			return nil, err
		}
		row, err := store.AgentByUUID(tx.Context(), tx, uid)
		if err != nil {
			return nil, err
		}
		_, err = tx.Emit("agent.created", uid, map[string]any{"uuid": uid, "path": path, "status": "queued", "agent": row})
		return nil, err
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.sys.Root.Send(s.queuePID, actors.PokeQueue{})

	res := map[string]any{"uuid": uid, "path": path, "agent": provName, "managed": true,
		"cwd": nullable(p.Cwd), "data_dir": dir}
	row, err := store.AgentByUUID(ctx, s.db.Reader(), uid)
	if err == nil {
		res["status"] = row.Status
		if row.QueuePosition != nil {
			res["queue_position"] = *row.QueuePosition
		}
	} else {
		res["status"] = "queued"
	}
	if parentID != "" {
		res["parent_id"] = parentID
		if parentPath != "" {
			res["parent_path"] = parentPath
		}
	}
	return map[string]any{"agent": res, "permissions": "bypass"}, nil
}

func activeUUIDAt(tx *store.Tx, path string) string {
	var u string
	tx.QueryRow(`SELECT uuid FROM agents WHERE path = ? AND status != 'ended'`, path).Scan(&u)
	return u
}

func (s *Server) activeLoop(ctx context.Context, name string) bool {
	var n int
	s.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM loops WHERE name = ? AND status IN ('active','paused')`, name).Scan(&n)
	return n > 0
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

type sendParams struct {
	callerParams
	Target string `json:"target"`
	Prompt string `json:"prompt"`
}

// agentSend is agent.send (lifecycle.md §11.1): the agent actor serializes it with the
// agent's other operations and opens the turn before typing.
func (s *Server) agentSend(ctx context.Context, c *Call) (any, error) {
	var p sendParams
	c.Params(&p)
	row, _, err := s.exactTarget(ctx, p.callerParams, p.Target)
	if err != nil {
		return nil, err
	}
	if row.Status == "ended" || row.Status == "lost" {
		return nil, wire.New(wire.NotFound, fmt.Sprintf("agent %s is %s", row.Path, row.Status), "target", p.Target)
	}
	if !row.Managed {
		return nil, wire.Conflict("sending to unmanaged agents is not available yet")
	}
	res, err := s.sys.Root.RequestFuture(s.agentsPID, actors.SendInput{UUID: row.UUID, Prompt: p.Prompt}, 10*time.Minute).Result()
	if err != nil {
		return nil, wire.Internal("actor", "agent actor did not answer: "+err.Error())
	}
	sr := res.(actors.SendResult)
	if sr.Err != nil {
		if wire.Is(sr.Err, wire.NotFound, "") {
			return nil, wire.New(wire.NotFound, "agent "+row.Path+" has ended", "target", p.Target)
		}
		if errors.Is(sr.Err, actors.ErrStale) {
			return nil, wire.Conflict("agent "+row.Path+" changed state during delivery", "current_status", row.Status)
		}
		return nil, sr.Err
	}
	return map[string]any{"uuid": sr.UUID, "path": sr.Path, "delivered_while": sr.DeliveredWhile, "input_seq": sr.InputSeq}, nil
}

type lsParams struct {
	callerParams
	agentpath.ListFilter
}

// agentLs is agent.ls (protocol.md §5.17).
func (s *Server) agentLs(ctx context.Context, c *Call) (any, error) {
	var p lsParams
	c.Params(&p)
	caller, err := s.caller(ctx, p.callerParams)
	if err != nil {
		return nil, err
	}
	rows, err := agentpath.List(ctx, s.db.Reader(), caller, p.ListFilter)
	if err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []store.AgentRow{}
	}
	return map[string]any{"agents": rows}, nil
}
