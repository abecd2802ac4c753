package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// --- pi (docs/providers.md §6.9.1) ---

// piLine is the part of a pi session line this package reads.
type piLine struct {
	Type      json.RawMessage `json:"type"`
	Timestamp json.RawMessage `json:"timestamp"`
	Message   json.RawMessage `json:"message"`
}

// piMessage is a "message" line's message: user, assistant or toolResult.
type piMessage struct {
	Role         json.RawMessage `json:"role"`
	Content      json.RawMessage `json:"content"`
	Model        json.RawMessage `json:"model"`
	Usage        json.RawMessage `json:"usage"`
	StopReason   json.RawMessage `json:"stopReason"`
	ErrorMessage json.RawMessage `json:"errorMessage"`
	ToolCallID   json.RawMessage `json:"toolCallId"` // toolResult
	IsError      json.RawMessage `json:"isError"`    // toolResult
}

type piUsage struct {
	Input      json.RawMessage `json:"input"`
	Output     json.RawMessage `json:"output"`
	CacheRead  json.RawMessage `json:"cacheRead"`
	CacheWrite json.RawMessage `json:"cacheWrite"`
}

// piBlock is a content block: text, thinking, toolCall (or image, read as other).
type piBlock struct {
	Type      json.RawMessage `json:"type"`
	Text      json.RawMessage `json:"text"`
	Thinking  json.RawMessage `json:"thinking"`
	ID        json.RawMessage `json:"id"`
	Name      json.RawMessage `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// decodePi decodes a "message" line; role is the message's role ("" when it has none).
func decodePi(line []byte) (l piLine, m piMessage, role string, ok bool) {
	if json.Unmarshal(line, &l) != nil {
		return l, m, "", false
	}
	if t, _ := jsonString(l.Type); t != "message" || !object(l.Message, &m) {
		return l, m, "", false
	}
	role, _ = jsonString(m.Role)
	return l, m, role, role != ""
}

// piBlocks is a message's content as blocks; a string content is one text block.
func piBlocks(m piMessage) []piBlock {
	if s, ok := jsonString(m.Content); ok {
		raw, _ := json.Marshal(s)
		return []piBlock{{Type: json.RawMessage(`"text"`), Text: raw}}
	}
	var out []piBlock
	for _, raw := range array(m.Content) {
		var b piBlock
		if object(raw, &b) {
			out = append(out, b)
		}
	}
	return out
}

// parsePi: user and assistant blocks become entries of their role (text, thinking,
// toolCall as tool_use naming the tool, anything else other); a toolResult is one tool
// tool_result entry with its texts. Assistant entries carry the message's input and
// output tokens.
func parsePi(data []byte) []Entry {
	var out []Entry
	jsonLines(data, func(line []byte) {
		l, m, role, ok := decodePi(line)
		if !ok {
			return
		}
		ts, _ := jsonString(l.Timestamp)
		if role == "toolResult" {
			out = append(out, Entry{Role: RoleTool, Kind: KindToolResult, Text: textOf(m.Content), Timestamp: ts})
			return
		}
		base := Entry{Role: role, Timestamp: ts}
		var u piUsage
		if role == RoleAssistant && object(m.Usage, &u) {
			base.InputTokens, base.OutputTokens = jsonInt(u.Input), jsonInt(u.Output)
		}
		for _, b := range piBlocks(m) {
			e := base
			switch t, _ := jsonString(b.Type); t {
			case "text":
				e.Kind = KindText
				e.Text, _ = jsonString(b.Text)
			case "thinking":
				e.Kind = KindThinking
				e.Text, _ = jsonString(b.Thinking)
			case "toolCall":
				e.Kind = KindToolUse
				e.Tool, _ = jsonString(b.Name)
			default:
				e.Kind = KindOther
			}
			copyTokens(&e)
			out = append(out, e)
		}
	})
	return out
}

// piTools: a toolCall block is a call (id, name, arguments); a toolResult message is
// its result (toolCallId, its texts), not ok when isError is true.
func piTools(data []byte) []ToolEvent {
	var out []ToolEvent
	jsonLines(data, func(line []byte) {
		_, m, role, ok := decodePi(line)
		if !ok {
			return
		}
		if role == "toolResult" {
			if id, _ := jsonString(m.ToolCallID); id != "" {
				out = append(out, ToolEvent{Kind: ToolResult, CallID: id,
					OK: !bytes.Equal(m.IsError, []byte("true")), Text: textOf(m.Content)})
			}
			return
		}
		if role != RoleAssistant {
			return
		}
		for _, b := range piBlocks(m) {
			if t, _ := jsonString(b.Type); t != "toolCall" {
				continue
			}
			if id, _ := jsonString(b.ID); id != "" {
				name, _ := jsonString(b.Name)
				out = append(out, ToolEvent{Kind: ToolCall, CallID: id, Name: name, Args: compactJSON(b.Arguments)})
			}
		}
	})
	return out
}

// piIsPrompt reports whether a message is a user prompt: role user with a text.
func piIsPrompt(m piMessage, role string) bool {
	if role != RoleUser {
		return false
	}
	for _, b := range piBlocks(m) {
		if t, _ := jsonString(b.Type); t == "text" {
			if s, _ := jsonString(b.Text); !isBlank(s) {
				return true
			}
		}
	}
	return false
}

// piTurnUsage sums the usage of the assistant messages after the last prompt: pi
// reports input without the cache, cacheRead and cacheWrite apart (as Anthropic
// does), so each maps to its own counter; no reasoning. The model is the last one.
func piTurnUsage(data []byte) (Usage, bool) {
	var u Usage
	any := false
	jsonLines(data, func(line []byte) {
		_, m, role, ok := decodePi(line)
		switch {
		case !ok:
		case piIsPrompt(m, role):
			u, any = Usage{}, false
		case role == RoleAssistant:
			var pu piUsage
			if !object(m.Usage, &pu) {
				return
			}
			any = true
			u.Input += int64Of(pu.Input)
			u.Output += int64Of(pu.Output)
			u.CacheRead += int64Of(pu.CacheRead)
			u.CacheWrite += int64Of(pu.CacheWrite)
			if model, _ := jsonString(m.Model); model != "" {
				u.Model = model
			}
		}
	})
	return u, any
}

// piLimit: an assistant message that stopped with stopReason "error" and an
// errorMessage naming a limit (429, rate or usage limit) is the notice; a later
// prompt or answer clears it.
func piLimit(data []byte) (string, bool) {
	notice := ""
	jsonLines(data, func(line []byte) {
		_, m, role, ok := decodePi(line)
		switch {
		case !ok:
		case piIsPrompt(m, role):
			notice = ""
		case role == RoleAssistant:
			stop, _ := jsonString(m.StopReason)
			msg, _ := jsonString(m.ErrorMessage)
			if stop == "error" && namesLimit(msg) {
				notice = msg
			} else if stop != "error" {
				notice = ""
			}
		}
	})
	return notice, notice != ""
}

// PiSessionDir is pi's directory for the sessions started in cwd:
// --<cwd without its leading separator, separators and colons as "-">--.
func PiSessionDir(cwd string) string {
	c := strings.TrimLeft(filepath.ToSlash(filepath.Clean(cwd)), "/")
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(c) + "--"
}

// piCandidates: <dir>/sessions/<PiSessionDir(cwd)>/*_<id>.jsonl, else the same name in
// every session directory.
func piCandidates(l Locator, dir, id string) ([]string, error) {
	if id == "" {
		return piFresh(l, dir)
	}
	if !validID(id) {
		return nil, nil
	}
	name := "*_" + id + ".jsonl"
	if l.Cwd != "" {
		c, err := globFiles(filepath.Join(dir, "sessions", PiSessionDir(l.Cwd), name), "pi sessions")
		if err != nil || len(c) > 0 {
			return c, err
		}
	}
	return globFiles(filepath.Join(dir, "sessions", "*", name), "pi sessions")
}

// piFresh is pi's location without a session pointer (herdr 0.8.2's pi extension
// reported none, docs/providers.md §12.1): the session files of the agent's cwd written
// since the agent started. One is the agent's; several (another pi agent in the same
// directory) leave the gate ambiguous.
func piFresh(l Locator, dir string) ([]string, error) {
	if l.Cwd == "" {
		return nil, nil
	}
	all, err := globFiles(filepath.Join(dir, "sessions", PiSessionDir(l.Cwd), "*.jsonl"), "pi sessions")
	if err != nil {
		return nil, err
	}
	var fresh []string
	for _, c := range all {
		if fi, err := os.Stat(c); err == nil && fi.ModTime().UnixMilli() >= l.CreatedAt.UnixMilli() {
			fresh = append(fresh, c)
		}
	}
	return fresh, nil
}
