package notify_test

import (
	"encoding/json"
	"math"
	"strings"
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
		{"quota warned", ev("quota.warned", `{"provider":"claude","account":"","window":"five_hour","used_percent":82,"resets_at":1796472000000,"warn_at":0.8}`),
			notify.Occurrence{Event: "quota.warned", Path: "claude", Ref: "u1",
				Summary: "claude quota window five_hour 82% used (quota.warn_at 80%), resets 2026-12-05T12:00:00Z"}},
		{"budget warned", ev("budget.warned", `{"budget":"fleet","scope":"2026-12-05","unit":"usd","spent":1.6,"limit":2,"agent":{"path":"a"}}`),
			notify.Occurrence{Event: "budget.warned", Path: "a", Ref: "u1", Summary: "a: budget fleet at 1.6 of 2 usd"}},
		{"budget exceeded", ev("budget.exceeded", `{"budget":"run:a","scope":"","unit":"tokens","spent":520,"limit":500,"agent":{"path":"a/b"}}`),
			notify.Occurrence{Event: "budget.exceeded", Path: "a/b", Ref: "u1",
				Summary: "a/b paused: budget run:a spent 520 of 500 tokens (orcr budget extend a/b --by …)"}},
		{"budget resumed", ev("budget.resumed", `{"budget":"fleet","scope":"","agent":{"path":"a"}}`), notify.Occurrence{}},
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

// retryNow is the fixed clock of the Retry-After tables: Sunday 1 March 2026, 12:00 UTC.
var retryNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"120", 2 * time.Minute, true},
		{"0", 0, true},
		{"007", 7 * time.Second, true},
		{" 7\t", 7 * time.Second, true},
		{"Sun, 01 Mar 2026 12:00:30 GMT", 30 * time.Second, true},  // IMF-fixdate
		{"Sunday, 01-Mar-26 12:00:20 GMT", 20 * time.Second, true}, // RFC 850
		{"Sun Mar  1 12:00:45 2026", 45 * time.Second, true},       // asctime
		{"Sun, 01 Mar 2026 11:59:00 GMT", 0, true},                 // past: now
		{"Thu, 01 Jan 1970 00:00:00 GMT", 0, true},                 // long past
		{"Fri, 31 Dec 9999 23:59:59 GMT", math.MaxInt64, true},     // Sub saturates
		{"9223372037", math.MaxInt64, true},                        // above the longest Duration in seconds
		{"9223372036", 9223372036 * time.Second, true},             // the largest that fits
		{"99999999999999999999999999999", math.MaxInt64, true},     // beyond int64
		{"", 0, false},
		{"   ", 0, false},
		{"-5", 0, false},
		{"+5", 0, false},
		{"1.5", 0, false},
		{"5s", 0, false},
		{"0x10", 0, false},
		{"soon", 0, false},
		{"1 2", 0, false},
		{"Sun, 01 Mar 2026 12:00:30", 0, false}, // no zone
		{"2026-03-01T12:00:30Z", 0, false},      // not an HTTP-date
		{"Sun, 32 Mar 2026 12:00:30 GMT", 0, false},
	}
	for _, tt := range tests {
		got, ok := notify.ParseRetryAfter(tt.in, retryNow)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseRetryAfter(%q): got %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// Decide with a Retry-After: the later of the backoff and the time asked for, never
// more than Max after now; a value that does not parse changes nothing.
func TestDecideRetryAfter(t *testing.T) {
	p := notify.Policy{MaxAttempts: 5, Initial: time.Second, Max: time.Minute}
	now := retryNow
	retry := func(d time.Duration) notify.Step { return notify.Step{Retry: now.Add(d), Err: "HTTP 429"} }
	tests := []struct {
		name       string
		attempts   int
		retryAfter string
		want       notify.Step
	}{
		{"seconds above the backoff", 1, "10", retry(10 * time.Second)},
		{"seconds below the backoff", 3, "2", retry(4 * time.Second)},
		{"zero", 2, "0", retry(2 * time.Second)},
		{"IMF-fixdate", 1, "Sun, 01 Mar 2026 12:00:30 GMT", retry(30 * time.Second)},
		{"RFC 850 date", 1, "Sunday, 01-Mar-26 12:00:20 GMT", retry(20 * time.Second)},
		{"asctime date", 1, "Sun Mar  1 12:00:45 2026", retry(45 * time.Second)},
		{"date in the past", 2, "Sun, 01 Mar 2026 11:00:00 GMT", retry(2 * time.Second)},
		{"above the cap", 1, "3600", retry(time.Minute)},
		{"date above the cap", 1, "Mon, 02 Mar 2026 12:00:00 GMT", retry(time.Minute)},
		{"huge seconds", 1, "99999999999999999999999", retry(time.Minute)},
		{"far date", 1, "Fri, 31 Dec 9999 23:59:59 GMT", retry(time.Minute)},
		{"negative", 1, "-30", retry(time.Second)},
		{"garbage", 2, "in a bit", retry(2 * time.Second)},
		{"fraction", 1, "1.5", retry(time.Second)},
		{"missing", 1, "", retry(time.Second)},
		{"still counts toward max_attempts", 5, "10", notify.Step{Err: "gave up after 5 attempts: HTTP 429"}},
	}
	for _, tt := range tests {
		got := notify.Decide(p, tt.attempts, notify.Result{Err: "HTTP 429", RetryAfter: tt.retryAfter}, now)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Decide(%s, attempt %d, Retry-After %q) mismatch (-want +got):\n%s", tt.name, tt.attempts, tt.retryAfter, diff)
		}
	}
	if got := notify.Decide(p, 1, notify.Result{RetryAfter: "10"}, now); !got.Delivered {
		t.Errorf("Decide(delivered with a Retry-After): got %+v, want delivered", got)
	}
	if got := notify.Decide(p, 1, notify.Result{Err: "HTTP 400", Permanent: true, RetryAfter: "10"}, now); got.Err != "permanent: HTTP 400" || !got.Failed() {
		t.Errorf("Decide(permanent with a Retry-After): got %+v, want failed", got)
	}
}

