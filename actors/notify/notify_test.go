package notify_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/notify"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/store"
)

func ev(kind, payload string) store.Event {
	return store.Event{Seq: 7, TS: 1000, Kind: kind, Ref: "u1", Payload: json.RawMessage(payload)}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		ev   store.Event
		want notify.Occurrence // Event "" = no occurrence
	}{
		{"blocked", ev("agent.status_changed", `{"status":"blocked","blocked_kind":"question","agent":{"path":"a/b"}}`),
			notify.Occurrence{Event: "blocked", Path: "a/b", Ref: "u1", Summary: "a/b is blocked (question)"}},
		{"blocked no kind", ev("agent.status_changed", `{"status":"blocked","agent":{"path":"a"}}`),
			notify.Occurrence{Event: "blocked", Path: "a", Ref: "u1", Summary: "a is blocked (unknown)"}},
		{"blocked kind from the row", ev("agent.status_changed", `{"status":"blocked","agent":{"path":"a","blocked_kind":"limit"}}`),
			notify.Occurrence{Event: "blocked", Path: "a", Ref: "u1", Summary: "a is blocked (limit)"}},
		{"lost", ev("agent.status_changed", `{"status":"lost","agent":{"path":"a"}}`),
			notify.Occurrence{Event: "lost", Path: "a", Ref: "u1", Summary: "a is lost"}},
		{"idle", ev("agent.status_changed", `{"status":"idle","agent":{"path":"a"}}`), notify.Occurrence{}},
		{"ended", ev("agent.ended", `{"exit_reason":"completed","agent":{"path":"a"}}`),
			notify.Occurrence{Event: "ended", Path: "a", Ref: "u1", Summary: "a ended (completed)"}},
		{"stalled", ev("agent.stalled", `{"stalled":true,"agent":{"path":"a"}}`),
			notify.Occurrence{Event: "stalled", Path: "a", Ref: "u1", Summary: "a stalled: no progress"}},
		{"stall cleared", ev("agent.stalled", `{"stalled":false,"agent":{"path":"a"}}`), notify.Occurrence{}},
		{"run failed", ev("loop_run.ended", `{"status":"failed","run":{"path":"nightly/r12345","status":"failed"}}`),
			notify.Occurrence{Event: "loop_run.failed", Path: "nightly/r12345", Ref: "u1", Summary: "loop run nightly/r12345 failed"}},
		{"run timeout", ev("loop_run.ended", `{"status":"timeout","run":{"path":"n/r1"}}`),
			notify.Occurrence{Event: "loop_run.failed", Path: "n/r1", Ref: "u1", Summary: "loop run n/r1 timeout"}},
		{"run ok", ev("loop_run.ended", `{"status":"ok","run":{"path":"n/r1"}}`), notify.Occurrence{}},
		{"no path", ev("agent.ended", `{"exit_reason":"killed"}`), notify.Occurrence{}},
		{"other kind", ev("agent.created", `{"status":"queued","agent":{"path":"a"}}`), notify.Occurrence{}},
		{"bad payload", ev("agent.ended", `[1]`), notify.Occurrence{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := notify.Classify(tt.ev)
			if ok != (tt.want.Event != "") {
				t.Fatalf("Classify(%s %s): ok %v, want %v", tt.ev.Kind, tt.ev.Payload, ok, !ok)
			}
			if diff := cmp.Diff(tt.want, got); ok && diff != "" {
				t.Errorf("Classify(%s) mismatch (-want +got):\n%s", tt.ev.Payload, diff)
			}
		})
	}
}

