package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Facade is what the server's use cases offer to the socket face: one typed call per
// facade method of [Methods]. actors.System implements it; a test may implement a part.
type Facade interface {
	Status(context.Context) (StatusResult, error)
	Snapshot(context.Context) (Snapshot, error)
	Run(context.Context, RunRequest) (RunResult, error)
	Ask(context.Context, AskRequest) (AskResult, error)
	Send(context.Context, SendRequest) (SendResult, error)
	Logs(context.Context, LogsRequest) (LogsResult, error)
	Wait(context.Context, WaitRequest) (WaitResult, error)
	Kill(context.Context, KillRequest) (KillResult, error)
	Ls(context.Context, LsRequest) (LsResult, error)
	AttachPrepare(context.Context, AttachPrepareRequest) (AttachPrepareResult, error)
	AttachHeartbeat(context.Context, LeaseRequest) (HeartbeatResult, error)
	AttachRelease(context.Context, LeaseRequest) (ReleaseResult, error)
	Adopt(context.Context, AdoptRequest) (AdoptResult, error)
	Token(context.Context, TokenRequest) (TokenResult, error)
	DashboardLogin(context.Context, DashboardLoginRequest) (DashboardLoginResult, error)
	MCPToken(context.Context, MCPTokenRequest) (MCPTokenResult, error)
	MCPAuth(context.Context, MCPAuthRequest) (MCPAuthResult, error)
	LoopCreate(context.Context, LoopCreateRequest) (LoopResult, error)
	LoopPause(context.Context, LoopNamesRequest) (LoopUpdateResult, error)
	LoopResume(context.Context, LoopNamesRequest) (LoopUpdateResult, error)
	LoopRm(context.Context, LoopRmRequest) (LoopRmResult, error)
	LoopLs(context.Context, LoopLsRequest) (LoopLsResult, error)
	LoopLogs(context.Context, LoopLogsRequest) (LoopLogsResult, error)
	LoopRunStart(context.Context, LoopRunRequest) (LoopRunResult, error)
	LoopRunStop(context.Context, LoopRunStopRequest) (LoopRunStopResult, error)
	LoopRunLs(context.Context, LoopRunLsRequest) (LoopRunLsResult, error)
	Usage(context.Context, UsageRequest) (UsageResult, error)
	BudgetLs(context.Context, BudgetLsRequest) (BudgetLsResult, error)
	BudgetExtend(context.Context, BudgetExtendRequest) (BudgetExtendResult, error)
	QuotaRecord(context.Context, QuotaRecordRequest) (QuotaRecordResult, error)
	ProviderLs(context.Context, ProviderLsRequest) (ProviderLsResult, error)
	ProviderCheck(context.Context, ProviderCheckRequest) (ProviderCheckResult, error)
	FleetCall(context.Context, FleetCallRequest) (FleetCallResult, error)
	FleetMembers(context.Context, NoParams) (FleetMembersResult, error)
	FleetEvents(context.Context, FleetEventsRequest) (FleetEventsResult, error)
	FleetToken(context.Context, FleetTokenRequest) (FleetTokenResult, error)
}

// Method is one wire method of the table: its name, its params type Req, its result type
// Res and how the server serves it. The same value drives the server's dispatch
// ([Method.Serve]), the schema document ([Schema]) and the Go client (socketapi.Invoke).
type Method[Req, Res any] struct {
	// The wire name.
	Name string
	// One line for the schema document.
	Summary string
	// The CLI verb that calls it ("" for none).
	CLI string
	// Streaming methods answer with a result, then event frames.
	Streaming bool
	// Call is the facade call of a use-case method.
	Call func(Facade, context.Context, Req) (Res, error)
	// Server marks a method the socket layer serves itself (handshake, stop, schema,
	// the streams). A method with neither Call nor Server has not landed: the server
	// answers it invalid_request not_implemented (docs/protocol.md §5.28).
	Server bool
	// Unbounded calls hold the connection until the server decides (agent.wait,
	// agent.ask): the client applies no call timeout of its own.
	Unbounded bool
}

// Spec is the type-erased view of a [Method] that tables, the server and the schema use.
type Spec interface {
	Info() Info
	// Types returns the params and result types (for the schema).
	Types() (req, res reflect.Type)
	// Decode checks raw params against the params type (see [DecodeParams]).
	Decode(raw json.RawMessage) (any, error)
	// Serve decodes raw params and runs the facade call. It must only be called for a
	// method whose Info says Facade.
	Serve(ctx context.Context, f Facade, raw json.RawMessage) (any, error)
}

