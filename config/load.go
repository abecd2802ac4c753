package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Known keys of each section, in the order docs/config.md §1.6 lists them (that order breaks
// ties between equally near suggestions).
var (
	topKeys      = []string{"defaults", "herdr", "concurrency", "timings", "logs", "integrations", "remote", "notify", "routing", "prices", "quota", "budgets", "providers", "retention", "fleet"}
	defaultsKeys = []string{"agent", "providers"}
	routeKeys    = []string{"model", "effort"}
	herdrKeys    = []string{"bin", "session"}
	timingsKeys  = []string{"idle_after", "kill_after", "gc_tick", "max_starting", "attach_lease_ttl", "loop_tick", "run_term_grace",
		"stall_after", "limit_backoff"}
	logsKeys        = []string{"max_bytes", "max_files"}
	integrationKeys = []string{
		"fast_turn_grace_ms", "idle_stable_ms", "transcript_settle_ms", "transcript_freshness_timeout_ms",
		"shutdown_grace_ms", "submit_ready_ms", "submit_confirm_ms", "submit_attempts", "stall_after_ms",
		"submit_enter_delay_ms", "gate_settle_ms",
	}
	routingKeys = []string{"fallback"}
)

// Integer limits: "32-bit" keys must fit in a uint32 (and in an int), the others in an
// int64.
const (
	max32 = min(math.MaxUint32, math.MaxInt)
	max64 = math.MaxInt64
)

// Load reads <home>/config.json and returns the configuration layered over [Default],
// the warnings produced (unknown keys, clamped caps; in processing order, without the
// "warning: " prefix) and the first validation error.
//
// A missing file means all defaults and no warnings. Any other read failure, and every
// validation failure, is a *wire.Error: environment_error with cause config_invalid and
// a message naming the offending key (docs/config.md §1.7). After parsing, a non-blank
// $ORCR_HERDR_SESSION (trimmed) replaces herdr.session without validation, and
// $ORCR_HERDR_BIN is recorded in [Config.HerdrBinEnv]. getenv is usually [os.Getenv];
// nil means os.Getenv. On error the config and warnings are nil.
func Load(home string, getenv func(string) string) (*Config, []string, error) {
	src, err := ReadSource(home)
	if err != nil {
		return nil, nil, err
	}
	return src.Load(getenv)
}

// MaxConfigBytes is the largest config.json [Load] reads (1 MiB; a real one is a few
// hundred bytes).
const MaxConfigBytes = 1 << 20

// errTooLarge is returned by readConfig for a file over MaxConfigBytes.
var errTooLarge = errors.New("larger than 1 MiB")

// readConfig reads path, which must be a regular file (a symlink is followed) of at most
// MaxConfigBytes. A device such as /dev/zero would otherwise be read without end and a
// FIFO would block the open until a writer appears, so the type is checked with stat
// before opening, and again with fstat on the descriptor (the path may have been
// replaced in between), which is opened non-blocking so that even a FIFO swapped in
// cannot hang.
func readConfig(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxConfigBytes {
		return nil, errTooLarge
	}
	return data, nil
}

// regular returns nil for a regular file and an error naming the type otherwise.
func regular(fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	kind := "a special file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return errors.New("not a regular file (" + kind + ")")
}

// Parse is [Load] for the bytes of a config.json that has already been read.
func Parse(data []byte, getenv func(string) string) (*Config, []string, error) {
	root, err := decodeJSON(data)
	if err != nil {
		return nil, nil, err
	}
	top, ok := root.(map[string]any)
	if !ok {
		return nil, nil, invalid("config.json must be a JSON object")
	}
	l := &loader{cfg: Default()}
	l.unknown("", top, topKeys)
	steps := []struct {
		key string
		fn  func(map[string]any) error
	}{
		{"defaults", l.defaults},
		{"herdr", l.herdr},
		{"concurrency", l.concurrency},
		{"timings", l.timings},
		{"logs", l.logs},
		{"integrations", l.integrations},
		{"remote", l.remote},
		{"notify", l.notify},
		{"routing", l.routing},
		{"prices", l.prices},
		{"quota", l.quota},
		{"budgets", l.budgets},
		{"providers", l.providers},
		{"retention", l.retention},
		{"fleet", l.fleet},
	}
	for _, s := range steps {
		v, present := top[s.key]
		if !present {
			continue
		}
		obj, err := object(v, s.key)
		if err != nil {
			return nil, nil, err
		}
		if err := s.fn(obj); err != nil {
			return nil, nil, err
		}
	}
	applyEnv(l.cfg, getenv)
	return l.cfg, l.warnings, nil
}

// decodeJSON parses strict JSON (one value, numbers kept as json.Number).
func decodeJSON(data []byte) (any, error) {
	bad := func(msg string) error { return invalid("config.json is not valid JSON: " + msg) }
	if !utf8.Valid(data) {
		return nil, bad("invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, bad("unexpected end of JSON input")
		}
		return nil, bad(err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(fmt.Sprintf("trailing data after the top-level value at offset %d", dec.InputOffset()))
	}
	return v, nil
}

// applyEnv applies the environment after parsing (docs/config.md §1.2, §1.4).
func applyEnv(cfg *Config, getenv func(string) string) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if s := strings.TrimSpace(getenv(EnvHerdrSession)); s != "" {
		cfg.Herdr.Session = s
	}
	cfg.HerdrBinEnv = getenv(EnvHerdrBin)
}

// invalid returns the config_invalid environment error.
func invalid(msg string) *wire.Error { return wire.Env(wire.CauseConfigInvalid, msg) }

// loader accumulates the config and the warnings while one file is processed.
type loader struct {
	cfg      *Config
	warnings []string
}

func (l *loader) warnf(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

// unknown warns about every key of obj not in known, in sorted key order. section is the
// qualified prefix ("" at top level).
func (l *loader) unknown(section string, obj map[string]any, known []string) {
	for _, k := range sortedKeys(obj) {
		if slices.Contains(known, k) {
			continue
		}
		q := qualify(section, k)
		if s, ok := Suggest(k, known); ok {
			l.warnf("unknown config key `%s` (did you mean `%s`?); ignoring", q, s)
		} else {
			l.warnf("unknown config key `%s`; ignoring", q)
		}
	}
}

func (l *loader) defaults(obj map[string]any) error {
	l.unknown("defaults", obj, defaultsKeys)
	if s, ok, err := stringKey(obj, "agent", "defaults.agent"); err != nil {
		return err
	} else if ok {
		l.cfg.Defaults.Agent = s
	}
	v, ok := obj["providers"]
	if !ok {
		return nil
	}
	provs, err := object(v, "defaults.providers")
	if err != nil {
		return err
	}
	for _, p := range sortedKeys(provs) {
		section := "defaults.providers." + p
		route, err := object(provs[p], section)
		if err != nil {
			return err
		}
		l.unknown(section, route, routeKeys)
		r := l.cfg.Defaults.Providers[p]
		if s, ok, err := stringKey(route, "model", section+".model"); err != nil {
			return err
		} else if ok {
			r.Model = s
		}
		if s, ok, err := stringKey(route, "effort", section+".effort"); err != nil {
			return err
		} else if ok {
			r.Effort = s
		}
		if strings.TrimSpace(r.Model) == "" || strings.TrimSpace(r.Effort) == "" {
			return invalid(section + " requires non-empty model and effort")
		}
		l.cfg.Defaults.Providers[p] = r
	}
	return nil
}

func (l *loader) herdr(obj map[string]any) error {
	l.unknown("herdr", obj, herdrKeys)
	if s, ok, err := stringKey(obj, "bin", "herdr.bin"); err != nil {
		return err
	} else if ok {
		l.cfg.Herdr.Bin = s
	}
	if s, ok, err := stringKey(obj, "session", "herdr.session"); err != nil {
		return err
	} else if ok {
		if err := ValidSessionName(s); err != nil {
			return err
		}
		l.cfg.Herdr.Session = s
	}
	return nil
}

// ValidSessionName checks an owned herdr session name: 1–64 characters of
// [A-Za-z0-9_.-], not "." or "..", and not "default" (docs/decisions.md D6: that name always
// means the user's default herdr session). The error is environment_error config_invalid.
func ValidSessionName(s string) error {
	if s == "default" {
		return invalid("herdr.session `default` is reserved for the user's default herdr session; choose another name")
	}
	ok := len(s) >= 1 && len(s) <= 64 && s != "." && s != ".."
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
	}
	if !ok {
		return invalid("herdr.session `" + s + "` is not a valid session name (use 1–64 letters, digits, `_`, `-`, `.`)")
	}
	return nil
}

func (l *loader) concurrency(obj map[string]any) error {
	maxCap := l.cfg.Concurrency.Max
	if n, ok, err := intKey(obj, "max", "concurrency.max", max32); err != nil {
		return err
	} else if ok {
		if n < 1 {
			return invalid("concurrency.max must be >= 1")
		}
		maxCap = int(n)
	}
	l.cfg.Concurrency.Max = maxCap
	if !slices.ContainsFunc(sortedKeys(obj), func(k string) bool { return k != "max" }) {
		return nil // only max (or nothing): the default seed stays, unclamped
	}
	caps := map[string]int{}
	for _, p := range sortedKeys(obj) {
		if p == "max" {
			continue
		}
		n, _, err := intKey(obj, p, "concurrency."+p, max32)
		if err != nil {
			return err
		}
		if n < 1 {
			return invalid("concurrency." + p + " must be >= 1")
		}
		if int(n) > maxCap {
			l.warnf("concurrency.%s (%d) exceeds concurrency.max (%d); clamping to %d", p, n, maxCap, maxCap)
			n = int64(maxCap)
		}
		caps[p] = int(n)
	}
	l.cfg.Concurrency.Caps = caps
	return nil
}

func (l *loader) timings(obj map[string]any) error {
	l.unknown("timings", obj, timingsKeys)
	t := &l.cfg.Timings
	fields := []*time.Duration{&t.IdleAfter, &t.KillAfter, &t.GCTick, &t.MaxStarting, &t.AttachLeaseTTL, &t.LoopTick, &t.RunTermGrace,
		&t.StallAfter, &t.LimitBackoff}
	floors := []time.Duration{MinIdleAfter, MinKillAfter, MinGCTick, MinMaxStarting, MinAttachLeaseTTL, MinLoopTick, MinRunTermGrace,
		MinStallAfter, MinLimitBackoff}
	for i, k := range timingsKeys {
		d, ok, err := durationKey(obj, k, "timings."+k)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if d < floors[i] {
			s, _ := obj[k].(string)
			return invalid(fmt.Sprintf("timings.%s must be at least %s (got %q)", k, formatFloor(floors[i]), strings.TrimSpace(s)))
		}
		*fields[i] = d
	}
	return nil
}

// formatFloor writes a floor in the config's own duration grammar (100ms, 1s, 5s).
func formatFloor(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
}

func (l *loader) logs(obj map[string]any) error {
	l.unknown("logs", obj, logsKeys)
	if n, ok, err := intKey(obj, "max_bytes", "logs.max_bytes", max64); err != nil {
		return err
	} else if ok {
		if n < 1 {
			return invalid("logs.max_bytes must be >= 1")
		}
		l.cfg.Logs.MaxBytes = n
	}
	if n, ok, err := intKey(obj, "max_files", "logs.max_files", max32); err != nil {
		return err
	} else if ok {
		if n < 1 {
			return invalid("logs.max_files must be >= 1")
		}
		l.cfg.Logs.MaxFiles = int(n)
	}
	return nil
}

func (l *loader) integrations(obj map[string]any) error {
	for _, p := range sortedKeys(obj) {
		section := "integrations." + p
		tun, err := object(obj[p], section)
		if err != nil {
			return err
		}
		l.unknown(section, tun, integrationKeys)
		var o TuningOverride
		fields := o.fields()
		for i, k := range integrationKeys {
			n, ok, err := intKey(tun, k, section+"."+k, max64)
			if err != nil {
				return err
			}
			if ok {
				*fields[i] = &n
			}
		}
		l.cfg.Integrations[p] = o
	}
	return nil
}

// routing reads the routing section (docs/config.md §1.3): fallback maps a provider to
// the provider its queued agents go to while it is paused at a usage limit
// (docs/lifecycle.md §7.6). Each value is a non-empty provider name other than its key.
func (l *loader) routing(obj map[string]any) error {
	l.unknown("routing", obj, routingKeys)
	v, ok := obj["fallback"]
	if !ok {
		return nil
	}
	fb, err := object(v, "routing.fallback")
	if err != nil {
		return err
	}
	for _, p := range sortedKeys(fb) {
		field := "routing.fallback." + p
		s, _, err := stringKey(fb, p, field)
		if err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			return invalid("`" + field + "` must name a provider")
		case s == p:
			return invalid("`" + field + "` must name another provider than `" + p + "`")
		}
		l.cfg.Routing.Fallback[p] = s
	}
	return nil
}

