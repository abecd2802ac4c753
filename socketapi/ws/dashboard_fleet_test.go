package ws_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
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

// When the fleet itself does not answer — a member whose hub stopped — the page's read
// of the other hosts is no failure: no members, and the error that says why
// (docs/dashboard.md §6.1), so the page keeps the hosts it had and shows the line.
func TestDashboardFleetItselfUnreachable(t *testing.T) {
	t.Parallel()
	hub := sockettest.NewServer(t, sockettest.WithConfig(`{"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}}}`))
	tok := filepath.Join(hub.Home, "fleet", "hub.token")
	web := sockettest.NewServer(t, sockettest.WithConfig(fmt.Sprintf(`{"remote": {"listen": "127.0.0.1:0"}, "fleet": {"host": "web", "url": %q, "token_file": %q}}`, hub.FleetHubURL(), tok)))
	r := &rig{t: t, srv: web, c: web.Client(t), base: "http://" + web.RemoteAddr(), d: &remote.Dialer{}}
	cookie := r.signIn()
	read := func() (members []any, errObj map[string]any) {
		status, ok, res, werr := r.action("fleet", cookie, `{}`)
		if status != http.StatusOK || !ok {
			t.Fatalf("fleet: %d %v %v", status, res, werr)
		}
		members, _ = res["members"].([]any)
		errObj, _ = res["error"].(map[string]any)
		return members, errObj
	}
	poll.Eventually(t, 30*time.Second, "the hub listed on web's page", func() bool {
		ms, e := read()
		return len(ms) == 1 && e == nil && ms[0].(map[string]any)["host"] == "hub"
	})

	hub.Stop()
	if err := hub.Wait(); err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	var ms []any
	poll.Eventually(t, 60*time.Second, "the fleet's own error on web's page", func() bool {
		ms, e = read()
		return e != nil
	})
	details, _ := e["details"].(map[string]any)
	if len(ms) != 0 || e["code"] != "environment_error" || details["cause"] != "fleet_unreachable" || e["message"] == "" {
		t.Errorf("fleet with its hub gone: members %v error %v, want none and environment_error (fleet_unreachable) with a message", ms, e)
	}
}

