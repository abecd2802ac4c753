package socketapi

import (
	"sort"
	"strings"
)

// Method describes one socket method: its wire name, summary and the declared
// property schemas of its params and result (docs/protocol.md §10). The catalogue is the
// single table that drives the server's dispatch, `api.schema` and the CLI coverage
// test.
type Method struct {
	Name      string
	Summary   string
	Streaming bool
	// Params and Result are compact property lists: "name:s other:i flag:b list:[s]
	// obj:o"; "" means an open object. See [props].
	Params string
	Result string
	// CLI is the CLI verb that maps to the method ("" for none).
	CLI string
	// Implemented is false while the method's issue has not landed: the server then
	// answers invalid_request, reason not_implemented (docs/protocol.md §5.28).
	Implemented bool
}

// Catalogue lists the 26 methods of protocol 1 in the reference's order.
var Catalogue = []Method{
	{Name: "server.handshake", Implemented: true, Summary: "readiness probe: pid, protocol and store path", Result: "pid:i protocol:i store:s ready:b", CLI: "server start"},
	{Name: "server.status", Implemented: true, Summary: "server health: herdr, integrations, counts, loops, drift", Result: "version:s protocol:i pid:i uptime_ms:i socket:s store:s herdr:o integrations:o counts:o loops_firing:b loops:[o] drift:o", CLI: "server status"},
	{Name: "server.stop", Implemented: true, Summary: "graceful control-plane stop; agent panes are untouched", Result: "status:s", CLI: "server stop"},
	{Name: "api.schema", Implemented: true, Summary: "this schema document", CLI: "api schema"},
	{Name: "api.snapshot", Implemented: true, Summary: "consistent snapshot of agents, loops and queue with its event cursor", Result: "snapshot_seq:i agents:[o] loops:[o] queue:[o]", CLI: "api snapshot"},
	{Name: "events.subscribe", Implemented: true, Summary: "stream events after since_seq (replay, then live)", Streaming: true, Params: "since_seq:i", Result: "subscription:i from_seq:i", CLI: "top"},
	{Name: "watch.open", Implemented: true, Summary: "snapshot plus a pinned subscription under one cursor", Streaming: true, Result: "subscription:i snapshot_seq:i snapshot:o", CLI: "top"},
	{Name: "agent.run", Implemented: true, Summary: "enqueue a managed agent at a path", Params: "name:s path:s agent:s prompt:s gc:s model:s effort:s cwd:s timeout:s caller_id:s caller_path:s", Result: "agent:o permissions:s", CLI: "agent run"},
	{Name: "agent.ask", Implemented: true, Summary: "run with gc immediate, wait, and return the final response", Params: "name:s path:s agent:s prompt:s model:s effort:s cwd:s timeout:s caller_id:s caller_path:s", Result: "uuid:s path:s response:o", CLI: "agent ask"},
	{Name: "agent.send", Implemented: true, Summary: "deliver a prompt to an existing agent", Params: "target:s prompt:s caller_id:s caller_path:s", Result: "uuid:s path:s delivered_while:s input_seq:i", CLI: "agent send"},
	{Name: "agent.logs", Implemented: true, Summary: "read an agent's native transcript or last response", Params: "target:s last_response:b tail:i follow:b caller_id:s caller_path:s", Result: "uuid:s path:s resolved:s entries:[o] response:o", CLI: "agent logs"},
	{Name: "agent.wait", Implemented: true, Summary: "block until every target settles", Params: "targets:[s] timeout:s caller_id:s caller_path:s", Result: "targets:[waittarget] all_ok:b timed_out:b decision_seq:i", CLI: "agent wait"},
	{Name: "agent.attach.prepare", Summary: "take an attach lease and return the herdr attach command", Params: "target:s takeover:b client_pid:i caller_id:s caller_path:s", Result: "uuid:s path:s lease_id:s takeover:b ttl_ms:i command:[s]", CLI: "agent attach"},
	{Name: "agent.attach.heartbeat", Summary: "extend an attach lease", Params: "lease_id:s", Result: "ok:b", CLI: "agent attach"},
	{Name: "agent.attach.release", Summary: "release an attach lease", Params: "lease_id:s", Result: "released:b", CLI: "agent attach"},
	{Name: "agent.kill", Implemented: true, Summary: "kill agents by pattern or uuid", Params: "targets:[s] force:b preview:b caller_id:s caller_path:s", Result: "killed:[o] skipped:[o] all_killed:b", CLI: "agent kill"},
	{Name: "agent.ls", Implemented: true, Summary: "list agents in tree order", Params: "pattern:s agent:s status:s managed:b unmanaged:b all:b caller_id:s caller_path:s", Result: "agents:[o]", CLI: "agent ls"},
	{Name: "loop.create", Summary: "create a durable cron or one-shot loop for a command", Params: "name:s cron:s once_at:s max_concurrency:i overlap:s timeout:s command:[s] cwd:s", Result: "loop:o", CLI: "loop create"},
	{Name: "loop.pause", Summary: "pause loops", Params: "names:[s]", CLI: "loop pause"},
	{Name: "loop.resume", Summary: "resume loops", Params: "names:[s]", CLI: "loop resume"},
	{Name: "loop.rm", Summary: "remove loops, optionally stopping active runs", Params: "names:[s] kill_active:b caller_id:s caller_path:s", CLI: "loop rm"},
	{Name: "loop.ls", Summary: "list loops", Params: "names:[s] status:s all:b", Result: "loops:[o]", CLI: "loop ls"},
	{Name: "loop.logs", Summary: "read a loop's run output and orcr events", Params: "name:s run:s source:s tail:i follow:b", Result: "lines:[o]", CLI: "loop logs"},
	{Name: "loop.run.start", Summary: "start a manual run of a loop", Params: "name:s", Result: "run:o", CLI: "loop run start"},
	{Name: "loop.run.stop", Summary: "stop a loop's runs", Params: "name:s run:s", Result: "stopped:[o] skipped:[o]", CLI: "loop run stop"},
	{Name: "loop.run.ls", Summary: "list a loop's runs", Params: "name:s status:s all:b", Result: "runs:[o]", CLI: "loop run ls"},
}

// Lookup returns the catalogue entry for a wire name.
func Lookup(name string) (Method, bool) {
	for _, m := range Catalogue {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// MethodNames returns the catalogue's names, sorted.
func MethodNames() []string {
	names := make([]string, len(Catalogue))
	for i, m := range Catalogue {
		names[i] = m.Name
	}
	sort.Strings(names)
	return names
}

func openObject() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": true}
}

// props turns a compact property list into a typed open-object schema.
func props(spec string) map[string]any {
	if spec == "" {
		return openObject()
	}
	p := map[string]any{}
	for _, f := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(f, ":")
		p[name] = typeSchema(typ)
	}
	return map[string]any{"type": "object", "properties": p, "additionalProperties": true}
}

func typeSchema(t string) map[string]any {
	if inner, ok := strings.CutPrefix(t, "["); ok {
		return map[string]any{"type": "array", "items": typeSchema(strings.TrimSuffix(inner, "]"))}
	}
	switch t {
	case "s":
		return map[string]any{"type": "string"}
	case "i":
		return map[string]any{"type": "integer"}
	case "b":
		return map[string]any{"type": "boolean"}
	case "waittarget":
		s := props("uuid:s path:s status:s ok:b reason:s exit_reason:s next:o")
		s["properties"].(map[string]any)["next"] = props("kind:s command:s")
		return s
	default:
		return openObject()
	}
}
