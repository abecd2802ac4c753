package transcript

import (
	"bytes"
	"encoding/json"
	"path/filepath"
)

// --- qwen (docs/providers.md §6.9.2) ---

// qwenLine is the part of a qwen chat line this package reads.
type qwenLine struct {
	Type           json.RawMessage `json:"type"`
	Timestamp      json.RawMessage `json:"timestamp"`
	Model          json.RawMessage `json:"model"`
	Message        json.RawMessage `json:"message"`
	UsageMetadata  json.RawMessage `json:"usageMetadata"`
	ToolCallResult json.RawMessage `json:"toolCallResult"`
	Subtype        json.RawMessage `json:"subtype"`
	SystemPayload  json.RawMessage `json:"systemPayload"`
}

// geminiPart is a part of a Gemini-shaped message (qwen's lines, gemini's records).
type geminiPart struct {
	Text             json.RawMessage `json:"text"`
	Thought          json.RawMessage `json:"thought"`
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
}

// geminiCall is a functionCall or functionResponse part's value.
type geminiCall struct {
	ID       json.RawMessage `json:"id"`
	Name     json.RawMessage `json:"name"`
	Args     json.RawMessage `json:"args"`
	Response json.RawMessage `json:"response"`
}

// geminiUsage is the Gemini API's usageMetadata.
type geminiUsage struct {
	Prompt     json.RawMessage `json:"promptTokenCount"`
	Candidates json.RawMessage `json:"candidatesTokenCount"`
	Thoughts   json.RawMessage `json:"thoughtsTokenCount"`
	Cached     json.RawMessage `json:"cachedContentTokenCount"`
}

// decodeQwen decodes a line of type user, assistant or tool_result with its message's
// parts; ok is false for any other line (system telemetry, attribution snapshots, …).
func decodeQwen(line []byte) (l qwenLine, typ string, parts []geminiPart, ok bool) {
	if json.Unmarshal(line, &l) != nil {
		return l, "", nil, false
	}
	typ, _ = jsonString(l.Type)
	if typ != RoleUser && typ != RoleAssistant && typ != "tool_result" {
		return l, "", nil, false
	}
	var m struct {
		Parts json.RawMessage `json:"parts"`
	}
	if !object(l.Message, &m) {
		return l, "", nil, false
	}
	return l, typ, decodeParts(m.Parts), true
}

// decodeParts is the object parts of a Gemini parts array.
func decodeParts(raw json.RawMessage) []geminiPart {
	var out []geminiPart
	for _, it := range array(raw) {
		var p geminiPart
		if object(it, &p) {
			out = append(out, p)
		}
	}
	return out
}

