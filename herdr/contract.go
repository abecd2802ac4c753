package herdr

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Operation is one row of orcr's herdr contract: a socket method, the params orcr
// sends, the result tag it expects and the result fields it reads.
//
// Params and Fields are paths: segments joined by ".", a segment suffixed "[]" steps
// into array items, and a segment suffixed "[variant]" selects the member of a tagged
// union whose "type" is variant (so "root[pane].command" is the command of a pane
// node). Result paths start inside the result object (after its "type").
//
// Optional lists result fields orcr reads when herdr sends them and does without
// otherwise (fields newer herdrs added, such as agent.list's completion_seq of
// protocol 22). [CheckContract] never requires them, so an older herdr passes.
type Operation struct {
	Method   string
	Params   []string
	Tag      string
	Fields   []string
	Optional []string
}

// Method names and result tags of the contract (docs/herdr.md §6, §10).
const (
	MethodPing            = "ping"
	MethodWorkspaceList   = "workspace.list"
	MethodWorkspaceCreate = "workspace.create"
	MethodLayoutApply     = "layout.apply"
	MethodPaneGet         = "pane.get"
	MethodPaneList        = "pane.list"
	MethodPaneSendText    = "pane.send_text"
	MethodPaneSendKeys    = "pane.send_keys"
	MethodPaneRead        = "pane.read"
	MethodPaneMove        = "pane.move"
	MethodPaneClose       = "pane.close"
	MethodPaneRename      = "pane.rename"
	MethodAgentList       = "agent.list"
	MethodNotify          = "notification.show"
	MethodReportAgent     = "pane.report_agent"
)

var paneFields = []string{"pane_id", "terminal_id", "workspace_id", "tab_id", "focused",
	"agent_status", "revision", "cwd", "label", "agent", "title", "agent_session"}

func prefixed(prefix string, fields []string, extra ...string) []string {
	out := make([]string, 0, len(fields)+len(extra))
	for _, f := range fields {
		out = append(out, prefix+f)
	}
	return append(out, extra...)
}

// Contract is every herdr socket operation orcr uses, pinned (docs/decisions.md D3). It is
// checked against a schema document by [CheckContract]; the typed operations in this
// package send exactly these params and read only these fields.
var Contract = []Operation{
	{Method: MethodPing, Tag: "pong", Fields: []string{"version", "protocol"}},
	{Method: MethodWorkspaceList, Tag: "workspace_list",
		Fields: prefixed("workspaces[].", []string{"workspace_id", "number", "label", "focused",
			"pane_count", "tab_count", "active_tab_id", "agent_status"})},
	{Method: MethodWorkspaceCreate, Params: []string{"label", "cwd", "focus"}, Tag: "workspace_created",
		Fields: []string{"workspace.workspace_id", "workspace.label", "tab.tab_id",
			"root_pane.pane_id", "root_pane.terminal_id"}},
	{Method: MethodLayoutApply,
		Params: []string{"workspace_id", "tab_label", "focus", "root[pane].command",
			"root[pane].cwd", "root[pane].env", "root[pane].label"},
		Tag:    "layout_apply",
		Fields: []string{"layout.workspace_id", "layout.tab_id", "layout.root[pane].pane_id"}},
	{Method: MethodPaneGet, Params: []string{"pane_id"}, Tag: "pane_info",
		Fields: prefixed("pane.", paneFields)},
	{Method: MethodPaneList, Params: []string{"workspace_id"}, Tag: "pane_list",
		Fields: prefixed("panes[].", paneFields)},
	{Method: MethodPaneSendText, Params: []string{"pane_id", "text"}, Tag: "ok"},
	{Method: MethodPaneSendKeys, Params: []string{"pane_id", "keys"}, Tag: "ok"},
	{Method: MethodPaneRead, Params: []string{"pane_id", "source", "lines", "format", "strip_ansi"},
		Tag: "pane_read", Fields: []string{"read.pane_id", "read.source", "read.text", "read.truncated"}},
	{Method: MethodPaneMove,
		Params: []string{"pane_id", "focus", "destination[new_tab].workspace_id", "destination[new_tab].label"},
		Tag:    "pane_move",
		Fields: append([]string{"move_result.changed", "move_result.reason", "move_result.previous_pane_id",
			"move_result.previous_workspace_id", "move_result.closed_workspace_id", "move_result.closed_tab_id"},
			prefixed("move_result.pane.", paneFields)...)},
	{Method: MethodPaneClose, Params: []string{"pane_id"}, Tag: "ok"},
	{Method: MethodPaneRename, Params: []string{"pane_id", "label"}, Tag: "pane_info"},
	{Method: MethodAgentList, Tag: "agent_list",
		Fields: prefixed("agents[].", []string{"terminal_id", "pane_id", "workspace_id", "tab_id",
			"agent_status", "focused", "revision", "name", "agent", "title", "agent_session", "cwd"}),
		Optional: []string{"agents[].completion_seq", "agents[].terminal_title", "agents[].terminal_title_stripped"}},
	{Method: MethodNotify, Params: []string{"title", "body"}, Tag: "notification_show",
		Fields: []string{"shown", "reason"}},
	{Method: MethodReportAgent, Params: []string{"pane_id", "source", "agent", "state", "message"}, Tag: "ok"},
}

