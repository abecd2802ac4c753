package store

import (
	"testing"

	"github.com/orcr-go/orcr/socketapi/api"
)

// TestStatusSets checks the named sets against the rules they stand for: GoneStatuses is
// what api.Status.Gone says, a pane is reported on only for a live status, and SQL
// renders an IN-list body the migrations' partial indexes match.
func TestStatusSets(t *testing.T) {
	t.Parallel()
	all := []Status{StatusQueued, StatusStarting, StatusWorking, StatusIdle, StatusBlocked, StatusParked,
		StatusLost, StatusEnded, api.StatusUnknown}
	for _, s := range all {
		if GoneStatuses.Has(s) != s.Gone() {
			t.Errorf("GoneStatuses.Has(%s) = %v, Gone() = %v", s, GoneStatuses.Has(s), s.Gone())
		}
		if PaneStatuses.Has(s) && !LiveStatuses.Has(s) {
			t.Errorf("%s is a pane status but not a live one", s)
		}
		if SlotStatuses.Has(s) && (GoneStatuses.Has(s) || s == StatusQueued) {
			t.Errorf("%s holds a slot but is queued or gone", s)
		}
	}
	if got, want := LoopLiveStatuses.SQL(), "'active','paused'"; got != want {
		t.Errorf("LoopLiveStatuses.SQL() = %s, want %s (migration 1's loops_active_name index)", got, want)
	}
	if got, want := GoneStatuses.SQL(), "'ended','lost'"; got != want {
		t.Errorf("GoneStatuses.SQL() = %s, want %s", got, want)
	}
}
