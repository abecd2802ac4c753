package ws_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// debugAgent writes an agent row on srv through the debug method (no herdr needed).
func debugAgent(t *testing.T, srv *sockettest.Server, id, path, status string) {
	t.Helper()
	p := map[string]any{"uuid": id, "path": path, "status": status}
	if err := srv.Client(t).Call(context.Background(), "__debug.set_agent", p, nil); err != nil {
		t.Fatalf("__debug.set_agent %s: %v", path, err)
	}
}

// The dashboard's read of the other members of the fleet (docs/dashboard.md §6.1):
// without a fleet there are none; on a hub, a member that answers is listed with its
// agents, itself is not; a member that stopped is unreachable with its last-seen time
// and no agents read this time.
func TestDashboardFleetMembers(t *testing.T) {
	t.Parallel()
	alone := newBareRig(t)
	status, ok, res, werr := alone.action("fleet", alone.signIn(), `{}`)
	if status != http.StatusOK || !ok || fmt.Sprint(res["members"]) != "[]" || res["error"] != nil {
		t.Fatalf("fleet of a server in no fleet: %d %v %v %v, want ok with no members", status, ok, res, werr)
	}

	hub := sockettest.NewServer(t, sockettest.WithConfig(`{"remote": {"listen": "127.0.0.1:0"}, "fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}}}`))
	r := &rig{t: t, srv: hub, c: hub.Client(t), base: "http://" + hub.RemoteAddr(), d: &remote.Dialer{}}
	tok := filepath.Join(hub.Home, "fleet", "hub.token")
	web := sockettest.NewServer(t, sockettest.WithConfig(fmt.Sprintf(`{"fleet": {"host": "web", "url": %q, "token_file": %q}}`, hub.FleetHubURL(), tok)))
	debugAgent(t, hub, "0190a000-0000-7000-8000-0000000000a1", "hubwork/one", "idle")
	debugAgent(t, web, "0190a000-0000-7000-8000-0000000000b1", "webwork/two", "working")
	cookie := r.signIn()

	members := func() []any {
		status, ok, res, werr := r.action("fleet", cookie, `{}`)
		if status != http.StatusOK || !ok {
			t.Fatalf("fleet: %d %v %v", status, res, werr)
		}
		ms, _ := res["members"].([]any)
		return ms
	}
	var web1 map[string]any
	poll.Eventually(t, 30*time.Second, "web listed with its agent", func() bool {
		ms := members()
		if len(ms) != 1 {
			return false
		}
		web1, _ = ms[0].(map[string]any)
		agents, _ := web1["agents"].([]any)
		return web1["host"] == "web" && web1["reachable"] == true && len(agents) == 1
	})
	a := web1["agents"].([]any)[0].(map[string]any)
	if a["path"] != "webwork/two" || a["status"] != "working" || web1["self"] != false {
		t.Errorf("web's line: %v", web1)
	}

	web.Stop()
	if err := web.Wait(); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 30*time.Second, "web unreachable after its stop", func() bool {
		ms := members()
		if len(ms) != 1 {
			return false
		}
		m := ms[0].(map[string]any)
		agents, _ := m["agents"].([]any)
		return m["host"] == "web" && m["reachable"] == false && m["error"] != nil && m["last_seen"] != nil && len(agents) == 0
	})

	// Outside a session it is the 401 of every action.
	if status, _, _, _ := r.action("fleet", "", `{}`); status != http.StatusUnauthorized {
		t.Errorf("fleet without a session: %d, want 401", status)
	}
}
