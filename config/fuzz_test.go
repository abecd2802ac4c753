package config_test

import (
	"errors"
	"testing"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// FuzzLoad feeds arbitrary config.json bytes to the loader (through [config.Parse], the
// part of Load after the file read): it must never panic, and must return either a
// config that satisfies the validation invariants or a config_invalid error.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `{"defaults":{"providers":{"claude":{"model":"opus"}}}}`,
		`{"concurrency":{"max":5,"claude":8}}`, `{"timings":{"gc_tick":"1h30m"}}`,
		`{"herdr":{"session":"default"}}`, `{"logs":{"max_files":4294967296}}`,
		`{"integrations":{"mock":{"submit_attempts":-0}}}`, `{"timing":{},"zz":1}`,
		`{"remote":{"listen":"127.0.0.1:1","heartbeat":"5s"}}`,
		`{"fleet":{"host":"a","hub":{"listen":"127.0.0.1:1"},"allow":["agent.ls"]}}`,
		`{"fleet":{"host":"b","url":"tls://n.example:4222","creds":"/c","ca":"/ca"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, warns, err := config.Parse(data, noEnv)
		if err != nil {
			if cfg != nil || warns != nil {
				t.Fatalf("Parse(%q): error %v with non-nil result", data, err)
			}
			if !wire.Is(err, wire.EnvironmentError, "config_invalid") {
				t.Fatalf("Parse(%q): got %v, want config_invalid", data, err)
			}
			return
		}
		if f := cfg.Fleet; f.On && (!config.ValidHost(f.Host) || (f.URL == "") == (f.Hub == nil)) {
			t.Errorf("Parse(%q): fleet accepted with host %q, url %q, hub %v", data, f.Host, f.URL, f.Hub)
		}
		if cfg.Concurrency.Max < 1 {
			t.Errorf("Parse(%q): Concurrency.Max %d < 1", data, cfg.Concurrency.Max)
		}
		for p, n := range cfg.Concurrency.Caps {
			if n < 1 {
				t.Errorf("Parse(%q): cap %q = %d < 1", data, p, n)
			}
		}
		for p, r := range cfg.Defaults.Providers {
			if r.Model == "" || r.Effort == "" {
				t.Errorf("Parse(%q): provider %q route %+v incomplete", data, p, r)
			}
		}
		if cfg.Logs.MaxBytes < 1 || cfg.Logs.MaxFiles < 1 {
			t.Errorf("Parse(%q): logs %+v below 1", data, cfg.Logs)
		}
		tm := cfg.Timings
		for _, d := range []int64{int64(tm.IdleAfter), int64(tm.KillAfter), int64(tm.GCTick), int64(tm.MaxStarting), int64(tm.AttachLeaseTTL), int64(tm.LoopTick), int64(tm.RunTermGrace)} {
			if d <= 0 {
				t.Errorf("Parse(%q): timings %+v not all positive", data, tm)
			}
		}
		if err := config.ValidSessionName(cfg.Herdr.Session); err != nil {
			t.Errorf("Parse(%q): accepted session %q: %v", data, cfg.Herdr.Session, err)
		}
	})
}

// FuzzParseDuration checks ParseDuration never panics, returns positive durations, and
// reports failures as *DurationError carrying the original value.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"5m", " 30s ", "0s", "1h30m", "1.5s", "-1s", "", "9223372036855ms", "7d", "05ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := config.ParseDuration(s)
		if err != nil {
			var de *config.DurationError
			if !errors.As(err, &de) || de.Value != s || de.Reason == "" {
				t.Fatalf("ParseDuration(%q): got error %#v, want *DurationError with the value", s, err)
			}
			return
		}
		if d <= 0 {
			t.Fatalf("ParseDuration(%q): got %v, want > 0", s, d)
		}
	})
}
