package herdr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestContractPassesSchemaFixtures(t *testing.T) {
	for _, p := range []int{16, 20, 22} {
		if err := CheckContract(herdrschema.For(p)); err != nil {
			t.Errorf("CheckContract(protocol %d): %v", p, err)
		}
	}
}

// alter decodes the protocol-20 schema, lets edit change it and re-encodes it.
func alter(t *testing.T, edit func(doc map[string]any)) []byte {
	t.Helper()
	return alterSchema(t, herdrschema.Protocol20, edit)
}

// alterSchema is [alter] on another schema document.
func alterSchema(t *testing.T, schema []byte, edit func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func path(doc map[string]any, keys ...string) map[string]any {
	cur := doc
	for _, k := range keys {
		cur = cur[k].(map[string]any)
	}
	return cur
}

func requestVariant(doc map[string]any, method string) map[string]any {
	for _, v := range path(doc, "schemas", "request")["oneOf"].([]any) {
		props := v.(map[string]any)["properties"].(map[string]any)
		if props["method"].(map[string]any)["const"] == method {
			return props
		}
	}
	panic("no method " + method)
}

func resultVariant(doc map[string]any, tag string) map[string]any {
	for _, v := range path(doc, "schemas", "success_response", "$defs", "ResponseResult")["oneOf"].([]any) {
		props := v.(map[string]any)["properties"].(map[string]any)
		if props["type"].(map[string]any)["const"] == tag {
			return props
		}
	}
	panic("no tag " + tag)
}

func TestContractNamesDifferences(t *testing.T) {
	cases := []struct {
		name                   string
		edit                   func(doc map[string]any)
		method, field, problem string
	}{
		{"renamed method", func(doc map[string]any) {
			requestVariant(doc, "pane.send_keys")["method"].(map[string]any)["const"] = "pane.send_key_list"
		}, "pane.send_keys", "", ProblemMethodMissing},
		{"removed result field", func(doc map[string]any) {
			delete(path(doc, "schemas", "success_response", "$defs", "PaneInfo", "properties"), "terminal_id")
		}, "workspace.create", "result.root_pane.terminal_id", ProblemFieldMissing},
		{"changed tag", func(doc map[string]any) {
			resultVariant(doc, "pane_move")["type"].(map[string]any)["const"] = "pane_moved"
		}, "pane.move", "result.type=pane_move", ProblemTagMissing},
		{"renamed param", func(doc map[string]any) {
			p := path(doc, "schemas", "request", "$defs", "LayoutApplyParams", "properties")
			p["tab_name"] = p["tab_label"]
			delete(p, "tab_label")
		}, "layout.apply", "params.tab_label", ProblemParamMissing},
		{"nested param removed", func(doc map[string]any) {
			for _, v := range path(doc, "schemas", "request", "$defs", "LayoutNode")["oneOf"].([]any) {
				delete(v.(map[string]any)["properties"].(map[string]any), "env")
			}
		}, "layout.apply", "params.root[pane].env", ProblemParamMissing},
		{"new required param", func(doc map[string]any) {
			d := path(doc, "schemas", "request", "$defs", "PaneSendTextParams")
			d["required"] = append(d["required"].([]any), "mode")
		}, "pane.send_text", "params.mode", ProblemParamRequired},
		{"removed variant field", func(doc map[string]any) {
			for _, v := range path(doc, "schemas", "request", "$defs", "PaneMoveDestination")["oneOf"].([]any) {
				props := v.(map[string]any)["properties"].(map[string]any)
				if props["type"].(map[string]any)["const"] == "new_tab" {
					delete(props, "label")
				}
			}
		}, "pane.move", "params.destination[new_tab].label", ProblemParamMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckContract(alter(t, c.edit))
			we, ok := wire.As(err)
			if !ok || we.Code != wire.EnvironmentError || we.Cause() != wire.CauseHerdrVersionSkew {
				t.Fatalf("CheckContract: got %v, want herdr_version_skew", err)
			}
			if we.Details["method"] != c.method || we.Details["problem"] != c.problem {
				t.Errorf("details: got %v, want method %s problem %s", we.Details, c.method, c.problem)
			}
			if f, _ := we.Details["field"].(string); f != c.field {
				t.Errorf("details.field: got %q, want %q", f, c.field)
			}
			if c.problem == ProblemFieldMissing {
				all := strings.Join(we.Details["differences"].([]string), "\n")
				if !strings.Contains(all, "pane.get result.pane.terminal_id: result field missing") {
					t.Errorf("differences lack pane.get: %s", all)
				}
			}
			if !strings.Contains(we.Message, c.method) || (c.field != "" && !strings.Contains(we.Message, c.field)) {
				t.Errorf("message does not name the difference: %s", we.Message)
			}
		})
	}
}

