package transcript_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orcr-go/orcr/actors/transcript"
)

// SessionOf (docs/providers.md §12): pi's file is its own pointer, gemini's is the
// header's sessionId; other formats and a gemini file without one name none.
func TestSessionOf(t *testing.T) {
	pi := filepath.Join("testdata", "pi", "turns.jsonl")
	abs, _ := filepath.Abs(pi)
	if k, v, ok := transcript.SessionOf(transcript.FormatPi, pi); !ok || k != transcript.SessionKindPath || v != abs {
		t.Errorf("pi: %q %q %v, want path %q", k, v, ok, abs)
	}
	gem := filepath.Join("testdata", "gemini", "turns.jsonl")
	if k, v, ok := transcript.SessionOf(transcript.FormatGemini, gem); !ok || k != transcript.SessionKindID || v != "e83d3723-1315-447f-b258-aadf51efa6a3" {
		t.Errorf("gemini: %q %q %v", k, v, ok)
	}
	bare := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(bare, []byte(`{"type":"user","content":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ format, path string }{
		{transcript.FormatGemini, bare}, {transcript.FormatGemini, bare + ".missing"},
		{transcript.FormatClaude, pi}, {transcript.FormatQwen, gem},
	} {
		if k, v, ok := transcript.SessionOf(c.format, c.path); ok {
			t.Errorf("%s %s: %q %q, want no pointer", c.format, c.path, k, v)
		}
	}
}
