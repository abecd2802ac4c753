package fleet_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
)

// Every method fleet.allow may name is a method of the one table that a facade call
// serves and that answers once (docs/fleet.md §4): the member serves it through the
// socket's dispatch, never a second implementation.
func TestFleetVerbsAreTableMethods(t *testing.T) {
	for _, name := range slices.Concat(config.FleetReadVerbs, config.FleetWriteVerbs) {
		spec, ok := api.Lookup(name)
		if !ok || !spec.Info().Facade || spec.Info().Streaming {
			t.Errorf("fleet verb %s is not a facade method of the table that answers once", name)
		}
	}
	for _, name := range config.FleetWriteVerbs {
		if slices.Contains(config.DefaultFleetAllow, name) {
			t.Errorf("write verb %s is in fleet.allow's default", name)
		}
	}
}

// A call outside fleet.allow is refused with invalid_request fleet_not_allowed naming the
// method, the host, the caller and the policy, before the facade is reached.
func TestHandleRefusesOutsideAllow(t *testing.T) {
	frame := []byte(`{"protocol":1,"id":7,"method":"agent.kill","params":{"targets":["x"]}}`)
	out := fleet.Handle(context.Background(), nil, fleet.Caller{Host: "web", From: "hub", Allow: config.DefaultFleetAllow, Policy: "fleet.allow"}, frame)
	_, werr := fleet.DecodeReply(out)
	if werr == nil || werr.Code != wire.InvalidRequest || werr.Reason() != wire.ReasonFleetNotAllowed ||
		werr.Details["method"] != "agent.kill" || werr.Details["host"] != "web" || werr.Details["caller"] != "hub" || werr.Details["policy"] != "fleet.allow" {
		t.Fatalf("agent.kill outside fleet.allow: %v %v", werr, werr.Details)
	}
	var f struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(out, &f); err != nil || string(f.ID) != "7" {
		t.Fatalf("the refusal answers id 7: %s", out)
	}
}
