package notify_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/notify"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
)

var delivery = store.Delivery{ID: "d-1", Event: "blocked", Body: []byte(`{"summary":"a is blocked (question)"}`)}

func TestWebhookSend(t *testing.T) {
	status := http.StatusNoContent
	var got *http.Request
	var gotBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, gotBody = r, must(io.ReadAll(r.Body))
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(status)
		io.WriteString(w, "nope")
	}))
	defer srv.Close()
	target := config.NotifyTarget{Name: "h", Type: "webhook", URL: srv.URL + "/hook?token=t0k", Secret: "s3cret", Timeout: 2 * time.Second}
	w := notify.NewWebhook(target, "orcr/test")
	w.Now = func() time.Time { return time.Unix(1700000000, 0) }
	if r := w.Send(context.Background(), delivery); r.Err != "" {
		t.Fatalf("Send to a 204 receiver: %+v", r)
	}
	h := got.Header
	if h.Get("X-Orcr-Delivery") != "d-1" || h.Get("X-Orcr-Event") != "blocked" || h.Get("X-Orcr-Timestamp") != "1700000000" ||
		h.Get("Content-Type") != "application/json" || h.Get("User-Agent") != "orcr/test" {
		t.Errorf("webhook headers: %v", h)
	}
	if !notify.Verify("s3cret", h.Get("X-Orcr-Timestamp"), gotBody, h.Get("X-Orcr-Signature")) || string(gotBody) != string(delivery.Body) {
		t.Errorf("webhook signature %q over %q does not verify", h.Get("X-Orcr-Signature"), gotBody)
	}
	// Every answer carries Retry-After: 7; only a 429's and a 503's is kept.
	for _, tt := range []struct {
		status     int
		permanent  bool
		retryAfter string
	}{{500, false, ""}, {503, false, "7"}, {429, false, "7"}, {408, false, ""}, {401, true, ""}, {410, true, ""}, {302, false, ""}} {
		status = tt.status
		r := w.Send(context.Background(), delivery)
		if r.Err == "" || r.Permanent != tt.permanent || !strings.HasPrefix(r.Err, "HTTP ") || r.RetryAfter != tt.retryAfter {
			t.Errorf("Send to a %d receiver: %+v, want an error, permanent %v, Retry-After %q", tt.status, r, tt.permanent, tt.retryAfter)
		}
	}
	// A dead receiver: the error names neither the URL's query nor the secret.
	srv.Close()
	r := w.Send(context.Background(), delivery)
	if r.Err == "" || r.Permanent || strings.Contains(r.Err, "t0k") || strings.Contains(r.Err, "s3cret") {
		t.Errorf("Send to a closed receiver: %+v", r)
	}
}

func TestWebhookTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	w := notify.NewWebhook(config.NotifyTarget{URL: srv.URL, Secret: "k", Timeout: 100 * time.Millisecond}, "orcr/test")
	if r := w.Send(context.Background(), delivery); r.Err != "no answer within 100ms" || r.Permanent {
		t.Errorf("Send to a receiver that never answers: %+v", r)
	}
}

func TestCommandSend(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	script := filepath.Join(dir, "notify.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ncat > \"$1\"\necho \"$ORCR_NOTIFY_EVENT $ORCR_NOTIFY_DELIVERY_ID\" >> \"$1\"\nexit \"${2:-0}\"\n"), 0o700)
	c := &notify.Command{Target: config.NotifyTarget{Argv: []string{script, out}, Timeout: 5 * time.Second}, Env: []string{"PATH=" + os.Getenv("PATH")}}
	if r := c.Send(context.Background(), delivery); r.Err != "" {
		t.Fatalf("Send: %+v", r)
	}
	if b, _ := os.ReadFile(out); string(b) != string(delivery.Body)+"blocked d-1\n" {
		t.Errorf("the command read %q", b)
	}
	c.Target.Argv = []string{script, out, "3"}
	if r := c.Send(context.Background(), delivery); !strings.Contains(r.Err, "exit status 3") || r.Permanent {
		t.Errorf("Send with exit 3: %+v", r)
	}
	// A command that outlives its timeout is killed with its whole group.
	c.Target = config.NotifyTarget{Argv: []string{"/bin/sh", "-c", "sleep 30 & sleep 30"}, Timeout: 200 * time.Millisecond}
	start := time.Now()
	if r := c.Send(context.Background(), delivery); !strings.Contains(r.Err, "did not finish within 200ms") {
		t.Errorf("Send of a hanging command: %+v", r)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a hanging command took %v to be given up", d)
	}
	c.Target = config.NotifyTarget{Argv: []string{filepath.Join(dir, "missing")}, Timeout: time.Second}
	if r := c.Send(context.Background(), delivery); r.Err == "" {
		t.Errorf("Send of a missing program: delivered")
	}
}

func TestHerdrSend(t *testing.T) {
	var title, body string
	answer := herdr.Notification{Shown: true, Reason: "shown"}
	h := &notify.Herdr{Notify: func(_ context.Context, ti, b string) (herdr.Notification, error) {
		title, body = ti, b
		return answer, nil
	}}
	if r := h.Send(context.Background(), delivery); r.Err != "" || title != "orcr: blocked" || body != "a is blocked (question)" {
		t.Errorf("Send: %+v title %q body %q", r, title, body)
	}
	answer = herdr.Notification{Reason: "disabled"}
	if r := h.Send(context.Background(), delivery); !r.Permanent || r.Err != "herdr did not show it: disabled" {
		t.Errorf("Send with toasts disabled: %+v", r)
	}
	answer = herdr.Notification{Reason: "no_foreground_client"}
	if r := h.Send(context.Background(), delivery); r.Permanent || r.Err == "" {
		t.Errorf("Send without a client: %+v", r)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
