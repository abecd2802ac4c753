package tests

import (
	"testing"
	"time"
)

// `orcr agent wait --any` through the real binary, the herdr stand-in and the mock
// (docs/cli.md §5.5): it answers when the fast agent's turn completes while the other
// still works — its line first, the other pending, exit 0 — and the same as one
// schema-valid envelope naming it in first_settled; `--any --timeout` on agents that
// are all still working is the plain wait timeout (exit 3).
func TestWaitAnyCLI(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	h, _ := herdrHome(t, "")
	_, res, _ := h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "any/slow", "-p", "say=slow turn_ms=600000")
	slow := res["agent"].(map[string]any)["uuid"].(string)
	_, res, _ = h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "any/fast", "-p", "say=fast")
	fast := res["agent"].(map[string]any)["uuid"].(string)

	start := time.Now()
	r := h.run("agent", "wait", "--any", "any/slow", "any/fast")
	if want := "any/fast  turn_complete\nany/slow  pending\n"; r.exit != 0 || r.stdout != want {
		t.Fatalf("agent wait --any: exit %d stdout %q stderr %q, want exit 0 and %q", r.exit, r.stdout, r.stderr, want)
	}
	t.Logf("the fast agent settled %v after the wait began", time.Since(start))

	ok, res, _ := h.jsonRun(t, "agent.wait", 0, "agent", "wait", "--any", "any/*")
	if !ok || res["first_settled"] != fast || res["all_ok"] != false || res["timed_out"] != false {
		t.Fatalf("agent wait --any --json: %v, want first_settled %s", res, fast)
	}
	reasons := map[string]any{}
	for _, e := range res["targets"].([]any) {
		e := e.(map[string]any)
		reasons[e["uuid"].(string)] = e["reason"]
	}
	if reasons[fast] != "turn_complete" || reasons[slow] != "pending" || len(reasons) != 2 {
		t.Errorf("agent wait --any --json targets: %v, want fast turn_complete and slow pending", res["targets"])
	}

	r = h.run("agent", "wait", "--any", "--timeout", "200ms", "any/slow")
	if want := "any/slow  wait_timeout\n"; r.exit != 3 || r.stdout != want {
		t.Errorf("agent wait --any --timeout: exit %d stdout %q stderr %q, want exit 3 and %q", r.exit, r.stdout, r.stderr, want)
	}
	ok, res, _ = h.jsonRun(t, "agent.wait", 3, "agent", "wait", "--any", "--timeout", "200ms", "any/slow")
	if _, named := res["first_settled"]; !ok || res["timed_out"] != true || named {
		t.Errorf("agent wait --any --timeout --json: %v, want timed_out and no first_settled", res)
	}
}
