package config_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/config"
)

var standardTuning = config.Tuning{
	FastTurnGrace:              2500 * time.Millisecond,
	IdleStable:                 2500 * time.Millisecond,
	TranscriptSettle:           1500 * time.Millisecond,
	TranscriptFreshnessTimeout: 15000 * time.Millisecond,
	ShutdownGrace:              5000 * time.Millisecond,
	SubmitReady:                8000 * time.Millisecond,
	SubmitConfirm:              20000 * time.Millisecond,
	SubmitAttempts:             6,
	SubmitEnterDelay:           1000 * time.Millisecond,
	StallAfter:                 10 * time.Minute,
}

// claudeTuning is standardTuning with claude's gate_settle_ms (docs/providers.md §5.2):
// claude asks its auto-mode question a moment after drawing its input box.
var claudeTuning = func() config.Tuning {
	t := standardTuning
	t.GateSettle = 2000 * time.Millisecond
	return t
}()

var mockTuning = config.Tuning{
	FastTurnGrace:              1500 * time.Millisecond,
	IdleStable:                 1200 * time.Millisecond,
	TranscriptFreshnessTimeout: 3000 * time.Millisecond,
	ShutdownGrace:              400 * time.Millisecond,
	StallAfter:                 10 * time.Minute,
}

func TestBuiltinTuning(t *testing.T) {
	tests := []struct {
		provider string
		want     config.Tuning
	}{
		{"claude", claudeTuning},
		{"codex", standardTuning},
		{"gemini", standardTuning},
		{"", standardTuning},
		{"Mock", standardTuning},
		{"mock", mockTuning},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, config.BuiltinTuning(tt.provider)); diff != "" {
			t.Errorf("BuiltinTuning(%q) mismatch (-want +got):\n%s", tt.provider, diff)
		}
	}
}

func TestTuningFor(t *testing.T) {
	src := `{"integrations":{
		"claude":{"idle_stable_ms":100,"submit_attempts":0},
		"mock":{"transcript_settle_ms":50,"submit_attempts":4294967297},
		"codex":{"fast_turn_grace_ms":9223372036854775807},
		"gemini":{"fast_turn_grace_ms":1,"idle_stable_ms":2,"transcript_settle_ms":3,"transcript_freshness_timeout_ms":4,"shutdown_grace_ms":5,"submit_ready_ms":6,"submit_confirm_ms":7,"submit_attempts":8,"stall_after_ms":0,"submit_enter_delay_ms":9,"gate_settle_ms":10}
	},"timings":{"stall_after":"3m"}}`
	cfg, _, err := parse(t, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	claude := claudeTuning
	claude.IdleStable, claude.SubmitAttempts, claude.StallAfter = 100*time.Millisecond, 0, 3*time.Minute
	mock := mockTuning
	mock.TranscriptSettle, mock.SubmitAttempts, mock.StallAfter = 50*time.Millisecond, 1, 3*time.Minute // truncated to 32 bits
	codex := standardTuning
	codex.FastTurnGrace, codex.StallAfter = time.Duration(math.MaxInt64), 3*time.Minute // saturates
	gemini := config.Tuning{
		FastTurnGrace: 1 * time.Millisecond, IdleStable: 2 * time.Millisecond, TranscriptSettle: 3 * time.Millisecond,
		TranscriptFreshnessTimeout: 4 * time.Millisecond, ShutdownGrace: 5 * time.Millisecond,
		SubmitReady: 6 * time.Millisecond, SubmitConfirm: 7 * time.Millisecond, SubmitAttempts: 8,
		SubmitEnterDelay: 9 * time.Millisecond, GateSettle: 10 * time.Millisecond,
	}
	other := standardTuning
	other.StallAfter = 3 * time.Minute // timings.stall_after; gemini's stall_after_ms 0 turns it off
	tests := []struct {
		provider string
		want     config.Tuning
	}{
		{"claude", claude},
		{"mock", mock},
		{"codex", codex},
		{"gemini", gemini},
		{"other", other},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, cfg.TuningFor(tt.provider)); diff != "" {
			t.Errorf("TuningFor(%q) mismatch (-want +got):\n%s", tt.provider, diff)
		}
	}
	if diff := cmp.Diff(mockTuning, config.Default().TuningFor("mock")); diff != "" {
		t.Errorf("Default().TuningFor(mock) mismatch (-want +got):\n%s", diff)
	}
}

// opencode's delivery is confirmed by bare Enters only (docs/providers.md §12.4): a
// prompt it took and has not drawn yet must not be typed again. qwen, which drops what
// is typed before it reads its input (§12.3), gets more re-deliveries for longer. Every
// other value is the codex one, and claude's only other one its gate_settle_ms (§5.2).
func TestBuiltinTuningContractSubmit(t *testing.T) {
	def := config.BuiltinTuning("codex")
	if cl := config.BuiltinTuning("claude"); cl.GateSettle == 0 || def.GateSettle != 0 {
		t.Errorf("gate_settle_ms: claude %v, codex %v; want more than 0 and 0", cl.GateSettle, def.GateSettle)
	} else if cl.GateSettle = 0; cl != def {
		t.Errorf("claude's tuning %+v differs from codex's %+v beyond gate_settle_ms", cl, def)
	}
	oc, qw := config.BuiltinTuning("opencode"), config.BuiltinTuning("qwen")
	if oc.SubmitAttempts != 0 || def.SubmitAttempts == 0 {
		t.Fatalf("submit_attempts: opencode %d, codex %d; want 0 and more", oc.SubmitAttempts, def.SubmitAttempts)
	}
	if qw.SubmitAttempts <= def.SubmitAttempts || qw.SubmitConfirm <= def.SubmitConfirm {
		t.Errorf("qwen's submit %d in %v, want more than codex's %d in %v", qw.SubmitAttempts, qw.SubmitConfirm, def.SubmitAttempts, def.SubmitConfirm)
	}
	oc.SubmitAttempts = def.SubmitAttempts
	qw.SubmitAttempts, qw.SubmitConfirm = def.SubmitAttempts, def.SubmitConfirm
	if oc != def || qw != def {
		t.Errorf("opencode's tuning %+v or qwen's %+v differs from codex's %+v beyond their submit values", oc, qw, def)
	}
}
