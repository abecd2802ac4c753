package transcript_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// toolsGolden is what a .tools.golden.json file holds for one transcript.
type toolsGolden struct {
	Events  []transcript.ToolEvent `json:"events"`
	Pending []transcript.ToolEvent `json:"pending"`
}

func TestToolsGolden(t *testing.T) {
	eachFixture(t, func(t *testing.T, in, stem, format string) {
		evs, err := transcript.ReadTools(in, format)
		if err != nil {
			t.Fatalf("ReadTools(%s, %s): %v", in, format, err)
		}
		checkGolden(t, stem+".tools.golden.json", toolsGolden{Events: evs, Pending: transcript.PendingCalls(evs)})
	})
}

func TestTools(t *testing.T) {
	call := func(id, name, args string) transcript.ToolEvent {
		e := transcript.ToolEvent{Kind: transcript.ToolCall, CallID: id, Name: name}
		if args != "" {
			e.Args = json.RawMessage(args)
		}
		return e
	}
	result := func(id string, ok bool, text string) transcript.ToolEvent {
		return transcript.ToolEvent{Kind: transcript.ToolResult, CallID: id, OK: ok, Text: text}
	}
	for _, tc := range []struct {
		name, format, line string
		want               []transcript.ToolEvent
	}{
		{"claude call, input compacted", "claude",
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{ "command" : "ls" }}]}}`,
			[]transcript.ToolEvent{call("t1", "Bash", `{"command":"ls"}`)}},
		{"claude call without input", "claude",
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash"}]}}`,
			[]transcript.ToolEvent{call("t1", "Bash", "")}},
		{"claude error result", "claude",
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"denied","is_error":true}]}}`,
			[]transcript.ToolEvent{result("t1", false, "denied")}},
		{"claude is_error not a bool", "claude",
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":"true"}]}}`,
			[]transcript.ToolEvent{result("t1", true, "")}},
		{"claude text and thinking only", "claude",
			`{"type":"assistant","message":{"content":[{"type":"text","text":"hi"},{"type":"thinking","thinking":"hm"}]}}`,
			nil},
		{"claude progress line", "claude",
			`{"type":"progress","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash"}]}}`,
			nil},
		{"codex function call", "codex",
			`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\": [\"ls\"]}","call_id":"c1"}}`,
			[]transcript.ToolEvent{call("c1", "shell", `{"command":["ls"]}`)}},
		{"codex arguments not an object", "codex",
			`{"type":"response_item","payload":{"type":"function_call","name":"f","arguments":"42","call_id":"c1"}}`,
			[]transcript.ToolEvent{call("c1", "f", `"42"`)}},
		{"codex custom call", "codex",
			`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c1"}}`,
			[]transcript.ToolEvent{call("c1", "apply_patch", `"*** Begin Patch"`)}},
		{"codex shell output, exit 2", "codex",
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"boom\\n\",\"metadata\":{\"exit_code\":2}}"}}`,
			[]transcript.ToolEvent{result("c1", false, "boom\n")}},
		{"codex shell output, exit 0", "codex",
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"fine\",\"metadata\":{\"exit_code\":0}}"}}`,
			[]transcript.ToolEvent{result("c1", true, "fine")}},
		{"codex plain output", "codex",
			`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"Success."}}`,
			[]transcript.ToolEvent{result("c1", true, "Success.")}},
		{"codex object output", "codex",
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":{"content":"no","success":false}}}`,
			[]transcript.ToolEvent{result("c1", false, "no")}},
		{"codex message", "codex",
			`{"type":"response_item","payload":{"type":"message","role":"assistant","call_id":"c1","content":[{"type":"output_text","text":"x"}]}}`,
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := transcript.Tools(tc.format, []byte(tc.line))
			if err != nil {
				t.Fatalf("Tools: %v", err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Tools(%s, %s) (-want +got):\n%s", tc.format, tc.line, d)
			}
		})
	}
}

func TestPendingCalls(t *testing.T) {
	c := func(id string) transcript.ToolEvent {
		return transcript.ToolEvent{Kind: transcript.ToolCall, CallID: id}
	}
	r := func(id string) transcript.ToolEvent {
		return transcript.ToolEvent{Kind: transcript.ToolResult, CallID: id, OK: true}
	}
	for _, tc := range []struct {
		name string
		evs  []transcript.ToolEvent
		want []transcript.ToolEvent
	}{
		{"none", nil, nil},
		{"answered", []transcript.ToolEvent{c("a"), r("a")}, nil},
		{"last call open", []transcript.ToolEvent{c("a"), r("a"), c("b")}, []transcript.ToolEvent{c("b")}},
		{"open calls keep their order", []transcript.ToolEvent{c("a"), c("b"), c("c"), r("b")}, []transcript.ToolEvent{c("a"), c("c")}},
		{"a result before its call does not answer it", []transcript.ToolEvent{r("a"), c("a")}, []transcript.ToolEvent{c("a")}},
		{"a reused id is answered by the result after it", []transcript.ToolEvent{c("a"), r("a"), c("a")}, []transcript.ToolEvent{c("a")}},
		{"results alone", []transcript.ToolEvent{r("a"), r("b")}, nil},
	} {
		if d := cmp.Diff(tc.want, transcript.PendingCalls(tc.evs)); d != "" {
			t.Errorf("PendingCalls(%s) (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestToolsErrors(t *testing.T) {
	if _, err := transcript.Tools("aider", []byte("{}\n")); !errors.Is(err, transcript.ErrUnknownFormat) {
		t.Errorf("Tools(gemini): got %v, want ErrUnknownFormat", err)
	}
	_, err := transcript.ReadTools(filepath.Join("testdata", "claude", "tools.jsonl"), "aider")
	if !wire.Is(err, wire.TranscriptUnavailable, wire.CauseReadError) {
		t.Errorf("ReadTools(aider): got %v, want transcript_unavailable read_error", err)
	}
	_, err = transcript.ReadTools(filepath.Join(t.TempDir(), "gone.jsonl"), transcript.FormatCodex)
	if !wire.Is(err, wire.TranscriptUnavailable, wire.CauseNotFound) {
		t.Errorf("ReadTools(missing): got %v, want transcript_unavailable not_found", err)
	}
}
