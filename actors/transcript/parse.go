package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Transcript formats: which parser reads a provider's files. The values equal the
// provider package's FormatClaude and FormatCodex (the mock writes the claude format).
const (
	FormatClaude = "claude"
	FormatCodex  = "codex"
)

// ErrUnknownFormat is returned (wrapped) by [Parse] for a format [KnownFormat] does not
// know.
var ErrUnknownFormat = errors.New("transcript: unknown format")

// Parse parses a whole transcript in format into entries, in file order. Lines are
// separated by "\n" (a trailing "\r" is dropped). Blank lines, lines that are not a
// JSON object, lines of a type the format does not use and lines whose fields have
// unexpected JSON types are skipped; the only error is [ErrUnknownFormat]. Each line is
// parsed on its own, so Parse of a concatenation is the concatenation of the Parses.
// The result is nil when no line yields an entry.
func Parse(format string, data []byte) ([]Entry, error) {
	if a, ok := adapters[format]; ok {
		return a.parse(data), nil
	}
	return parseLines(format, data, parseClaudeLine, parseCodexLine)
}

// parseLines runs the line parser of format (claude or codex) over every line of data
// that is not blank, each without its "\n" and a trailing "\r", appending to one
// result.
func parseLines[T any](format string, data []byte, claude, codex func([]byte, []T) []T) ([]T, error) {
	parseLine := claude
	switch format {
	case FormatClaude:
	case FormatCodex:
		parseLine = codex
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownFormat, format)
	}
	var out []T
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		out = parseLine(line, out)
	}
	return out, nil
}

// Read reads and parses the transcript at path. A file that no longer exists is
// transcript_unavailable not_found (it was rotated or deleted after [Locate]); any other
// read failure is read_error. Both wrap the underlying error. An unknown format is
// transcript_unavailable read_error too.
func Read(path, format string) ([]Entry, error) {
	data, err := readTranscript(path, format)
	if err != nil {
		return nil, err
	}
	return Parse(format, data)
}

// readTranscript reads the file at path for [Read] and [ReadTools], with their errors.
func readTranscript(path, format string) ([]byte, error) {
	if !KnownFormat(format) {
		return nil, Unavailable(wire.CauseReadError, fmt.Sprintf("unknown transcript format %q", format)).
			Wrap(ErrUnknownFormat)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Unavailable(wire.CauseNotFound, "transcript file "+path+" no longer exists (rotated or deleted)").Wrap(err)
	}
	if err != nil {
		return nil, Unavailable(wire.CauseReadError, "cannot read transcript: "+err.Error()).Wrap(err)
	}
	return data, nil
}

// jsonString decodes raw as a JSON string; ok is false for anything else (absent,
// null, a number, …).
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonInt decodes raw as a JSON number holding an integer that fits an int64; nil for
// anything else, a string holding digits included (json.Number alone would take it).
func jsonInt(raw json.RawMessage) *int64 {
	if len(raw) == 0 || raw[0] == '"' {
		return nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return nil
	}
	v, err := n.Int64()
	if err != nil {
		return nil
	}
	return &v
}

// --- claude (docs/providers.md §3.6) ---

// claudeLine is the part of a claude transcript line this package reads. Every field is
// raw so an unexpected JSON type skips the field, not the line.
type claudeLine struct {
	Type      json.RawMessage `json:"type"`
	Timestamp json.RawMessage `json:"timestamp"`
	Message   json.RawMessage `json:"message"`
}

type claudeMessage struct {
	Role    json.RawMessage `json:"role"`
	Content json.RawMessage `json:"content"`
	Usage   json.RawMessage `json:"usage"`
}

type claudeUsage struct {
	InputTokens  json.RawMessage `json:"input_tokens"`
	OutputTokens json.RawMessage `json:"output_tokens"`
}

// claudeBlock is the part of a content block [Parse] and [Tools] read.
type claudeBlock struct {
	Type      json.RawMessage `json:"type"`
	Text      json.RawMessage `json:"text"`
	Thinking  json.RawMessage `json:"thinking"`
	Name      json.RawMessage `json:"name"`
	Content   json.RawMessage `json:"content"`
	ID        json.RawMessage `json:"id"`          // tool_use
	Input     json.RawMessage `json:"input"`       // tool_use
	ToolUseID json.RawMessage `json:"tool_use_id"` // tool_result
	IsError   json.RawMessage `json:"is_error"`    // tool_result
}

// parseClaudeLine appends the entries of one claude line to out. Only "user" and
// "assistant" lines with a message count. A message whose content is neither a string
// nor an array yields nothing.
func parseClaudeLine(line []byte, out []Entry) []Entry {
	l, typ, m, ok := decodeClaudeLine(line)
	if !ok {
		return out
	}
	base := Entry{Role: typ}
	if r, ok := jsonString(m.Role); ok && r != "" {
		base.Role = r
	}
	base.Timestamp, _ = jsonString(l.Timestamp)
	var u claudeUsage
	if len(m.Usage) > 0 && m.Usage[0] == '{' && json.Unmarshal(m.Usage, &u) == nil {
		base.InputTokens = jsonInt(u.InputTokens)
		base.OutputTokens = jsonInt(u.OutputTokens)
	}
	if s, ok := jsonString(m.Content); ok {
		e := base
		e.Kind, e.Text = KindText, s
		return append(out, e)
	}
	for _, raw := range claudeBlocks(m) {
		e := base
		e.Kind = KindOther
		var b claudeBlock
		if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &b) == nil {
			bt, _ := jsonString(b.Type)
			switch bt {
			case "text":
				e.Kind = KindText
				e.Text, _ = jsonString(b.Text)
			case "thinking":
				e.Kind = KindThinking
				e.Text, _ = jsonString(b.Thinking)
			case "tool_use":
				e.Kind = KindToolUse
				e.Tool, _ = jsonString(b.Name)
			case "tool_result":
				e.Kind = KindToolResult
				e.Text = toolResultText(b.Content)
			}
		}
		copyTokens(&e)
		out = append(out, e)
	}
	return out
}

