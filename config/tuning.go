package config

import (
	"math"
	"time"
)

// MockProvider is the test provider whose built-in tuning differs from the others.
const MockProvider = "mock"

// Tuning is a provider's resolved completion/submit tuning (docs/providers.md §2.1): the
// built-in values with any integrations.<provider> overrides applied.
type Tuning struct {
	FastTurnGrace              time.Duration // fast_turn_grace_ms
	IdleStable                 time.Duration // idle_stable_ms
	TranscriptSettle           time.Duration // transcript_settle_ms; 0 disables the transcript condition
	TranscriptFreshnessTimeout time.Duration // transcript_freshness_timeout_ms
	ShutdownGrace              time.Duration // shutdown_grace_ms
	SubmitReady                time.Duration // submit_ready_ms; 0 skips the readiness wait
	SubmitConfirm              time.Duration // submit_confirm_ms; 0 = no verification
	SubmitAttempts             int           // submit_attempts
	// SubmitEnterDelay is submit_enter_delay_ms: the pause between a delivery's typed
	// text and its Enter (docs/lifecycle.md §9.1), which a TUI that takes an Enter
	// arriving right behind a paste as part of it needs; 0 presses Enter at once.
	SubmitEnterDelay time.Duration
	// StallAfter is stall_after_ms: how long a working turn may show no progress before
	// it is marked stalled (docs/lifecycle.md §10.7); 0 turns the stall signal off. The
	// built-in value is timings.stall_after ([Config.TuningFor]).
	StallAfter time.Duration
	// GateSettle is gate_settle_ms: how long after a start is judged ready the screen
	// is still read for a login, trust or setup question before the first prompt is
	// typed (docs/lifecycle.md §9.2), for a TUI that draws its input box first and its
	// question a moment later; 0 reads it once.
	GateSettle time.Duration
}

// TuningOverride is one integrations.<provider> object of config.json. A nil field was
// absent from the file; a set field holds the non-negative integer given (milliseconds,
// or a count for SubmitAttempts).
type TuningOverride struct {
	FastTurnGraceMS              *int64
	IdleStableMS                 *int64
	TranscriptSettleMS           *int64
	TranscriptFreshnessTimeoutMS *int64
	ShutdownGraceMS              *int64
	SubmitReadyMS                *int64
	SubmitConfirmMS              *int64
	SubmitAttempts               *int64
	StallAfterMS                 *int64
	SubmitEnterDelayMS           *int64
	GateSettleMS                 *int64
}

// fields returns pointers to o's fields in integrationKeys order.
func (o *TuningOverride) fields() []**int64 {
	return []**int64{
		&o.FastTurnGraceMS, &o.IdleStableMS, &o.TranscriptSettleMS, &o.TranscriptFreshnessTimeoutMS,
		&o.ShutdownGraceMS, &o.SubmitReadyMS, &o.SubmitConfirmMS, &o.SubmitAttempts,
		&o.StallAfterMS, &o.SubmitEnterDelayMS, &o.GateSettleMS,
	}
}