// responseText is a functionResponse's response as text: its "output" string, else
// its "error" string, else the response compacted.
func responseText(raw json.RawMessage) string {
	var r struct {
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	if !object(raw, &r) {
		s, _ := jsonString(raw)
		return s
	}
	if s, ok := jsonString(r.Output); ok {
		return s
	}
	if s, ok := jsonString(r.Error); ok {
		return s
	}
	return string(compactJSON(raw))
}

// partEntries appends the entries of Gemini parts with role: text (thought: true is
// thinking), functionCall (tool_use), functionResponse (a tool tool_result), others
// other.
func partEntries(out []Entry, base Entry, parts []geminiPart) []Entry {
	for _, p := range parts {
		e := base
		var c geminiCall
		switch {
		case len(p.Text) > 0:
			e.Kind = KindText
			if bytes.Equal(p.Thought, []byte("true")) {
				e.Kind = KindThinking
			}
			e.Text, _ = jsonString(p.Text)
		case object(p.FunctionCall, &c):
			e.Kind = KindToolUse
			e.Tool, _ = jsonString(c.Name)
		case object(p.FunctionResponse, &c):
			e.Role, e.Kind = RoleTool, KindToolResult
			e.Text = responseText(c.Response)
			e.InputTokens, e.OutputTokens = nil, nil
		default:
			e.Kind = KindOther
		}
		copyTokens(&e)
		out = append(out, e)
	}
	return out
}

// parseQwen: user lines are user entries, assistant lines (role "model") assistant
// entries with usageMetadata's prompt and candidates tokens, tool_result lines tool
// tool_result entries; system lines are skipped.
func parseQwen(data []byte) []Entry {
	var out []Entry
	jsonLines(data, func(line []byte) {
		l, typ, parts, ok := decodeQwen(line)
		if !ok {
			return
		}
		base := Entry{Role: typ, Timestamp: stringOf(l.Timestamp)}
		if typ == "tool_result" {
			base.Role = RoleTool
		}
		var u geminiUsage
		if typ == RoleAssistant && object(l.UsageMetadata, &u) {
			base.InputTokens, base.OutputTokens = jsonInt(u.Prompt), jsonInt(u.Candidates)
		}
		out = partEntries(out, base, parts)
	})
	return out
}

// stringOf is raw as a string, "" when it is none.
func stringOf(raw json.RawMessage) string {
	s, _ := jsonString(raw)
	return s
}

// qwenTools: an assistant functionCall part is a call (id, name, args); a tool_result
// line's functionResponse is its result, not ok unless toolCallResult.status is
// "success" (absent: ok).
func qwenTools(data []byte) []ToolEvent {
	var out []ToolEvent
	jsonLines(data, func(line []byte) {
		l, typ, parts, ok := decodeQwen(line)
		if !ok || typ == RoleUser {
			return
		}
		okResult := true
		var r struct {
			Status json.RawMessage `json:"status"`
		}
		if object(l.ToolCallResult, &r) {
			if s, isStr := jsonString(r.Status); isStr && s != "success" {
				okResult = false
			}
		}
		out = partTools(out, parts, typ == RoleAssistant, okResult)
	})
	return out
}

// partTools appends the calls (calls true) or the results of Gemini parts.
func partTools(out []ToolEvent, parts []geminiPart, calls, ok bool) []ToolEvent {
	for _, p := range parts {
		var c geminiCall
		switch {
		case calls && object(p.FunctionCall, &c):
			if id := stringOf(c.ID); id != "" {
				out = append(out, ToolEvent{Kind: ToolCall, CallID: id, Name: stringOf(c.Name), Args: compactJSON(c.Args)})
			}
		case !calls && object(p.FunctionResponse, &c):
			if id := stringOf(c.ID); id != "" {
				out = append(out, ToolEvent{Kind: ToolResult, CallID: id, OK: ok, Text: responseText(c.Response)})
			}
		}
	}
	return out
}

// hasPromptPart reports whether parts hold a text that is not blank.
func hasPromptPart(parts []geminiPart) bool {
	for _, p := range parts {
		if s, _ := jsonString(p.Text); !isBlank(s) {
			return true
		}
	}
	return false
}

// qwenTurnUsage sums the usageMetadata of the assistant lines after the last user
// prompt. The Gemini usage counts cached input inside the prompt and thoughts outside
// the candidates: input = prompt − cached, output = candidates + thoughts (reasoning
// inside output, as codex counts it), cache read = cached; no cache writes. qwen's
// side requests (its memory extractor, its suggestions) write no assistant line —
// only system ui_telemetry lines naming a subagent — so they are not counted. The
// model is the last assistant line's.
func qwenTurnUsage(data []byte) (Usage, bool) {
	var u Usage
	any := false
	jsonLines(data, func(line []byte) {
		l, typ, parts, ok := decodeQwen(line)
		switch {
		case !ok:
		case typ == RoleUser && hasPromptPart(parts):
			u, any = Usage{}, false
		case typ == RoleAssistant:
			var gu geminiUsage
			if !object(l.UsageMetadata, &gu) {
				return
			}
			any = true
			addGeminiUsage(&u, int64Of(gu.Prompt), int64Of(gu.Candidates), int64Of(gu.Cached), int64Of(gu.Thoughts))
			if m := stringOf(l.Model); m != "" {
				u.Model = m
			}
		}
	})
	return u, any
}

// addGeminiUsage adds one Gemini-counted response to u.
func addGeminiUsage(u *Usage, prompt, candidates, cached, thoughts int64) {
	u.Input += max(prompt-cached, 0)
	u.Output += candidates + thoughts
	u.CacheRead += cached
	u.Reasoning += thoughts
}

// qwenLimit: a system ui_telemetry line whose qwen-code.api_error event has status_code
// 429 or an error_message naming a limit (qwen 0.24.4 at the model stand-in's 429:
// "429 The usage limit has been reached", error_type RateLimitError, while it keeps
// retrying with its spinner and nothing else on screen), the notice being the
// error_message; a later prompt or answer clears it.
func qwenLimit(data []byte) (string, bool) {
	notice := ""
	jsonLines(data, func(line []byte) {
		l, typ, parts, ok := decodeQwen(line)
		switch {
		case ok && (typ == RoleUser && hasPromptPart(parts) || typ == RoleAssistant):
			notice = ""
		case !ok && stringOf(l.Type) == "system" && stringOf(l.Subtype) == "ui_telemetry":
			var p struct {
				Event struct {
					Name   json.RawMessage `json:"event.name"`
					Error  json.RawMessage `json:"error_message"`
					Status json.RawMessage `json:"status_code"`
				} `json:"uiEvent"`
			}
			if !object(l.SystemPayload, &p) || stringOf(p.Event.Name) != "qwen-code.api_error" {
				return
			}
			msg := stringOf(p.Event.Error)
			if st := jsonInt(p.Event.Status); msg != "" && (st != nil && *st == 429 || namesLimit(msg)) {
				notice = msg
			}
		}
	})
	return notice, notice != ""
}

// qwenCandidates: <dir>/projects/<ClaudeProjectSlug(cwd)>/chats/<id>.jsonl, else the
// same name in every project.
func qwenCandidates(l Locator, dir, id string) ([]string, error) {
	if !validID(id) {
		return nil, nil
	}
	if l.Cwd != "" {
		p := filepath.Join(dir, "projects", ClaudeProjectSlug(filepath.Clean(l.Cwd)), "chats", id+".jsonl")
		if isFile(p) {
			return []string{p}, nil
		}
	}
	return globFiles(filepath.Join(dir, "projects", "*", "chats", id+".jsonl"), "qwen projects")
}
