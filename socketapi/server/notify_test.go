package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/actors/notify"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// receiver is an httptest webhook receiver that verifies every request's signature,
// answers fails[i] for the i-th request (200 once the list runs out) and records what
// it took.
type receiver struct {
	t      *testing.T
	secret string
	srv    *httptest.Server

	mu         sync.Mutex
	failing    bool // answer 503 to everything
	fails      []int
	retryAfter string            // the Retry-After header of every failing answer ("" none)
	requests   []notify.Document // every request, signed correctly
	arrivals   []time.Time       // when each of them arrived
	accepted   map[string]int    // delivery id → times answered 200
}

func newReceiver(t *testing.T, secret string, fails ...int) *receiver {
	r := &receiver{t: t, secret: secret, fails: fails, accepted: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if !notify.Verify(r.secret, req.Header.Get(notify.HeaderTimestamp), body, req.Header.Get(notify.HeaderSignature)) {
		r.t.Errorf("webhook: bad signature %q over %q", req.Header.Get(notify.HeaderSignature), body)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var doc notify.Document
	if err := json.Unmarshal(body, &doc); err != nil || doc.DeliveryID != req.Header.Get(notify.HeaderDelivery) {
		r.t.Errorf("webhook: body %s (%v) does not carry the delivery id header %q", body, err, req.Header.Get(notify.HeaderDelivery))
	}
	r.mu.Lock()
	r.requests, r.arrivals = append(r.requests, doc), append(r.arrivals, time.Now())
	status := http.StatusOK
	if r.failing {
		status = http.StatusServiceUnavailable
	} else if len(r.fails) > 0 {
		status, r.fails = r.fails[0], r.fails[1:]
	}
	if status == http.StatusOK {
		r.accepted[doc.DeliveryID]++
	} else if r.retryAfter != "" {
		w.Header().Set("Retry-After", r.retryAfter)
	}
	r.mu.Unlock()
	w.WriteHeader(status)
}

// answerRetryAfter makes every failing answer carry Retry-After: v.
func (r *receiver) answerRetryAfter(v string) {
	r.mu.Lock()
	r.retryAfter = v
	r.mu.Unlock()
}

// arrivalTimes returns when each request arrived, in order.
func (r *receiver) arrivalTimes() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.arrivals...)
}

func (r *receiver) failAll(on bool) {
	r.mu.Lock()
	r.failing = on
	r.mu.Unlock()
}

func (r *receiver) snapshot() ([]notify.Document, map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	acc := map[string]int{}
	for k, v := range r.accepted {
		acc[k] = v
	}
	return append([]notify.Document(nil), r.requests...), acc
}

func notifyConfig(targets, rules string) string {
	return `{"notify": {"retry_initial": "100ms", "retry_max": "400ms", "max_attempts": 4,
		"targets": {` + targets + `}, "rules": [` + rules + `]}}`
}

func webhookTarget(name, url, secret string) string {
	return fmt.Sprintf(`%q: {"type": "webhook", "url": %q, "secret": %q, "timeout": "2s"}`, name, url+"/hook?token=t0k", secret)
}

func block(t *testing.T, c *socketapi.Client, path string) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	setAgent(t, c, id, path, "working")
	setAgent(t, c, id, path, "blocked", "blocked_kind", "question")
	return id
}

// targetStatus polls server.status until the named target satisfies ok (10 s).
func targetStatus(t *testing.T, c *socketapi.Client, name string, ok func(api.NotifyTargetStatus) bool) api.NotifyTargetStatus {
	t.Helper()
	var last api.NotifyTargetStatus
	poll.Eventually(t, 10*time.Second, "notify target "+name, func() bool {
		st, err := c.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range st.Notify {
			if n.Name == name {
				last = n
				return ok(n)
			}
		}
		return false
	}, func() string { return fmt.Sprintf("got %+v", last) })
	return last
}

func wantDelivered(n int64) func(api.NotifyTargetStatus) bool {
	return func(s api.NotifyTargetStatus) bool { return s.Delivered == n && s.Pending == 0 }
}

// A blocked agent under a matching path is posted, signed, to the webhook; a receiver
// that fails twice gets the same delivery (same id, same body) a third time and it is
// delivered once; an agent outside the rule's paths and an event no rule names send
// nothing.
func TestNotifyWebhookRetriedAndDelivered(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "s3cret", http.StatusServiceUnavailable, http.StatusInternalServerError)
	srv := sockettest.NewServer(t, sockettest.WithConfig(notifyConfig(webhookTarget("hook", rcv.srv.URL, "s3cret"),
		`{"events": ["blocked", "lost"], "paths": ["team/**"], "targets": ["hook"]}`)))
	c := srv.Client(t)
	block(t, c, "other/x") // no rule for this path
	id := block(t, c, "team/a")
	st := targetStatus(t, c, "hook", wantDelivered(1))
	reqs, accepted := rcv.snapshot()
	if len(reqs) != 3 || len(accepted) != 1 {
		t.Fatalf("receiver: got %d requests %v, want 3 attempts of one delivery", len(reqs), accepted)
	}
	for _, d := range reqs {
		if d.DeliveryID != reqs[0].DeliveryID || d.Event != "blocked" || d.Path != "team/a" || d.RefUUID != id ||
			d.Summary != "team/a is blocked (question)" || d.Target != "hook" {
			t.Errorf("delivery: got %+v", d)
		}
	}
	var frame struct {
		Kind   string `json:"kind"`
		Status string `json:"status"`
	}
	if json.Unmarshal(reqs[0].Data, &frame); frame.Kind != "agent.status_changed" || frame.Status != "blocked" {
		t.Errorf("delivery data: got %s", reqs[0].Data)
	}
	if st.Failed != 0 || st.LastError == nil || !strings.HasPrefix(*st.LastError, "HTTP 500") || st.LastDeliveredAt == nil {
		t.Errorf("server.status notify: got %+v", st)
	}
	if strings.Contains(*st.LastError, "t0k") || strings.Contains(*st.LastError, "s3cret") {
		t.Errorf("last_error leaks a secret: %q", *st.LastError)
	}
}

