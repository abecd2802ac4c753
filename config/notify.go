package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/api/wire/pathglob"
)

// Defaults and floors of the `notify` section (docs/notify.md §2).
const (
	DefaultNotifyMaxAttempts  = 10
	DefaultNotifyQueueLimit   = 10000
	DefaultNotifyRetryInitial = time.Second
	DefaultNotifyRetryMax     = 5 * time.Minute
	DefaultNotifyTimeout      = 10 * time.Second
	MinNotifyRetry            = 100 * time.Millisecond
	MinNotifyTimeout          = 100 * time.Millisecond
)

// Notify target types.
const (
	NotifyHerdr   = "herdr"
	NotifyWebhook = "webhook"
	NotifyCommand = "command"
)

// NotifyEvents are the rule event names, in the order docs/notify.md §3 lists them.
var NotifyEvents = []string{"blocked", "lost", "stalled", "loop_run.failed", "ended", "budget.warned", "budget.exceeded", "quota.warned"}

var (
	notifyKeys       = []string{"targets", "rules", "max_attempts", "queue_limit", "retry_initial", "retry_max"}
	notifyTypes      = []string{NotifyHerdr, NotifyWebhook, NotifyCommand}
	notifyTargetKeys = map[string][]string{
		NotifyHerdr:   {"type"},
		NotifyWebhook: {"type", "url", "secret", "timeout"},
		NotifyCommand: {"type", "argv", "timeout"},
	}
	notifyRuleKeys = []string{"events", "paths", "targets"}
)

// Notify is the `notify` section (docs/notify.md): where notifications go and which events
// send them. With no rule (or no section) the server runs no notifier.
type Notify struct {
	Targets      []NotifyTarget // by name
	Rules        []NotifyRule   // in file order
	MaxAttempts  int            // attempts per delivery before it is failed, >= 1
	QueueLimit   int            // pending deliveries per target; more are failed as dropped, >= 1
	RetryInitial time.Duration  // the first retry's delay; doubling up to RetryMax
	RetryMax     time.Duration
}

// NotifyTarget is one named target. Only the fields of its Type are set. Secret is never
// logged: the target's String and LogValue leave it out.
type NotifyTarget struct {
	Name    string
	Type    string        // herdr, webhook or command
	URL     string        // webhook: http or https URL
	Secret  string        // webhook: the HMAC key
	Argv    []string      // command: the program and its arguments (no shell)
	Timeout time.Duration // webhook, command: one attempt's bound
}

// String describes the target without its secret.
func (t NotifyTarget) String() string {
	switch t.Type {
	case NotifyWebhook:
		return t.Name + " (webhook " + RedactURL(t.URL) + ")"
	case NotifyCommand:
		return t.Name + " (command " + t.Argv[0] + ")"
	}
	return t.Name + " (" + t.Type + ")"
}

// LogValue logs the target as [NotifyTarget.String] does, never its secret.
func (t NotifyTarget) LogValue() slog.Value { return slog.StringValue(t.String()) }

// RedactURL is u without user info, query and fragment (they may hold tokens), for
// logs and errors.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "<invalid url>"
	}
	p.User, p.RawQuery, p.Fragment, p.ForceQuery = nil, "", "", false
	return p.String()
}

// NotifyRule sends the events it names, for paths matching one of Paths (none = every
// path), to each of Targets.
type NotifyRule struct {
	Events  []string // from NotifyEvents
	Paths   []string // whole-segment patterns (docs/cli.md §3.5), absolute; validated
	Targets []string // target names, each defined
}

// Target returns the target named name.
func (n Notify) Target(name string) (NotifyTarget, bool) {
	i := slices.IndexFunc(n.Targets, func(t NotifyTarget) bool { return t.Name == name })
	if i < 0 {
		return NotifyTarget{}, false
	}
	return n.Targets[i], true
}

// Enabled reports whether any rule is configured (the server then runs its notifier).
func (n Notify) Enabled() bool { return len(n.Rules) > 0 }

func defaultNotify() Notify {
	return Notify{
		MaxAttempts: DefaultNotifyMaxAttempts, QueueLimit: DefaultNotifyQueueLimit,
		RetryInitial: DefaultNotifyRetryInitial, RetryMax: DefaultNotifyRetryMax,
	}
}

func (l *loader) notify(obj map[string]any) error {
	l.unknown("notify", obj, notifyKeys)
	n := &l.cfg.Notify
	for _, k := range []struct {
		key string
		dst *int
	}{{"max_attempts", &n.MaxAttempts}, {"queue_limit", &n.QueueLimit}} {
		v, ok, err := intKey(obj, k.key, "notify."+k.key, max32)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if v < 1 {
			return invalid("notify." + k.key + " must be >= 1")
		}
		*k.dst = int(v)
	}
	for _, k := range []struct {
		key string
		dst *time.Duration
	}{{"retry_initial", &n.RetryInitial}, {"retry_max", &n.RetryMax}} {
		if err := l.floorDuration(obj, k.key, "notify."+k.key, MinNotifyRetry, k.dst); err != nil {
			return err
		}
	}
	if n.RetryMax < n.RetryInitial {
		return invalid("notify.retry_max must not be shorter than notify.retry_initial")
	}
	if v, ok := obj["targets"]; ok {
		targets, err := object(v, "notify.targets")
		if err != nil {
			return err
		}
		for _, name := range sortedKeys(targets) {
			t, err := l.notifyTarget(name, targets[name])
			if err != nil {
				return err
			}
			n.Targets = append(n.Targets, t)
		}
	}
	v, ok := obj["rules"]
	if !ok {
		return nil
	}
	rules, isArr := v.([]any)
	if !isArr {
		return invalid("`notify.rules` must be a JSON array")
	}
	for i, rv := range rules {
		r, err := l.notifyRule(i, rv)
		if err != nil {
			return err
		}
		n.Rules = append(n.Rules, r)
	}
	return nil
}

