package server

import (
	"context"
	"fmt"
	"os"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
)

// handler runs one method. Exactly one of inline (runs on the connection's reader,
// must not block), async (runs on a request goroutine, may block) or stream (spawns a
// subscription actor that answers the request itself) is set.
type handler struct {
	inline func(*Call) (any, error)
	async  func(context.Context, *Call) (any, error)
	stream func(actor.Context, *Call)
	debug  bool // hidden debug method: not in the catalogue
}

// facade adapts one typed facade method to a handler: the params are decoded into the
// request type, the facade is called, and its result is the response.
func facade[Req, Res any](fn func(context.Context, Req) (Res, error)) handler {
	return handler{async: func(ctx context.Context, c *Call) (any, error) {
		var req Req
		c.Params(&req)
		res, err := fn(ctx, req)
		if err != nil {
			return nil, err
		}
		return res, nil
	}}
}

// methodTable binds the catalogue (socketapi.Catalogue, the one method table) to
// handlers. Every catalogue method is registered; one whose issue has not landed answers
// invalid_request not_implemented. A catalogue entry marked Implemented without a
// handler here is a programming error.
func (s *Server) methodTable() map[string]handler {
	sys := s.system
	impl := map[string]handler{
		"server.handshake": {inline: s.handshake},
		"server.status":    {async: func(ctx context.Context, _ *Call) (any, error) { return sys.Status(ctx) }},
		"server.stop":      {inline: s.stopMethod},
		"api.schema":       {inline: func(*Call) (any, error) { return socketapi.Schema(), nil }},
		"api.snapshot":     {async: func(ctx context.Context, _ *Call) (any, error) { return sys.Snapshot(ctx) }},
		"events.subscribe": {stream: s.subscribe},
		"watch.open":       {stream: s.watchOpen},
		"agent.run":        facade(sys.Run),
		"agent.send":       facade(sys.Send),
		"agent.kill":       facade(sys.Kill),
		"agent.ls":         facade(sys.Ls),
		"agent.ask":        facade(sys.Ask),
		"agent.logs":       facade(sys.Logs),
		"agent.wait":       facade(sys.Wait),
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
	pid := c.Spawn(s.system.SubscriptionProps(actors.SubscriptionSpec{
		ID: id, Kind: kind, SinceSeq: since, RequestID: call.Req.ID, Sink: call.w,
	}))
	c.Actor().(*connActor).subs[id] = pid
}

// debugEmit is the hidden __debug.emit_event (ORCR_DEBUG_METHODS=1).
func (s *Server) debugEmit(ctx context.Context, c *Call) (any, error) {
	var p struct {
		Kind    string         `json:"kind"`
		RefUUID string         `json:"ref_uuid"`
		Payload map[string]any `json:"payload"`
	}
	c.Params(&p)
	seq, err := s.system.DebugEmit(ctx, p.Kind, p.RefUUID, p.Payload)
	if err != nil {
		return nil, err
	}
	return map[string]any{"seq": seq}, nil
}

// debugSetAgent is the hidden __debug.set_agent (ORCR_DEBUG_METHODS=1): it creates or
// updates a managed agent row with the given status, emitting the events a real
// transition would. Optional blocked_kind sets the column (cleared when absent);
// optional exit_reason replaces the default "killed" of an ended row ("" stores none).
func (s *Server) debugSetAgent(ctx context.Context, c *Call) (any, error) {
	var p struct {
		UUID        string  `json:"uuid"`
		Path        string  `json:"path"`
		Status      string  `json:"status"`
		BlockedKind string  `json:"blocked_kind"`
		ExitReason  *string `json:"exit_reason"`
	}
	c.Params(&p)
	seq, err := s.system.DebugSetAgent(ctx, store.DebugAgent{UUID: p.UUID, Path: p.Path, Status: store.Status(p.Status),
		BlockedKind: p.BlockedKind, ExitReason: p.ExitReason})
	if err != nil {
		return nil, err
	}
	return map[string]any{"seq": seq}, nil
}

// debugInsertLoopRun is the hidden __debug.insert_loop_run (ORCR_DEBUG_METHODS=1),
// standing in for loop.create until loops land.
func (s *Server) debugInsertLoopRun(ctx context.Context, c *Call) (any, error) {
	var p struct {
		Loop   string `json:"loop"`
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	c.Params(&p)
	loop, run, err := s.system.DebugInsertLoopRun(ctx, p.Loop, p.RunID, p.Status)
	if err != nil {
		return nil, err
	}
	return map[string]any{"loop_uuid": loop, "run_uuid": run}, nil
}