func TestContractGarbage(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("{"), []byte(`{"schemas":{}}`)} {
		if err := CheckContract(in); !wire.Is(err, wire.EnvironmentError, wire.CauseHerdrVersionSkew) {
			t.Errorf("CheckContract(%q): got %v, want herdr_version_skew", in, err)
		}
	}
}

func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"id":"orcr:1","result":{"type":"pong","version":"x","protocol":20}}`), "pong")
	f.Add([]byte(`{"id":"","error":{"code":"invalid_request","message":"m"}}`), "")
	f.Add([]byte(`{"id":"x","result":null}`), "ok")
	f.Add([]byte(`[]`), "")
	f.Fuzz(func(t *testing.T, line []byte, tag string) {
		res, err := DecodeResponse("pane.get", line, tag)
		if err == nil && (len(res) == 0 || !bytes.HasPrefix(bytes.TrimSpace(res), []byte("{"))) {
			t.Fatalf("DecodeResponse(%q): no error but result %q", line, res)
		}
		if err == nil {
			var p struct {
				Pane PaneInfo `json:"pane"`
			}
			_ = json.Unmarshal(res, &p)
		}
	})
}

// TestContractProtocol22: the protocol-22 fixture (our construction, herdrschema's
// README) passes, with or without the optional completion_seq, and dropping a field orcr
// relies on still fails with herdr_version_skew naming it.
func TestContractProtocol22(t *testing.T) {
	agentInfo := func(doc map[string]any) map[string]any {
		return path(doc, "schemas", "success_response", "$defs", "AgentInfo", "properties")
	}
	s := &schemaDoc{}
	if err := json.Unmarshal(herdrschema.Protocol22, &s.root); err != nil {
		t.Fatal(err)
	}
	_, results, err := s.index()
	if err != nil {
		t.Fatal(err)
	}
	op, _ := ContractOp(MethodAgentList)
	for _, f := range op.Optional {
		if _, ok := s.resolve(results[op.Tag], f); !ok {
			t.Errorf("optional field %s is not in the protocol-22 fixture", f)
		}
	}

	noSeq := alterSchema(t, herdrschema.Protocol22, func(doc map[string]any) { delete(agentInfo(doc), "completion_seq") })
	if err := CheckContract(noSeq); err != nil {
		t.Errorf("protocol 22 without completion_seq (optional): %v", err)
	}
	for _, field := range []string{"agent_status", "terminal_id"} {
		err := CheckContract(alterSchema(t, herdrschema.Protocol22, func(doc map[string]any) { delete(agentInfo(doc), field) }))
		we, ok := wire.As(err)
		if !ok || we.Cause() != wire.CauseHerdrVersionSkew || we.Details["method"] != MethodAgentList ||
			we.Details["field"] != "result.agents[]."+field || we.Details["problem"] != ProblemFieldMissing {
			t.Errorf("protocol 22 without AgentInfo.%s: got %v (details %v), want herdr_version_skew on agent.list", field, err, we.Details)
		}
	}
}

// herdr fills an agent row's title only from an integration's report; a program's own
// terminal title (how the mock names its usage limit) is in terminal_title, which herdr
// 0.8 sends and 0.7 does not.
func TestShownTitleFallsBackToTheTerminalTitle(t *testing.T) {
	for _, c := range []struct {
		row  AgentInfo
		want string
	}{
		{AgentInfo{Title: "report", TerminalTitle: "✳ raw", TerminalTitleStripped: "raw"}, "report"},
		{AgentInfo{TerminalTitle: "✳ raw", TerminalTitleStripped: "raw"}, "raw"},
		{AgentInfo{TerminalTitle: "raw only"}, "raw only"},
		{AgentInfo{}, ""},
	} {
		if got := c.row.ShownTitle(); got != c.want {
			t.Errorf("%+v: ShownTitle %q, want %q", c.row, got, c.want)
		}
	}
}
