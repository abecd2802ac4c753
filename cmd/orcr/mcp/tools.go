package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"reflect"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// tool is one entry of the socket method table served as an MCP tool.
type tool struct {
	spec api.Spec
	// hints are the tool's MCP annotations (how a client may treat a call).
	hints sdk.ToolAnnotations
	// call decodes raw arguments, prepares the request and invokes the method; it returns
	// the result exactly as the orcr server sent it.
	call func(ctx context.Context, f *face, raw json.RawMessage) (json.RawMessage, error)
}

var (
	no  = new(false)
	yes = new(true)
)

// Hint sets of the tools: readOnly reads state only; additive creates or delivers
// without destroying anything; destructive ends agents, loops or runs. Nothing orcr
// does reaches outside the machine's own agents and loops, so none is open-world.
var (
	readOnly    = sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: no}
	additive    = sdk.ToolAnnotations{DestructiveHint: no, OpenWorldHint: no}
	destructive = sdk.ToolAnnotations{DestructiveHint: yes, IdempotentHint: true, OpenWorldHint: no}
)

// tools are the verbs `orcr mcp` serves (docs/mcp.md §2), in the method table's order.
// Everything else about a tool — its name, description, input and output schemas, how
// its arguments are read and how it is called — comes from the table entry, so a field
// added to a request or result type reaches the tool by itself.
var tools = []tool{
	newTool(api.AgentRun, additive),
	newTool(api.AgentAsk, additive),
	newTool(api.AgentSend, additive),
	newTool(api.AgentLogs, readOnly),
	newTool(api.AgentWait, readOnly),
	newTool(api.AgentKill, destructive),
	newTool(api.AgentLs, readOnly),
	newTool(api.LoopCreate, additive),
	newTool(api.LoopRm, destructive),
	newTool(api.LoopLs, readOnly),
	newTool(api.UsageReport, readOnly),
}

// Methods returns the wire names of the socket methods the tools call, in tool order.
func Methods() []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.spec.Info().Name
	}
	return out
}

// ToolName is the MCP tool name of a wire method: its dots become underscores
// (agent.run → agent_run), because several MCP clients hand tool names to model APIs
// that only accept [a-zA-Z0-9_-].
func ToolName(method string) string { return strings.ReplaceAll(method, ".", "_") }

// newTool makes the tool of table entry m. The call goes through m's own table entry
// with the result left undecoded (it is passed on as the server wrote it).
func newTool[Req, Res any](m *api.Method[Req, Res], hints sdk.ToolAnnotations) tool {
	raw := &api.Method[Req, api.Open]{Name: m.Name, Unbounded: m.Unbounded}
	return tool{spec: m, hints: hints, call: func(ctx context.Context, f *face, args json.RawMessage) (json.RawMessage, error) {
		var req Req
		if err := api.DecodeParams(args, &req); err != nil {
			return nil, err
		}
		if err := f.prepare(&req); err != nil {
			return nil, err
		}
		return invoke(ctx, f, func(ctx context.Context) (json.RawMessage, error) {
			return socketapi.Invoke(ctx, f.client, raw, req)
		})
	}}
}

// invoke makes one socket call; when it could not connect at all, nothing was sent, so
// it starts the server as any CLI verb would (f.ensure) and makes the call once more.
func invoke[Res any](ctx context.Context, f *face, call func(context.Context) (Res, error)) (Res, error) {
	res, err := call(ctx)
	if err != nil && f.ensure != nil && dialFailed(err) {
		if err := f.ensure(ctx); err != nil {
			return res, err
		}
		res, err = call(ctx)
	}
	return res, err
}

// dialFailed reports whether err is the client's failure to connect at all (no socket,
// nobody listening), after which a request was certainly not sent.
func dialFailed(err error) bool {
	var op *net.OpError
	return wire.Is(err, wire.EnvironmentError, wire.CauseServerUnreachable) && errors.As(err, &op) && op.Op == "dial"
}

// definition is the MCP tool definition of t: the input schema is the params schema
// of the schema document (docs/protocol.md §10) without the caller identity, which the
// face fills itself; the output schema is the result's.
func (t tool) definition() *sdk.Tool {
	info := t.spec.Info()
	req, res := t.spec.Types()
	in := api.TypeSchema(req)
	if props, ok := in["properties"].(map[string]any); ok {
		delete(props, "caller_id")
		delete(props, "caller_path")
	}
	hints := t.hints
	hints.Title = "orcr " + info.CLI
	return &sdk.Tool{
		Name: ToolName(info.Name),
		Description: info.Summary + ". The orcr socket method " + info.Name + " (the CLI's `orcr " + info.CLI +
			"`): relative paths and patterns land in the caller's scope. On failure the result is an error " +
			"whose structured content is {\"error\": {code, message, details}}.",
		InputSchema:  in,
		OutputSchema: api.TypeSchema(res),
		Annotations:  &hints,
	}
}

var callerType = reflect.TypeFor[api.Caller]()

// prepare applies what the CLI does to a request before sending it (docs/cli.md §2.1,
// §5.1): a caller identity given in the arguments is dropped, so the client's own
// (ORCR_ID / ORCR_PATH of this process) is sent, and a cwd is made absolute against
// this process's working directory, the working directory itself when absent. req is a
// pointer to a request struct.
func (f *face) prepare(req any) error {
	v := reflect.ValueOf(req).Elem()
	if c := v.FieldByName("Caller"); c.IsValid() && c.Type() == callerType {
		c.SetZero()
	}
	if c := v.FieldByName("Cwd"); c.IsValid() && c.Kind() == reflect.String {
		dir := c.String()
		if !filepath.IsAbs(dir) {
			wd, err := f.getwd()
			if err != nil {
				return wire.Env(wire.CauseCwdUnavailable, "cannot read the current directory: "+err.Error())
			}
			dir = filepath.Join(wd, dir)
		}
		c.SetString(filepath.Clean(dir))
	}
	return nil
}

// result is the tool result of a call: the result as the server sent it, both as the
// structured content and as its JSON text; or, for an error, the error object under
// "error" in both (docs/mcp.md §4). Every output schema is an open object without
// required keys, so the error shape conforms to it too.
func result(raw json.RawMessage, err error) *sdk.CallToolResult {
	if err != nil {
		b, merr := json.Marshal(errorBody{wire.From(err, wire.CauseMCP)})
		if merr != nil {
			b, _ = json.Marshal(errorBody{wire.Internal(wire.CauseEncode, merr.Error())})
		}
		return &sdk.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b),
			Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}
	}
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	return &sdk.CallToolResult{StructuredContent: raw, Content: []sdk.Content{&sdk.TextContent{Text: string(raw)}}}
}

// errorBody is the structured content of a tool error.
type errorBody struct {
	Error *wire.Error `json:"error"`
}
