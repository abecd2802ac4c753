package sockettest

import (
	"testing"
	"time"
)

// CompareCalls is the body of a benchmark that measures subject against a baseline
// in the same run: it calls base and subject b.N times each (rounded up to whole
// rounds), alternating in rounds of 20 so drift of the machine hits both alike, and
// reports the mean of each as "<name>-ns/call" and "<baseName>-ns/call" and the ratio
// subject/base as "ratio-vs-<baseName>". An error from either fails the benchmark.
func CompareCalls(b *testing.B, baseName string, base func() error, name string, subject func() error) {
	b.Helper()
	const round = 20
	var baseTime, subjectTime time.Duration
	timed := func(f func() error) time.Duration {
		start := time.Now()
		for range round {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	for n := 0; n < b.N; n += round {
		baseTime += timed(base)
		subjectTime += timed(subject)
	}
	calls := float64(((b.N + round - 1) / round) * round)
	b.ReportMetric(float64(subjectTime.Nanoseconds())/calls, name+"-ns/call")
	b.ReportMetric(float64(baseTime.Nanoseconds())/calls, baseName+"-ns/call")
	b.ReportMetric(float64(subjectTime)/float64(baseTime), "ratio-vs-"+baseName)
}
