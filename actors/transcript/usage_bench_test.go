package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/transcript"
)

// BenchmarkReadTurnUsage reads a turn's usage at completion from a claude transcript of
// 200 real tool turns (claude 2.1.328's, repeated) and, alternating in the same run,
// the turn's final response from the same file, the read the completion makes already;
// ratio_vs_response is the first over the second (docs/usage.md §6).
func BenchmarkReadTurnUsage(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "usage", "claude_tool.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, bytes.Repeat(one, 200), 0o600); err != nil {
		b.Fatal(err)
	}
	var usage, response time.Duration
	for b.Loop() {
		start := time.Now()
		if _, ok, err := transcript.ReadTurnUsage(path, transcript.FormatClaude); err != nil || !ok {
			b.Fatal(ok, err)
		}
		mid := time.Now()
		entries, err := transcript.Read(path, transcript.FormatClaude)
		if _, ok := transcript.LastResponse(entries); err != nil || !ok {
			b.Fatal(ok, err)
		}
		usage, response = usage+mid.Sub(start), response+time.Since(mid)
	}
	b.Logf("usage read %v, response read %v, ratio_vs_response %.2f", usage/time.Duration(b.N),
		response/time.Duration(b.N), float64(usage)/float64(response))
}