// floorDuration reads obj[key] as a duration of at least floor into dst.
func (l *loader) floorDuration(obj map[string]any, key, field string, floor time.Duration, dst *time.Duration) error {
	d, ok, err := durationKey(obj, key, field)
	if err != nil || !ok {
		return err
	}
	if d < floor {
		s, _ := obj[key].(string)
		return invalid(fmt.Sprintf("%s must be at least %s (got %q)", field, formatFloor(floor), strings.TrimSpace(s)))
	}
	*dst = d
	return nil
}

func validTargetName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (l *loader) notifyTarget(name string, v any) (NotifyTarget, error) {
	section := "notify.targets." + name
	if !validTargetName(name) {
		return NotifyTarget{}, invalid("notify target name `" + name + "` is not valid (use 1–64 of [a-z0-9_-])")
	}
	obj, err := object(v, section)
	if err != nil {
		return NotifyTarget{}, err
	}
	t := NotifyTarget{Name: name, Timeout: DefaultNotifyTimeout}
	typ, ok, err := stringKey(obj, "type", section+".type")
	if err != nil {
		return t, err
	}
	if !ok || !slices.Contains(notifyTypes, typ) {
		return t, invalid(section + ".type must be one of herdr, webhook, command")
	}
	t.Type = typ
	l.unknown(section, obj, notifyTargetKeys[typ])
	if typ != NotifyHerdr {
		if err := l.floorDuration(obj, "timeout", section+".timeout", MinNotifyTimeout, &t.Timeout); err != nil {
			return t, err
		}
	} else {
		t.Timeout = 0
	}
	switch typ {
	case NotifyWebhook:
		u, _, err := stringKey(obj, "url", section+".url")
		if err != nil {
			return t, err
		}
		p, perr := url.Parse(u)
		if u == "" || perr != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return t, invalid(section + ".url must be an http or https URL")
		}
		t.URL = u
		s, _, err := stringKey(obj, "secret", section+".secret")
		if err != nil {
			return t, err
		}
		if s == "" {
			return t, invalid(section + ".secret is required (the HMAC key of X-Orcr-Signature)")
		}
		t.Secret = s
	case NotifyCommand:
		argv, err := stringArray(obj, "argv", section+".argv")
		if err != nil {
			return t, err
		}
		if len(argv) == 0 || argv[0] == "" {
			return t, invalid(section + ".argv must name a program")
		}
		t.Argv = argv
	}
	return t, nil
}

func (l *loader) notifyRule(i int, v any) (NotifyRule, error) {
	section := fmt.Sprintf("notify.rules[%d]", i)
	obj, err := object(v, section)
	if err != nil {
		return NotifyRule{}, err
	}
	l.unknown(section, obj, notifyRuleKeys)
	var r NotifyRule
	if r.Events, err = stringArray(obj, "events", section+".events"); err != nil {
		return r, err
	}
	if len(r.Events) == 0 {
		return r, invalid(section + ".events must name at least one event")
	}
	for _, e := range r.Events {
		if !slices.Contains(NotifyEvents, e) {
			return r, invalid(section + ".events: unknown event `" + e + "` (use " + strings.Join(NotifyEvents, ", ") + ")")
		}
	}
	if r.Paths, err = stringArray(obj, "paths", section+".paths"); err != nil {
		return r, err
	}
	for _, p := range r.Paths {
		if _, err := pathglob.Compile("", p); err != nil {
			msg := err.Error()
			if pe, ok := wire.As(err); ok {
				msg = pe.Message
			}
			return r, invalid(section + ".paths: " + msg)
		}
	}
	if r.Targets, err = stringArray(obj, "targets", section+".targets"); err != nil {
		return r, err
	}
	if len(r.Targets) == 0 {
		return r, invalid(section + ".targets must name at least one target")
	}
	for _, t := range r.Targets {
		if _, ok := l.cfg.Notify.Target(t); !ok {
			return r, invalid(section + ".targets: no target `" + t + "` in notify.targets")
		}
	}
	return r, nil
}

// stringArray reads obj[key] as an array of strings; nil when absent.
func stringArray(obj map[string]any, key, field string) ([]string, error) {
	v, ok := obj[key]
	if !ok {
		return nil, nil
	}
	arr, isArr := v.([]any)
	if !isArr {
		return nil, invalid("`" + field + "` must be an array of strings")
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, isStr := e.(string)
		if !isStr {
			return nil, invalid("`" + field + "` must be an array of strings")
		}
		out = append(out, s)
	}
	return out, nil
}
