// Package config resolves and secures orcr's home directory and loads
// <home>/config.json (docs/config.md §1–§2, docs/protocol.md §1.1–§1.3).
//
// [Load] layers the file over [Default], validating as it goes and stopping at the first
// error, which is always a *wire.Error with code environment_error and cause
// config_invalid. Unknown keys never fail; they come back as warning texts (without the
// "warning: " prefix the CLI adds). The configuration is read once: there is no reload.
package config

import (
	"os"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Default values of the config keys (docs/config.md §1.3).
const (
	DefaultAgent          = "claude"
	DefaultHerdrSession   = "orcr"
	DefaultConcurrencyMax = 25
	DefaultClaudeCap      = 10
	DefaultIdleAfter      = 5 * time.Minute
	DefaultKillAfter      = 10 * time.Minute
	DefaultGCTick         = 30 * time.Second
	DefaultMaxStarting    = 2 * time.Minute
	DefaultAttachLeaseTTL = 30 * time.Second
	DefaultLoopTick       = time.Second
	DefaultRunTermGrace   = 10 * time.Second
	DefaultStallAfter     = 10 * time.Minute
	DefaultLimitBackoff   = 15 * time.Minute
	DefaultLogMaxBytes    = 10 << 20
	DefaultLogMaxFiles    = 5
)

// Environment variables read by this package.
const (
	EnvHome           = "ORCR_HOME"
	EnvHerdrSession   = "ORCR_HERDR_SESSION"
	EnvHerdrBin       = "ORCR_HERDR_BIN"
	EnvEventRetention = "ORCR_EVENT_RETENTION"
)

// DefaultRetention is the number of events kept when $ORCR_EVENT_RETENTION is unset or
// invalid.
const DefaultRetention = 10000

// defaultHerdrBinArg is the name looked up on PATH when no herdr binary is configured.
const defaultHerdrBinArg = "herdr"

// Config is the parsed config.json layered over the defaults, plus the environment
// values this package records. A *Config returned by [Load] is not modified afterwards
// and may be shared read-only.
type Config struct {
	Defaults     Defaults
	Herdr        Herdr
	Concurrency  Concurrency
	Timings      Timings
	Logs         Logs
	Integrations map[string]TuningOverride // integrations.<provider>; never nil
	Remote       Remote
	Notify       Notify // notifications (docs/notify.md)
	Routing      Routing
	// Prices is the price table by model (docs/usage.md §3): the built-in prices with
	// the `prices` section over them; never nil.
	Prices map[string]Price
	// Quota is the `quota` section (docs/usage.md §7).
	Quota Quota
	// Budgets are the budget rules (docs/usage.md §7.1), in name order.
	Budgets []BudgetRule
	// Providers are the declared providers by name (docs/providers.md §11); never nil.
	Providers map[string]ProviderSpec
	// Retention is the `retention` section: when ended agents are forgotten
	// (docs/lifecycle.md §12.4).
	Retention Retention
	// Fleet is the `fleet` section: one fleet across hosts (docs/fleet.md §2); off
	// (On false) unless the section is present.
	Fleet Fleet

	// HerdrBinEnv is $ORCR_HERDR_BIN as seen by Load. It is not merged into Herdr.Bin:
	// see [Config.HerdrBin] for the discovery order.
	HerdrBinEnv string
}

// Defaults is the `defaults` section.
type Defaults struct {
	Agent     string           // provider used when a request has no agent; not validated here
	Providers map[string]Route // per-provider routing defaults; never nil
}

// Route is a provider's model and effort.
type Route struct {
	Model  string
	Effort string
}

// Herdr is the `herdr` section.
type Herdr struct {
	Bin     string // herdr binary; "" = $ORCR_HERDR_BIN, then PATH
	Session string // owned herdr session (possibly replaced by $ORCR_HERDR_SESSION)
}

// Concurrency is the `concurrency` section.
type Concurrency struct {
	Max  int            // global cap on slot-holding managed agents, >= 1
	Caps map[string]int // per-provider caps, each >= 1 (<= Max, except the unclamped default seed); never nil
}

// Minimum values of the timing keys: [Load] refuses anything shorter with
// config_invalid ("timings.gc_tick must be at least 100ms (got \"1ms\")"). The ticks
// run a loop each time (gc_tick: 1ms cost a quarter of a core), and the other timings
// lose their meaning below a second: an idle agent parked or a parked one reaped before
// anyone could look, a spawn failed before its pane can exist, a lease renewed every
// few milliseconds.
const (
	MinIdleAfter      = time.Second
	MinKillAfter      = time.Second
	MinGCTick         = 100 * time.Millisecond
	MinMaxStarting    = 5 * time.Second
	MinAttachLeaseTTL = time.Second
	MinLoopTick       = 100 * time.Millisecond
	MinRunTermGrace   = 100 * time.Millisecond
	MinStallAfter     = time.Second
	MinLimitBackoff   = time.Second
)

// Timings is the `timings` section; every value is at least its Min… floor.
type Timings struct {
	IdleAfter      time.Duration
	KillAfter      time.Duration
	GCTick         time.Duration
	MaxStarting    time.Duration
	AttachLeaseTTL time.Duration
	LoopTick       time.Duration
	RunTermGrace   time.Duration
	// StallAfter is how long a working turn may show no progress before it is marked
	// stalled (docs/lifecycle.md §10.7); integrations.<p>.stall_after_ms overrides it
	// per provider.
	StallAfter time.Duration
	// LimitBackoff is how long a provider stays paused at a usage limit whose reset
	// time could not be read (docs/lifecycle.md §7.6).
	LimitBackoff time.Duration
}

// Routing is the `routing` section.
type Routing struct {
	// Fallback maps a provider to the provider its queued agents are promoted as while
	// it is paused at a usage limit (docs/lifecycle.md §7.6); never nil.
	Fallback map[string]string
}

// Logs is the `logs` section.
type Logs struct {
	MaxBytes int64 // rotate when a log would grow past this many bytes, >= 1
	MaxFiles int   // rotated files kept (.1 … .N), >= 1
}

// Default returns the built-in configuration: what Load returns for a missing file with
// an empty environment.
func Default() *Config {
	return &Config{
		Defaults: Defaults{
			Agent: DefaultAgent,
			Providers: map[string]Route{
				"claude": {Model: "sonnet", Effort: "medium"},
				"codex":  {Model: "gpt-5.6-luna", Effort: "high"},
			},
		},
		Herdr: Herdr{Session: DefaultHerdrSession},
		Concurrency: Concurrency{
			Max:  DefaultConcurrencyMax,
			Caps: map[string]int{"claude": DefaultClaudeCap},
		},
		Timings: Timings{
			IdleAfter:      DefaultIdleAfter,
			KillAfter:      DefaultKillAfter,
			GCTick:         DefaultGCTick,
			MaxStarting:    DefaultMaxStarting,
			AttachLeaseTTL: DefaultAttachLeaseTTL,
			LoopTick:       DefaultLoopTick,
			RunTermGrace:   DefaultRunTermGrace,
			StallAfter:     DefaultStallAfter,
			LimitBackoff:   DefaultLimitBackoff,
		},
		Logs:         Logs{MaxBytes: DefaultLogMaxBytes, MaxFiles: DefaultLogMaxFiles},
		Integrations: map[string]TuningOverride{},
		Remote:       defaultRemote(),
		Notify:       defaultNotify(),
		Routing:      Routing{Fallback: map[string]string{}},
		Prices:       BuiltinPrices(),
		Quota:        Quota{PauseAt: DefaultQuotaPauseAt, WarnAt: DefaultQuotaWarnAt},
		Providers:    map[string]ProviderSpec{},
		Retention:    Retention{EndedFor: DefaultEndedFor, EndedMax: DefaultEndedMax},
	}
}

// ProviderCap returns the per-provider concurrency cap of provider, if one is set.
func (c *Config) ProviderCap(provider string) (int, bool) {
	n, ok := c.Concurrency.Caps[provider]
	return n, ok
}

// ResolveRoute applies the routing precedence of docs/config.md §1.4: a non-empty model or
// effort from the request wins, else defaults.providers.<provider>. When either is still
// empty the error is environment_error config_invalid ("no model configured for provider
// `<p>`; set defaults.providers.<p>.model", likewise for effort; model is checked
// first). It does not validate the values against the provider.
func (c *Config) ResolveRoute(provider, model, effort string) (Route, error) {
	def := c.Defaults.Providers[provider]
	r := Route{Model: model, Effort: effort}
	if r.Model == "" {
		r.Model = def.Model
	}
	if r.Effort == "" {
		r.Effort = def.Effort
	}
	if r.Model == "" {
		return Route{}, wire.Env(wire.CauseConfigInvalid,
			"no model configured for provider `"+provider+"`; set defaults.providers."+provider+".model", "provider", provider)
	}
	if r.Effort == "" {
		return Route{}, wire.Env(wire.CauseConfigInvalid,
			"no effort configured for provider `"+provider+"`; set defaults.providers."+provider+".effort", "provider", provider)
	}
	return r, nil
}

// HerdrBin returns the herdr binary to use and where it came from (docs/config.md §1.4):
// herdr.bin when non-empty ("herdr.bin"), else $ORCR_HERDR_BIN when non-empty
// ("ORCR_HERDR_BIN"), else "herdr" to be looked up on PATH ("PATH"). Only the first
// non-empty source is used; the caller checks that it is executable (for "PATH" via
// exec.LookPath) and reports environment_error herdr_missing otherwise.
func (c *Config) HerdrBin() (bin, source string) {
	switch {
	case c.Herdr.Bin != "":
		return c.Herdr.Bin, "herdr.bin"
	case c.HerdrBinEnv != "":
		return c.HerdrBinEnv, EnvHerdrBin
	default:
		return defaultHerdrBinArg, "PATH"
	}
}

// EventRetention returns the number of events kept for replay: $ORCR_EVENT_RETENTION
// when it is a positive integer (surrounding whitespace allowed), else 10000
// (docs/protocol.md §7.4). Invalid values are ignored. nil getenv means os.Getenv.
func EventRetention(getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	if n, ok := parsePositive(getenv(EnvEventRetention)); ok {
		return n
	}
	return DefaultRetention
}