// object asserts v is a JSON object; name is the qualified key for the message.
func object(v any, name string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("`" + name + "` must be a JSON object")
	}
	return m, nil
}

// stringKey reads obj[key] as a string; ok is false when the key is absent.
func stringKey(obj map[string]any, key, field string) (s string, ok bool, err error) {
	v, present := obj[key]
	if !present {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, invalid("`" + field + "` must be a string")
	}
	return s, true, nil
}

// boolKey reads obj[key] as a boolean; ok is false when the key is absent.
func boolKey(obj map[string]any, key, field string) (b bool, ok bool, err error) {
	v, present := obj[key]
	if !present {
		return false, false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, false, invalid("`" + field + "` must be a boolean")
	}
	return b, true, nil
}

// intKey reads obj[key] as a non-negative JSON integer no larger than limit. Floats
// (even 5.0 or 1e3), negatives, strings and other types are "must be a non-negative
// integer"; an integer above limit is "is too large". ok is false when absent.
func intKey(obj map[string]any, key, field string, limit int64) (n int64, ok bool, err error) {
	v, present := obj[key]
	if !present {
		return 0, false, nil
	}
	num, isNum := v.(json.Number)
	if !isNum {
		return 0, false, invalid("`" + field + "` must be a non-negative integer")
	}
	digits := string(num)
	if rest, neg := strings.CutPrefix(digits, "-"); neg {
		if strings.Trim(rest, "0") != "" || rest == "" {
			return 0, false, invalid("`" + field + "` must be a non-negative integer")
		}
		digits = rest // -0 is zero
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false, invalid("`" + field + "` must be a non-negative integer")
	}
	u, perr := strconv.ParseUint(digits, 10, 64)
	if perr != nil || u > uint64(limit) {
		return 0, false, invalid("`" + field + "` is too large")
	}
	return int64(u), true, nil
}

// durationKey reads obj[key] as a duration string (§1.5); ok is false when absent.
func durationKey(obj map[string]any, key, field string) (time.Duration, bool, error) {
	s, ok, err := stringKey(obj, key, field)
	if err != nil || !ok {
		return 0, false, err
	}
	d, perr := ParseDuration(s)
	if perr != nil {
		return 0, false, invalid(field + ": " + perr.Error()).Wrap(perr)
	}
	return d, true, nil
}

// parsePositive parses a trimmed positive decimal int.
func parsePositive(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

func qualify(section, key string) string {
	if section == "" {
		return key
	}
	return section + "." + key
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
