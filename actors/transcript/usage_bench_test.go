package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/transcript"
)

// BenchmarkReadTurnUsage measures what reading a turn's usage adds to its completion, on
// a claude transcript of 200 real tool turns (claude 2.1.328's, repeated): alternating
// in the same run, the completion's read of the final response alone (the baseline) and
// [transcript.ReadTurnEnd], which takes the response and the usage from one read of the
// file. ratio_added is the second's extra time over the baseline (docs/usage.md §6,
// aim < 0.05); ratio_two_pass is a separate [transcript.ReadTurnUsage] (a second read,
// as completions did before) over the same baseline.
func BenchmarkReadTurnUsage(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "usage", "claude_tool.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, bytes.Repeat(one, 200), 0o600); err != nil {
		b.Fatal(err)
	}
	var response, oneRead, twoPass time.Duration
	for b.Loop() {
		start := time.Now()
		entries, err := transcript.Read(path, transcript.FormatClaude)
		if _, ok := transcript.LastResponse(entries); err != nil || !ok {
			b.Fatal(ok, err)
		}
		mid := time.Now()
		e, err := transcript.ReadTurnEnd(path, transcript.FormatClaude)
		if err != nil || !e.HasResponse || !e.HasUsage {
			b.Fatal(e, err)
		}
		third := time.Now()
		if _, ok, err := transcript.ReadTurnUsage(path, transcript.FormatClaude); err != nil || !ok {
			b.Fatal(ok, err)
		}
		response, oneRead, twoPass = response+mid.Sub(start), oneRead+third.Sub(mid), twoPass+time.Since(third)
	}
	n := time.Duration(b.N)
	b.Logf("response read %v (baseline), response+usage in one read %v, ratio_added %.3f; separate usage read %v, ratio_two_pass %.3f",
		response/n, oneRead/n, float64(oneRead-response)/float64(response), twoPass/n, float64(twoPass)/float64(response))
}
