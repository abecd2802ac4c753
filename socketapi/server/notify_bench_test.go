package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// BenchmarkNotifySlowReceiver is the issue's "webhook delivery throughput with a slow
// receiver (the server's event commit rate must not drop)": the same burst of commits
// (16 concurrent __debug.set_agent calls, each a blocked ↔ working transition that a
// notify rule matches when it is blocked) against a server without notify and one
// whose webhook receiver takes 50 ms per request, alternating in the same process.
// ratio-vs-plain is the burst time with notify over without (1 = no drop); commits/s
// of each and the receiver's deliveries/s are reported too.
func BenchmarkNotifySlowReceiver(b *testing.B) {
	var mu sync.Mutex
	delivered := 0
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond) // the slow receiver under measurement
		mu.Lock()
		delivered++
		mu.Unlock()
	}))
	defer slow.Close()
	plain := sockettest.NewServer(b)
	notified := sockettest.NewServer(b, sockettest.WithConfig(`{"notify": {"targets": {`+
		webhookTarget("hook", slow.URL, "k")+`}, "rules": [{"events": ["blocked"], "targets": ["hook"]}]}}`))
	const width = 16
	burst := func(c *socketapi.Client, ids []string, round *int) func() error {
		return func() error {
			*round++
			status := "working"
			if *round%2 == 0 {
				status = "blocked"
			}
			errs := make(chan error, width)
			for i := range width {
				go func() {
					errs <- c.Call(context.Background(), "__debug.set_agent",
						map[string]any{"uuid": ids[i], "path": fmt.Sprintf("bench/a%d", i), "status": status}, nil)
				}()
			}
			for range width {
				if err := <-errs; err != nil {
					return err
				}
			}
			return nil
		}
	}
	newIDs := func() []string {
		ids := make([]string, width)
		for i := range ids {
			ids[i] = uuid.Must(uuid.NewV7()).String()
		}
		return ids
	}
	var r1, r2 int
	base, subject := burst(plain.Client(b), newIDs(), &r1), burst(notified.Client(b), newIDs(), &r2)
	base()
	subject()
	start := time.Now()
	b.ResetTimer()
	sockettest.CompareCalls(b, "plain", base, "notify", subject)
	b.StopTimer()
	elapsed := time.Since(start)
	mu.Lock()
	b.ReportMetric(float64(delivered)/elapsed.Seconds(), "delivered/s")
	mu.Unlock()
}