// ContractOp returns the contract row for method; ok is false when orcr does not use it.
func ContractOp(method string) (Operation, bool) {
	i := slices.IndexFunc(Contract, func(o Operation) bool { return o.Method == method })
	if i < 0 {
		return Operation{}, false
	}
	return Contract[i], true
}

// Difference is one way a schema departs from [Contract].
type Difference struct {
	Method  string `json:"method"`
	Field   string `json:"field,omitempty"`
	Problem string `json:"problem"`
}

func (d Difference) String() string {
	if d.Field == "" {
		return d.Method + ": " + strings.ReplaceAll(d.Problem, "_", " ")
	}
	return d.Method + " " + d.Field + ": " + strings.ReplaceAll(d.Problem, "_", " ")
}

// Problems reported in [Difference].Problem.
const (
	ProblemMethodMissing = "method_missing"
	ProblemParamMissing  = "param_missing"
	ProblemParamRequired = "param_now_required"
	ProblemTagMissing    = "result_tag_missing"
	ProblemFieldMissing  = "result_field_missing"
)

// CheckContract checks [Contract] against a herdr schema document (`herdr api schema
// --json`). Every pinned method must exist in schemas.request, every param orcr sends
// must exist in that method's params (and no param orcr does not send may be
// required), every result tag must exist in schemas.success_response, and every
// result field orcr reads must exist in that result ([Operation].Optional fields need
// not). Any difference is an
// environment_error cause herdr_version_skew whose details name the first difference
// (method, field, problem) and list all of them under "differences".
func CheckContract(schema []byte) error {
	diffs, err := ContractDifferences(schema)
	if err != nil {
		return err
	}
	if len(diffs) == 0 {
		return nil
	}
	all := make([]string, len(diffs))
	for i, d := range diffs {
		all[i] = d.String()
	}
	msg := "herdr's API schema differs from orcr's contract: " + diffs[0].String()
	if len(diffs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(diffs)-1)
	}
	kv := []any{"method", diffs[0].Method, "problem", diffs[0].Problem, "differences", all}
	if diffs[0].Field != "" {
		kv = append(kv, "field", diffs[0].Field)
	}
	return wire.Env(wire.CauseHerdrVersionSkew, msg, kv...)
}

// ContractDifferences returns every difference between [Contract] and schema, in
// contract order. An unparsable schema is an error (cause herdr_version_skew).
func ContractDifferences(schema []byte) ([]Difference, error) {
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, wire.Env(wire.CauseHerdrVersionSkew, "herdr's API schema is not valid JSON: "+err.Error())
	}
	s := &schemaDoc{root: doc}
	requests, results, err := s.index()
	if err != nil {
		return nil, err
	}
	var diffs []Difference
	for _, op := range Contract {
		params, ok := requests[op.Method]
		if !ok {
			diffs = append(diffs, Difference{Method: op.Method, Problem: ProblemMethodMissing})
		} else {
			diffs = append(diffs, s.checkParams(op, params)...)
		}
		result, ok := results[op.Tag]
		if !ok {
			diffs = append(diffs, Difference{Method: op.Method, Field: "result.type=" + op.Tag, Problem: ProblemTagMissing})
			continue
		}
		for _, f := range op.Fields {
			if _, ok := s.resolve(result, f); !ok {
				diffs = append(diffs, Difference{Method: op.Method, Field: "result." + f, Problem: ProblemFieldMissing})
			}
		}
	}
	return diffs, nil
}

type schemaDoc struct{ root map[string]any }

