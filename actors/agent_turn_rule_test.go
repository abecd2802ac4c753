package actors

import (
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
)

// Times of the table: the row was created at tCreated, the open turn's input reached the
// pane at tDelivered; mock tuning (fast_turn_grace tGrace, idle_stable tStable, in ms).
const (
	tCreated   int64 = 1_800_000_000_000
	tDelivered       = tCreated + 60_000
	tGrace           = 1500
	tStable          = 1200
	tTick            = int64(MonitorTick / time.Millisecond)
)

func TestDecideTurn(t *testing.T) {
	mock := config.BuiltinTuning(config.MockProvider)
	if mock.FastTurnGrace != tGrace*time.Millisecond || mock.IdleStable != tStable*time.Millisecond {
		t.Fatalf("mock tuning changed (%+v): update the table's constants", mock)
	}
	// open is a working agent whose open turn was delivered at tDelivered, nothing seen yet.
	open := turnFacts{Status: "working", OpenSeq: 3, DeliveredAt: tDelivered, CreatedAt: tCreated}
	with := func(f turnFacts, edit func(*turnFacts)) turnFacts {
		edit(&f)
		return f
	}
	seen := with(open, func(f *turnFacts) { f.WorkingSeenAt = tDelivered + 300 })
	idleNoTurn := turnFacts{Status: "idle", IdleSince: tDelivered - 5000, CreatedAt: tCreated}
	rep := func(s herdr.Status, at int64) turnReport { return turnReport{Status: s, At: at} }
	// completion_seq (herdr ≥ 22): counting is open with a base of 4 read after Enter,
	// edged the same turn after the idle edge to 5 was taken into account.
	counting := with(open, func(f *turnFacts) { f.CompletionBase, f.CompletionSeen = counter{N: 4, Known: true}, 4 })
	edged := with(counting, func(f *turnFacts) { f.CompletionSeen = 5 })
	repN := func(s herdr.Status, at int64, n uint64) turnReport {
		return turnReport{Status: s, At: at, CompletionSeq: counter{N: n, Known: true}}
	}
	W, B, I, U := herdr.StatusWorking, herdr.StatusBlocked, herdr.StatusIdle, herdr.StatusUnknown
	probeMS := TranscriptProbeEvery.Milliseconds()

	tests := []struct {
		name   string
		facts  turnFacts
		report turnReport
		tuning *config.Tuning // nil: mock
		want   turnStep
	}{
		// Statuses the monitor does not decide on.
		{"starting: no decision", with(open, func(f *turnFacts) { f.Status = "starting" }), rep(W, tDelivered+100), nil,
			turnStep{Action: turnNone}},
		{"queued: no decision", turnFacts{Status: "queued", CreatedAt: tCreated}, rep(W, tDelivered), nil,
			turnStep{Action: turnNone}},
		{"ended: no decision even when stable", with(seen, func(f *turnFacts) { f.Status = "ended"; f.IdleSince = tDelivered + 500 }),
			rep(I, tDelivered+10_000), nil, turnStep{Action: turnNone, IdleSince: tDelivered + 500}},
		{"lost: no decision", with(open, func(f *turnFacts) { f.Status = "lost" }), rep(B, tDelivered+10_000), nil,
			turnStep{Action: turnNone}},

		// herdr unknown / done.
		{"unknown report changes nothing", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 500 }), rep(U, tDelivered+1000), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 500}},
		{"unexpected herdr status counts as unknown", seen, rep("sleeping", tDelivered+1000), nil,
			turnStep{Action: turnNone}},
		{"done counts as idle", seen, rep("done", tDelivered+1000), nil,
			turnStep{Action: turnStartIdle, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable}},

		// herdr working.
		{"working, open turn: first working seen", open, rep(W, tDelivered+200), nil,
			turnStep{Action: turnWorkingSeen}},
		{"working while working with working seen and no streak: nothing", seen, rep(W, tDelivered+5000), nil,
			turnStep{Action: turnNone}},
		{"working clears a running idle streak", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 900 }), rep(W, tDelivered+1000), nil,
			turnStep{Action: turnWorkingSeen}},
		{"working while idle with an open turn: back to working (M15)", with(seen, func(f *turnFacts) { f.Status = "idle" }), rep(W, tDelivered+1000), nil,
			turnStep{Action: turnWorkingSeen}},
		{"working while blocked: back to working (M15)", with(seen, func(f *turnFacts) { f.Status = "blocked" }), rep(W, tDelivered+1000), nil,
			turnStep{Action: turnWorkingSeen}},
		{"working report before delivery is working seen (as today)", open, rep(W, tDelivered-400), nil,
			turnStep{Action: turnWorkingSeen}},
		{"external turn: working with no open turn", idleNoTurn, rep(W, tDelivered), nil,
			turnStep{Action: turnExternal}},
		{"external turn from blocked with no open turn", turnFacts{Status: "blocked", CreatedAt: tCreated}, rep(W, tDelivered), nil,
			turnStep{Action: turnExternal}},
		{"external turn even while working with no open turn", turnFacts{Status: "working", CreatedAt: tCreated}, rep(W, tDelivered), nil,
			turnStep{Action: turnExternal}},

		// parked.
		{"parked + working: unpark first", with(idleNoTurn, func(f *turnFacts) { f.Status = "parked" }), rep(W, tDelivered), nil,
			turnStep{Action: turnUnpark, IdleSince: tDelivered - 5000}},
		{"parked + blocked: unpark first (Q3)", with(idleNoTurn, func(f *turnFacts) { f.Status = "parked" }), rep(B, tDelivered), nil,
			turnStep{Action: turnUnpark, IdleSince: tDelivered - 5000}},
		{"parked + blocked not armed: unpark anyway", with(open, func(f *turnFacts) { f.Status = "parked" }), rep(B, tDelivered+100), nil,
			turnStep{Action: turnUnpark}},
		{"parked + idle, no open turn: stays parked", with(idleNoTurn, func(f *turnFacts) { f.Status = "parked" }), rep(I, tDelivered), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered - 5000}},
		{"parked + idle with an open turn: idle rules", with(seen, func(f *turnFacts) { f.Status = "parked" }), rep(I, tDelivered+1000), nil,
			turnStep{Action: turnStartIdle, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable}},
		{"parked + unknown: nothing", with(idleNoTurn, func(f *turnFacts) { f.Status = "parked" }), rep(U, tDelivered), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered - 5000}},

		// herdr blocked.
		{"blocked within the grace, working not seen: previous turn's", open, rep(B, tDelivered+200), nil,
			turnStep{Action: turnNone, Recheck: tDelivered + tGrace}},
		{"blocked 1 ms before the grace ends: still the previous turn's", open, rep(B, tDelivered+tGrace-1), nil,
			turnStep{Action: turnNone, Recheck: tDelivered + tGrace}},
		{"blocked exactly when the grace ends: armed", open, rep(B, tDelivered+tGrace), nil,
			turnStep{Action: turnBlocked}},
		{"blocked after the grace", open, rep(B, tDelivered+tGrace+800), nil,
			turnStep{Action: turnBlocked}},
		{"blocked within the grace with working seen: armed", seen, rep(B, tDelivered+400), nil,
			turnStep{Action: turnBlocked}},
		{"blocked report before delivery: not armed", open, rep(B, tDelivered-300), nil,
			turnStep{Action: turnNone, Recheck: tDelivered + tGrace}},
		{"blocked with delivery unknown: armed at once (no created_at fallback)",
			with(open, func(f *turnFacts) { f.DeliveredAt = 0; f.CreatedAt = tDelivered }), rep(B, tDelivered+100), nil,
			turnStep{Action: turnBlocked}},
		{"blocked clears a running idle streak", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 500 }), rep(B, tDelivered+900), nil,
			turnStep{Action: turnBlocked}},
		{"blocked while blocked: nothing, the streak kept (as today)",
			with(seen, func(f *turnFacts) { f.Status = "blocked"; f.IdleSince = tDelivered + 500 }), rep(B, tDelivered+900), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 500}},
		{"blocked while blocked within the grace: no recheck", with(open, func(f *turnFacts) { f.Status = "blocked" }), rep(B, tDelivered+100), nil,
			turnStep{Action: turnNone}},
		{"blocked with no open turn: marks blocked", idleNoTurn, rep(B, tDelivered), nil,
			turnStep{Action: turnBlocked}},

		// herdr idle, no open turn.
		{"idle, no open turn: nothing, the streak kept", idleNoTurn, rep(I, tDelivered), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered - 5000}},
		{"idle, no open turn, no streak: none started", turnFacts{Status: "idle", CreatedAt: tCreated}, rep(I, tDelivered), nil,
			turnStep{Action: turnNone}},

		// herdr idle, working seen.
		{"idle starts a streak", seen, rep(I, tDelivered+1000), nil,
			turnStep{Action: turnStartIdle, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable}},
		{"idle streak running, not yet stable: nothing", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 1000 }), rep(I, tDelivered+1600), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable}},
		{"idle 1 ms before stable", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 1000 }), rep(I, tDelivered+1000+tStable-1), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable}},
		{"idle stable exactly at the threshold: candidate", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 1000 }), rep(I, tDelivered+1000+tStable), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable + tTick}},
		{"working seen: stable idle completes before the grace would end", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 10 }), rep(I, tDelivered+10+tStable), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 10, Recheck: tDelivered + 10 + tStable + tTick}},
		{"working seen: a streak long after the grace still completes", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 60_000 }), rep(I, tDelivered+60_000+tStable), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 60_000, Recheck: tDelivered + 60_000 + tStable + tTick}},
		{"idle_stable 0: the first idle is a candidate", seen, rep(I, tDelivered+1000), &config.Tuning{FastTurnGrace: tGrace * time.Millisecond},
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tTick}},

		// herdr idle, working not seen: the fast path.
		{"fast turn: streak from delivery, grace not over", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + 100 }), rep(I, tDelivered+1400), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 100, Recheck: tDelivered + tGrace}},
		{"fast turn: 1 ms before the grace ends", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + 100 }), rep(I, tDelivered+tGrace-1), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 100, Recheck: tDelivered + tGrace}},
		{"fast turn: exactly when the grace ends, stable: candidate", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + 100 }), rep(I, tDelivered+tGrace), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 100, Recheck: tDelivered + tGrace + tTick}},
		{"fast turn: grace over, streak not yet stable", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + 1000 }), rep(I, tDelivered+1600), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable}},
		{"fast turn: streak began exactly at the grace limit", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace }), rep(I, tDelivered+tGrace+tStable), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + tGrace, Recheck: tDelivered + tGrace + tStable + tTick}},
		{"streak began 1 ms after the grace, working not seen: never by time; the transcript is probed", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace + 1 }), rep(I, tDelivered+30_000), nil,
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + tGrace + 1, Recheck: tDelivered + 30_000 + probeMS}},
		{"the same, probed 1 ms ago: nothing until the next probe", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace + 1; f.ProbedAt = tDelivered + 29_999 }), rep(I, tDelivered+30_000), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + tGrace + 1, Recheck: tDelivered + 29_999 + probeMS}},
		{"the same, probed exactly one interval ago: probed again", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace + 1; f.ProbedAt = tDelivered + 30_000 - probeMS }), rep(I, tDelivered+30_000), nil,
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + tGrace + 1, Recheck: tDelivered + 30_000 + probeMS}},
		{"first idle after the grace, working not seen: the streak starts with a probe", open, rep(I, tDelivered+2000), nil,
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + 2000, Recheck: tDelivered + 2000 + probeMS}},
		{"idle since before delivery (idle before Enter) counts as held", with(open, func(f *turnFacts) { f.IdleSince = tDelivered - 800 }), rep(I, tDelivered+tGrace), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered - 800, Recheck: tDelivered + tGrace + tTick}},
		{"idle since before delivery, grace not over", with(open, func(f *turnFacts) { f.IdleSince = tDelivered - 800 }), rep(I, tDelivered+700), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered - 800, Recheck: tDelivered + tGrace}},
		{"idle report before delivery starts the streak", open, rep(I, tDelivered-300), nil,
			turnStep{Action: turnStartIdle, IdleSince: tDelivered - 300, Recheck: tDelivered + tGrace}},
		{"delivery unknown: the grace runs from created_at",
			with(open, func(f *turnFacts) { f.DeliveredAt = 0; f.IdleSince = tCreated + 100 }), rep(I, tCreated+tGrace), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tCreated + 100, Recheck: tCreated + tGrace + tTick}},
		{"delivery unknown, grace from created_at not over",
			with(open, func(f *turnFacts) { f.DeliveredAt = 0; f.IdleSince = tCreated + 100 }), rep(I, tCreated+tGrace-1), nil,
			turnStep{Action: turnNone, IdleSince: tCreated + 100, Recheck: tCreated + tGrace}},
		{"delivery unknown, streak long after created_at: never by time, probed",
			with(open, func(f *turnFacts) { f.DeliveredAt = 0 }), rep(I, tDelivered), nil,
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered, Recheck: tDelivered + probeMS}},
		{"fast_turn_grace 0: a streak from delivery completes once stable", with(open, func(f *turnFacts) { f.IdleSince = tDelivered }),
			rep(I, tDelivered+tStable), &config.Tuning{IdleStable: tStable * time.Millisecond},
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered, Recheck: tDelivered + tStable + tTick}},
		{"fast_turn_grace 0: a streak 1 ms after delivery never completes by time, probed", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + 1 }),
			rep(I, tDelivered+tStable+1), &config.Tuning{IdleStable: tStable * time.Millisecond},
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + 1, Recheck: tDelivered + tStable + 1 + probeMS}},

		// gc immediate and public statuses other than working.
		{"immediate: same timing rules, candidate", with(seen, func(f *turnFacts) { f.Immediate = true; f.IdleSince = tDelivered + 1000 }),
			rep(I, tDelivered+1000+tStable), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable + tTick}},
		{"immediate fast turn: the grace still applies", with(open, func(f *turnFacts) { f.Immediate = true; f.IdleSince = tDelivered + 100 }),
			rep(I, tDelivered+1400), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 100, Recheck: tDelivered + tGrace}},
		{"blocked, working seen, stable idle: candidate (flips to idle)", with(seen, func(f *turnFacts) { f.Status = "blocked"; f.IdleSince = tDelivered + 2000 }),
			rep(I, tDelivered+2000+tStable), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 2000, Recheck: tDelivered + 2000 + tStable + tTick}},
		{"blocked, no working seen, fast path: candidate (status stays blocked)", with(open, func(f *turnFacts) { f.Status = "blocked"; f.IdleSince = tDelivered + 100 }),
			rep(I, tDelivered+tGrace), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 100, Recheck: tDelivered + tGrace + tTick}},
		{"idle public status with an open turn: idle rules", with(seen, func(f *turnFacts) { f.Status = "idle" }), rep(I, tDelivered+1000), nil,
			turnStep{Action: turnStartIdle, IdleSince: tDelivered + 1000, Recheck: tDelivered + 1000 + tStable}},

		// Restart re-arm (§10.5): working/blocked rows lose idle_since, open turns keep working_seen_at.
		{"restart re-arm: working seen long ago, a fresh streak is needed", seen, rep(I, tDelivered+3_600_000), nil,
			turnStep{Action: turnStartIdle, IdleSince: tDelivered + 3_600_000, Recheck: tDelivered + 3_600_000 + tStable}},
		{"restart re-arm: the fresh streak completes once stable", with(seen, func(f *turnFacts) { f.IdleSince = tDelivered + 3_600_000 }),
			rep(I, tDelivered+3_600_000+tStable), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 3_600_000, Recheck: tDelivered + 3_600_000 + tStable + tTick}},
		{"restart re-arm: blocked row, fresh streak", with(seen, func(f *turnFacts) { f.Status = "blocked" }), rep(I, tDelivered+3_600_000), nil,
			turnStep{Action: turnStartIdle, IdleSince: tDelivered + 3_600_000, Recheck: tDelivered + 3_600_000 + tStable}},
		{"restart re-arm: working never seen, the fast path is closed: the transcript is probed (defect 5)", open, rep(I, tDelivered+3_600_000), nil,
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + 3_600_000, Recheck: tDelivered + 3_600_000 + probeMS}},
		{"restart re-arm: the probe found the turn's work: working seen, the fresh streak completes once stable",
			with(open, func(f *turnFacts) {
				f.IdleSince = tDelivered + 3_600_000
				f.WorkingSeenAt = tDelivered + 900
				f.ProbedAt = tDelivered + 3_600_000
			}),
			rep(I, tDelivered+3_600_000+tStable), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 3_600_000, Recheck: tDelivered + 3_600_000 + tStable + tTick}},

		// completion_seq: off without a base, as without the field.
		{"completion_seq, no base (older herdr, a restart): a higher count changes nothing",
			with(open, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace + 1 }), repN(I, tDelivered+30_000, 9), nil,
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + tGrace + 1, Recheck: tDelivered + 30_000 + probeMS}},
		{"completion_seq, no base: the fast path as without it", with(open, func(f *turnFacts) { f.IdleSince = tDelivered + 100 }),
			repN(I, tDelivered+1400, 9), nil, turnStep{Action: turnNone, IdleSince: tDelivered + 100, Recheck: tDelivered + tGrace}},
		{"completion_seq, base known but the report lacks the field: as without it",
			with(counting, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace + 1 }), rep(I, tDelivered+30_000), nil,
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + tGrace + 1, Recheck: tDelivered + 30_000 + probeMS}},
		{"completion_seq equal to the base: no edge", with(counting, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace + 1 }),
			repN(I, tDelivered+30_000, 4), nil, turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + tGrace + 1, Recheck: tDelivered + 30_000 + probeMS}},
		{"completion_seq below the base (herdr's counter restarted): no edge",
			with(counting, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace + 1 }), repN(I, tDelivered+30_000, 2), nil,
			turnStep{Action: turnProbeTranscript, IdleSince: tDelivered + tGrace + 1, Recheck: tDelivered + 30_000 + probeMS}},

		// completion_seq: an idle edge restarts the streak and counts like working seen.
		{"idle edge after the fast path closed: the streak restarts at the edge",
			with(counting, func(f *turnFacts) { f.IdleSince = tDelivered + tGrace + 1 }), repN(I, tDelivered+30_000, 5), nil,
			turnStep{Action: turnIdleEdge, IdleSince: tDelivered + 30_000, Recheck: tDelivered + 30_000 + tStable, CompletionSeen: 5}},
		{"idle edge on the first idle report: the streak starts at it", counting, repN(I, tDelivered+400, 5), nil,
			turnStep{Action: turnIdleEdge, IdleSince: tDelivered + 400, Recheck: tDelivered + 400 + tStable, CompletionSeen: 5}},
		{"idle edge seen, working not seen: 1 ms before stable, nothing", with(edged, func(f *turnFacts) { f.IdleSince = tDelivered + 30_000 }),
			repN(I, tDelivered+30_000+tStable-1, 5), nil,
			turnStep{Action: turnNone, IdleSince: tDelivered + 30_000, Recheck: tDelivered + 30_000 + tStable}},
		{"idle edge seen, working not seen: a stable streak is a candidate though the fast path closed",
			with(edged, func(f *turnFacts) { f.IdleSince = tDelivered + 30_000 }), repN(I, tDelivered+30_000+tStable, 5), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 30_000, Recheck: tDelivered + 30_000 + tStable + tTick}},
		{"idle edge seen inside the grace window: a candidate once stable, before the grace ends",
			with(edged, func(f *turnFacts) { f.IdleSince = tDelivered + 100 }), repN(I, tDelivered+100+tStable, 5), nil,
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 100, Recheck: tDelivered + 100 + tStable + tTick}},
		{"an edge while a stable streak runs restarts it (later, never earlier)",
			with(seen, func(f *turnFacts) {
				f.CompletionBase, f.CompletionSeen, f.IdleSince = counter{N: 4, Known: true}, 4, tDelivered+1000
			}),
			repN(I, tDelivered+1000+tStable, 5), nil,
			turnStep{Action: turnIdleEdge, IdleSince: tDelivered + 1000 + tStable, Recheck: tDelivered + 1000 + 2*tStable, CompletionSeen: 5}},
		{"a second edge restarts the streak again", with(edged, func(f *turnFacts) { f.IdleSince = tDelivered + 30_000 }),
			repN(I, tDelivered+30_500, 7), nil,
			turnStep{Action: turnIdleEdge, IdleSince: tDelivered + 30_500, Recheck: tDelivered + 30_500 + tStable, CompletionSeen: 7}},
		{"idle_stable 0: an edge restarts the streak with no recheck", counting, repN(I, tDelivered+400, 5),
			&config.Tuning{FastTurnGrace: tGrace * time.Millisecond},
			turnStep{Action: turnIdleEdge, IdleSince: tDelivered + 400, CompletionSeen: 5}},
		{"idle_stable 0: once the edge is taken into account, a candidate", with(edged, func(f *turnFacts) { f.IdleSince = tDelivered + 400 }),
			repN(I, tDelivered+400, 5), &config.Tuning{FastTurnGrace: tGrace * time.Millisecond},
			turnStep{Action: turnCompleteCandidate, IdleSince: tDelivered + 400, Recheck: tDelivered + 400 + tTick}},
		{"parked with an open turn: an edge restarts the streak", with(counting, func(f *turnFacts) { f.Status = "parked" }),
			repN(I, tDelivered+400, 5), nil,
			turnStep{Action: turnIdleEdge, IdleSince: tDelivered + 400, Recheck: tDelivered + 400 + tStable, CompletionSeen: 5}},

		// completion_seq: reports other than idle on an open turn are decided as without it.
		{"a higher count on a working report: working seen, as without it", counting, repN(W, tDelivered+200, 5), nil,
			turnStep{Action: turnWorkingSeen}},
		{"a higher count on a blocked report inside the grace: still the previous turn's", counting, repN(B, tDelivered+200, 5), nil,
			turnStep{Action: turnNone, Recheck: tDelivered + tGrace}},
		{"a higher count on an unknown report: nothing", with(edged, func(f *turnFacts) { f.IdleSince = tDelivered + 500 }),
			repN(U, tDelivered+1000, 9), nil, turnStep{Action: turnNone, IdleSince: tDelivered + 500}},
		{"a higher count with no open turn: nothing",
			with(idleNoTurn, func(f *turnFacts) { f.CompletionBase, f.CompletionSeen = counter{N: 4, Known: true}, 4 }),
			repN(I, tDelivered, 9), nil, turnStep{Action: turnNone, IdleSince: tDelivered - 5000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tun := mock
			if tt.tuning != nil {
				tun = *tt.tuning
			}
			got := decideTurn(tt.facts, tt.report, tun)
			if got != tt.want {
				t.Errorf("decideTurn(%+v, %+v): got %s, want %s", tt.facts, tt.report, fmtStep(got), fmtStep(tt.want))
			}
			if again := decideTurn(tt.facts, tt.report, tun); again != got {
				t.Errorf("decideTurn is not idempotent: got %s, then %s", fmtStep(got), fmtStep(again))
			}
		})
	}
}