// Info describes a method.
type Info struct {
	Name, Summary, CLI   string
	Streaming, Unbounded bool
	// Facade: served by a facade call. ServerSide: served by the socket layer.
	Facade, ServerSide bool
}

// Implemented reports whether the method has landed.
func (i Info) Implemented() bool { return i.Facade || i.ServerSide }

// Info implements [Spec].
func (m *Method[Req, Res]) Info() Info {
	return Info{Name: m.Name, Summary: m.Summary, CLI: m.CLI, Streaming: m.Streaming, Unbounded: m.Unbounded,
		Facade: m.Call != nil, ServerSide: m.Server}
}

// Types implements [Spec].
func (m *Method[Req, Res]) Types() (reflect.Type, reflect.Type) {
	return reflect.TypeFor[Req](), reflect.TypeFor[Res]()
}

// Decode implements [Spec].
func (m *Method[Req, Res]) Decode(raw json.RawMessage) (any, error) {
	var req Req
	if err := DecodeParams(raw, &req); err != nil {
		return nil, err
	}
	return req, nil
}

// Serve implements [Spec].
func (m *Method[Req, Res]) Serve(ctx context.Context, f Facade, raw json.RawMessage) (any, error) {
	var req Req
	if err := DecodeParams(raw, &req); err != nil {
		return nil, err
	}
	res, err := m.Call(f, ctx, req)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// DecodeParams decodes a request's params into v (docs/protocol.md §2.2): absent or null
// params are {}, unknown keys are ignored, a null value is absent. Params that are not an
// object, or a key whose value has the wrong type, are invalid_request wrong_type naming
// the field ("tail", "targets[1]") and what it expected.
func DecodeParams(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] != '{' {
		return wire.Invalid(wire.ReasonWrongType, "params must be a JSON object", "field", "params", "expected", "object")
	}
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		field := fieldName(te.Field)
		if field == "" {
			field = "params"
		}
		want := jsonKind(te.Type)
		return wire.Invalid(wire.ReasonWrongType, fmt.Sprintf("param `%s` must be %s, not %s", field, want, te.Value),
			"field", field, "expected", want, "got", te.Value)
	default:
		return wire.Invalid(wire.ReasonWrongType, "params cannot be read: "+err.Error(), "field", "params")
	}
}

// fieldName turns encoding/json's dotted field path into the param's name.
func fieldName(path string) string {
	return strings.TrimPrefix(path, ".")
}

// jsonKind names the JSON type a Go type decodes from, with its article.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

// Lookup returns the table entry for a wire name.
func Lookup(name string) (Spec, bool) {
	for _, m := range Methods {
		if m.Info().Name == name {
			return m, true
		}
	}
	return nil, false
}