// decodeClaudeLine decodes a claude line whose type is "user" or "assistant" and
// which has a message object; ok is false for any other line.
func decodeClaudeLine(line []byte) (l claudeLine, typ string, m claudeMessage, ok bool) {
	if json.Unmarshal(line, &l) != nil {
		return l, "", m, false
	}
	typ, _ = jsonString(l.Type)
	if typ != RoleUser && typ != RoleAssistant {
		return l, "", m, false
	}
	if len(l.Message) == 0 || l.Message[0] != '{' || json.Unmarshal(l.Message, &m) != nil {
		return l, "", m, false
	}
	return l, typ, m, true
}

// claudeBlocks returns the blocks of a message whose content is an array; nil for
// any other content.
func claudeBlocks(m claudeMessage) []json.RawMessage {
	var blocks []json.RawMessage
	if len(m.Content) == 0 || m.Content[0] != '[' || json.Unmarshal(m.Content, &blocks) != nil {
		return nil
	}
	return blocks
}

// copyTokens gives e its own token counters, so entries of one line share no pointers.
func copyTokens(e *Entry) {
	if e.InputTokens != nil {
		v := *e.InputTokens
		e.InputTokens = &v
	}
	if e.OutputTokens != nil {
		v := *e.OutputTokens
		e.OutputTokens = &v
	}
}

// toolResultText is the text of a tool_result block's content: the string itself, or
// the string "text" fields of the array's object items joined with newlines.
func toolResultText(raw json.RawMessage) string {
	if s, ok := jsonString(raw); ok {
		return s
	}
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var texts []string
	for _, it := range items {
		var o struct {
			Text json.RawMessage `json:"text"`
		}
		if len(it) == 0 || it[0] != '{' || json.Unmarshal(it, &o) != nil {
			continue
		}
		if s, ok := jsonString(o.Text); ok {
			texts = append(texts, s)
		}
	}
	return strings.Join(texts, "\n")
}

// --- codex (docs/providers.md §4.6) ---

type codexLine struct {
	Type      json.RawMessage `json:"type"`
	Timestamp json.RawMessage `json:"timestamp"`
	Payload   json.RawMessage `json:"payload"`
}

// codexPayload is the part of a response item's payload [Parse] and [Tools] read.
type codexPayload struct {
	Type      json.RawMessage `json:"type"`
	Role      json.RawMessage `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    json.RawMessage `json:"call_id"`   // tool calls and outputs
	Name      json.RawMessage `json:"name"`      // tool calls
	Arguments json.RawMessage `json:"arguments"` // function_call
	Input     json.RawMessage `json:"input"`     // custom_tool_call
	Output    json.RawMessage `json:"output"`    // *_output
}

type codexBlock struct {
	Type json.RawMessage `json:"type"`
	Text json.RawMessage `json:"text"`
}

// parseCodexLine appends the entries of one codex line to out: only response_item lines
// whose payload is a message, one text entry per input_text/output_text/text block with
// non-empty text, or a tool call (function_call, custom_tool_call: an assistant
// tool_use entry naming the tool) or its output (a tool tool_result entry with the text
// [codexOutput] reads). Codex entries carry no token counts.
func parseCodexLine(line []byte, out []Entry) []Entry {
	l, p, ok := decodeCodexItem(line)
	if !ok {
		return out
	}
	ts, _ := jsonString(l.Timestamp)
	switch t, _ := jsonString(p.Type); t {
	case "message":
	case "function_call", "custom_tool_call":
		name, _ := jsonString(p.Name)
		return append(out, Entry{Role: RoleAssistant, Kind: KindToolUse, Tool: name, Timestamp: ts})
	case "function_call_output", "custom_tool_call_output":
		_, text := codexOutput(p.Output)
		return append(out, Entry{Role: RoleTool, Kind: KindToolResult, Text: text, Timestamp: ts})
	default:
		return out
	}
	base := Entry{Role: RoleAssistant, Kind: KindText}
	if r, ok := jsonString(p.Role); ok && r != "" {
		base.Role = r
	}
	base.Timestamp, _ = jsonString(l.Timestamp)
	var blocks []json.RawMessage
	if len(p.Content) == 0 || p.Content[0] != '[' || json.Unmarshal(p.Content, &blocks) != nil {
		return out
	}
	for _, raw := range blocks {
		var b codexBlock
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &b) != nil {
			continue
		}
		switch bt, _ := jsonString(b.Type); bt {
		case "input_text", "output_text", "text":
		default:
			continue
		}
		if s, ok := jsonString(b.Text); ok && s != "" {
			e := base
			e.Text = s
			out = append(out, e)
		}
	}
	return out
}

// decodeCodexItem decodes a codex line of type "response_item" whose payload is an
// object; ok is false for any other line.
func decodeCodexItem(line []byte) (l codexLine, p codexPayload, ok bool) {
	if json.Unmarshal(line, &l) != nil {
		return l, p, false
	}
	if t, _ := jsonString(l.Type); t != "response_item" {
		return l, p, false
	}
	if len(l.Payload) == 0 || l.Payload[0] != '{' || json.Unmarshal(l.Payload, &p) != nil {
		return l, p, false
	}
	return l, p, true
}