// A receiver answering 429 with Retry-After: 2 gets the next attempt no earlier than
// 2 s later, where the backoff alone (retry_initial 100 ms) would retry at once; the
// 200 it gives then delivers it, after two attempts.
func TestNotifyWebhookRetryAfter(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "s3cret", http.StatusTooManyRequests)
	rcv.answerRetryAfter("2")
	srv := sockettest.NewServer(t, sockettest.WithConfig(`{"notify": {"retry_initial": "100ms", "retry_max": "10s", "max_attempts": 4,
		"targets": {`+webhookTarget("hook", rcv.srv.URL, "s3cret")+`}, "rules": [{"events": ["blocked"], "targets": ["hook"]}]}}`))
	c := srv.Client(t)
	block(t, c, "a")
	st := targetStatus(t, c, "hook", wantDelivered(1))
	at := rcv.arrivalTimes()
	if len(at) != 2 {
		t.Fatalf("receiver: got %d requests, want 2 (the 429, then the 200)", len(at))
	}
	gap := at[1].Sub(at[0])
	t.Logf("second attempt %v after the first", gap.Round(time.Millisecond))
	if gap < 2*time.Second {
		t.Errorf("second attempt %v after a 429 with Retry-After: 2, want at least 2s", gap)
	}
	if st.LastError == nil || !strings.HasPrefix(*st.LastError, "HTTP 429") {
		t.Errorf("server.status notify: got %+v, want last_error HTTP 429", st)
	}
}

// A dead receiver: deliveries stay pending with a next attempt, then fail after
// max_attempts, visible in server.status, while commits go on undisturbed.
func TestNotifyDeadReceiver(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close() // connection refused from now on
	srv := sockettest.NewServer(t, sockettest.WithConfig(notifyConfig(webhookTarget("hook", dead, "k"),
		`{"events": ["blocked"], "targets": ["hook"]}`)))
	c := srv.Client(t)
	block(t, c, "a")
	pending := targetStatus(t, c, "hook", func(s api.NotifyTargetStatus) bool {
		return s.Pending == 1 && s.NextAttemptAt != nil && s.LastError != nil
	})
	if strings.Contains(*pending.LastError, "t0k") {
		t.Errorf("last_error leaks the URL's query: %q", *pending.LastError)
	}
	// The server keeps committing while the target is dead.
	start := time.Now()
	for i := range 20 {
		setAgent(t, c, uuid.Must(uuid.NewV7()).String(), fmt.Sprintf("busy/a%d", i), "working")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("20 commits beside a dead target took %v", d)
	}
	failed := targetStatus(t, c, "hook", func(s api.NotifyTargetStatus) bool { return s.Failed == 1 && s.Pending == 0 })
	if !strings.HasPrefix(*failed.LastError, "gave up after 4 attempts: ") || failed.NextAttemptAt != nil || failed.Delivered != 0 {
		t.Errorf("after max_attempts: got %+v", failed)
	}
}