func fmtStep(s turnStep) string {
	rel := func(ms int64) string {
		if ms == 0 {
			return "0"
		}
		return "delivered" + time.Duration((ms-tDelivered)*int64(time.Millisecond)).String()
	}
	seen := ""
	if s.CompletionSeen != 0 {
		seen = " completion_seen=" + strconv.FormatUint(s.CompletionSeen, 10)
	}
	return "{" + s.Action.String() + " idle_since=" + rel(s.IdleSince) + " recheck=" + rel(s.Recheck) + seen + "}"
}

func TestTurnCompletionFlipsIdle(t *testing.T) {
	tests := []struct {
		name  string
		facts turnFacts
		want  bool
	}{
		{"working", turnFacts{Status: "working", OpenSeq: 1}, true},
		{"working, working seen", turnFacts{Status: "working", OpenSeq: 1, WorkingSeenAt: 5}, true},
		{"blocked, working seen (Q2: our decision)", turnFacts{Status: "blocked", OpenSeq: 1, WorkingSeenAt: 5}, true},
		{"blocked, working not seen", turnFacts{Status: "blocked", OpenSeq: 1}, false},
		{"idle", turnFacts{Status: "idle", OpenSeq: 1, WorkingSeenAt: 5}, false},
		{"parked", turnFacts{Status: "parked", OpenSeq: 1, WorkingSeenAt: 5}, false},
		{"immediate: ends instead", turnFacts{Status: "working", OpenSeq: 1, WorkingSeenAt: 5, Immediate: true}, false},
	}
	for _, tt := range tests {
		if got := turnCompletionFlipsIdle(tt.facts); got != tt.want {
			t.Errorf("%s: turnCompletionFlipsIdle(%+v): got %v, want %v", tt.name, tt.facts, got, tt.want)
		}
	}
}

