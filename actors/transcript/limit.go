package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// LimitNotice returns the message with which the provider ended the transcript's last
// turn at its usage or rate limit (docs/providers.md §6.7), and true; "" and false when
// the last turn did not end so. The real CLIs end such a turn idle, with the message on
// screen and in the transcript:
//   - claude (and the mock's format): a synthetic assistant message (model
//     "<synthetic>") whose text starts "API Error" and names a 429, a rate limit or a
//     usage limit (2.1.328 with an API key: "API Error: Request rejected (429) · This
//     request would exceed your account's rate limit. Please try again later.");
//   - codex: a task_complete event whose error is the usage limit (0.169.0:
//     codex_error_info "usage_limit_exceeded", the message "You've hit your usage
//     limit … try again at 5:44 PM.").
//
// A later user message or answer clears it: the limit is the last turn's.
func LimitNotice(format string, data []byte) (string, bool) {
	if a, ok := adapters[format]; ok {
		return a.limit(data)
	}
	notice := ""
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		if format == FormatCodex {
			notice = codexLimitLine(line, notice)
		} else {
			notice = claudeLimitLine(line, notice)
		}
	}
	return notice, notice != ""
}

// ReadLimitNotice is [LimitNotice] of the transcript at path.
func ReadLimitNotice(path, format string) (string, bool, error) {
	data, err := readTranscript(path, format)
	if err != nil {
		return "", false, err
	}
	n, ok := LimitNotice(format, data)
	return n, ok, nil
}

// limitWords are what a limit message names.
func namesLimit(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "429") || strings.Contains(l, "rate limit") || strings.Contains(l, "usage limit")
}

func claudeLimitLine(line []byte, notice string) string {
	_, typ, m, ok := decodeClaudeLine(line)
	if !ok {
		return notice
	}
	var model struct {
		Model json.RawMessage `json:"model"`
	}
	json.Unmarshal(mustObject(line, "message"), &model)
	name, _ := jsonString(model.Model)
	text := ""
	if s, ok := jsonString(m.Content); ok {
		text = s
	}
	for _, raw := range claudeBlocks(m) {
		var b claudeBlock
		if json.Unmarshal(raw, &b) == nil {
			if t, _ := jsonString(b.Type); t == "text" {
				text, _ = jsonString(b.Text)
			}
		}
	}
	switch {
	case typ == RoleAssistant && name == "<synthetic>" && strings.HasPrefix(text, "API Error") && namesLimit(text):
		return text
	case typ == RoleUser && text != "", typ == RoleAssistant && name != "<synthetic>":
		return "" // a later prompt or answer: the limit was an earlier turn's
	}
	return notice
}

// mustObject is the raw value of key in the JSON object line, nil when absent.
func mustObject(line []byte, key string) json.RawMessage {
	var o map[string]json.RawMessage
	if json.Unmarshal(line, &o) != nil {
		return nil
	}
	return o[key]
}

func codexLimitLine(line []byte, notice string) string {
	var l codexLine
	if json.Unmarshal(line, &l) != nil {
		return notice
	}
	typ, _ := jsonString(l.Type)
	if typ == "response_item" {
		if _, p, ok := decodeCodexItem(line); ok {
			if t, _ := jsonString(p.Type); t == "message" {
				if r, _ := jsonString(p.Role); r == RoleUser || r == RoleAssistant {
					return ""
				}
			}
		}
		return notice
	}
	if typ != "event_msg" {
		return notice
	}
	var ev struct {
		Type  json.RawMessage `json:"type"`
		Error *struct {
			Message json.RawMessage `json:"message"`
			Info    json.RawMessage `json:"codex_error_info"`
		} `json:"error"`
	}
	if len(l.Payload) == 0 || l.Payload[0] != '{' || json.Unmarshal(l.Payload, &ev) != nil {
		return notice
	}
	if t, _ := jsonString(ev.Type); t != "task_complete" {
		return notice
	}
	if ev.Error == nil {
		return ""
	}
	msg, _ := jsonString(ev.Error.Message)
	info, _ := jsonString(ev.Error.Info)
	if strings.Contains(info, "usage_limit") || namesLimit(msg) {
		return msg
	}
	return ""
}