// The methods of protocol 1, one variable each; [Methods] lists them in the reference's
// order. Adding a method here is all it takes for the server to dispatch it (once it has
// a Call), for the schema to describe it and for the Go client (socketapi.Invoke) to
// call it.
var (
	ServerHandshake = &Method[NoParams, Handshake]{Name: "server.handshake", Server: true, CLI: "server start",
		Summary: "readiness probe: pid, protocol and store path"}
	ServerStatus = &Method[NoParams, StatusResult]{Name: "server.status", CLI: "server status",
		Summary: "server health: herdr, integrations, counts, loops, drift",
		Call:    func(f Facade, ctx context.Context, _ NoParams) (StatusResult, error) { return f.Status(ctx) }}
	ServerStop = &Method[NoParams, StopResult]{Name: "server.stop", Server: true, CLI: "server stop",
		Summary: "graceful control-plane stop; agent panes are untouched"}
	APISchema = &Method[NoParams, Open]{Name: "api.schema", Server: true, CLI: "api schema",
		Summary: "this schema document"}
	APISnapshot = &Method[NoParams, Snapshot]{Name: "api.snapshot", CLI: "api snapshot",
		Summary: "consistent snapshot of agents, loops and queue with its event cursor",
		Call:    func(f Facade, ctx context.Context, _ NoParams) (Snapshot, error) { return f.Snapshot(ctx) }}
	EventsSubscribe = &Method[SubscribeRequest, SubscribeResult]{Name: "events.subscribe", Server: true, Streaming: true, CLI: "top",
		Summary: "stream events after since_seq (replay, then live)"}
	WatchOpen = &Method[NoParams, WatchResult]{Name: "watch.open", Server: true, Streaming: true, CLI: "top",
		Summary: "snapshot plus a pinned subscription under one cursor"}
	AgentRun = &Method[RunRequest, RunResult]{Name: "agent.run", CLI: "agent run", Call: Facade.Run,
		Summary: "enqueue a managed agent at a path"}
	AgentAsk = &Method[AskRequest, AskResult]{Name: "agent.ask", CLI: "agent ask", Call: Facade.Ask, Unbounded: true,
		Summary: "run with gc immediate, wait, and return the final response"}
	AgentSend = &Method[SendRequest, SendResult]{Name: "agent.send", CLI: "agent send", Call: Facade.Send,
		Summary: "deliver a prompt to an existing agent"}
	AgentLogs = &Method[LogsRequest, LogsResult]{Name: "agent.logs", CLI: "agent logs", Call: Facade.Logs,
		Summary: "read an agent's native transcript or last response"}
	AgentWait = &Method[WaitRequest, WaitResult]{Name: "agent.wait", CLI: "agent wait", Call: Facade.Wait, Unbounded: true,
		Summary: "block until every target settles, or with any until one does"}
	AgentAttachPrepare = &Method[AttachPrepareRequest, AttachPrepareResult]{Name: "agent.attach.prepare", CLI: "agent attach", Call: Facade.AttachPrepare,
		Summary: "take an attach lease and return the herdr attach command"}
	AgentAttachHeartbeat = &Method[LeaseRequest, HeartbeatResult]{Name: "agent.attach.heartbeat", CLI: "agent attach", Call: Facade.AttachHeartbeat,
		Summary: "extend an attach lease"}
	AgentAttachRelease = &Method[LeaseRequest, ReleaseResult]{Name: "agent.attach.release", CLI: "agent attach", Call: Facade.AttachRelease,
		Summary: "release an attach lease"}
	AgentKill = &Method[KillRequest, KillResult]{Name: "agent.kill", CLI: "agent kill", Call: Facade.Kill,
		Summary: "kill agents by pattern or uuid"}
	AgentLs = &Method[LsRequest, LsResult]{Name: "agent.ls", CLI: "agent ls", Call: Facade.Ls,
		Summary: "list agents in tree order"}
	AgentAdopt = &Method[AdoptRequest, AdoptResult]{Name: "agent.adopt", CLI: "agent adopt", Call: Facade.Adopt,
		Summary: "turn an unmanaged agent into a managed one, resuming its conversation"}
	AgentToken = &Method[TokenRequest, TokenResult]{Name: "agent.token", CLI: "agent token", Call: Facade.Token,
		Summary: "issue, rotate or revoke an agent's remote stream token"}
	DashboardLogin = &Method[DashboardLoginRequest, DashboardLoginResult]{Name: "dashboard.login", CLI: "dashboard",
		Call: Facade.DashboardLogin, Summary: "issue a one-time sign-in link for the web dashboard, or sign every browser out"}
	MCPToken = &Method[MCPTokenRequest, MCPTokenResult]{Name: "mcp.token", CLI: "mcp token", Call: Facade.MCPToken,
		Summary: "issue, rotate or revoke the bearer token of orcr mcp --http"}
	MCPAuth = &Method[MCPAuthRequest, MCPAuthResult]{Name: "mcp.auth", CLI: "mcp serve", Call: Facade.MCPAuth,
		Summary: "check a bearer token presented to orcr mcp --http"}
	LoopCreate = &Method[LoopCreateRequest, LoopResult]{Name: "loop.create", CLI: "loop create", Call: Facade.LoopCreate,
		Summary: "create a durable cron or one-shot loop for a command"}
	LoopPause = &Method[LoopNamesRequest, LoopUpdateResult]{Name: "loop.pause", CLI: "loop pause", Call: Facade.LoopPause,
		Summary: "pause loops"}
	LoopResume = &Method[LoopNamesRequest, LoopUpdateResult]{Name: "loop.resume", CLI: "loop resume", Call: Facade.LoopResume,
		Summary: "resume loops"}
	LoopRm = &Method[LoopRmRequest, LoopRmResult]{Name: "loop.rm", CLI: "loop rm", Call: Facade.LoopRm, Unbounded: true,
		Summary: "remove loops, optionally stopping active runs"}
	LoopLs = &Method[LoopLsRequest, LoopLsResult]{Name: "loop.ls", CLI: "loop ls", Call: Facade.LoopLs,
		Summary: "list loops"}
	LoopLogs = &Method[LoopLogsRequest, LoopLogsResult]{Name: "loop.logs", CLI: "loop logs", Call: Facade.LoopLogs,
		Summary: "read a loop's run output and orcr events"}
	LoopRunStart = &Method[LoopRunRequest, LoopRunResult]{Name: "loop.run.start", CLI: "loop run start", Call: Facade.LoopRunStart,
		Summary: "start a manual run of a loop"}
	LoopRunStop = &Method[LoopRunStopRequest, LoopRunStopResult]{Name: "loop.run.stop", CLI: "loop run stop",
		Call: Facade.LoopRunStop, Unbounded: true, Summary: "stop a loop's runs"}
	LoopRunLs = &Method[LoopRunLsRequest, LoopRunLsResult]{Name: "loop.run.ls", CLI: "loop run ls", Call: Facade.LoopRunLs,
		Summary: "list a loop's runs"}
	UsageReport = &Method[UsageRequest, UsageResult]{Name: "usage.report", CLI: "usage", Call: Facade.Usage,
		Summary: "tokens and cost of completed turns, grouped by agent, path, provider, model, loop or day"}
	BudgetLs = &Method[BudgetLsRequest, BudgetLsResult]{Name: "budget.ls", CLI: "budget ls", Call: Facade.BudgetLs,
		Summary: "every budget with what it spent, its limit and its state"}
	BudgetExtend = &Method[BudgetExtendRequest, BudgetExtendResult]{Name: "budget.extend", CLI: "budget extend",
		Call: Facade.BudgetExtend, Summary: "raise a budget's limit and deliver what its paused agents queued"}
	QuotaRecord = &Method[QuotaRecordRequest, QuotaRecordResult]{Name: "quota.record", CLI: "statusline",
		Call: Facade.QuotaRecord, Summary: "record the quota windows a provider reported outside its transcript (claude's status line)"}
	ProviderLs = &Method[ProviderLsRequest, ProviderLsResult]{Name: "provider.ls", CLI: "provider ls", Call: Facade.ProviderLs,
		Summary: "the built-in and declared providers with their support state"}
	ProviderCheck = &Method[ProviderCheckRequest, ProviderCheckResult]{Name: "provider.check", CLI: "provider check",
		Call: Facade.ProviderCheck, Unbounded: true,
		Summary: "check which parts of a provider's contract hold: its command, flags, herdr layer and a real turn"}
	FleetCall = &Method[FleetCallRequest, FleetCallResult]{Name: "fleet.call", CLI: "fleet call", Call: Facade.FleetCall,
		Unbounded: true, Summary: "call a method on a fleet member through this server's fleet connection"}
	FleetMembers = &Method[NoParams, FleetMembersResult]{Name: "fleet.members", CLI: "fleet members", Call: Facade.FleetMembers,
		Summary: "the fleet's members: reachable or not, and when each was last seen"}
	FleetEvents = &Method[FleetEventsRequest, FleetEventsResult]{Name: "fleet.events", CLI: "fleet events", Call: Facade.FleetEvents,
		Unbounded: true, Summary: "every member's events after a cursor per host, from the fleet's stream"}
	FleetToken = &Method[FleetTokenRequest, FleetTokenResult]{Name: "fleet.token", CLI: "fleet token", Call: Facade.FleetToken,
		Summary: "issue, rotate or revoke a member's credential on the fleet's hub"}
)

