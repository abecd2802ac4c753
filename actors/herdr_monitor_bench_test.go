package actors

import (
	"fmt"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// BenchmarkMonitorTick measures one completion-monitor tick after herdr answered
// agent.list (a synthetic answer: no process, no socket), at 100, 1,000 and 10,000
// watched agents, with no change and with 1% of the panes changing status each tick.
// ns/op is the CPU of one tick in the monitor actor (the diff and the reports it
// sends); ns/row divides it by the fleet size. The baseline, measured in the same run
// on the same rows, is what a tick cost before the monitor reported only changes: one
// SELECT of the watched rows plus one read of each row's turn state (old_ns/tick); the
// ratio is new/old.
func BenchmarkMonitorTick(b *testing.B) {
	for _, n := range []int{100, 1_000, 10_000} {
		db, uuids := benchFleet(b, n)
		for _, pct := range []int{0, 1} {
			b.Run(fmt.Sprintf("rows=%d/change=%d%%", n, pct), func(b *testing.B) {
				old := benchOldTick(b, db, uuids)
				m := newMonitorState()
				list := make([]herdr.AgentInfo, n)
				for i, u := range uuids {
					term := fmt.Sprintf("t%d", i)
					m.track(TrackPane{UUID: u, Terminal: term, Pane: "p" + term})
					list[i] = herdr.AgentInfo{TerminalID: term, PaneID: "p" + term, AgentStatus: herdr.StatusWorking}
				}
				m.diff(list, time.Now()) // the first tick reports everything
				changes := n * pct / 100
				reports := 0
				b.ResetTimer()
				for i := range b.N {
					for j := range changes {
						k := (i*changes + j) % n
						if list[k].AgentStatus == herdr.StatusWorking {
							list[k].AgentStatus = herdr.StatusIdle
						} else {
							list[k].AgentStatus = herdr.StatusWorking
						}
					}
					reports += len(m.diff(list, time.Now()))
				}
				b.StopTimer()
				if want := changes * b.N; reports != want {
					b.Fatalf("reports: got %d, want %d", reports, want)
				}
				perTick := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(perTick/float64(n), "ns/row")
				b.ReportMetric(float64(old.Nanoseconds()), "old_ns/tick")
				b.ReportMetric(perTick/float64(old.Nanoseconds()), "ratio_vs_old")
			})
		}
	}
}

// benchFleet inserts n working rows with an open turn.
func benchFleet(b *testing.B, n int) (*store.DB, []string) {
	db := storetest.Open(b)
	uuids := make([]string, n)
	storetest.Write(b, db, func(tx *store.Tx) (any, error) {
		for i := range uuids {
			uuids[i] = storetest.NewUUID(b)
			if _, err := tx.Exec(`INSERT INTO agents (uuid, path, managed, origin, agent, status, terminal_id, pane_id,
				input_seq, created_at, updated_at) VALUES (?, ?, 1, 'run', 'mock', 'working', ?, ?, 1, 1000, 1000)`,
				uuids[i], fmt.Sprintf("bench/a%d", i), fmt.Sprintf("t%d", i), fmt.Sprintf("pt%d", i)); err != nil {
				return nil, err
			}
			if _, err := tx.Exec(`INSERT INTO turns (agent_uuid, input_seq, source, delivered_at) VALUES (?, 1, 'orcr', 1000)`,
				uuids[i]); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	return db, uuids
}

// benchOldTick times the reads one tick made before: the watched rows, then each row's
// turn state (today's one-statement read; it used to be three).
func benchOldTick(b *testing.B, db *store.DB, uuids []string) time.Duration {
	const rounds = 3
	start := time.Now()
	for range rounds {
		rows, err := db.Reader().Query(`SELECT uuid, terminal_id, pane_id FROM agents
			WHERE managed = 1 AND status IN ('working','idle','blocked','parked') AND terminal_id IS NOT NULL`)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		for _, u := range uuids {
			if _, err := store.LoadAgent(b.Context(), db.Reader(), u); err != nil {
				b.Fatal(err)
			}
		}
	}
	return time.Since(start) / rounds
}
