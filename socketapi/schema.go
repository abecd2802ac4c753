package socketapi

import (
	"encoding/json"

	"github.com/orcr-go/orcr/socketapi/wire"
)

// Version is the orcr server package version reported by server.status and the schema.
const Version = "0.1.0"

// Schema builds the schema document of docs/protocol.md §10: a JSON Schema (draft 2020-12)
// whose extensions carry the envelopes, the 26 methods, the event kinds and the error
// table (under both errorCodes and ERROR_CODES).
func Schema() map[string]any {
	methods := map[string]any{}
	for _, m := range Catalogue {
		methods[m.Name] = map[string]any{
			"summary":     m.Summary,
			"implemented": m.Implemented,
			"streaming":   m.Streaming,
			"params":      props(m.Params),
			"result":      props(m.Result),
		}
	}
	events := map[string]any{}
	for _, k := range wire.EventKinds {
		events[k] = openObject()
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
