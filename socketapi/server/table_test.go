package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

type echoRequest struct {
	api.Caller
	// What to say back.
	Say   string `json:"say"`
	Times int    `json:"times"`
}

type echoResult struct {
	Said   []string `json:"said"`
	Agents int      `json:"agents"`
}

// testEcho is a method that exists only in this test's table. Its facade call reaches
// the real facade (agent.ls) to show that a table entry is all a method needs.
var testEcho = &api.Method[echoRequest, echoResult]{
	Name: "test.echo", Summary: "say it back",
	Call: func(f api.Facade, ctx context.Context, r echoRequest) (echoResult, error) {
		ls, err := f.Ls(ctx, api.LsRequest{Caller: r.Caller, All: true})
		if err != nil {
			return echoResult{}, err
		}
		return echoResult{Said: slices.Repeat([]string{r.Say}, r.Times), Agents: len(ls.Agents)}, nil
	},
}

// Acceptance 1 of the typed API: dispatch, schema and client come from the one table. A
// method added to the table is dispatched with its params type checked, described by
// api.schema, and callable through socketapi.Invoke; nothing else was edited for it.
func TestMethodTableDrivesDispatchSchemaAndClient(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	table := append(slices.Clone(api.Methods), testEcho)
	srv := sockettest.NewServer(t, sockettest.WithMethods(table))
	c := &socketapi.Client{Socket: srv.Socket()}

	// Client + dispatch.
	res, err := socketapi.Invoke(ctx, c, testEcho, echoRequest{Say: "hi", Times: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Said, []string{"hi", "hi"}) || res.Agents != 0 {
		t.Errorf("test.echo: got %+v", res)
	}

	// Dispatch checks the params against the entry's type.
	err = c.Call(ctx, "test.echo", map[string]any{"times": "two"}, nil)
	var pe *api.Error
	if !errors.As(err, &pe) || pe.Code != api.CodeInvalidRequest || pe.Reason() != "wrong_type" || pe.Details["field"] != "times" {
		t.Errorf("wrong-typed times: got %v", err)
	}

	// Schema.
	var doc struct {
		Methods map[string]struct {
			Implemented bool `json:"implemented"`
			Summary     string
			Params      struct {
				Properties map[string]struct {
					Type        any    `json:"type"`
					Description string `json:"description"`
				} `json:"properties"`
			} `json:"params"`
			Result struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"result"`
		} `json:"methods"`
	}
	if err := c.Call(ctx, "api.schema", nil, &doc); err != nil {
		t.Fatal(err)
	}
	m, ok := doc.Methods["test.echo"]
	if !ok {
		t.Fatal("api.schema does not describe test.echo")
	}
	p := m.Params.Properties
	if !m.Implemented || m.Summary != "say it back" || p["say"].Type != "string" || p["times"].Type != "integer" ||
		p["caller_id"].Type != "string" || len(m.Result.Properties) != 2 || m.Result.Properties["said"] == nil {
		t.Errorf("schema of test.echo: %+v", m)
	}
	if len(doc.Methods) != len(api.Methods)+1 {
		t.Errorf("schema has %d methods, want %d", len(doc.Methods), len(api.Methods)+1)
	}

	// The same schema is what SchemaOf makes of the table.
	want, _ := json.Marshal(api.SchemaOf(table))
	var got json.RawMessage
	if err := c.Call(ctx, "api.schema", nil, &got); err != nil {
		t.Fatal(err)
	}
	if g, _ := json.Marshal(json.RawMessage(got)); !jsonEqual(t, g, want) {
		t.Error("api.schema differs from SchemaOf(table)")
	}

	// A server with the default table knows nothing of it.
	plain := sockettest.NewServer(t)
	_, err = socketapi.Invoke(ctx, &socketapi.Client{Socket: plain.Socket()}, testEcho, echoRequest{})
	if !errors.As(err, &pe) || pe.Reason() != "unknown_method" {
		t.Errorf("test.echo on the default table: got %v, want unknown_method", err)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
