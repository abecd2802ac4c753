package api_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The schema document is a promise to every client: any change shows up as a diff of
// testdata/schema.golden.json (regenerate with -update and review it).
func TestSchemaGolden(t *testing.T) {
	got := api.SchemaJSON()
	const golden = "testdata/schema.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("schema document differs from %s; run `go test ./socketapi/api -run TestSchemaGolden -update` and review the diff", golden)
	}
}

// The descriptions of the schema come from the doc comments of this package, embedded as
// comments.json (an installed binary has no sources). It must match the sources.
func TestSchemaComments(t *testing.T) {
	r := new(jsonschema.Reflector)
	if err := r.AddGoComments("github.com/orcr-go/orcr/socketapi/api", "./"); err != nil {
		t.Fatal(err)
	}
	for k := range r.CommentMap {
		if strings.Contains(k, "_test.") || strings.HasPrefix(strings.TrimPrefix(k, "github.com/orcr-go/orcr/socketapi/api"), "/") {
			delete(r.CommentMap, k) // tests and subpackages
		}
	}
	got, err := json.MarshalIndent(r.CommentMap, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const file = "comments.json"
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; run `go test ./socketapi/api -run 'TestSchemaComments|TestSchemaGolden' -update`", file)
	}
}

func TestSchemaContents(t *testing.T) {
	var doc struct {
		XOrcr      map[string]any            `json:"x-orcr"`
		Methods    map[string]map[string]any `json:"methods"`
		Events     map[string]any            `json:"events"`
		ErrorCodes []map[string]any          `json:"errorCodes"`
		ERRORCODES []map[string]any          `json:"ERROR_CODES"`
	}
	if err := json.Unmarshal(api.SchemaJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"agent.adopt", "agent.ask", "agent.attach.heartbeat", "agent.attach.prepare", "agent.attach.release",
		"agent.kill", "agent.logs", "agent.ls", "agent.run", "agent.send", "agent.token", "agent.wait", "api.schema",
		"api.snapshot", "budget.extend", "budget.ls", "dashboard.login", "events.subscribe", "fleet.call", "fleet.events", "fleet.members", "fleet.token", "loop.create", "loop.logs", "loop.ls", "loop.pause", "loop.resume",
		"loop.rm", "loop.run.ls", "loop.run.start", "loop.run.stop", "mcp.auth", "mcp.token", "provider.check", "provider.ls", "quota.record", "server.handshake", "server.status",
		"server.stop", "usage.report", "watch.open"}
	var got []string
	for name, m := range doc.Methods {
		got = append(got, name)
		if streaming := m["streaming"] == true; streaming != (name == "events.subscribe" || name == "watch.open") {
			t.Errorf("%s: streaming %v", name, m["streaming"])
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("methods: got %v, want the 41 of docs/protocol.md §5", got)
	}
	codes := []string{"not_found", "invalid_request", "state_conflict", "blocked", "timeout",
		"integration_missing", "transcript_unavailable", "environment_error", "server_error"}
	exits := []float64{6, 1, 7, 4, 3, 2, 1, 2, 1}
	for _, table := range [][]map[string]any{doc.ErrorCodes, doc.ERRORCODES} {
		if len(table) != 9 {
			t.Fatalf("error table has %d rows, want 9", len(table))
		}
		for i, row := range table {
			if row["code"] != codes[i] || row["exit"] != exits[i] {
				t.Errorf("error row %d: got %v, want %s/%v", i, row, codes[i], exits[i])
			}
		}
	}
	for _, k := range []string{"agent.created", "queue.promoted", "loop_run.stopping", "server_stopping",
		"agent.spawn_requested", "agent.spawn_applied", "loop_run.signal_applied"} {
		if _, ok := doc.Events[k]; !ok {
			t.Errorf("event kind %s not registered", k)
		}
	}
	if _, ok := doc.Events["cursor_expired"]; ok {
		t.Errorf("cursor_expired must not be registered (control frame only)")
	}
	if doc.XOrcr["protocol"] != float64(1) {
		t.Errorf("x-orcr.protocol: got %v", doc.XOrcr["protocol"])
	}
}

func TestSchemaIsAValidJSONSchema(t *testing.T) {
	if _, err := sockettest.SchemaValidator(); err != nil {
		t.Fatal(err)
	}
}