// applyTurnStep is what a caller does with a step, in memory: the facts after it.
func applyTurnStep(f turnFacts, s turnStep, r turnReport) turnFacts {
	switch s.Action {
	case turnStartIdle:
		f.IdleSince = s.IdleSince
	case turnWorkingSeen:
		if f.WorkingSeenAt == 0 {
			f.WorkingSeenAt = r.At
		}
		f.IdleSince, f.Status = 0, "working"
	case turnExternal:
		f.OpenSeq++
		f.DeliveredAt, f.WorkingSeenAt, f.IdleSince, f.Status = r.At, r.At, 0, "working"
		f.CompletionBase, f.CompletionSeen = counter{}, 0 // a new turn orcr did not type
	case turnBlocked:
		f.Status, f.IdleSince = "blocked", 0
	case turnUnpark:
		f.Status = "idle"
	case turnCompleteCandidate:
		if turnCompletionFlipsIdle(f) {
			f.Status = "idle"
		}
		f.OpenSeq, f.DeliveredAt, f.WorkingSeenAt, f.IdleSince = 0, 0, 0, s.IdleSince
		f.CompletionBase, f.CompletionSeen = counter{}, 0
	case turnIdleEdge:
		f.IdleSince, f.CompletionSeen = s.IdleSince, s.CompletionSeen
	case turnProbeTranscript:
		f.IdleSince, f.ProbedAt = s.IdleSince, r.At // the probe found nothing
	}
	return f
}

