package server

import (
	"context"
	"encoding/json"
	"os"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// handler runs one method. Exactly one of inline (runs on the connection's reader,
// must not block), async (runs on a request goroutine, may block) or stream (spawns a
// subscription actor that answers the request itself) is set.
type handler struct {
	// decode, if set, checks the params before a server-side handler runs.
	decode func(json.RawMessage) (any, error)
	inline func(*Call) (any, error)
	async  func(context.Context, *Call) (any, error)
	stream func(actor.Context, *Call)
	debug  bool // hidden debug method: not in the catalogue
}

// methodTable binds the method table (api.Methods) to handlers: a facade method is
// decoded and served by its table entry on a request goroutine; a server-side method gets
// its handler from serverSide after its params were checked against its params type; a
// method that has not landed answers invalid_request not_implemented. A server-side
// entry without a handler here, or a handler for a method the table does not mark
// server-side, is a programming error.
func (s *Server) methodTable(table []api.Spec) map[string]handler {
	sys := s.system
	serverSide := map[string]handler{
		"server.handshake": {inline: s.handshake},
		"server.stop":      {inline: s.stopMethod},
		"api.schema":       {inline: func(*Call) (any, error) { return s.schema, nil }},
		"events.subscribe": {stream: s.subscribe},
		"watch.open":       {stream: s.watchOpen},
	}
	out := map[string]handler{}
	for _, m := range table {
		info := m.Info()
		var h handler
		switch {
		case info.Facade:
			h = handler{async: func(ctx context.Context, c *Call) (any, error) { return m.Serve(ctx, sys, c.Req.Params) }}
		case info.ServerSide:
			var ok bool
			if h, ok = serverSide[info.Name]; !ok {
				panic("server: server-side method " + info.Name + " has no handler")
			}
			delete(serverSide, info.Name)
			h.decode = m.Decode
		default:
			name := info.Name
			h = handler{inline: func(*Call) (any, error) {
				return nil, wire.Invalid(wire.ReasonNotImplemented, "method `"+name+"` is not implemented yet", "method", name)
			}}
		}
		out[info.Name] = h
	}
	for name := range serverSide {
		panic("server: handler for " + name + ", which the method table does not serve server-side")
	}
	if s.debug {
		out["__debug.emit_event"] = handler{async: s.debugEmit, debug: true}
		out["__debug.set_agent"] = handler{async: s.debugSetAgent, debug: true}
		out["__debug.insert_loop_run"] = handler{async: s.debugInsertLoopRun, debug: true}
		out["__debug.fill_session_log"] = handler{async: s.debugFillLog, debug: true}
		out["__debug.waits"] = handler{async: func(context.Context, *Call) (any, error) {
			return map[string]any{"waits": s.system.DebugWaits()}, nil
		}, debug: true}
	}
	return out
}

func (s *Server) handshake(*Call) (any, error) {
	return api.Handshake{PID: os.Getpid(), Protocol: wire.Protocol, Store: s.paths.DB, Ready: true}, nil
}

func (s *Server) stopMethod(c *Call) (any, error) {
	// The response is written first; then the connection closes and the stop begins.
	c.after = func() {
		c.s.log.Info("server.stop requested")
		s.Stop()
	}
	return api.StopResult{Status: "stopping"}, nil
}

func (s *Server) subscribe(c actor.Context, call *Call) {
	var p api.SubscribeRequest
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
		Kind    string          `json:"kind"`
		RefUUID string          `json:"ref_uuid"`
		Payload json.RawMessage `json:"payload"`
	}
	c.Params(&p)
	seq, err := s.system.DebugEmit(ctx, p.Kind, p.RefUUID, p.Payload)
	if err != nil {
		return nil, err
	}
	return map[string]any{"seq": seq}, nil
}

// debugFillLog is the hidden __debug.fill_session_log (ORCR_DEBUG_METHODS=1): n
// policy/updated entries appended to an agent's session log, for replay tests.
func (s *Server) debugFillLog(ctx context.Context, c *Call) (any, error) {
	var p struct {
		UUID string `json:"uuid"`
		N    int    `json:"n"`
	}
	c.Params(&p)
	tip, err := s.system.DebugFillLog(ctx, p.UUID, p.N)
	if err != nil {
		return nil, err
	}
	return map[string]any{"tip": tip}, nil
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