func TestRulesTargets(t *testing.T) {
	rs, err := notify.Compile(config.Notify{Rules: []config.NotifyRule{
		{Events: []string{"blocked", "lost"}, Paths: []string{"team/**"}, Targets: []string{"hook", "desk"}},
		{Events: []string{"blocked"}, Paths: []string{"/ops/*", "solo"}, Targets: []string{"pager", "hook"}},
		{Events: []string{"ended", "loop_run.failed"}, Targets: []string{"log"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		event, path string
		want        []string
	}{
		{"blocked", "team/a", []string{"hook", "desk"}},
		{"blocked", "team/a/b/c", []string{"hook", "desk"}},
		{"blocked", "team", nil}, // ** is one or more segments
		{"lost", "team/x", []string{"hook", "desk"}},
		{"blocked", "ops/db", []string{"pager", "hook"}},
		{"blocked", "ops/db/x", nil},
		{"blocked", "solo", []string{"pager", "hook"}},
		{"lost", "solo", nil},
		{"ended", "anything/at/all", []string{"log"}},
		{"loop_run.failed", "nightly/r1", []string{"log"}},
		{"stalled", "team/a", nil},
	}
	for _, tt := range tests {
		got := rs.Targets(notify.Occurrence{Event: tt.event, Path: tt.path})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Targets(%s %s) mismatch (-want +got):\n%s", tt.event, tt.path, diff)
		}
	}
}

func TestDecide(t *testing.T) {
	p := notify.Policy{MaxAttempts: 5, Initial: time.Second, Max: 5 * time.Second}
	now := time.Unix(1000, 0)
	tests := []struct {
		name     string
		attempts int
		r        notify.Result
		want     notify.Step
	}{
		{"delivered", 1, notify.Result{}, notify.Step{Delivered: true}},
		{"first failure", 1, notify.Result{Err: "503"}, notify.Step{Retry: now.Add(time.Second), Err: "503"}},
		{"second failure doubles", 2, notify.Result{Err: "503"}, notify.Step{Retry: now.Add(2 * time.Second), Err: "503"}},
		{"third", 3, notify.Result{Err: "x"}, notify.Step{Retry: now.Add(4 * time.Second), Err: "x"}},
		{"capped", 4, notify.Result{Err: "x"}, notify.Step{Retry: now.Add(5 * time.Second), Err: "x"}},
		{"gives up at max", 5, notify.Result{Err: "x"}, notify.Step{Err: "gave up after 5 attempts: x"}},
		{"permanent", 1, notify.Result{Err: "HTTP 401", Permanent: true}, notify.Step{Err: "permanent: HTTP 401"}},
		{"delivered on the last", 5, notify.Result{}, notify.Step{Delivered: true}},
	}
	for _, tt := range tests {
		got := notify.Decide(p, tt.attempts, tt.r, now)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Decide(%s) mismatch (-want +got):\n%s", tt.name, diff)
		}
		if got.Failed() != (!tt.want.Delivered && tt.want.Retry.IsZero()) {
			t.Errorf("Decide(%s).Failed(): got %v", tt.name, got.Failed())
		}
	}
	// A large attempt count does not overflow the doubling.
	if d := notify.Backoff(notify.Policy{MaxAttempts: 1 << 30, Initial: time.Second, Max: time.Hour}, 1000); d != time.Hour {
		t.Errorf("Backoff(1000): got %v, want the cap", d)
	}
}

func TestSignVerify(t *testing.T) {
	body := []byte(`{"event":"blocked"}`)
	sig := notify.Sign("k", 1700000000, body)
	// HMAC-SHA256("k", "1700000000.{\"event\":\"blocked\"}"), computed independently.
	if want := "sha256=" + hmacHex("k", "1700000000."+string(body)); sig != want {
		t.Errorf("Sign: got %s, want %s", sig, want)
	}
	if !notify.Verify("k", "1700000000", body, sig) {
		t.Errorf("Verify of a good signature: false")
	}
	for _, bad := range []struct{ secret, ts, body string }{{"k2", "1700000000", string(body)}, {"k", "1700000001", string(body)}, {"k", "1700000000", `{}`}, {"k", "x", string(body)}} {
		if notify.Verify(bad.secret, bad.ts, []byte(bad.body), sig) {
			t.Errorf("Verify(%q, %q, %q): true, want false", bad.secret, bad.ts, bad.body)
		}
	}
}
