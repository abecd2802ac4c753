package actors

import (
	"fmt"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// BenchmarkReconcilePass measures one reconciliation pass over 10,000 managed rows and
// 10,000 synthetic panes: the store read (ReconRows, one statement) and the rule, with
// no difference and with 1% of the panes gone. It reports the CPU time per pass against
// the budget of the aim (a tenth of the default 30 s gc_tick on one core: 3 s) and the
// acts found, which must be exactly the differences.
func BenchmarkReconcilePass(b *testing.B) {
	const n = 10000
	db := storetest.Open(b)
	storetest.Write(b, db, func(tx *store.Tx) (any, error) {
		for i := range n {
			if _, err := tx.Exec(`INSERT INTO agents (uuid, path, managed, origin, status, move_state, terminal_id, pane_id,
				input_seq, created_at, updated_at) VALUES (?, ?, 1, 'run', 'idle', 'none', ?, ?, 1, ?, ?)`,
				fmt.Sprintf("u%05d", i), fmt.Sprintf("fleet/a%05d", i), fmt.Sprintf("t%05d", i), fmt.Sprintf("w1:p%d", i), i, i); err != nil {
				return nil, err
			}
			if _, err := tx.Exec(`INSERT INTO turns (agent_uuid, input_seq, source, delivered_at, completed_at)
				VALUES (?, 1, 'orcr', 1, 2)`, fmt.Sprintf("u%05d", i)); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	all := make([]reconPane, n)
	for i := range all {
		all[i] = reconPane{Terminal: fmt.Sprintf("t%05d", i), Status: herdr.StatusIdle, Marked: true}
	}
	for _, gone := range []int{0, n / 100} {
		b.Run(fmt.Sprintf("gone=%d", gone), func(b *testing.B) {
			panes := all[gone:]
			var acts int
			start := time.Now()
			for b.Loop() {
				rows, err := db.ReconRows(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				a, _ := planReconcile(rows, panes)
				acts = len(a)
			}
			per := time.Since(start) / time.Duration(b.N)
			if acts != gone {
				b.Fatalf("%d acts for %d gone panes", acts, gone)
			}
			b.ReportMetric(float64(per.Microseconds())/1000, "ms/pass")
			b.ReportMetric(float64(per)/float64(3*time.Second), "ratio-vs-budget")
		})
	}
}