// BuiltinTuning returns the built-in tuning of provider: the mock values for "mock",
// the claude/codex values for every other name (including unknown providers), but
// qwen's submit_confirm_ms and submit_attempts, 45000 and 24, opencode's
// submit_attempts, 0, and claude's gate_settle_ms, 2000 (0 for the others).
func BuiltinTuning(provider string) Tuning {
	if provider == MockProvider {
		return Tuning{
			FastTurnGrace:              1500 * time.Millisecond,
			IdleStable:                 1200 * time.Millisecond,
			TranscriptSettle:           0,
			TranscriptFreshnessTimeout: 3000 * time.Millisecond,
			ShutdownGrace:              400 * time.Millisecond,
			SubmitReady:                0,
			SubmitConfirm:              0,
			SubmitAttempts:             0,
			SubmitEnterDelay:           0,
			StallAfter:                 DefaultStallAfter,
		}
	}
	t := Tuning{
		FastTurnGrace:              2500 * time.Millisecond,
		IdleStable:                 2500 * time.Millisecond,
		TranscriptSettle:           1500 * time.Millisecond,
		TranscriptFreshnessTimeout: 15000 * time.Millisecond,
		ShutdownGrace:              5000 * time.Millisecond,
		SubmitReady:                8000 * time.Millisecond,
		SubmitConfirm:              20000 * time.Millisecond,
		SubmitAttempts:             6,
		SubmitEnterDelay:           1000 * time.Millisecond,
		StallAfter:                 DefaultStallAfter,
	}
	if provider == qwenProvider {
		// qwen drops what is typed before it reads its input, with its input box already
		// drawn; on a loaded machine that outlasted six re-deliveries and 20 s, and the
		// first prompt never reached it (docs/providers.md §12.3). It draws a prompt it
		// took at once, so typing again did not send one twice: more of them, for longer.
		t.SubmitConfirm, t.SubmitAttempts = 45*time.Second, 24
	}
	if provider == claudeProvider {
		// claude 2.1.328 started in its manual permission mode draws its input box and
		// then asks whether to make auto mode the default; on a loaded machine the
		// question came 150 ms after a screen that already read as ready, and longer
		// gaps let a prompt be typed into it (docs/providers.md §5.2).
		t.GateSettle = 2000 * time.Millisecond
	}
	if provider == opencodeProvider {
		// opencode takes a prompt out of its input box before it draws it in the
		// conversation, and under load the gap outlasts a confirmation poll: a prompt
		// that was never seen is not lost there, and typing it again sent it twice
		// (docs/providers.md §12.4). Bare Enters only, which its empty box ignores.
		t.SubmitAttempts = 0
	}
	return t
}

// The providers with a tuning of their own (docs/providers.md §5.2, §12.3, §12.4).
const (
	claudeProvider   = "claude"
	qwenProvider     = "qwen"
	opencodeProvider = "opencode"
)

// Apply returns t with the fields set in o replaced. Millisecond values too large for a
// time.Duration saturate at the maximum duration; SubmitAttempts is truncated to 32 bits
// as the reference does (docs/config.md §1.3).
func (o TuningOverride) Apply(t Tuning) Tuning {
	ms := func(p *int64, d *time.Duration) {
		if p == nil {
			return
		}
		if *p > math.MaxInt64/int64(time.Millisecond) {
			*d = time.Duration(math.MaxInt64)
			return
		}
		*d = time.Duration(*p) * time.Millisecond
	}
	ms(o.FastTurnGraceMS, &t.FastTurnGrace)
	ms(o.IdleStableMS, &t.IdleStable)
	ms(o.TranscriptSettleMS, &t.TranscriptSettle)
	ms(o.TranscriptFreshnessTimeoutMS, &t.TranscriptFreshnessTimeout)
	ms(o.ShutdownGraceMS, &t.ShutdownGrace)
	ms(o.SubmitReadyMS, &t.SubmitReady)
	ms(o.SubmitConfirmMS, &t.SubmitConfirm)
	ms(o.StallAfterMS, &t.StallAfter)
	ms(o.SubmitEnterDelayMS, &t.SubmitEnterDelay)
	ms(o.GateSettleMS, &t.GateSettle)
	if o.SubmitAttempts != nil {
		t.SubmitAttempts = int(uint32(*o.SubmitAttempts))
	}
	return t
}

// TuningFor returns the tuning of provider: [BuiltinTuning] with timings.stall_after as
// its StallAfter and the integrations.<provider> overrides of c applied. A declared
// provider without a transcript has transcript_settle_ms 0: there is no file to settle
// (docs/providers.md §11.3).
func (c *Config) TuningFor(provider string) Tuning {
	t := BuiltinTuning(provider)
	if p, ok := c.Providers[provider]; ok && p.Transcript.Format == TranscriptNone {
		t.TranscriptSettle = 0
	}
	if c.Timings.StallAfter > 0 {
		t.StallAfter = c.Timings.StallAfter
	}
	return c.Integrations[provider].Apply(t)
}
