package herdrtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	schemaOnce                       sync.Once
	schRequest, schSuccess, schError *jsonschema.Schema
	schemaErr                        error
)

const schemaURL = "https://herdr.invalid/herdr-api.schema.json"

// loadSchemas compiles the embedded protocol-20 document once. Its definitions live
// under schemas.<name>.$defs and refer to each other as #/schemas/<name>/$defs/…, so
// the whole document is one resource and each entry is compiled by JSON pointer.
func loadSchemas() {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(herdrschema.Protocol20))
	if err != nil {
		schemaErr = err
		return
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		schemaErr = err
		return
	}
	for _, x := range []struct {
		dst  **jsonschema.Schema
		name string
	}{{&schRequest, "request"}, {&schSuccess, "success_response"}, {&schError, "error_response"}} {
		if *x.dst, err = c.Compile(schemaURL + "#/schemas/" + x.name); err != nil {
			schemaErr = err
			return
		}
	}
}

// ValidateResponse checks one response line against the protocol-20 schema's
// success_response, or error_response when the object has an "error" key.
func ValidateResponse(raw []byte) error {
	schemaOnce.Do(loadSchemas)
	if schemaErr != nil {
		return schemaErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("herdrtest: response is not JSON: %v: %q", err, raw)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fmt.Errorf("herdrtest: response is not an object: %q", raw)
	}
	sch := schSuccess
	if _, ok := probe["error"]; ok {
		sch = schError
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("herdrtest: schema drift in %s: %v", raw, err)
	}
	return nil
}

// ValidateRequest checks a request line against the protocol-20 schema's request.
func ValidateRequest(raw []byte) error {
	schemaOnce.Do(loadSchemas)
	if schemaErr != nil {
		return schemaErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("herdrtest: request is not JSON: %v", err)
	}
	if err := schRequest.Validate(inst); err != nil {
		return fmt.Errorf("herdrtest: request does not match the schema: %s: %v", raw, err)
	}
	return nil
}