// legacyTurnAction transcribes, expression by expression, what evaluate, sawWorking,
// markBlocked and idleTick in turns.go decided before decideTurn existed (commit 3d5d82d;
// sql.NullInt64 invalid = 0 here), reduced to the action they take: the oracle decideTurn
// must agree with. A deliberate rule change updates both.
func legacyTurnAction(f turnFacts, r turnReport, t config.Tuning) turnAction {
	switch f.Status {
	case "working", "idle", "blocked", "parked":
	default:
		return turnNone
	}
	now := r.At
	status := r.Status.Normalise() // the monitor normalises before evaluate
	if f.Status == "parked" && (status == herdr.StatusWorking || status == herdr.StatusBlocked) {
		return turnUnpark
	}
	switch status {
	case herdr.StatusWorking:
		if f.OpenSeq == 0 {
			return turnExternal // INSERT INTO turns ... 'external'
		}
		if f.Status == "working" {
			// COALESCE(working_seen_at, now) and idle_since = NULL WHERE idle_since IS NOT NULL
			if f.WorkingSeenAt == 0 || f.IdleSince != 0 {
				return turnWorkingSeen
			}
			return turnNone
		}
		return turnWorkingSeen // casStatus → working
	case herdr.StatusBlocked:
		if f.OpenSeq > 0 && f.WorkingSeenAt == 0 && f.DeliveredAt != 0 &&
			now-f.DeliveredAt < t.FastTurnGrace.Milliseconds() {
			return turnNone
		}
		if f.Status == "blocked" {
			return turnNone
		}
		return turnBlocked
	case herdr.StatusIdle:
		if f.OpenSeq == 0 {
			return turnNone
		}
		idleSince, wrote := now, true
		if f.IdleSince != 0 {
			idleSince, wrote = f.IdleSince, false
		}
		delivered := f.CreatedAt
		if f.DeliveredAt != 0 {
			delivered = f.DeliveredAt
		}
		grace := t.FastTurnGrace.Milliseconds()
		workingOK := f.WorkingSeenAt != 0
		// Since the restart fix of the reconciler issue (defect 5): with the fast path
		// closed and no working seen, the transcript is probed every
		// TranscriptProbeEvery for the turn's work.
		if !workingOK && idleSince-delivered > grace && now-f.ProbedAt >= TranscriptProbeEvery.Milliseconds() {
			return turnProbeTranscript
		}
		fastOK := !workingOK && idleSince-delivered <= grace && now-delivered >= grace
		stable := now-idleSince >= t.IdleStable.Milliseconds()
		if !(workingOK || fastOK) || !stable {
			if wrote {
				return turnStartIdle
			}
			return turnNone
		}
		return turnCompleteCandidate
	}
	return turnNone
}

