package herdrschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func decode(t *testing.T, name string, b []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc
}

func agentInfoProps(doc map[string]any) map[string]any {
	defs := doc["schemas"].(map[string]any)["success_response"].(map[string]any)["$defs"].(map[string]any)
	return defs["AgentInfo"].(map[string]any)["properties"].(map[string]any)
}

// The protocol-22 fixture is our construction (README.md): it must be the published
// protocol-20 schema plus exactly the documented changes, so that nothing else of ours
// passes for herdr's.
func TestProtocol22IsProtocol20PlusCompletionSeq(t *testing.T) {
	v20, v22 := decode(t, "v20", Protocol20), decode(t, "v22", Protocol22)
	if v22["protocol"] != 22.0 || v22["schema_version"] != 1.0 {
		t.Errorf("v22 carries protocol %v schema_version %v, want 22 and 1", v22["protocol"], v22["schema_version"])
	}
	if c, _ := v22["$comment"].(string); !strings.Contains(c, "orcr's construction") {
		t.Errorf("v22 lacks the top-level $comment that marks it as orcr's construction: %q", c)
	}
	field, ok := agentInfoProps(v22)["completion_seq"].(map[string]any)
	if !ok {
		t.Fatal("v22 has no AgentInfo.completion_seq")
	}
	if c, _ := field["$comment"].(string); !strings.Contains(c, "orcr's construction") {
		t.Errorf("completion_seq lacks its $comment: %q", c)
	}
	if field["type"] != "integer" || field["format"] != "uint64" || field["minimum"] != 0.0 {
		t.Errorf("completion_seq: got %v, want an unsigned integer", field)
	}

	// Undo the documented changes: what remains must be protocol 20, unchanged.
	delete(v22, "$comment")
	v22["protocol"] = v20["protocol"]
	delete(agentInfoProps(v22), "completion_seq")
	if !reflect.DeepEqual(v20, v22) {
		t.Error("herdr-api.schema.v22.json differs from herdr-api.schema.json by more than the documented changes")
	}
}

func TestFor(t *testing.T) {
	for p, want := range map[int][]byte{16: Protocol16, 20: Protocol20, 22: Protocol22, 21: nil, 0: nil} {
		if got := For(p); string(got) != string(want) {
			t.Errorf("For(%d): got %d bytes, want %d", p, len(got), len(want))
		}
	}
	for _, p := range []int{16, 20, 22} {
		if doc := decode(t, "fixture", For(p)); doc["protocol"] != float64(p) {
			t.Errorf("For(%d) carries protocol %v", p, doc["protocol"])
		}
	}
}
