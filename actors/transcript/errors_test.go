package transcript_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// NeverWritten turns Locate's not_found into "never created" (same code and cause,
// details kept) and leaves every other error as it is.
func TestNeverWritten(t *testing.T) {
	dir := t.TempDir()
	_, err := transcript.Locate(transcript.Locator{DataDir: dir, DataDirFile: "transcript.jsonl"})
	got := transcript.NeverWritten(err)
	pe, ok := wire.As(got)
	if !ok || !wire.Is(got, wire.TranscriptUnavailable, wire.CauseNotFound) {
		t.Fatalf("NeverWritten(%v) = %v, want transcript_unavailable not_found", err, got)
	}
	if !strings.Contains(pe.Message, "never created") || strings.Contains(pe.Message, "rotated") ||
		!strings.Contains(pe.Message, filepath.Join(dir, "transcript.jsonl")) {
		t.Errorf("message %q: want the path and never created, not rotated", pe.Message)
	}
	_, other := transcript.Locate(transcript.Locator{DataDirFile: "transcript.jsonl"}) // no data dir: no_session
	if got := transcript.NeverWritten(other); got != other {
		t.Errorf("NeverWritten changed a no_session error: %v → %v", other, got)
	}
}
