package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Files of `codex app-server generate-json-schema --out DIR` that the conformance
// check reads. Each is a self-contained draft-07 document (its own "definitions"):
// ClientRequest is a oneOf over every request the client may send, one branch per
// method; ClientNotification likewise for client notifications; v2/ModelListResponse
// is the result of model/list. (The directory also holds one file per params and
// response type and two bundles of everything; orcr needs only these three.)
const (
	CodexClientRequestFile      = "ClientRequest.json"
	CodexClientNotificationFile = "ClientNotification.json"
	CodexModelListResponseFile  = "v2/ModelListResponse.json"
)

// CodexSchema is the app-server protocol schema of one codex version. The client
// messages are checked strictly ([Strict]), so that a field orcr sends but the protocol
// does not declare is an error; the model/list answer as codex declares it.
type CodexSchema struct {
	request, notification, modelList *jsonschema.Schema
}

// LoadCodexSchema compiles the three files of a generate-json-schema directory.
func LoadCodexSchema(dir string) (*CodexSchema, error) {
	s := &CodexSchema{}
	for _, x := range []struct {
		dst    **jsonschema.Schema
		file   string
		strict bool
	}{
		{&s.request, CodexClientRequestFile, true},
		{&s.notification, CodexClientNotificationFile, true},
		{&s.modelList, CodexModelListResponseFile, false},
	} {
		raw, err := os.ReadFile(filepath.Join(dir, x.file))
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x.file, err)
		}
		c := jsonschema.NewCompiler()
		url := "file:///codex-schema/" + x.file
		if x.strict {
			doc = Strict(doc)
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", x.file, err)
		}
		if *x.dst, err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("%s: %w", x.file, err)
		}
	}
	return s, nil
}

// ValidateMessage checks one JSON-RPC message orcr writes: with an "id" it is a
// request (ClientRequest), without one a notification (ClientNotification).
func (s *CodexSchema) ValidateMessage(line []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		return fmt.Errorf("not a JSON object: %v: %s", err, line)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return err
	}
	sch, what := s.request, "ClientRequest"
	if _, ok := probe["id"]; !ok {
		sch, what = s.notification, "ClientNotification"
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("%s does not validate as a %s: %w", line, what, err)
	}
	return nil
}

// ValidateModelList checks the result object of a model/list answer against codex's
// own schema, unchanged: fields orcr does not read are codex's business.
func (s *CodexSchema) ValidateModelList(result []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(result))
	if err != nil {
		return err
	}
	return s.modelList.Validate(inst)
}

// Strict returns a copy of a JSON schema document (as decoded by
// jsonschema.UnmarshalJSON) in which every object schema that lists "properties" and
// says nothing of "additionalProperties" refuses other properties. codex's generated
// schema leaves additional properties open, so a field orcr misspells, or one codex
// renamed, would validate; strict, it fails naming the field. Schemas that are
// branches of an allOf are left open, since there each branch sees the other
// branches' properties too.
func Strict(doc any) any { return strictSchema(doc, false) }

// Keywords whose value is a map of name → schema, an array of schemas, or one schema.
var (
	schemaMaps   = []string{"properties", "definitions", "$defs", "patternProperties"}
	schemaArrays = []string{"anyOf", "oneOf", "allOf"}
	schemaSingle = []string{"items", "additionalProperties", "not", "if", "then", "else",
		"contains", "propertyNames", "additionalItems"}
)

func strictSchema(v any, inAllOf bool) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v // true/false schemas, or anything else, unchanged
	}
	out := make(map[string]any, len(m)+1)
	for k, x := range m {
		out[k] = x
	}
	for _, k := range schemaMaps {
		if sub, ok := m[k].(map[string]any); ok {
			cp := make(map[string]any, len(sub))
			for name, s := range sub {
				cp[name] = strictSchema(s, false)
			}
			out[k] = cp
		}
	}
	for _, k := range schemaArrays {
		if arr, ok := m[k].([]any); ok {
			cp := make([]any, len(arr))
			for i, s := range arr {
				cp[i] = strictSchema(s, k == "allOf")
			}
			out[k] = cp
		}
	}
	for _, k := range schemaSingle {
		switch s := m[k].(type) {
		case map[string]any:
			out[k] = strictSchema(s, false)
		case []any: // draft-07 tuple items
			cp := make([]any, len(s))
			for i, x := range s {
				cp[i] = strictSchema(x, false)
			}
			out[k] = cp
		}
	}
	_, hasProps := m["properties"]
	_, hasAdditional := m["additionalProperties"]
	_, hasAllOf := m["allOf"]
	if hasProps && !hasAdditional && !hasAllOf && !inAllOf {
		out["additionalProperties"] = false
	}
	return out
}
