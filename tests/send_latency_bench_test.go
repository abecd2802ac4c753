package tests

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
)

// sendAskRounds is how many sends and asks BenchmarkSendAskLatency times per iteration.
const sendAskRounds = 10

// BenchmarkSendAskLatency measures what a user waits for with the mock in the herdr
// stand-in, through the real CLI: `orcr agent send` to an idle agent and `orcr agent ask`
// of an instant answer, p50 over sendAskRounds each, and where the time goes, read from
// the store's events (docs/lifecycle.md §9–§11): typing (input_requested → input_applied:
// the clear, the paste, the Enter pause, the Enter), completion (input_applied →
// turn_completed: the provider's completion windows), teardown (close_requested →
// ended: the shutdown line, its grace, pane.close), and for the ask the spawn before
// the typing and the reply after the end. The baseline, in the same run and home, is a
// CLI call that does nothing (`orcr agent ls <path>`): the send is printed as a ratio of
// it, and the ask as a ratio of it plus the mock's fast-turn window, which an instant
// answer that herdr never shows working must wait out (README, Performance).
func BenchmarkSendAskLatency(b *testing.B) {
	h, _ := herdrHome(b, "")
	runAgent(b, h, "-a", "mock", "--path", "lat/idle", "-p", "say=warm")
	waitTurn(b, h, "lat/idle")
	grace := config.BuiltinTuning(config.MockProvider).FastTurnGrace
	timed := func(args ...string) time.Duration {
		start := time.Now()
		if r := h.run(args...); r.exit != 0 {
			b.Fatalf("orcr %v: %+v", args, r)
		}
		return time.Since(start)
	}
	for n := range b.N {
		var noop, send, ask []time.Duration
		var sendTyping, askSpawn, askTyping, askCompletion, askTeardown, askReply []time.Duration
		for i := range sendAskRounds {
			noop = append(noop, timed("agent", "ls", "lat/idle"))
			send = append(send, timed("agent", "send", "lat/idle", fmt.Sprintf("say=s%d", i)))
			w := lastWindows(b, h, "lat/idle")
			sendTyping = append(sendTyping, w.typing)
			waitTurn(b, h, "lat/idle")
			name := fmt.Sprintf("lat/ask_%d_%d", n, i)
			start := time.Now()
			ask = append(ask, timed("agent", "ask", "-a", "mock", "--path", name, "-p", fmt.Sprintf("say=a%d", i)))
			w = lastWindows(b, h, name)
			askSpawn = append(askSpawn, w.spawn)
			askTyping = append(askTyping, w.typing)
			askCompletion = append(askCompletion, w.completion)
			askTeardown = append(askTeardown, w.teardown)
			askReply = append(askReply, start.Add(ask[len(ask)-1]).Sub(w.ended))
		}
		p50 := func(ds []time.Duration) time.Duration {
			s := slices.Clone(ds)
			slices.Sort(s)
			return s[len(s)/2]
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		for _, m := range []struct {
			name string
			ds   []time.Duration
		}{{"noop", noop}, {"send", send}, {"send-typing", sendTyping}, {"ask", ask}, {"ask-spawn", askSpawn},
			{"ask-typing", askTyping}, {"ask-completion", askCompletion}, {"ask-teardown", askTeardown}, {"ask-reply", askReply}} {
			b.ReportMetric(ms(p50(m.ds)), m.name+"-p50-ms")
		}
		b.Logf("send p50 %s = x%.2f of a no-op CLI call (%s); typing %s",
			p50(send), float64(p50(send))/float64(p50(noop)), p50(noop), p50(sendTyping))
		b.Logf("ask p50 %s = x%.2f of the floor (no-op call + the mock's %s fast-turn window); spawn %s, typing %s, completion %s, teardown %s, reply %s",
			p50(ask), float64(p50(ask))/float64(p50(noop)+grace), grace,
			p50(askSpawn), p50(askTyping), p50(askCompletion), p50(askTeardown), p50(askReply))
	}
}

// turnWindows is where the latest turn of an agent spent its time, from its events.
type turnWindows struct {
	spawn, typing, completion, teardown time.Duration
	ended                               time.Time
}

// lastWindows reads the windows of path's latest turn from the store (read only, beside
// the running server): the spawn (agent.created → the turn's input_requested), the
// typing (→ its input_applied), the completion (→ agent.turn_completed) and the teardown
// (agent.close_requested → agent.ended). A window whose events are missing is 0.
func lastWindows(t testing.TB, h *home, path string) turnWindows {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.dir, "orcr.db")+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT e.kind, e.ts FROM events e JOIN agents a ON a.uuid = e.ref_uuid
		WHERE a.path = ? AND a.uuid = (SELECT uuid FROM agents WHERE path = ? ORDER BY created_at DESC LIMIT 1)
		ORDER BY e.seq`, path, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	at := map[string]int64{}
	for rows.Next() {
		var kind string
		var ts int64
		if err := rows.Scan(&kind, &ts); err != nil {
			t.Fatal(err)
		}
		if kind == "agent.input_requested" {
			delete(at, "agent.input_applied") // the latest turn's typing only
			delete(at, "agent.turn_completed")
		}
		at[kind] = ts
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	span := func(from, to string) time.Duration {
		a, okA := at[from]
		z, okZ := at[to]
		if !okA || !okZ {
			return 0
		}
		return time.Duration(z-a) * time.Millisecond
	}
	w := turnWindows{
		spawn:      span("agent.created", "agent.input_requested"),
		typing:     span("agent.input_requested", "agent.input_applied"),
		completion: span("agent.input_applied", "agent.turn_completed"),
		teardown:   span("agent.close_requested", "agent.ended"),
	}
	if ts, ok := at["agent.ended"]; ok {
		w.ended = time.UnixMilli(ts)
	}
	return w
}