// ReportsProgress reports whether method writes progress frames when asked
// (docs/protocol.md §2.7): today agent.kill. Over the fleet such a call is asked for
// them and waited on while they come (docs/fleet.md §4.9).
func ReportsProgress(method string) bool { return method == AgentKill.Name }

// Methods is the one method table of protocol 1, in the reference's order.
var Methods = []Spec{
	ServerHandshake, ServerStatus, ServerStop, APISchema, APISnapshot, EventsSubscribe, WatchOpen,
	AgentRun, AgentAsk, AgentSend, AgentLogs, AgentWait, AgentAttachPrepare, AgentAttachHeartbeat,
	AgentAttachRelease, AgentKill, AgentLs, LoopCreate, LoopPause, LoopResume, LoopRm, LoopLs,
	LoopLogs, LoopRunStart, LoopRunStop, LoopRunLs,
	AgentAdopt,     // beyond the reference (docs/decisions.md D12)
	AgentToken,     // the remote stream's tokens (docs/remote.md §3)
	DashboardLogin, // the web dashboard's sign-in (docs/dashboard.md §2)
	MCPToken,       // the MCP face's HTTP credential (docs/mcp.md §1.1)
	MCPAuth,
	UsageReport,            // what turns used and cost (docs/usage.md)
	BudgetLs, BudgetExtend, // budgets (docs/usage.md §8)
	QuotaRecord,               // claude's quota windows from its status line (docs/usage.md §7.1)
	ProviderLs, ProviderCheck, // providers and their contract (docs/providers.md §11)
	FleetCall, FleetMembers, FleetEvents, // the fleet through the local server (docs/fleet.md §4.6, §5.3)
	FleetToken, // the hub's member credentials (docs/fleet.md §3.1)
}