// index maps method → params schema and result tag → result variant schema.
func (s *schemaDoc) index() (map[string]any, map[string]map[string]any, error) {
	schemas, _ := s.root["schemas"].(map[string]any)
	req, _ := schemas["request"].(map[string]any)
	resp, _ := schemas["success_response"].(map[string]any)
	if req == nil || resp == nil {
		return nil, nil, wire.Env(wire.CauseHerdrVersionSkew, "herdr's API schema has no schemas.request or schemas.success_response")
	}
	requests := map[string]any{}
	for _, v := range asSlice(req["oneOf"]) {
		props, _ := s.deref(v)["properties"].(map[string]any)
		method, _ := asMap(props["method"])["const"].(string)
		if method != "" {
			requests[method] = props["params"]
		}
	}
	results := map[string]map[string]any{}
	props, _ := resp["properties"].(map[string]any)
	for _, v := range s.alternatives(props["result"]) {
		tprops, _ := v["properties"].(map[string]any)
		if tag, _ := asMap(tprops["type"])["const"].(string); tag != "" {
			results[tag] = v
		}
	}
	return requests, results, nil
}

func (s *schemaDoc) checkParams(op Operation, params any) []Difference {
	var diffs []Difference
	sent := map[string]bool{}
	for _, p := range op.Params {
		sent[strings.SplitN(p, ".", 2)[0]] = true
		sent[strings.SplitN(strings.SplitN(p, ".", 2)[0], "[", 2)[0]] = true
		if _, ok := s.resolve(params, p); !ok {
			diffs = append(diffs, Difference{Method: op.Method, Field: "params." + p, Problem: ProblemParamMissing})
		}
	}
	for _, alt := range s.alternatives(params) {
		for _, r := range asSlice(alt["required"]) {
			name, _ := r.(string)
			if name != "" && !sent[name] {
				diffs = append(diffs, Difference{Method: op.Method, Field: "params." + name, Problem: ProblemParamRequired})
			}
		}
	}
	return diffs
}

// resolve follows path from node and returns the schema it lands on.
func (s *schemaDoc) resolve(node any, path string) (any, bool) {
	cur := node
	for _, seg := range strings.Split(path, ".") {
		name, variant, items := parseSegment(seg)
		next, ok := s.property(cur, name)
		if !ok {
			return nil, false
		}
		cur = next
		if items {
			if cur, ok = s.items(cur); !ok {
				return nil, false
			}
		}
		if variant != "" {
			if cur, ok = s.variant(cur, variant); !ok {
				return nil, false
			}
		}
	}
	return cur, true
}

func parseSegment(seg string) (name, variant string, items bool) {
	name = seg
	if strings.HasSuffix(name, "[]") {
		return strings.TrimSuffix(name, "[]"), "", true
	}
	if i := strings.IndexByte(name, '['); i >= 0 && strings.HasSuffix(name, "]") {
		return name[:i], name[i+1 : len(name)-1], false
	}
	return name, "", false
}

// alternatives returns the object schemas node may be: itself, or the members of its
// oneOf/anyOf/allOf (recursively), with $refs followed and null members dropped.
func (s *schemaDoc) alternatives(node any) []map[string]any {
	var out []map[string]any
	var walk func(n any, depth int)
	walk = func(n any, depth int) {
		m := s.deref(n)
		if m == nil || depth > 16 {
			return
		}
		if _, ok := m["properties"]; ok {
			out = append(out, m)
		} else if _, ok := m["items"]; ok {
			out = append(out, m)
		}
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			for _, a := range asSlice(m[k]) {
				walk(a, depth+1)
			}
		}
	}
	walk(node, 0)
	return out
}

func (s *schemaDoc) property(node any, name string) (any, bool) {
	for _, alt := range s.alternatives(node) {
		props, _ := alt["properties"].(map[string]any)
		if p, ok := props[name]; ok {
			return p, true
		}
	}
	return nil, false
}

func (s *schemaDoc) items(node any) (any, bool) {
	for _, alt := range s.alternatives(node) {
		if it, ok := alt["items"]; ok {
			return it, true
		}
	}
	return nil, false
}

func (s *schemaDoc) variant(node any, tag string) (any, bool) {
	for _, alt := range s.alternatives(node) {
		props, _ := alt["properties"].(map[string]any)
		if c, _ := asMap(props["type"])["const"].(string); c == tag {
			return alt, true
		}
	}
	return nil, false
}

// deref follows local $refs ("#/a/b/c") to an object schema.
func (s *schemaDoc) deref(n any) map[string]any {
	m := asMap(n)
	for i := 0; m != nil && i < 32; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		m = s.lookup(ref)
	}
	return m
}

func (s *schemaDoc) lookup(ref string) map[string]any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = s.root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		cur = asMap(cur)[part]
	}
	return asMap(cur)
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asSlice(v any) []any        { s, _ := v.([]any); return s }