// The page's Send, Log and Kill on another host's agent (docs/dashboard.md §6.1) go over
// the fleet as the CLI's `<host>:<path>` does: a member whose policy allows them
// delivers, answers the agent's last entries or its screen (before and after its end)
// and kills, with the local verbs' results; one whose policy does not answers the action
// with fleet_not_allowed naming this host as the caller, and nothing changes.
func TestDashboardActsOnOtherHosts(t *testing.T) {
	t.Parallel()
	r := newRig(t, "", `, "fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}}`)
	tok := filepath.Join(r.srv.Home, "fleet", "hub.token")
	url := r.srv.FleetHubURL()
	web := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(fmt.Sprintf(
		`{"fleet": {"host": "web", "url": %q, "token_file": %q, "allow": ["agent.ls", "agent.logs", "agent.send", "agent.kill"]}}`, url, tok)))
	gpu := sockettest.NewServer(t, sockettest.WithConfig(fmt.Sprintf(`{"fleet": {"host": "gpu", "url": %q, "token_file": %q}}`, url, tok)))
	debugAgent(t, gpu, "0190a000-0000-7000-8000-0000000000c1", "gpuwork/one", "idle")
	wc := web.Client(t)
	if _, err := wc.Run(ctxT(t, 30*time.Second), api.RunRequest{Path: "job/one", Agent: "mock"}); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 30*time.Second, "web's agent idle", func() bool {
		ls, err := wc.Ls(context.Background(), api.LsRequest{})
		return err == nil && len(ls.Agents) == 1 && ls.Agents[0].Status == "idle"
	})
	cookie := r.signIn()
	poll.Eventually(t, 30*time.Second, "both members answer the hub's page", func() bool {
		_, ok, res, _ := r.action("fleet", cookie, `{}`)
		ms, _ := res["members"].([]any)
		if !ok || len(ms) != 2 {
			return false
		}
		for _, m := range ms {
			if m.(map[string]any)["reachable"] != true {
				return false
			}
		}
		return true
	})

	status, ok, res, werr := r.action("send", cookie, `{"host": "web", "target": "job/one", "prompt": "from the hub's page"}`)
	if status != http.StatusOK || !ok || res["delivered_while"] == nil {
		t.Fatalf("send to web:job/one: %d %v %v", status, res, werr)
	}
	// Log: the prompt and the mock's answer, as agent.logs on web answers them.
	readLog := func() (entries []any) {
		t.Helper()
		status, ok, res, werr := r.action("logs", cookie, `{"host": "web", "target": "job/one"}`)
		if status != http.StatusOK || !ok || res["path"] != "job/one" {
			t.Fatalf("logs of web:job/one: %d %v %v", status, res, werr)
		}
		entries, _ = res["entries"].([]any)
		return entries
	}
	poll.Eventually(t, 30*time.Second, "web:job/one's log holds the prompt and an answer after it", func() bool {
		prompted := false
		for _, e := range readLog() {
			e := e.(map[string]any)
			if e["role"] == "user" && strings.Contains(fmt.Sprint(e["text"]), "from the hub's page") {
				prompted = true
			} else if prompted && e["role"] == "assistant" && e["text"] != "" {
				return true
			}
		}
		return false
	})
	status, ok, res, werr = r.action("logs", cookie, `{"host": "web", "target": "job/one", "screen": true}`)
	if screen, _ := res["screen"].(map[string]any); status != http.StatusOK || !ok || strings.TrimSpace(fmt.Sprint(screen["text"])) == "" {
		t.Fatalf("screen of web:job/one: %d %v %v, want its pane's text", status, res, werr)
	}
	status, _, _, werr = r.action("logs", cookie, `{"target": "job/one"}`)
	if status != http.StatusBadRequest || werr == nil || werr.Reason() != wire.ReasonFleetCallIncomplete || werr.Details["missing"] != "host" {
		t.Fatalf("logs without a host: %d %v, want 400 fleet_call_incomplete (host)", status, werr)
	}
	if status, _, _, werr = r.action("logs", cookie, `{"host": "web", "target": "job/one", "tail": 1}`); status != http.StatusBadRequest || werr == nil || werr.Reason() != wire.ReasonBadJSON {
		t.Fatalf("logs with a field it does not take: %d %v, want 400 bad_json", status, werr)
	}
	if status, _, _, _ = r.action("logs", "", `{"host": "web", "target": "job/one"}`); status != http.StatusUnauthorized {
		t.Fatalf("logs without a session: %d, want 401", status)
	}
	if status, _, _, _ = r.action("logs", cookie, `{"host": "web", "target": "job/one"}`, "Origin", "http://evil.example"); status != http.StatusForbidden {
		t.Fatalf("logs from another origin: %d, want 403", status)
	}

	status, ok, res, werr = r.action("send", cookie, `{"host": "gpu", "target": "gpuwork/one", "prompt": "no"}`)
	if status != http.StatusBadRequest || ok || werr == nil || werr.Reason() != wire.ReasonFleetNotAllowed ||
		werr.Details["caller"] != "hub" || werr.Details["host"] != "gpu" {
		t.Fatalf("send to gpu:gpuwork/one outside its policy: %d %v %v, want 400 fleet_not_allowed for caller hub", status, res, werr)
	}
	status, _, _, werr = r.action("kill", cookie, `{"host": "gpu", "target": "gpuwork/one"}`)
	if status != http.StatusBadRequest || werr == nil || werr.Reason() != wire.ReasonFleetNotAllowed {
		t.Fatalf("kill of gpu:gpuwork/one outside its policy: %d %v", status, werr)
	}
	status, ok, res, werr = r.action("kill", cookie, `{"host": "web", "target": "job/one"}`)
	killed, _ := res["killed"].([]any)
	if status != http.StatusOK || !ok || len(killed) != 1 || killed[0].(map[string]any)["path"] != "job/one" {
		t.Fatalf("kill of web:job/one: %d %v %v", status, res, werr)
	}
	if len(readLog()) == 0 {
		t.Errorf("web:job/one's log after its end: no entries, want them still read")
	}
	var ls api.LsResult
	if err := gpu.Client(t).Call(context.Background(), "agent.ls", map[string]any{}, &ls); err != nil || len(ls.Agents) != 1 || ls.Agents[0].Status != "idle" {
		t.Fatalf("gpu's agent after refused actions: %+v %v", ls.Agents, err)
	}
}