// A delivery still pending when the server stops is delivered after the restart, once,
// with the delivery id and body it had.
func TestNotifyPendingSurvivesRestart(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "k")
	rcv.failAll(true)
	home := sockettest.TempHome(t)
	cfg := sockettest.WithConfig(`{"notify": {"retry_initial": "100ms", "retry_max": "200ms", "max_attempts": 1000,
		"targets": {` + webhookTarget("hook", rcv.srv.URL, "k") + `}, "rules": [{"events": ["blocked"], "targets": ["hook"]}]}}`)
	srv1 := sockettest.NewServer(t, sockettest.WithHome(home), cfg)
	c1 := srv1.Client(t)
	block(t, c1, "a")
	targetStatus(t, c1, "hook", func(s api.NotifyTargetStatus) bool { return s.Pending == 1 && s.LastError != nil })
	srv1.Stop()
	if err := srv1.Wait(); err != nil {
		t.Fatal(err)
	}
	rcv.failAll(false)
	srv2 := sockettest.NewServer(t, sockettest.WithHome(home), cfg)
	c2 := srv2.Client(t)
	targetStatus(t, c2, "hook", wantDelivered(1))
	block(t, c2, "b") // a new event after the restart goes out too
	targetStatus(t, c2, "hook", wantDelivered(2))
	reqs, accepted := rcv.snapshot()
	if len(accepted) != 2 {
		t.Fatalf("after the restart: accepted %v from %d requests, want both deliveries", accepted, len(reqs))
	}
	// a's delivery may be taken twice: an attempt the stop cut off after the receiver
	// read it is made again after the restart (at least once, docs/notify.md §5); b's,
	// made after the restart with nothing cutting it off, exactly once.
	for _, d := range reqs {
		if n := accepted[d.DeliveryID]; n == 0 || (d.Path == "b" && n != 1) {
			t.Errorf("delivery %s of %s accepted %d times, want once (a: at least once)", d.DeliveryID, d.Path, n)
		}
	}
	var first []notify.Document
	for _, d := range reqs {
		if d.Path == "a" {
			first = append(first, d)
		}
	}
	if len(first) < 2 || first[0].DeliveryID != first[len(first)-1].DeliveryID || first[0].Seq != first[len(first)-1].Seq {
		t.Errorf("the delivery of a: %+v, want the same id and event on every attempt, before and after the restart", first)
	}
}

// The command target runs a real script with the document on stdin.
func TestNotifyCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "got.jsonl")
	script := filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n{ cat; echo; } >> \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	argv, _ := json.Marshal([]string{script, out})
	srv := sockettest.NewServer(t, sockettest.WithConfig(notifyConfig(`"script": {"type": "command", "argv": `+string(argv)+`}`,
		`{"events": ["ended"], "paths": ["jobs/*"], "targets": ["script"]}`)))
	c := srv.Client(t)
	id := uuid.Must(uuid.NewV7()).String()
	setAgent(t, c, id, "jobs/one", "working")
	setAgent(t, c, id, "jobs/one", "ended")
	targetStatus(t, c, "script", wantDelivered(1))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc notify.Document
	if err := json.Unmarshal(b, &doc); err != nil || doc.Event != "ended" || doc.Path != "jobs/one" || doc.Summary != "jobs/one ended (killed)" {
		t.Errorf("the script read %s (%v)", b, err)
	}
}

// The herdr target shows a real blocked agent (the mock's block directive) on the owned
// session of the stand-in, playing a herdr whose config shows toasts.
func TestNotifyHerdrBlockedAgent(t *testing.T) {
	t.Parallel()
	toasts := filepath.Join(t.TempDir(), "toasts.jsonl")
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(notifyConfig(`"desk": {"type": "herdr"}`,
		`{"events": ["blocked"], "targets": ["desk"]}`)),
		sockettest.WithEnv("HERDR_STANDIN_TOASTS", "1"), sockettest.WithEnv("HERDR_STANDIN_TOAST_LOG", toasts))
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "ask/me", "prompt": "block"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, a.UUID, "blocked")
	targetStatus(t, c, "desk", wantDelivered(1))
	f, err := os.Open(toasts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []map[string]string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var m map[string]string
		json.Unmarshal(sc.Bytes(), &m)
		lines = append(lines, m)
	}
	if len(lines) != 1 || lines[0]["title"] != "orcr: blocked" || !strings.HasPrefix(lines[0]["body"], "ask/me is blocked (") {
		t.Errorf("toasts shown: %v", lines)
	}
}

// A turn that really stalls (the stall signal, docs/lifecycle.md §10.7) reaches a rule
// on `stalled` once: agent.stalled is delivered, agent.stall_cleared (its progress) is
// not a second notification (docs/notify.md).
func TestNotifyStalledAgent(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "s3cret")
	cfg := strings.TrimSuffix(notifyConfig(webhookTarget("hook", rcv.srv.URL, "s3cret"),
		`{"events": ["stalled"], "targets": ["hook"]}`), "}") +
		`, "timings": {"stall_after": "1s"}, "integrations": {"mock": {"idle_stable_ms": 300}}}`
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(cfg))
	c := srv.Client(t)
	// 2.5 s of silence (stalled after 1 s), 300 ms idle (progress clears it), 2.5 s more
	// silence (stalled again), then the end of the turn.
	a := runOK(t, c, map[string]any{"path": "st/one", "prompt": "say=late turn_ms=2500 tool_gaps=1 gap_ms=300"})
	st := targetStatus(t, c, "hook", func(s api.NotifyTargetStatus) bool { return s.Delivered >= 1 && s.Pending == 0 })
	reqs, _ := rcv.snapshot()
	if len(reqs) == 0 || reqs[0].Event != "stalled" || reqs[0].RefUUID != a.UUID || reqs[0].Path != "st/one" {
		t.Fatalf("deliveries: got %+v (status %+v), want a stalled one for st/one", reqs, st)
	}
	var frame struct {
		Kind string `json:"kind"`
	}
	for _, d := range reqs {
		if json.Unmarshal(d.Data, &frame); frame.Kind != "agent.stalled" {
			t.Errorf("a %s event was delivered to the stalled rule: %s", frame.Kind, d.Data)
		}
	}
}
