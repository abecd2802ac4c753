package transcript

import (
	"bytes"
	"encoding/json"
)

// Tool event kinds ([ToolEvent.Kind]).
const (
	ToolCall   = "call"
	ToolResult = "result"
)

// ToolEvent is one tool call or tool result read from a transcript: what the session
// log's tool/call and tool/result events and the approvals' pending call are made of
// (docs/providers.md §6.6, docs/remote.md §5 and §7).
type ToolEvent struct {
	// Kind is [ToolCall] or [ToolResult].
	Kind string
	// CallID is the provider's tool-call id: claude's tool_use.id and
	// tool_result.tool_use_id, codex's call_id. Never empty.
	CallID string
	// Name is the tool name (calls only; may be empty when the provider wrote none).
	Name string
	// Args is the call's input as one compact JSON value (calls only). A codex
	// argument string that holds a JSON object is that object; any other string stays
	// a JSON string. Nil when the call carries no input.
	Args json.RawMessage
	// OK is false when the provider marks the result an error (results only; false on
	// calls).
	OK bool
	// Text is the result text (results only), possibly empty.
	Text string
}

// Tools parses the tool calls and results of a whole transcript in format, in file
// order. It reads the lines [Parse] reads, with the same leniency: a block or item
// without a call id, or whose fields have unexpected JSON types, yields nothing, and
// the only error is [ErrUnknownFormat]. Each line is parsed on its own, so Tools of a
// concatenation is the concatenation of the Tools. The result is nil when there is no
// tool event.
func Tools(format string, data []byte) ([]ToolEvent, error) {
	if a, ok := adapters[format]; ok {
		return a.tools(data), nil
	}
	return parseLines(format, data, claudeToolsLine, codexToolsLine)
}

// ReadTools reads the transcript at path and returns its tool events ([Tools]). Its
// errors are [Read]'s.
func ReadTools(path, format string) ([]ToolEvent, error) {
	data, err := readTranscript(path, format)
	if err != nil {
		return nil, err
	}
	return Tools(format, data)
}

// PendingCalls returns the calls of evs that no later result of the same CallID
// answers, in order: the calls a provider is still running or waiting to be allowed
// to run. A result before its call does not answer it.
func PendingCalls(evs []ToolEvent) []ToolEvent {
	answered := map[string]bool{}
	var pending []ToolEvent
	for i := len(evs) - 1; i >= 0; i-- {
		switch e := evs[i]; e.Kind {
		case ToolResult:
			answered[e.CallID] = true
		case ToolCall:
			if !answered[e.CallID] {
				pending = append(pending, e)
			}
		}
	}
	for i, j := 0, len(pending)-1; i < j; i, j = i+1, j-1 {
		pending[i], pending[j] = pending[j], pending[i]
	}
	return pending
}

// compactJSON returns raw compacted into a fresh slice, or nil when raw is absent or
// not valid JSON.
func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return nil
	}
	return b.Bytes()
}

// --- claude (docs/providers.md §3.6) ---

// claudeToolsLine appends the tool events of one claude line to out: a tool_use
// block with a string id is a call, a tool_result block with a string tool_use_id a
// result, not OK when is_error is true.
func claudeToolsLine(line []byte, out []ToolEvent) []ToolEvent {
	_, _, m, ok := decodeClaudeLine(line)
	if !ok {
		return out
	}
	for _, raw := range claudeBlocks(m) {
		var b claudeBlock
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &b) != nil {
			continue
		}
		switch bt, _ := jsonString(b.Type); bt {
		case "tool_use":
			id, _ := jsonString(b.ID)
			if id == "" {
				continue
			}
			name, _ := jsonString(b.Name)
			out = append(out, ToolEvent{Kind: ToolCall, CallID: id, Name: name, Args: compactJSON(b.Input)})
		case "tool_result":
			id, _ := jsonString(b.ToolUseID)
			if id == "" {
				continue
			}
			isErr := bytes.Equal(b.IsError, []byte("true"))
			out = append(out, ToolEvent{Kind: ToolResult, CallID: id, OK: !isErr, Text: toolResultText(b.Content)})
		}
	}
	return out
}

// --- codex (docs/providers.md §4.6) ---

// codexToolsLine appends the tool event of one codex line to out: a response_item
// whose payload is a function_call or custom_tool_call (a call) or their _output (a
// result), with a string call_id.
func codexToolsLine(line []byte, out []ToolEvent) []ToolEvent {
	_, p, ok := decodeCodexItem(line)
	if !ok {
		return out
	}
	id, _ := jsonString(p.CallID)
	if id == "" {
		return out
	}
	switch t, _ := jsonString(p.Type); t {
	case "function_call":
		name, _ := jsonString(p.Name)
		return append(out, ToolEvent{Kind: ToolCall, CallID: id, Name: name, Args: codexArgs(p.Arguments)})
	case "custom_tool_call":
		name, _ := jsonString(p.Name)
		return append(out, ToolEvent{Kind: ToolCall, CallID: id, Name: name, Args: codexArgs(p.Input)})
	case "function_call_output", "custom_tool_call_output":
		ok, text := codexOutput(p.Output)
		return append(out, ToolEvent{Kind: ToolResult, CallID: id, OK: ok, Text: text})
	}
	return out
}

// codexArgs is a call's arguments: a string holding a JSON object becomes that
// object, any other string stays a JSON string, any other JSON value is kept.
func codexArgs(raw json.RawMessage) json.RawMessage {
	s, ok := jsonString(raw)
	if !ok {
		return compactJSON(raw)
	}
	if t := bytes.TrimSpace([]byte(s)); len(t) > 0 && t[0] == '{' {
		if obj := compactJSON(t); obj != nil {
			return obj
		}
	}
	return compactJSON(raw)
}

// codexExecOutput is the JSON object codex writes as the output string of a shell
// call: the command's output and its exit code.
type codexExecOutput struct {
	Output   json.RawMessage `json:"output"`
	Metadata *struct {
		ExitCode json.RawMessage `json:"exit_code"`
	} `json:"metadata"`
}

// codexOutput reads a call's output. A string is the text; when it holds codex's
// shell result object, the text is that object's output and a non-zero exit_code
// marks the result an error. An object {content, success} is read the same way, with
// success false an error. A list of items with text (codex 0.169.0's custom tool
// output) is their texts joined with newlines. Anything else is an OK result without
// text.
func codexOutput(raw json.RawMessage) (ok bool, text string) {
	if s, isStr := jsonString(raw); isStr {
		var e codexExecOutput
		if t := bytes.TrimSpace([]byte(s)); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &e) != nil {
			return true, s
		}
		ok = true
		if e.Metadata != nil {
			if n := jsonInt(e.Metadata.ExitCode); n != nil && *n != 0 {
				ok = false
			}
		}
		if out, isStr := jsonString(e.Output); isStr {
			return ok, out
		}
		return ok, s
	}
	if len(raw) > 0 && raw[0] == '[' {
		// codex 0.169.0's custom_tool_call_output: a list of input_text items.
		return true, toolResultText(raw)
	}
	var o struct {
		Content json.RawMessage `json:"content"`
		Success json.RawMessage `json:"success"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &o) != nil {
		return true, ""
	}
	return !bytes.Equal(o.Success, []byte("false")), toolResultText(o.Content)
}
