package providertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A miniature of the generated layout: a oneOf of requests over shared definitions,
// one definition with an allOf, and a notification file.
const miniRequestSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "definitions": {
    "RequestId": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "Params": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    "Open": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": true},
    "Both": {"allOf": [
      {"type": "object", "properties": {"a": {"type": "string"}}},
      {"type": "object", "properties": {"b": {"type": "string"}}}
    ]}
  },
  "oneOf": [
    {"type": "object", "properties": {"id": {"$ref": "#/definitions/RequestId"},
      "method": {"enum": ["hello"]}, "params": {"$ref": "#/definitions/Params"}},
     "required": ["id", "method", "params"]},
    {"type": "object", "properties": {"id": {"$ref": "#/definitions/RequestId"},
      "method": {"enum": ["open"]}, "params": {"$ref": "#/definitions/Open"}},
     "required": ["id", "method", "params"]},
    {"type": "object", "properties": {"id": {"$ref": "#/definitions/RequestId"},
      "method": {"enum": ["both"]}, "params": {"$ref": "#/definitions/Both"}},
     "required": ["id", "method", "params"]}
  ]
}`

const miniNotificationSchema = `{"oneOf": [{"type": "object", "properties": {"method": {"enum": ["ready"]}}, "required": ["method"]}]}`

const miniModelList = `{"type": "object", "properties": {"data": {"type": "array"}}, "required": ["data"]}`

func TestCodexSchemaStrict(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		CodexClientRequestFile:      miniRequestSchema,
		CodexClientNotificationFile: miniNotificationSchema,
		CodexModelListResponseFile:  miniModelList,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := LoadCodexSchema(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line    string
		wantErr string // "" = valid
	}{
		{`{"id":1,"method":"hello","params":{"name":"orcr"}}`, ""},
		{`{"id":1,"method":"hello","params":{"name":"orcr","nmae":"typo"}}`, "nmae"},
		{`{"id":1,"method":"hello","params":{"name":"orcr"},"extra":1}`, "extra"},
		{`{"id":1,"method":"hello","params":{}}`, "name"},
		{`{"id":1,"method":"nope","params":{"name":"orcr"}}`, "ClientRequest"},
		{`{"id":1,"method":"open","params":{"x":"1","anything":true}}`, ""},
		{`{"id":1,"method":"both","params":{"a":"1","b":"2"}}`, ""},
		{`{"method":"ready"}`, ""},
		{`{"method":"ready","params":{}}`, "params"},
		{`[1]`, "not a JSON object"},
	}
	for _, tc := range tests {
		err := s.ValidateMessage([]byte(tc.line))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.line, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: got %v, want an error naming %q", tc.line, err, tc.wantErr)
		}
	}
	if err := s.ValidateModelList([]byte(`{"data":[],"nextCursor":null}`)); err != nil {
		t.Errorf("model list: %v", err)
	}
	if err := s.ValidateModelList([]byte(`{}`)); err == nil {
		t.Error("model list without data validated")
	}
}
