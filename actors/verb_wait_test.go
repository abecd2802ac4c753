package actors

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
)

func waitRow(path string, status store.Status, changedAt int64) store.WaitRow {
	return store.WaitRow{UUID: "u-" + path, Path: path, Status: status, StatusChangedAt: changedAt}
}

func TestDecideWait(t *testing.T) {
	working := waitRow("a", store.StatusWorking, 10)
	idle := waitRow("b", store.StatusIdle, 30)
	blockedEarlier := waitRow("c", store.StatusBlocked, 20)
	idleSameTime := waitRow("d", store.StatusIdle, 20)
	ended := store.WaitRow{UUID: "u-e", Path: "e", Status: store.StatusEnded, ExitReason: "killed", StatusChangedAt: 40}
	unknown := waitRow("f", store.StatusUnknown, 5)
	for _, tc := range []struct {
		name    string
		rows    []store.WaitRow
		any     bool
		expired bool
		want    waitVerdict
	}{
		{"all: one still working", []store.WaitRow{working, idle}, false, false, waitVerdict{first: -1}},
		{"all: every one settled", []store.WaitRow{idle, blockedEarlier, ended}, false, false, waitVerdict{done: true, first: -1}},
		{"all: deadline passed", []store.WaitRow{working, idle}, false, true, waitVerdict{done: true, timedOut: true, first: -1}},
		{"all: settled at the deadline is not a timeout", []store.WaitRow{idle}, false, true, waitVerdict{done: true, first: -1}},
		{"all: no members left", nil, false, false, waitVerdict{done: true, first: -1}},
		{"any: nothing settled", []store.WaitRow{working, unknown}, true, false, waitVerdict{first: -1}},
		{"any: nothing settled at the deadline", []store.WaitRow{working, unknown}, true, true, waitVerdict{done: true, timedOut: true, first: -1}},
		{"any: one settled", []store.WaitRow{working, idle}, true, false, waitVerdict{done: true, first: 1}},
		{"any: one settled at the deadline is not a timeout", []store.WaitRow{working, idle}, true, true, waitVerdict{done: true, first: 1}},
		{"any: the earliest status change is first", []store.WaitRow{working, idle, blockedEarlier, ended}, true, false, waitVerdict{done: true, first: 2}},
		{"any: a tie goes to the first by path", []store.WaitRow{blockedEarlier, idleSameTime}, true, false, waitVerdict{done: true, first: 0}},
		{"any: a working row's older change does not count", []store.WaitRow{unknown, working, ended}, true, false, waitVerdict{done: true, first: 2}},
		{"any: no members left", nil, true, false, waitVerdict{done: true, first: -1}},
	} {
		if got := decideWait(tc.rows, tc.any, tc.expired); got != tc.want {
			t.Errorf("decideWait(%s): got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// After an any wait named its first row, unsettled members are pending; a timed-out
// wait keeps wait_timeout; settled members other than the first keep their reasons.
func TestBuildWaitResultAny(t *testing.T) {
	rows := []store.WaitRow{waitRow("a", store.StatusWorking, 10), waitRow("b", store.StatusIdle, 30),
		{UUID: "u-c", Path: "c", Status: store.StatusBlocked, BlockedKind: "question", StatusChangedAt: 20}}
	none := api.WaitNext{Kind: "none"}
	target := func(r store.WaitRow, ok bool, reason string, next api.WaitNext) api.WaitTarget {
		return api.WaitTarget{UUID: r.UUID, Path: r.Path, Status: r.Status, OK: ok, Reason: reason, Next: next}
	}
	idleB := target(rows[1], true, "turn_complete", api.WaitNext{Kind: "logs_last_response", Command: "orcr agent logs b --last-response"})
	blockedC := target(rows[2], false, "blocked:question", api.WaitNext{Kind: "attach", Command: "orcr agent attach c"})

	got := buildWaitResult(rows, 7, decideWait(rows, true, false))
	want := api.WaitResult{Targets: []api.WaitTarget{target(rows[0], false, "pending", none), idleB, blockedC},
		DecisionSeq: 7, FirstSettled: "u-c"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("any wait settled on c (-want +got):\n%s", d)
	}
	if first, ok := got.First(); !ok || first != blockedC {
		t.Errorf("First(): got %+v %v, want c", first, ok)
	}

	working := rows[:1]
	got = buildWaitResult(working, 9, decideWait(working, true, true))
	want = api.WaitResult{Targets: []api.WaitTarget{target(rows[0], false, "wait_timeout", none)}, TimedOut: true, DecisionSeq: 9}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("any wait timed out (-want +got):\n%s", d)
	}
	if _, ok := got.First(); ok {
		t.Errorf("First() of a timed-out wait: got ok")
	}
}
