package herdrtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	schemaOnce                       sync.Once
	schRequest, schSuccess, schError *jsonschema.Schema
	schemaErr                        error
)

func loadSchemas() {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(herdrschema.Protocol20))
	if err != nil {
		schemaErr = err
		return
	}
	c := jsonschema.NewCompiler()
	const url = "https://herdr.invalid/herdr-api.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		schemaErr = err
		return
	}
	for _, x := range []struct {
		dst  **jsonschema.Schema
		name string
	}{{&schRequest, "request"}, {&schSuccess, "success_response"}, {&schError, "error_response"}} {
		if *x.dst, err = c.Compile(url + "#/schemas/" + x.name); err != nil {
			schemaErr = err
			return
		}
	}
}

// validateResponse checks one response line against success_response or
// error_response (chosen by the presence of "error").
func validateResponse(raw []byte) error {
	schemaOnce.Do(loadSchemas)
	if schemaErr != nil {
		return schemaErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("response is not JSON: %v: %q", err, raw)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fmt.Errorf("response is not an object: %q", raw)
	}
	sch := schSuccess
	if _, ok := probe["error"]; ok {
		sch = schError
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("schema drift in %s: %v", raw, err)
	}
	return nil
}

// validateRequest checks a request against the schema's request definition.
func validateRequest(raw []byte) error {
	schemaOnce.Do(loadSchemas)
	if schemaErr != nil {
		return schemaErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if err := schRequest.Validate(inst); err != nil {
		return fmt.Errorf("request does not match schema: %s: %v", raw, err)
	}
	return nil
}

func TestSchemaValidatorRejectsDrift(t *testing.T) {
	good := `{"id":"x","result":{"type":"pong","version":"0.8.0","protocol":20}}`
	if err := validateResponse([]byte(good)); err != nil {
		t.Fatalf("valid pong rejected: %v", err)
	}
	for _, bad := range []string{
		`{"id":"x","result":{"type":"pong","version":"0.8.0"}}`,
		`{"id":1,"result":{"type":"ok"}}`,
		`{"id":"x","result":{"type":"pane_info","pane":{"pane_id":"w1:p1"}}}`,
		`{"id":"x","error":{"code":"pane_not_found"}}`,
		`{"id":"x","result":{"type":"agent_list","agents":[{"terminal_id":"t","agent_status":"busy","workspace_id":"w1","tab_id":"w1:t1","pane_id":"w1:p1","focused":false,"revision":0}]}}`,
	} {
		if err := validateResponse([]byte(bad)); err == nil {
			t.Errorf("drift not detected: %s", bad)
		}
	}
	if err := validateRequest([]byte(`{"id":"a","method":"ping","params":{}}`)); err != nil {
		t.Errorf("valid request rejected: %v", err)
	}
	if err := validateRequest([]byte(`{"id":"a","method":"pane.get","params":{}}`)); err == nil {
		t.Errorf("request without pane_id accepted")
	}
}
