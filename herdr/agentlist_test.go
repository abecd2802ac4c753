package herdr

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// agentRows is an agent.list result of n idle mock rows, the i-th in status st(i).
func agentRows(n int, st func(i int) string) string {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"terminal_id":"term_%d","agent_status":%q,"workspace_id":"w1","tab_id":"w1:t%d","pane_id":"w1:p%d",`+
			`"focused":false,"revision":2,"agent":"mock","state_change_seq":1,"cwd":"/work","foreground_cwd":"/work"}`, i, st(i), i, i)
	}
	return `{"type":"agent_list","agents":[` + strings.Join(rows, ",") + `]}`
}

// An agent.list answer the same as the last one (but for its id) gives the rows decoded
// then; a changed answer is decoded; the rows handed out are each caller's own.
func TestAgentListCacheKeepsOnlyWhatIsTheSame(t *testing.T) {
	var answer atomic.Pointer[string]
	idle := agentRows(3, func(int) string { return "idle" })
	answer.Store(&idle)
	s := newScripted(t, func(req map[string]any) string { return ok(req, *answer.Load()) })
	r := &Remote{Client: Client{Socket: s.path}}
	cache := &agentListCache{}
	ctx := context.Background()

	first, err := agentListOf(r, ctx, cache)
	if err != nil || len(first) != 3 || first[1].AgentStatus != StatusIdle || first[1].PaneID != "w1:p1" {
		t.Fatalf("first list: %+v, %v", first, err)
	}
	first[1].AgentStatus = StatusWorking // the caller's copy
	again, err := agentListOf(r, ctx, cache)
	if err != nil || len(again) != 3 || again[1].AgentStatus != StatusIdle {
		t.Fatalf("the same answer again: %+v, %v (a caller's write reached the cache?)", again, err)
	}
	busy := agentRows(3, func(i int) string {
		if i == 2 {
			return "done"
		}
		return "working"
	})
	answer.Store(&busy)
	changed, err := agentListOf(r, ctx, cache)
	if err != nil || len(changed) != 3 || changed[0].AgentStatus != StatusWorking || changed[2].AgentStatus != StatusIdle {
		t.Fatalf("a changed answer: %+v, %v, want working, working, idle (done normalised)", changed, err)
	}
	bad := `{"type":"pong"}`
	answer.Store(&bad)
	if _, err := agentListOf(r, ctx, cache); err == nil {
		t.Fatal("an answer of the wrong type was taken")
	}
	answer.Store(&busy)
	if l, err := agentListOf(r, ctx, cache); err != nil || l[0].AgentStatus != StatusWorking {
		t.Fatalf("after a bad answer: %+v, %v", l, err)
	}
}

// A poller that keeps its rows gets an unchanged answer as Same, without rows; a
// changed answer, or a poller with nothing kept, gets rows and a new generation; no two
// connections share a generation.
func TestAgentListSinceSaysSame(t *testing.T) {
	var answer atomic.Pointer[string]
	idle := agentRows(2, func(int) string { return "idle" })
	answer.Store(&idle)
	s := newScripted(t, func(req map[string]any) string { return ok(req, *answer.Load()) })
	r := &Remote{Client: Client{Socket: s.path}}
	ctx := context.Background()
	cache := &agentListCache{}
	rows, gen, err := r.agentListSince(ctx, cache, 0)
	if err != nil || len(rows) != 2 || gen == 0 {
		t.Fatalf("first: %d rows, gen %d, %v", len(rows), gen, err)
	}
	if again, g, err := r.agentListSince(ctx, cache, gen); err != nil || again != nil || g != gen {
		t.Fatalf("unchanged, kept: %d rows, gen %d (want none, %d), %v", len(again), g, gen, err)
	}
	if again, g, err := r.agentListSince(ctx, cache, 0); err != nil || len(again) != 2 || g != gen {
		t.Fatalf("unchanged, nothing kept: %d rows, gen %d (want 2, %d), %v", len(again), g, gen, err)
	}
	busy := agentRows(2, func(int) string { return "working" })
	answer.Store(&busy)
	changed, g2, err := r.agentListSince(ctx, cache, gen)
	if err != nil || len(changed) != 2 || changed[0].AgentStatus != StatusWorking || g2 == gen || g2 == 0 {
		t.Fatalf("changed: %+v, gen %d (was %d), %v", changed, g2, gen, err)
	}
	other, g3, err := r.agentListSince(ctx, &agentListCache{}, g2) // another connection, the same answer
	if err != nil || len(other) != 2 || g3 == g2 {
		t.Fatalf("another connection's cache: %d rows, gen %d (the first's %d), %v", len(other), g3, g2, err)
	}
}

// agentListOf is the rows of agentListSince with nothing kept.
func agentListOf(r *Remote, ctx context.Context, cache *agentListCache) ([]AgentInfo, error) {
	rows, _, err := r.agentListSince(ctx, cache, 0)
	return rows, err
}

func TestWithoutID(t *testing.T) {
	for _, tt := range []struct{ resp, id, want string }{
		{`{"id":"orcr:7","result":{}}`, "orcr:7", `{,"result":{}}`},
		{`{"result":{"title":"\"id\":\"orcr:7\""},"id":"orcr:7"}`, "orcr:7", `{"result":{"title":"\"id\":\"orcr:7\""},}`},
		{`{"id": "orcr:7","result":{}}`, "orcr:7", ""},
		{`{"id":"orcr:71","result":{}}`, "orcr:7", ""},
	} {
		if got := string(withoutID([]byte(tt.resp), tt.id)); got != tt.want {
			t.Errorf("withoutID(%s, %s) = %q, want %q", tt.resp, tt.id, got, tt.want)
		}
	}
}

// BenchmarkAgentList1000 is the monitor's poll of 1,000 idle agents: an answer that did
// not change, through the cache, against decoding it as every poll did before.
func BenchmarkAgentList1000(b *testing.B) {
	rows := agentRows(1000, func(int) string { return "idle" })
	s := newScripted(b, func(req map[string]any) string { return ok(req, rows) })
	r := &Remote{Client: Client{Socket: s.path}}
	ctx := context.Background()
	b.Run("decoded", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.AgentList(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		cache := &agentListCache{}
		for b.Loop() {
			if _, err := agentListOf(r, ctx, cache); err != nil {
				b.Fatal(err)
			}
		}
	})
}
