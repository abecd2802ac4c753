package herdrtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiledSchema is one fixture of herdrschema, compiled.
type compiledSchema struct {
	request, success, failure *jsonschema.Schema
	err                       error
}

var (
	schemaMu sync.Mutex
	compiled = map[int]*compiledSchema{}
)

const schemaURL = "https://herdr.invalid/herdr-api.schema.json"

// schemaFor compiles the herdrschema fixture of protocol p once. Its definitions live
// under schemas.<name>.$defs and refer to each other as #/schemas/<name>/$defs/…, so
// the whole document is one resource and each entry is compiled by JSON pointer.
func schemaFor(p int) *compiledSchema {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if c, ok := compiled[p]; ok {
		return c
	}
	c := &compiledSchema{}
	compiled[p] = c
	raw := herdrschema.For(p)
	if raw == nil {
		c.err = fmt.Errorf("herdrtest: no schema fixture for protocol %d", p)
		return c
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		c.err = err
		return c
	}
	comp := jsonschema.NewCompiler()
	if c.err = comp.AddResource(schemaURL, doc); c.err != nil {
		return c
	}
	for _, x := range []struct {
		dst  **jsonschema.Schema
		name string
	}{{&c.request, "request"}, {&c.success, "success_response"}, {&c.failure, "error_response"}} {
		if *x.dst, c.err = comp.Compile(schemaURL + "#/schemas/" + x.name); c.err != nil {
			return c
		}
	}
	return c
}

// ValidateResponse checks one response line against the protocol-20 schema's
// success_response, or error_response when the object has an "error" key.
func ValidateResponse(raw []byte) error { return ValidateResponseAt(DefaultProtocol, raw) }

// ValidateResponseAt is [ValidateResponse] against the fixture of protocol p (16, 20,
// or 22 — orcr's own construction, see package herdrschema).
func ValidateResponseAt(p int, raw []byte) error {
	c := schemaFor(p)
	if c.err != nil {
		return c.err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("herdrtest: response is not JSON: %v: %q", err, raw)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fmt.Errorf("herdrtest: response is not an object: %q", raw)
	}
	sch := c.success
	if _, ok := probe["error"]; ok {
		sch = c.failure
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("herdrtest: schema drift in %s: %v", raw, err)
	}
	return nil
}

// ValidateRequest checks a request line against the protocol-20 schema's request.
func ValidateRequest(raw []byte) error { return ValidateRequestAt(DefaultProtocol, raw) }

// ValidateRequestAt is [ValidateRequest] against the fixture of protocol p.
func ValidateRequestAt(p int, raw []byte) error {
	c := schemaFor(p)
	if c.err != nil {
		return c.err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("herdrtest: request is not JSON: %v", err)
	}
	if err := c.request.Validate(inst); err != nil {
		return fmt.Errorf("herdrtest: request does not match the schema: %s: %v", raw, err)
	}
	return nil
}