// FuzzParseRetryAfter: a receiver's Retry-After is outside input. Whatever it holds,
// the parser does not panic, never asks for a negative delay, takes every run of
// digits, and the retry Decide schedules from it is never before the backoff nor
// more than retry_max after the attempt.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{
		"0", "2", "120", " 7\t", "-5", "+5", "1.5", "5s", "", "soon", "99999999999999999999999", "9223372037",
		"Sun, 01 Mar 2026 12:00:30 GMT", "Sunday, 01-Mar-26 12:00:20 GMT", "Sun Mar  1 12:00:45 2026",
		"Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Sun, 32 Mar 2026 12:00:30 GMT",
	} {
		f.Add(s, uint8(1))
	}
	p := notify.Policy{MaxAttempts: 10, Initial: time.Second, Max: time.Minute}
	f.Fuzz(func(t *testing.T, v string, attempt uint8) {
		d, ok := notify.ParseRetryAfter(v, retryNow)
		if d < 0 || !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q): got %v, %v", v, d, ok)
		}
		if s := strings.Trim(v, " \t"); s != "" && strings.Trim(s, "0123456789") == "" && !ok {
			t.Fatalf("ParseRetryAfter(%q): digits not taken", v)
		}
		attempts := 1 + int(attempt)%(p.MaxAttempts-1)
		step := notify.Decide(p, attempts, notify.Result{Err: "HTTP 503", RetryAfter: v}, retryNow)
		wait := step.Retry.Sub(retryNow)
		if b := notify.Backoff(p, attempts); wait < b || wait > p.Max || ok && wait < min(d, p.Max) {
			t.Fatalf("Decide(attempt %d, Retry-After %q): retry after %v; backoff %v, asked %v (%v), cap %v", attempts, v, wait, b, d, ok, p.Max)
		}
	})
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
