package api

import (
	_ "embed"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Version is the orcr server package version reported by server.status and the schema.
const Version = "0.1.0"

// comments holds the doc comments of this package's types and fields, keyed as
// invopop/jsonschema's CommentMap wants them. An installed binary has no sources to read
// them from, so they are extracted once and embedded; TestSchemaComments fails when the
// file is stale (regenerate with
// `go test ./socketapi/api -run TestSchemaComments -update`).
//
//go:embed comments.json
var commentsJSON []byte

// Schema builds the schema document of docs/protocol.md §10 from [Methods]: a JSON Schema
// (draft 2020-12) whose extensions carry the envelopes, the methods with the schemas of
// their params and results (reflected from the Go types, doc comments as descriptions),
// the event kinds with the schemas of their payloads (from [Events], reflected alike)
// and the error table (under both errorCodes and ERROR_CODES).
func Schema() map[string]any { return SchemaOf(Methods) }

// SchemaOf builds the schema document of a method table.
func SchemaOf(table []Spec) map[string]any {
	methods := map[string]any{}
	for _, m := range table {
		info := m.Info()
		req, res := m.Types()
		methods[info.Name] = map[string]any{
			"summary":     info.Summary,
			"implemented": info.Implemented(),
			"streaming":   info.Streaming,
			"params":      TypeSchema(req),
			"result":      TypeSchema(res),
		}
	}
	events := map[string]any{}
	for _, e := range Events {
		events[e.Kind] = TypeSchema(e.Type())
	}
	codes := make([]map[string]any, len(wire.Codes))
	for i, c := range wire.Codes {
		codes[i] = map[string]any{"code": string(c.Code), "exit": c.Exit, "description": c.Description}
	}
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"title":   "orchestratr socket protocol",
		"type":    "object",
		"x-orcr":  map[string]any{"protocol": wire.Protocol, "version": Version},
		"envelope": map[string]any{
			"request": map[string]any{"type": "object", "required": []string{"method"}, "properties": map[string]any{
				"protocol": map[string]any{"type": "integer"}, "id": map[string]any{},
				"method": map[string]any{"type": "string"}, "params": map[string]any{"type": "object"}}},
			"response": map[string]any{"type": "object", "required": []string{"id", "ok"}, "properties": map[string]any{
				"id": map[string]any{}, "ok": map[string]any{"type": "boolean"}, "result": map[string]any{},
				"error": map[string]any{"type": "object", "additionalProperties": true, "required": []string{"code", "message"},
					"properties": map[string]any{
						"code":    map[string]any{"type": "string", "enum": codeNames()},
						"message": map[string]any{"type": "string"},
						"details": map[string]any{"type": "object", "additionalProperties": true}}}}},
			"event": map[string]any{"type": "object", "required": []string{"subscription", "seq", "event"}, "properties": map[string]any{
				"subscription": map[string]any{"type": "integer"}, "seq": map[string]any{"type": "integer"},
				"event": map[string]any{"type": "object", "additionalProperties": true, "required": []string{"kind"},
					"properties": map[string]any{"kind": map[string]any{"type": "string"}}}}},
		},
		"methods":     methods,
		"events":      events,
		"errorCodes":  codes,
		"ERROR_CODES": codes,
	}
}

func openObject() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": true}
}

var (
	rawMessage     = reflect.TypeFor[json.RawMessage]()
	optionalString = reflect.TypeFor[OptionalString]()
)

var reflector = sync.OnceValue(func() *jsonschema.Reflector {
	r := &jsonschema.Reflector{
		// Unknown keys are ignored (docs/protocol.md §2.2), and no method schema has a
		// required array (docs/protocol.md §10).
		AllowAdditionalProperties:  true,
		RequiredFromJSONSchemaTags: true,
		DoNotReference:             true,
		ExpandedStruct:             true,
		Anonymous:                  true,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == rawMessage {
				return &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.TrueSchema}
			}
			if t == optionalString {
				return &jsonschema.Schema{Type: "string"} // widened to [string, null] by nullables
			}
			return nil
		},
	}
	if err := json.Unmarshal(commentsJSON, &r.CommentMap); err != nil {
		panic("api: comments.json: " + err.Error()) // embedded at build time
	}
	return r
})

// TypeSchema is the schema of one params or result type, in the building blocks of
// docs/protocol.md §10: typed objects (additionalProperties true), strings, integers,
// booleans, arrays, open objects. A key that may be null (a pointer, slice or map without
// omitempty) has the type [T, "null"]. An empty struct (no params) is an open object.
func TypeSchema(t reflect.Type) map[string]any {
	if t == rawMessage || (t.Kind() == reflect.Struct && t.NumField() == 0) {
		return openObject()
	}
	s := reflector().ReflectFromType(t)
	b, err := json.Marshal(s)
	if err != nil {
		panic("api: schema of " + t.String() + ": " + err.Error())
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	delete(m, "$schema")
	delete(m, "$id")
	nullables(m, t)
	return m
}

// nullables walks schema s of Go type t: every object says additionalProperties true, and
// the type of every key that encodes as null when unset is widened to [T, "null"].
func nullables(s map[string]any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if items, ok := s["items"].(map[string]any); ok && t.Elem() != reflect.TypeFor[byte]() {
			nullables(items, t.Elem())
		}
	case reflect.Map:
		if v, ok := s["additionalProperties"].(map[string]any); ok {
			nullables(v, t.Elem())
		}
	case reflect.Struct:
		if s["type"] == "object" {
			s["additionalProperties"] = true
		}
		props, _ := s["properties"].(map[string]any)
		for _, f := range reflect.VisibleFields(t) {
			name, omit, ok := jsonField(f)
			if !ok {
				continue
			}
			p, ok := props[name].(map[string]any)
			if !ok {
				continue
			}
			nullables(p, f.Type)
			if f.Type == optionalString {
				p["type"] = []any{"string", "null"}
				continue
			}
			k := f.Type.Kind()
			if !omit && f.Type != rawMessage && (k == reflect.Pointer || k == reflect.Slice || k == reflect.Map) {
				if typ, ok := p["type"].(string); ok {
					p["type"] = []any{typ, "null"}
				}
			}
		}
	}
}

// jsonField returns a struct field's json name and whether it is omitted when empty; ok
// is false for fields encoding/json skips or inlines.
func jsonField(f reflect.StructField) (name string, omit, ok bool) {
	if !f.IsExported() || (f.Anonymous && f.Tag.Get("json") == "") {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero"), true
}

func codeNames() []string {
	out := make([]string, len(wire.Codes))
	for i, c := range wire.Codes {
		out[i] = string(c.Code)
	}
	return out
}

// SchemaJSON returns the schema document pretty-printed with a trailing newline (the
// form `orcr api schema` prints and the golden file holds).
func SchemaJSON() []byte {
	b, err := json.MarshalIndent(Schema(), "", "  ")
	if err != nil {
		panic(err) // the document is built from static data
	}
	return append(b, '\n')
}
