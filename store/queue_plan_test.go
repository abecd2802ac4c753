package store_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// An idle queue pass, and discovery's look for the sessions with unmanaged agents, read
// only rows that can change (docs/config.md §3.3): each of
// its reads searches an index for just those rows, never every row of agents, so ten
// thousand ended agents cost a pass nothing. The status lists written in its SQL are the
// named sets the Go checks use.
func TestQueuePassReadsIndexes(t *testing.T) {
	t.Parallel()
	if got := store.SlotStatuses.SQL(); got != store.QueuePassSets["slots"] {
		t.Errorf("the slot count is written for %s, SlotStatuses is %s", store.QueuePassSets["slots"], got)
	}
	if got := store.GoneStatuses.SQL(); got != store.QueuePassSets["gone"] {
		t.Errorf("agents_deadline is written for %s, GoneStatuses is %s", store.QueuePassSets["gone"], got)
	}
	db, err := store.Open(filepath.Join(storetest.Dir(t), "orcr.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string]string{"stuck": "agents_status_queue", "deadlines": "agents_deadline", "next deadline": "agents_deadline", "queued": "agents_status_queue", "slots": "agents_status_queue",
		"unmanaged sessions": "agents_unmanaged"}
	for name, q := range store.QueuePassReads {
		args := make([]any, strings.Count(q, "?"))
		for i := range args {
			args[i] = 0
		}
		rows, err := db.Reader().Query("EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		found := false
		for _, d := range plan {
			if strings.Contains(d, "agents") && !strings.Contains(d, "INDEX "+want[name]+" ") && !strings.HasSuffix(d, "INDEX "+want[name]) {
				t.Errorf("%s reads agents without its index %s: %q", name, want[name], d)
			}
			found = found || strings.Contains(d, want[name])
		}
		if !found {
			t.Errorf("%s: plan %q does not use %s", name, plan, want[name])
		}
	}
}
