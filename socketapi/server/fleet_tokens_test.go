package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// memberToken issues host's credential on the hub through its socket and writes it to
// a 0600 file, as a user does with `orcr fleet token`.
func memberToken(t *testing.T, hub *socketapi.Client, host string) string {
	t.Helper()
	var res api.FleetTokenResult
	if err := hub.Call(context.Background(), "fleet.token", map[string]any{"host": host}, &res); err != nil {
		t.Fatalf("fleet.token %s: %v", host, err)
	}
	if res.Host != host || res.Token == nil || len(*res.Token) < 40 {
		t.Fatalf("fleet.token %s: %+v", host, res)
	}
	f := filepath.Join(t.TempDir(), host+".token")
	if err := os.WriteFile(f, []byte(*res.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// Members joined with their own tokens (docs/fleet.md §3.1): each call carries the
// caller's host, so a member's fleet.allow_from gives the hub what it refuses another
// member, and the refusal names the caller and the policy; fleet.token refuses a bad
// host and a server that serves no hub; a revoked token drops its member off the hub.
func TestFleetMemberTokens(t *testing.T) {
	t.Parallel()
	hub, url, _ := fleetHub(t, "hub")
	hc := hub.Client(t)
	webTok, gpuTok := memberToken(t, hc, "web"), memberToken(t, hc, "gpu")
	web := sockettest.NewServer(t, sockettest.WithConfig(fmt.Sprintf(
		`{"fleet": {"host": "web", "url": %q, "token_file": %q, "allow": ["agent.ls"], "allow_from": {"hub": ["agent.ls", "api.snapshot"]}}}`, url, webTok)))
	gpu := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("gpu", url, gpuTok)))
	setAgent(t, web.Client(t), "0190a000-0000-7000-8000-000000000701", "onweb/one", "idle")
	ctx := context.Background()

	call := func(c *socketapi.Client, method string) error {
		return c.Call(ctx, "fleet.call", map[string]any{"host": "web", "method": method}, nil)
	}
	gc := gpu.Client(t)
	poll.Eventually(t, 20*time.Second, "gpu reaches web over the fleet", func() bool { return call(gc, "agent.ls") == nil })
	if err := call(hc, "api.snapshot"); err != nil {
		t.Fatalf("the hub's api.snapshot of web (fleet.allow_from.hub): %v", err)
	}
	err := call(gc, "api.snapshot")
	pe, ok := wire.As(err)
	if !ok || pe.Reason() != wire.ReasonFleetNotAllowed || pe.Details["caller"] != "gpu" || pe.Details["policy"] != "fleet.allow" ||
		pe.Details["host"] != "web" {
		t.Fatalf("gpu's api.snapshot of web: %v (%v), want fleet_not_allowed for caller gpu under fleet.allow", err, pe)
	}

	for _, tc := range []struct {
		params map[string]any
		field  string
	}{{map[string]any{"host": "Not A Host"}, "host"}, {map[string]any{"host": "web", "rotate": true, "revoke": true}, "revoke"}} {
		err := hc.Call(ctx, "fleet.token", tc.params, nil)
		if pe, ok := wire.As(err); !ok || pe.Reason() != wire.ReasonBadFleetToken || pe.Details["field"] != tc.field {
			t.Fatalf("fleet.token %v: %v, want bad_fleet_token naming %s", tc.params, err, tc.field)
		}
	}
	err = web.Client(t).Call(ctx, "fleet.token", map[string]any{"host": "db"}, nil)
	if pe, ok := wire.As(err); !ok || pe.Cause() != wire.CauseConfigInvalid {
		t.Fatalf("fleet.token on a member that serves no hub: %v, want config_invalid", err)
	}

	var rev api.FleetTokenResult
	if err := hc.Call(ctx, "fleet.token", map[string]any{"host": "web", "revoke": true}, &rev); err != nil || rev.Revoked != 1 || rev.Token != nil {
		t.Fatalf("fleet.token --revoke web: %+v %v", rev, err)
	}
	poll.Eventually(t, 20*time.Second, "web off the fleet once its token is revoked", func() bool {
		st := fleetStatus(t, web)
		return st.Connection != "connected"
	})
	err = call(hc, "agent.ls")
	if pe, ok := wire.As(err); !ok || pe.Cause() != wire.CauseFleetUnreachable {
		t.Fatalf("a call to web after its token was revoked: %v, want fleet_unreachable", err)
	}
}
