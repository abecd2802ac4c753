package config_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/config"
)

func TestParseNotify(t *testing.T) {
	src := `{"notify":{
		"targets":{
			"hook":{"type":"webhook","url":"https://u:p@example.com/h?token=x","secret":"s3cret","timeout":"2s"},
			"desk":{"type":"herdr"},
			"script":{"type":"command","argv":["/bin/notify","--quiet"]}},
		"rules":[
			{"events":["blocked","lost"],"paths":["team/**","/ops/*"],"targets":["hook","desk"]},
			{"events":["loop_run.failed","ended","stalled"],"targets":["script"],"extra":1}],
		"max_attempts":3,"queue_limit":50,"retry_initial":"200ms","retry_max":"1m"}}`
	cfg, warns, err := parse(t, src, nil)
	if err != nil {
		t.Fatalf("Parse(notify): %v", err)
	}
	want := config.Notify{
		Targets: []config.NotifyTarget{
			{Name: "desk", Type: "herdr"},
			{Name: "hook", Type: "webhook", URL: "https://u:p@example.com/h?token=x", Secret: "s3cret", Timeout: 2 * time.Second},
			{Name: "script", Type: "command", Argv: []string{"/bin/notify", "--quiet"}, Timeout: config.DefaultNotifyTimeout},
		},
		Rules: []config.NotifyRule{
			{Events: []string{"blocked", "lost"}, Paths: []string{"team/**", "/ops/*"}, Targets: []string{"hook", "desk"}},
			{Events: []string{"loop_run.failed", "ended", "stalled"}, Paths: nil, Targets: []string{"script"}},
		},
		MaxAttempts: 3, QueueLimit: 50, RetryInitial: 200 * time.Millisecond, RetryMax: time.Minute,
	}
	if diff := cmp.Diff(want, cfg.Notify); diff != "" {
		t.Errorf("Parse(notify) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"unknown config key `notify.rules[1].extra`; ignoring"}, warns); diff != "" {
		t.Errorf("Parse(notify) warnings (-want +got):\n%s", diff)
	}
	if !cfg.Notify.Enabled() {
		t.Errorf("Enabled: got false with two rules")
	}
	// The secret never reaches a log line or a description; neither do the URL's
	// credentials and query.
	hook, _ := cfg.Notify.Target("hook")
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("x", "target", hook)
	for _, s := range []string{b.String(), hook.String()} {
		if strings.Contains(s, "s3cret") || strings.Contains(s, "token") || strings.Contains(s, "u:p") {
			t.Errorf("target description leaks a secret: %q", s)
		}
	}
}

func TestParseNotifyDefaults(t *testing.T) {
	cfg, _, err := parse(t, `{}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := cfg.Notify
	if n.Enabled() || n.MaxAttempts != 10 || n.QueueLimit != 10000 || n.RetryInitial != time.Second || n.RetryMax != 5*time.Minute {
		t.Errorf("default notify: got %+v", n)
	}
}

func TestParseNotifyErrors(t *testing.T) {
	hook := `"h":{"type":"webhook","url":"https://x/","secret":"k"}`
	tests := []struct{ name, src, msg string }{
		{"not object", `{"notify":[]}`, "`notify` must be a JSON object"},
		{"targets type", `{"notify":{"targets":[]}}`, "`notify.targets` must be a JSON object"},
		{"bad name", `{"notify":{"targets":{"A b":{"type":"herdr"}}}}`, "notify target name `A b` is not valid (use 1–64 of [a-z0-9_-])"},
		{"no type", `{"notify":{"targets":{"x":{}}}}`, "notify.targets.x.type must be one of herdr, webhook, command"},
		{"bad type", `{"notify":{"targets":{"x":{"type":"email"}}}}`, "notify.targets.x.type must be one of herdr, webhook, command"},
		{"no url", `{"notify":{"targets":{"x":{"type":"webhook","secret":"k"}}}}`, "notify.targets.x.url must be an http or https URL"},
		{"ftp url", `{"notify":{"targets":{"x":{"type":"webhook","url":"ftp://h/","secret":"k"}}}}`, "notify.targets.x.url must be an http or https URL"},
		{"no secret", `{"notify":{"targets":{"x":{"type":"webhook","url":"http://h/"}}}}`, "notify.targets.x.secret is required (the HMAC key of X-Orcr-Signature)"},
		{"timeout floor", `{"notify":{"targets":{"x":{"type":"webhook","url":"http://h/","secret":"k","timeout":"10ms"}}}}`, `notify.targets.x.timeout must be at least 100ms (got "10ms")`},
		{"argv type", `{"notify":{"targets":{"x":{"type":"command","argv":"notify-send"}}}}`, "`notify.targets.x.argv` must be an array of strings"},
		{"argv empty", `{"notify":{"targets":{"x":{"type":"command","argv":[]}}}}`, "notify.targets.x.argv must name a program"},
		{"rules type", `{"notify":{"rules":{}}}`, "`notify.rules` must be a JSON array"},
		{"rule events", `{"notify":{"targets":{` + hook + `},"rules":[{"targets":["h"]}]}}`, "notify.rules[0].events must name at least one event"},
		{"rule event", `{"notify":{"targets":{` + hook + `},"rules":[{"events":["idle"],"targets":["h"]}]}}`, "notify.rules[0].events: unknown event `idle` (use blocked, lost, stalled, loop_run.failed, ended, budget.warned, budget.exceeded, quota.warned)"},
		{"rule path", `{"notify":{"targets":{` + hook + `},"rules":[{"events":["lost"],"paths":["a/b*"],"targets":["h"]}]}}`, `notify.rules[0].paths: invalid pattern segment "b*" in "a/b*": wildcards are whole segments ("*" or "**")`},
		{"rule no targets", `{"notify":{"rules":[{"events":["lost"]}]}}`, "notify.rules[0].targets must name at least one target"},
		{"rule unknown target", `{"notify":{"rules":[{"events":["lost"],"targets":["nope"]}]}}`, "notify.rules[0].targets: no target `nope` in notify.targets"},
		{"attempts", `{"notify":{"max_attempts":0}}`, "notify.max_attempts must be >= 1"},
		{"queue", `{"notify":{"queue_limit":-1}}`, "`notify.queue_limit` must be a non-negative integer"},
		{"retry floor", `{"notify":{"retry_initial":"1ms"}}`, `notify.retry_initial must be at least 100ms (got "1ms")`},
		{"retry order", `{"notify":{"retry_initial":"1m","retry_max":"1s"}}`, "notify.retry_max must not be shorter than notify.retry_initial"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parse(t, tt.src, nil)
			checkEnvErr(t, "Parse("+tt.src+")", err, "config_invalid", tt.msg)
		})
	}
}
