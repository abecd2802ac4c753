package transcript_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/transcript"
)

// seed adds every fixture of dirs, whole and line by line, to f's corpus.
func seed(f *testing.F, dirs ...string) {
	for _, dir := range dirs {
		for _, in := range inputs(f, dir) {
			data, err := os.ReadFile(in)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
			for line := range bytes.Lines(data) {
				f.Add(line)
			}
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\r\n{"))
}

var kinds = []string{transcript.KindText, transcript.KindThinking, transcript.KindToolUse, transcript.KindToolResult, transcript.KindOther}

// checkParse runs Parse on data and checks what holds for any input: no error, valid
// kinds, a role on every entry, and line locality (the whole parses as the
// concatenation of its lines).
func checkParse(t *testing.T, format string, data []byte) []transcript.Entry {
	entries, err := transcript.Parse(format, data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var byLine []transcript.Entry
	for line := range bytes.Lines(data) {
		es, err := transcript.Parse(format, line)
		if err != nil {
			t.Fatalf("Parse(line): %v", err)
		}
		byLine = append(byLine, es...)
	}
	if d := cmp.Diff(byLine, entries); d != "" {
		t.Fatalf("Parse(whole) differs from Parse per line (-lines +whole):\n%s", d)
	}
	for i, e := range entries {
		if !slices.Contains(kinds, e.Kind) {
			t.Fatalf("entry %d: kind %q", i, e.Kind)
		}
		if e.Role == "" {
			t.Fatalf("entry %d: empty role", i)
		}
		if e.Kind != transcript.KindToolUse && e.Tool != "" {
			t.Fatalf("entry %d: tool %q on kind %s", i, e.Tool, e.Kind)
		}
	}
	if s, ok := transcript.LastResponse(entries); ok && s == "" {
		t.Fatal("LastResponse: ok with empty text")
	}
	return entries
}

func FuzzParseClaude(f *testing.F) {
	seed(f, "claude", "mock")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, transcript.FormatClaude, data)
	})
}

func FuzzParseCodex(f *testing.F) {
	seed(f, "codex")
	f.Fuzz(func(t *testing.T, data []byte) {
		for i, e := range checkParse(t, transcript.FormatCodex, data) {
			if e.Kind != transcript.KindText || e.Text == "" || e.InputTokens != nil || e.OutputTokens != nil {
				t.Fatalf("codex entry %d: %+v; want non-empty text without tokens", i, e)
			}
		}
	})
}
