package transcript_test

import (
	"bytes"
	"encoding/json"
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
	// Tool shapes of both formats, so each target starts near the other's too.
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"n","input":{"a":[1]}}]}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"text":"x"}],"is_error":true}]}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","name":"n","arguments":"{\"a\":1}","call_id":"c"}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"{\"output\":\"o\",\"metadata\":{\"exit_code\":1}}"}}`))
}

// checkLocal runs parse (named name) on data and checks that it does not fail and
// that the whole parses as the concatenation of its lines. It returns the result.
func checkLocal[T any](t *testing.T, name, format string, data []byte, parse func(string, []byte) ([]T, error)) []T {
	t.Helper()
	whole, err := parse(format, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var byLine []T
	for line := range bytes.Lines(data) {
		es, err := parse(format, line)
		if err != nil {
			t.Fatalf("%s(line): %v", name, err)
		}
		byLine = append(byLine, es...)
	}
	if d := cmp.Diff(byLine, whole); d != "" {
		t.Fatalf("%s(whole) differs from %s per line (-lines +whole):\n%s", name, name, d)
	}
	return whole
}

var kinds = []string{transcript.KindText, transcript.KindThinking, transcript.KindToolUse, transcript.KindToolResult, transcript.KindOther}

// checkParse runs Parse on data and checks what holds for any input: no error, valid
// kinds, a role on every entry, and line locality (the whole parses as the
// concatenation of its lines).
func checkParse(t *testing.T, format string, data []byte) []transcript.Entry {
	entries := checkLocal(t, "Parse", format, data, transcript.Parse)
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

// checkTools runs Tools on data and checks what holds for any input: no error, line
// locality, a call id on every event, fields set only for their kind, Args valid
// JSON, and PendingCalls a subsequence of the calls that no later result answers.
// It returns the events.
func checkTools(t *testing.T, format string, data []byte) []transcript.ToolEvent {
	evs := checkLocal(t, "Tools", format, data, transcript.Tools)
	for i, e := range evs {
		switch {
		case e.CallID == "":
			t.Fatalf("event %d: empty call id: %+v", i, e)
		case e.Kind == transcript.ToolCall && (e.OK || e.Text != ""):
			t.Fatalf("event %d: call with result fields: %+v", i, e)
		case e.Kind == transcript.ToolResult && (e.Name != "" || e.Args != nil):
			t.Fatalf("event %d: result with call fields: %+v", i, e)
		case e.Kind != transcript.ToolCall && e.Kind != transcript.ToolResult:
			t.Fatalf("event %d: kind %q", i, e.Kind)
		case e.Args != nil && !json.Valid(e.Args):
			t.Fatalf("event %d: args %q are not JSON", i, e.Args)
		}
	}
	pending := transcript.PendingCalls(evs)
	next := 0
	for _, p := range pending {
		for next < len(evs) && !cmp.Equal(evs[next], p) {
			next++
		}
		if next == len(evs) {
			t.Fatalf("pending call %+v is not a call of the events in order", p)
		}
		for _, later := range evs[next+1:] {
			if later.Kind == transcript.ToolResult && later.CallID == p.CallID {
				t.Fatalf("pending call %+v has a later result", p)
			}
		}
		next++
	}
	return evs
}

// count returns how many of es satisfy keep.
func count[E any](es []E, keep func(E) bool) int {
	n := 0
	for _, e := range es {
		if keep(e) {
			n++
		}
	}
	return n
}

func FuzzParseClaude(f *testing.F) {
	seed(f, "claude", "mock")
	f.Fuzz(func(t *testing.T, data []byte) {
		entries := checkParse(t, transcript.FormatClaude, data)
		evs := checkTools(t, transcript.FormatClaude, data)
		transcript.LimitNotice(transcript.FormatClaude, data)
		if u, _ := transcript.TurnUsage(transcript.FormatClaude, data); u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 {
			t.Fatalf("negative usage %+v", u)
		}
		// Every tool event is a block Parse reads as a tool entry (one without an id is
		// an entry but no event).
		checkToolCounts(t, entries, evs)
	})
}

func FuzzParseCodex(f *testing.F) {
	seed(f, "codex")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkTools(t, transcript.FormatCodex, data)
		transcript.LimitNotice(transcript.FormatCodex, data)
		if u, _ := transcript.TurnUsage(transcript.FormatCodex, data); u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 {
			t.Fatalf("negative usage %+v", u)
		}
		for i, e := range checkParse(t, transcript.FormatCodex, data) {
			switch {
			case e.InputTokens != nil || e.OutputTokens != nil:
				t.Fatalf("codex entry %d: %+v; want no tokens", i, e)
			case e.Kind == transcript.KindText && e.Text == "":
				t.Fatalf("codex entry %d: %+v; want non-empty text", i, e)
			case e.Kind == transcript.KindToolUse && (e.Role != transcript.RoleAssistant || e.Text != ""):
				t.Fatalf("codex entry %d: %+v; want an assistant tool_use without text", i, e)
			case e.Kind == transcript.KindToolResult && e.Role != transcript.RoleTool:
				t.Fatalf("codex entry %d: %+v; want a tool tool_result", i, e)
			case e.Kind != transcript.KindText && e.Kind != transcript.KindToolUse && e.Kind != transcript.KindToolResult:
				t.Fatalf("codex entry %d: %+v; want text, tool_use or tool_result", i, e)
			}
		}
	})
}

// checkOther runs every reader of a format of docs/providers.md §6.9 on data and checks
// what holds for any input: no error, valid kinds and roles, tool events consistent
// with the tool entries, usage not negative. lineLocal formats (pi, qwen) also parse
// and read tools line by line.
func checkOther(t *testing.T, format string, data []byte, lineLocal bool) {
	var entries []transcript.Entry
	var evs []transcript.ToolEvent
	if lineLocal {
		entries, evs = checkParse(t, format, data), checkTools(t, format, data)
	} else {
		var err error
		if entries, err = transcript.Parse(format, data); err != nil {
			t.Fatal(err)
		}
		for i, e := range entries {
			if !slices.Contains(kinds, e.Kind) || e.Role == "" || e.Kind != transcript.KindToolUse && e.Tool != "" {
				t.Fatalf("entry %d: %+v", i, e)
			}
		}
		if evs, err = transcript.Tools(format, data); err != nil {
			t.Fatal(err)
		}
		for i, e := range evs {
			if e.CallID == "" || e.Args != nil && !json.Valid(e.Args) || e.Kind == transcript.ToolResult && (e.Name != "" || e.Args != nil) {
				t.Fatalf("event %d: %+v", i, e)
			}
		}
	}
	checkToolCounts(t, entries, evs)
	if n, ok := transcript.LimitNotice(format, data); ok != (n != "") {
		t.Fatalf("LimitNotice = %q, %v", n, ok)
	}
	if u, _ := transcript.TurnUsage(format, data); u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 || u.Reasoning < 0 {
		t.Fatalf("negative usage %+v", u)
	}
	if format == transcript.FormatOpencode {
		transcript.OpencodeTurnOpen(data)
	}
}

func FuzzParsePi(f *testing.F) {
	seed(f, "pi")
	f.Fuzz(func(t *testing.T, data []byte) { checkOther(t, transcript.FormatPi, data, true) })
}

func FuzzParseQwen(f *testing.F) {
	seed(f, "qwen")
	f.Fuzz(func(t *testing.T, data []byte) { checkOther(t, transcript.FormatQwen, data, true) })
}

func FuzzParseGemini(f *testing.F) {
	seed(f, "gemini")
	f.Add([]byte(`{"$set":{"messages":[{"id":"a","type":"gemini","content":[{"text":"x"}],"toolCalls":[{"id":"c","name":"n","args":{},"status":"error"}]}]}}` + "\n" + `{"id":"a","type":"error","content":"429"}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkOther(t, transcript.FormatGemini, data, false) })
}

func FuzzParseOpencode(f *testing.F) {
	seed(f, "opencode")
	f.Add([]byte(`{"messages":[{"info":{"role":"assistant","error":{"data":{"message":"429"}}},"parts":[{"type":"tool","callID":"c","tool":"bash","state":{"status":"error","error":"e"}},{"type":"reasoning","text":"r"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkOther(t, transcript.FormatOpencode, data, false) })
}

// checkToolCounts checks that there are no more tool calls and results than tool_use
// and tool_result entries.
func checkToolCounts(t *testing.T, entries []transcript.Entry, evs []transcript.ToolEvent) {
	t.Helper()
	isKind := func(k string) func(transcript.Entry) bool {
		return func(e transcript.Entry) bool { return e.Kind == k }
	}
	isEvent := func(k string) func(transcript.ToolEvent) bool {
		return func(e transcript.ToolEvent) bool { return e.Kind == k }
	}
	if count(evs, isEvent(transcript.ToolCall)) > count(entries, isKind(transcript.KindToolUse)) ||
		count(evs, isEvent(transcript.ToolResult)) > count(entries, isKind(transcript.KindToolResult)) {
		t.Fatalf("more tool events than tool entries: %+v vs %+v", evs, entries)
	}
}
