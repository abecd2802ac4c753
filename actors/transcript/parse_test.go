package transcript_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// goldenDirs maps each testdata directory to the format its files are written in. The
// mock writes the claude format (docs/providers.md §8).
var goldenDirs = map[string]string{
	"claude":   transcript.FormatClaude,
	"codex":    transcript.FormatCodex,
	"mock":     transcript.FormatClaude,
	"pi":       transcript.FormatPi,
	"qwen":     transcript.FormatQwen,
	"gemini":   transcript.FormatGemini,
	"opencode": transcript.FormatOpencode,
}

// exportExt ends the name of a fixture that is an export, not JSON Lines.
const exportExt = ".export.json"

// golden is what a .golden.json file holds for one transcript.
type golden struct {
	Entries []transcript.Entry `json:"entries"`
	// LastResponse is LastResponse's text, null when it reports none.
	LastResponse *string `json:"last_response"`
}

// inputs returns the transcript fixtures of dir (testdata/<dir>/*.jsonl, and the
// exports opencode prints, *.export.json).
func inputs(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.jsonl", "*" + exportExt} {
		fs, err := filepath.Glob(filepath.Join("testdata", dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures in testdata/%s", dir)
	}
	return files
}

// eachFixture runs test as a subtest for every fixture of [goldenDirs], with the
// fixture's path without ".jsonl" and its format.
func eachFixture(t *testing.T, test func(t *testing.T, in, stem, format string)) {
	for dir, format := range goldenDirs {
		for _, in := range inputs(t, dir) {
			stem := strings.TrimSuffix(strings.TrimSuffix(in, ".jsonl"), exportExt)
			t.Run(filepath.ToSlash(stem), func(t *testing.T) { test(t, in, stem, format) })
		}
	}
}

func TestParseGolden(t *testing.T) {
	eachFixture(t, func(t *testing.T, in, stem, format string) {
		entries, err := transcript.Read(in, format)
		if err != nil {
			t.Fatalf("Read(%s, %s): %v", in, format, err)
		}
		g := golden{Entries: entries}
		if s, ok := transcript.LastResponse(entries); ok {
			g.LastResponse = &s
		}
		checkGolden(t, stem+".golden.json", g)
	})
}

// checkGolden compares v, encoded as indented JSON, with the file gf; with -update it
// writes the file instead.
func checkGolden(t *testing.T, gf string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	if *update {
		if err := os.WriteFile(gf, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(gf)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("mismatch against %s (-want +got):\n%s", gf, d)
	}
}

func TestMockTranscriptIsEntryShaped(t *testing.T) {
	for _, in := range inputs(t, "mock") {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		var direct []transcript.Entry
		for line := range bytes.Lines(data) {
			var e transcript.Entry
			if err := json.Unmarshal(line, &e); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			direct = append(direct, e)
		}
		parsed, err := transcript.Parse(transcript.FormatClaude, data)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(direct, parsed); d != "" {
			t.Errorf("%s: claude adapter disagrees with the lines' own entry fields (-direct +parsed):\n%s", in, d)
		}
	}
}

func TestEntryJSONOmitsAbsentFields(t *testing.T) {
	n := int64(0)
	for _, tc := range []struct {
		name string
		e    transcript.Entry
		want string
	}{
		{"bare", transcript.Entry{Role: "user", Kind: "text"}, `{"role":"user","kind":"text","text":""}`},
		{"full", transcript.Entry{Role: "assistant", Kind: "tool_use", Tool: "Bash", Timestamp: "t", InputTokens: &n, OutputTokens: &n},
			`{"role":"assistant","kind":"tool_use","text":"","tool":"Bash","timestamp":"t","input_tokens":0,"output_tokens":0}`},
	} {
		got, err := json.Marshal(tc.e)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s: json.Marshal: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestParseUnknownFormat(t *testing.T) {
	if _, err := transcript.Parse("aider", []byte("{}\n")); !errors.Is(err, transcript.ErrUnknownFormat) {
		t.Errorf("Parse(gemini): got %v, want ErrUnknownFormat", err)
	}
	_, err := transcript.Read(filepath.Join("testdata", "mock", "turns.jsonl"), "aider")
	if !wire.Is(err, wire.TranscriptUnavailable, wire.CauseReadError) {
		t.Errorf("Read(aider): got %v, want transcript_unavailable read_error", err)
	}
}

func TestParseEntriesShareNoTokenPointers(t *testing.T) {
	line := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"usage":{"input_tokens":5,"output_tokens":6}}}`
	es, err := transcript.Parse(transcript.FormatClaude, []byte(line))
	if err != nil || len(es) != 2 {
		t.Fatalf("Parse: got %d entries, %v; want 2, nil", len(es), err)
	}
	*es[0].InputTokens = 99
	if *es[1].InputTokens != 5 {
		t.Errorf("entries of one line share token counters: second input_tokens = %d after changing the first", *es[1].InputTokens)
	}
}

func TestParseTokensAreNumbers(t *testing.T) {
	line := `{"type":"assistant","message":{"role":"assistant","content":"x","usage":{"input_tokens":"5","output_tokens":6}}}`
	es, err := transcript.Parse(transcript.FormatClaude, []byte(line))
	if err != nil || len(es) != 1 {
		t.Fatalf("Parse: got %d entries, %v; want 1, nil", len(es), err)
	}
	if es[0].InputTokens != nil || es[0].OutputTokens == nil || *es[0].OutputTokens != 6 {
		t.Errorf("tokens: got input %v, output %v; want none (a string) and 6", es[0].InputTokens, es[0].OutputTokens)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := transcript.Read(filepath.Join(dir, "gone.jsonl"), transcript.FormatClaude)
	if !wire.Is(err, wire.TranscriptUnavailable, wire.CauseNotFound) {
		t.Errorf("Read(missing): got %v, want transcript_unavailable not_found", err)
	}
	_, err = transcript.Read(dir, transcript.FormatCodex)
	if !wire.Is(err, wire.TranscriptUnavailable, wire.CauseReadError) {
		t.Errorf("Read(directory): got %v, want transcript_unavailable read_error", err)
	}
	if pe, _ := wire.As(err); pe != nil && len(pe.Details) != 1 {
		t.Errorf("Read(directory): details = %v, want only the cause", pe.Details)
	}
}

func TestLastResponseAndPrompt(t *testing.T) {
	a := func(kind, text string) transcript.Entry {
		return transcript.Entry{Role: "assistant", Kind: kind, Text: text}
	}
	u := func(kind, text string) transcript.Entry {
		return transcript.Entry{Role: "user", Kind: kind, Text: text}
	}
	for _, tc := range []struct {
		name    string
		last    func([]transcript.Entry) (string, bool)
		entries []transcript.Entry
		want    string
		ok      bool
	}{
		{"response: none", transcript.LastResponse, nil, "", false},
		{"response: verbatim", transcript.LastResponse, []transcript.Entry{a("text", "  two\nlines \n")}, "  two\nlines \n", true},
		{"response: last wins", transcript.LastResponse, []transcript.Entry{a("text", "first"), a("text", "second")}, "second", true},
		{"response: skips blank", transcript.LastResponse, []transcript.Entry{a("text", "answer"), a("text", " \n\t")}, "answer", true},
		{"response: skips non-text", transcript.LastResponse, []transcript.Entry{a("text", "answer"), a("thinking", "hmm"), a("tool_use", "")}, "answer", true},
		{"response: skips user", transcript.LastResponse, []transcript.Entry{a("text", "answer"), u("text", "thanks")}, "answer", true},
		{"response: only user", transcript.LastResponse, []transcript.Entry{u("text", "q")}, "", false},
		{"prompt: none", transcript.LastPrompt, nil, "", false},
		{"prompt: last wins", transcript.LastPrompt, []transcript.Entry{u("text", "first"), u("text", "second")}, "second", true},
		{"prompt: skips tool results", transcript.LastPrompt, []transcript.Entry{u("text", "do it"), u("tool_result", "ran")}, "do it", true},
		{"prompt: skips blank", transcript.LastPrompt, []transcript.Entry{u("text", "ask"), u("text", "  ")}, "ask", true},
		{"prompt: skips the answer", transcript.LastPrompt, []transcript.Entry{u("text", "ask"), a("text", "done")}, "ask", true},
		{"prompt: only assistant", transcript.LastPrompt, []transcript.Entry{a("text", "hi")}, "", false},
	} {
		got, ok := tc.last(tc.entries)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFormatsMatchProvider(t *testing.T) {
	if transcript.FormatClaude != provider.FormatClaude || transcript.FormatCodex != provider.FormatCodex {
		t.Errorf("formats %q/%q differ from provider's %q/%q",
			transcript.FormatClaude, transcript.FormatCodex, provider.FormatClaude, provider.FormatCodex)
	}
	for _, name := range []string{provider.Claude, provider.Codex} {
		p, err := provider.Lookup(name, provider.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if f := p.Transcript().Format; f != transcript.FormatClaude && f != transcript.FormatCodex {
			t.Errorf("%s: transcript format %q not parsed by this package", name, f)
		}
	}
}
