package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
)

// Sender performs one attempt of a delivery. Send must return by the end of ctx and
// never panic on a failing target; the error text it returns is shown in server.status
// and the server log, so it never holds a secret (a URL's credentials or query, the
// HMAC key).
type Sender interface {
	Send(ctx context.Context, d store.Delivery) Result
}

// maxErrText bounds the error text kept per delivery.
const maxErrText = 300

func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxErrText {
		s = string(r[:maxErrText]) + "…"
	}
	return s
}

// Webhook POSTs the document to Target.URL with the headers of docs/notify.md §4.1. A
// 2xx answer is delivered; a 4xx other than 408 and 429 is permanent; any other status,
// and every transport error, is retried. Redirects are not followed. The Retry-After
// header of a 429 or 503 answer goes into [Result.RetryAfter].
type Webhook struct {
	Target    config.NotifyTarget
	Client    *http.Client     // nil: a client of its own
	Now       func() time.Time // nil: time.Now
	UserAgent string
}

// NewWebhook returns the webhook sender of t with its own client (no redirects).
func NewWebhook(t config.NotifyTarget, userAgent string) *Webhook {
	return &Webhook{Target: t, UserAgent: userAgent, Client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Send posts d once, bounded by Target.Timeout.
func (w *Webhook) Send(ctx context.Context, d store.Delivery) Result {
	ctx, cancel := context.WithTimeout(ctx, w.Target.Timeout)
	defer cancel()
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.Target.URL, bytes.NewReader(d.Body))
	if err != nil {
		return Result{Err: "bad request: " + transportErr(err), Permanent: true}
	}
	ts := now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", w.UserAgent)
	req.Header.Set(HeaderDelivery, d.ID)
	req.Header.Set(HeaderEvent, d.Event)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, Sign(w.Target.Secret, ts, d.Body))
	client := w.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return Result{Err: fmt.Sprintf("no answer within %s", w.Target.Timeout)}
		}
		return Result{Err: transportErr(err)}
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // let the connection be reused
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return Result{}
	}
	msg := clip(fmt.Sprintf("HTTP %d %s", resp.StatusCode, bytes.TrimSpace(snippet)))
	permanent := resp.StatusCode >= 400 && resp.StatusCode < 500 &&
		resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests
	r := Result{Err: msg, Permanent: permanent}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		r.RetryAfter = resp.Header.Get("Retry-After")
	}
	return r
}

// transportErr is err without the request URL net/http puts in front (it may carry
// credentials or a token in its query).
func transportErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return clip(err.Error())
}

// Command runs Target.Argv (no shell) with the document on stdin, bounded by
// Target.Timeout: exit status 0 is delivered, anything else retried. The program runs
// in its own process group, killed whole at the deadline. Env is its environment (the
// server's) plus ORCR_NOTIFY_EVENT and ORCR_NOTIFY_DELIVERY_ID.
type Command struct {
	Target config.NotifyTarget
	Env    []string
}

// Send runs the command once.
func (c *Command) Send(ctx context.Context, d store.Delivery) Result {
	ctx, cancel := context.WithTimeout(ctx, c.Target.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Target.Argv[0], c.Target.Argv[1:]...)
	cmd.Stdin = bytes.NewReader(d.Body)
	cmd.Env = append(append([]string(nil), c.Env...), "ORCR_NOTIFY_EVENT="+d.Event, "ORCR_NOTIFY_DELIVERY_ID="+d.ID)
	var stderr bytes.Buffer
	cmd.Stderr = &limitWriter{w: &stderr, n: 512}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case err == nil:
		return Result{}
	case ctx.Err() == context.DeadlineExceeded:
		return Result{Err: fmt.Sprintf("%s did not finish within %s", c.Target.Argv[0], c.Target.Timeout)}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return Result{Err: clip(fmt.Sprintf("%s: %s: %s", c.Target.Argv[0], ee.ProcessState, stderr.String()))}
	}
	return Result{Err: clip(err.Error())}
}

// limitWriter keeps the first n bytes written and discards the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// Herdr shows the delivery's summary with herdr's notification.show on the owned session
// (docs/herdr.md §6.9): the title "orcr: <event>", the summary as the body. shown is
// delivered; "disabled" (toasts off in the user's herdr config) is permanent; any other
// reason ("rate_limited", "busy", "no_foreground_client") and every error is retried.
type Herdr struct {
	Notify  func(ctx context.Context, title, body string) (herdr.Notification, error)
	Timeout time.Duration // one call's bound; 0: 15 s
}

// Send shows d once.
func (h *Herdr) Send(ctx context.Context, d store.Delivery) Result {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var doc Document
	summary := d.Event
	if err := json.Unmarshal(d.Body, &doc); err == nil && doc.Summary != "" {
		summary = doc.Summary
	}
	n, err := h.Notify(ctx, "orcr: "+d.Event, summary)
	switch {
	case err != nil:
		return Result{Err: clip("herdr: " + err.Error())}
	case n.Shown:
		return Result{}
	}
	return Result{Err: "herdr did not show it: " + n.Reason, Permanent: n.Reason == "disabled"}
}