// TestDecideTurnMatchesTurnsGo compares decideTurn with the transcription of turns.go on
// a grid of times at and around every threshold the rules compare.
func TestDecideTurnMatchesTurnsGo(t *testing.T) {
	tunings := []config.Tuning{
		config.BuiltinTuning(config.MockProvider),
		config.BuiltinTuning("claude"),
		{IdleStable: tStable * time.Millisecond},
		{FastTurnGrace: tGrace * time.Millisecond},
	}
	statuses := []string{"queued", "starting", "working", "idle", "blocked", "parked", "ended", "lost"}
	reports := []herdr.Status{herdr.StatusWorking, herdr.StatusBlocked, herdr.StatusIdle, herdr.StatusUnknown, "done"}
	n := 0
	for _, tun := range tunings {
		g, st := tun.FastTurnGrace.Milliseconds(), tun.IdleStable.Milliseconds()
		for _, d := range []int64{0, tDelivered} {
			base := d
			if d == 0 {
				base = tCreated
			}
			var idles, ats []int64
			for _, x := range []int64{-800, 0, g - 1, g, g + 1} {
				idles = append(idles, base+x)
			}
			idles = append(idles, 0)
			for _, x := range []int64{-300, 0, 100, g - 1, g, g + 1, st - 1, st, st + 1, g + st - 1, g + st, g + st + 1, 2 * (g + st)} {
				ats = append(ats, base+x)
			}
			for _, status := range statuses {
				for _, seq := range []int64{0, 2} {
					for _, seen := range []int64{0, base + 50} {
						for _, idle := range idles {
							for _, rs := range reports {
								for _, at := range ats {
									f := turnFacts{Status: store.Status(status), OpenSeq: seq, DeliveredAt: d, WorkingSeenAt: seen, IdleSince: idle, CreatedAt: tCreated}
									r := turnReport{Status: rs, At: at}
									n++
									if got, want := decideTurn(f, r, tun).Action, legacyTurnAction(f, r, tun); got != want {
										t.Fatalf("decideTurn(%+v, %+v, grace %v stable %v): got %s, want %s (turns.go)",
											f, r, tun.FastTurnGrace, tun.IdleStable, got, want)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if n < 10_000 {
		t.Fatalf("only %d cases compared", n)
	}
}

// drawTurnCase draws facts, a report and a tuning. Times are drawn near the thresholds
// the rules compare (the end of the grace window, the stable point) as often as
// anywhere, so the inclusive/exclusive boundaries are exercised.
func drawTurnCase(t *rapid.T) (turnFacts, turnReport, config.Tuning) {
	const base int64 = 1_800_000_000_000
	tun := config.Tuning{
		FastTurnGrace: time.Duration(rapid.Int64Range(0, 3000).Draw(t, "grace_ms")) * time.Millisecond,
		IdleStable:    time.Duration(rapid.Int64Range(0, 3000).Draw(t, "stable_ms")) * time.Millisecond,
	}
	grace, stable := tun.FastTurnGrace.Milliseconds(), tun.IdleStable.Milliseconds()
	// near returns 0 (unset) when it may, else anchor plus a small or a wide offset.
	near := func(name string, unset bool, anchors ...int64) int64 {
		if unset && rapid.Bool().Draw(t, name+"_unset") {
			return 0
		}
		a := rapid.SampledFrom(anchors).Draw(t, name+"_anchor")
		if rapid.Bool().Draw(t, name+"_close") {
			return a + rapid.Int64Range(-2, 2).Draw(t, name+"_delta")
		}
		return a + rapid.Int64Range(-4000, 9000).Draw(t, name+"_offset")
	}
	f := turnFacts{
		Status: rapid.SampledFrom([]store.Status{"queued", "starting", "working", "idle", "blocked", "parked", "ended", "lost"}).
			Draw(t, "status"),
		OpenSeq:   rapid.Int64Range(0, 3).Draw(t, "open_seq"),
		CreatedAt: base - rapid.Int64Range(0, 6000).Draw(t, "created_before"),
		Immediate: rapid.Bool().Draw(t, "immediate"),
	}
	f.DeliveredAt = near("delivered_at", true, base)
	delivered := f.DeliveredAt
	if delivered == 0 {
		delivered = f.CreatedAt
	}
	f.WorkingSeenAt = near("working_seen_at", true, delivered)
	f.IdleSince = near("idle_since", true, delivered, delivered+grace)
	idleSince := f.IdleSince
	if idleSince == 0 {
		idleSince = delivered + rapid.Int64Range(-500, 3000).Draw(t, "first_idle")
	}
	r := turnReport{
		Status: rapid.SampledFrom([]herdr.Status{herdr.StatusWorking, herdr.StatusBlocked, herdr.StatusIdle, herdr.StatusUnknown, "done"}).
			Draw(t, "report"),
		At: near("at", false, delivered+grace, idleSince+stable, idleSince, delivered),
	}
	if f.IdleSince == 0 && rapid.Bool().Draw(t, "at_is_first_idle") {
		r.At = idleSince
	}
	// completion_seq (herdr ≥ 22): half the cases have a base, counts drawn around it.
	if rapid.Bool().Draw(t, "completion_base_known") {
		b := rapid.Uint64Range(0, 5).Draw(t, "completion_base")
		f.CompletionBase = counter{N: b, Known: true}
		f.CompletionSeen = b + rapid.Uint64Range(0, 2).Draw(t, "completion_seen_above_base")
	}
	if rapid.Bool().Draw(t, "completion_reported") {
		r.CompletionSeq = counter{N: rapid.Uint64Range(0, 9).Draw(t, "completion_seq"), Known: true}
	}
	return f, r, tun
}

func stableMS(t config.Tuning) int64 { return t.IdleStable.Milliseconds() }

func TestDecideTurnProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f, r, tun := drawTurnCase(t)
		s := decideTurn(f, r, tun)
		if s.Recheck != 0 && s.Recheck <= r.At {
			t.Fatalf("recheck %d is not after the report (at %d): %s", s.Recheck, r.At, fmtStep(s))
		}
		if s.Action == turnCompleteCandidate && f.OpenSeq == 0 {
			t.Fatalf("completion candidate with no open turn: %+v", f)
		}
		if s.Action == turnCompleteCandidate && r.Status.Normalise() != herdr.StatusIdle {
			t.Fatalf("completion candidate on a %s report", r.Status)
		}
		switch f.Status {
		case "working", "idle", "blocked", "parked":
		default:
			if s != (turnStep{Action: turnNone, IdleSince: f.IdleSince}) {
				t.Fatalf("status %s: got %s, want no decision", f.Status, fmtStep(s))
			}
		}
		if again := decideTurn(f, r, tun); again != s {
			t.Fatalf("not idempotent: %s then %s", fmtStep(s), fmtStep(again))
		}
		// completion_seq is an extra signal: without a base nothing of it counts and the
		// rules are those of turns.go; with one, only idle reports on an open turn differ.
		off, rOff := f, r
		off.CompletionBase, off.CompletionSeen, rOff.CompletionSeq = counter{}, 0, counter{}
		sOff := decideTurn(off, rOff, tun)
		if !f.CompletionBase.Known && s != sOff {
			t.Fatalf("no completion base, yet the report's completion_seq changed the step: %s, without it %s", fmtStep(s), fmtStep(sOff))
		}
		if want := legacyTurnAction(off, rOff, tun); sOff.Action != want {
			t.Fatalf("got %s, want %s (what turns.go does)", fmtStep(sOff), want)
		}
		if s != sOff && (f.OpenSeq == 0 || r.Status.Normalise() != herdr.StatusIdle) {
			t.Fatalf("completion_seq changed the step of a %s report (open turn %d): %s, without it %s", r.Status, f.OpenSeq, fmtStep(s), fmtStep(sOff))
		}
		newEdge := f.CompletionBase.Known && r.CompletionSeq.Known && r.CompletionSeq.N > max(f.CompletionSeen, f.CompletionBase.N)
		decided := f.Status == "working" || f.Status == "idle" || f.Status == "blocked" || f.Status == "parked"
		if newEdge && decided && f.OpenSeq != 0 && r.Status.Normalise() == herdr.StatusIdle &&
			(s.Action != turnIdleEdge || s.IdleSince != r.At || s.CompletionSeen != r.CompletionSeq.N) {
			t.Fatalf("an idle report with a new edge (%d over %d) gave %s, want the streak restarted at it", r.CompletionSeq.N, f.CompletionSeen, fmtStep(s))
		}
		// Never a completion the rules without completion_seq would not make, unless an
		// idle edge after the Enter was taken into account and idle held idle_stable since
		// the streak began (at this report when none runs).
		if s.Action == turnCompleteCandidate && sOff.Action != turnCompleteCandidate {
			streak := f.IdleSince
			if streak == 0 {
				streak = r.At
			}
			if !(f.CompletionBase.Known && f.CompletionSeen > f.CompletionBase.N) || r.At-streak < stableMS(tun) {
				t.Fatalf("completion_seq made a candidate without a stable streak after an edge: %+v %+v: %s", f, r, fmtStep(s))
			}
		}
		if s.Action == turnNone && s.IdleSince != f.IdleSince {
			t.Fatalf("turnNone changed the idle streak: %d → %d", f.IdleSince, s.IdleSince)
		}

		// After the caller applied the step, the same report changes nothing more (an
		// un-park decides once more; a candidate repeats until the caller completes).
		g, step := f, s
		for i := 0; step.Action != turnNone; i++ {
			if i == 3 {
				t.Fatalf("no turnNone after %d steps on the same report (last %s)", i, fmtStep(step))
			}
			g = applyTurnStep(g, step, r)
			step = decideTurn(g, r, tun)
		}

		// Recheck is exact: the decision changes at Recheck with the same herdr status,
		// not a millisecond before; with no recheck, time alone never completes the turn.
		if s.Action != turnNone && s.Action != turnStartIdle {
			return
		}
		g = applyTurnStep(f, s, r)
		if s.Recheck == 0 {
			later := decideTurn(g, turnReport{Status: r.Status, At: r.At + 3_600_000}, tun)
			if later.Action == turnCompleteCandidate || later.Action == turnBlocked {
				t.Fatalf("no recheck, yet an hour later the same report gives %s", fmtStep(later))
			}
			return
		}
		if before := decideTurn(g, turnReport{Status: r.Status, At: s.Recheck - 1}, tun); before.Action != turnNone {
			t.Fatalf("1 ms before the recheck: got %s, want none", fmtStep(before))
		}
		if due := decideTurn(g, turnReport{Status: r.Status, At: s.Recheck}, tun); due.Action == turnNone {
			t.Fatalf("at the recheck %d nothing changed: %s", s.Recheck, fmtStep(due))
		}
	})
}
