package transcript

import (
	"bytes"
	"encoding/json"
)

// Usage is the tokens a turn used, as its provider reported them to the transcript
// (docs/providers.md §6.8), by kind: Input is the input not read from the cache (codex
// counts cached input inside its input_tokens; it is taken out), Output includes
// Reasoning (reported by codex only), and Model is the model that answered ("" when
// the transcript names none).
type Usage struct {
	Input      int64  `json:"input_tokens"`
	Output     int64  `json:"output_tokens"`
	CacheRead  int64  `json:"cache_read_tokens"`
	CacheWrite int64  `json:"cache_write_tokens"`
	Reasoning  int64  `json:"reasoning_tokens"`
	Model      string `json:"model"`
	// Quota is the quota windows the transcript last reported (codex; [CodexQuota]).
	Quota []QuotaWindow `json:"quota,omitempty"`
}

// TurnUsage sums the usage of the transcript's last turn — everything after its last
// user prompt — and reports whether the turn reported any:
//   - claude: the usage of each assistant message, counted once per message id (claude
//     writes one line per content block, each with the message's usage): input_tokens,
//     output_tokens, cache_read_input_tokens, cache_creation_input_tokens;
//     The model is the last assistant message's message.model.
//   - codex: the growth of the session's total_token_usage over the turn, from the
//     token_count events (input_tokens less cached_input_tokens, output_tokens,
//     cached_input_tokens, cache_write_input_tokens, reasoning_output_tokens), so a
//     repeated event is not counted twice. The model is the last one the session's
//     settings named (thread_settings_applied, or turn_context in older versions).
func TurnUsage(format string, data []byte) (Usage, bool) {
	if a, ok := adapters[format]; ok {
		return a.usage(data)
	}
	if format == FormatCodex {
		return codexTurnUsage(data)
	}
	return claudeTurnUsage(data)
}

// ReadTurnUsage is [TurnUsage] of the transcript at path.
func ReadTurnUsage(path, format string) (Usage, bool, error) {
	data, err := readTranscript(path, format)
	if err != nil {
		return Usage{}, false, err
	}
	u, ok := TurnUsage(format, data)
	return u, ok, nil
}

func lines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 && l[0] == '{' {
			out = append(out, l)
		}
	}
	return out
}

func int64Of(raw json.RawMessage) int64 {
	if p := jsonInt(raw); p != nil && *p > 0 {
		return *p
	}
	return 0
}

// claudeTurnUsage decodes the lines after the last prompt alone, found from the end: a
// turn's usage costs the turn's lines, not the whole session's (docs/usage.md §6).
func claudeTurnUsage(data []byte) (Usage, bool) {
	var u Usage
	seen := map[string]bool{}
	any := false
	ls := lines(data)
	for i := len(ls) - 1; i >= 0; i-- {
		if isClaudePrompt(ls[i]) {
			ls = ls[i+1:]
			break
		}
	}
	for _, line := range ls {
		_, typ, _, ok := decodeClaudeLine(line)
		if !ok || typ == RoleUser {
			continue
		}
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Model json.RawMessage `json:"model"`
			Usage *struct {
				Input      json.RawMessage `json:"input_tokens"`
				Output     json.RawMessage `json:"output_tokens"`
				CacheRead  json.RawMessage `json:"cache_read_input_tokens"`
				CacheWrite json.RawMessage `json:"cache_creation_input_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal(mustObject(line, "message"), &msg) != nil || msg.Usage == nil {
			continue
		}
		id, _ := jsonString(msg.ID)
		if id != "" && seen[id] {
			continue
		}
		seen[id] = true
		any = true
		if model, _ := jsonString(msg.Model); model != "" {
			u.Model = model
		}
		u.Input += int64Of(msg.Usage.Input)
		u.Output += int64Of(msg.Usage.Output)
		u.CacheRead += int64Of(msg.Usage.CacheRead)
		u.CacheWrite += int64Of(msg.Usage.CacheWrite)
	}
	return u, any
}

// isClaudePrompt reports whether line is a user's prompt, which starts a turn.
func isClaudePrompt(line []byte) bool {
	_, typ, m, ok := decodeClaudeLine(line)
	if !ok || typ != RoleUser {
		return false
	}
	s, isStr := jsonString(m.Content)
	return isStr && s != "" || hasTextBlock(m)
}

// hasTextBlock reports whether a user message holds a text block that is not one of
// claude's system reminders: the user's prompt, not a tool result.
func hasTextBlock(m claudeMessage) bool {
	for _, raw := range claudeBlocks(m) {
		var b claudeBlock
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		if t, _ := jsonString(b.Type); t == "text" {
			if s, _ := jsonString(b.Text); s != "" && !bytes.HasPrefix(bytes.TrimSpace([]byte(s)), []byte("<system-reminder>")) {
				return true
			}
		}
	}
	return false
}

func codexTurnUsage(data []byte) (Usage, bool) {
	var before, last Usage
	model := ""
	inTurn, any := false, false
	for _, line := range lines(data) {
		var l codexLine
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		typ, _ := jsonString(l.Type)
		if typ == "response_item" {
			if _, p, ok := decodeCodexItem(line); ok {
				pt, _ := jsonString(p.Type)
				r, _ := jsonString(p.Role)
				if pt == "message" && r == RoleUser && !inTurnContext(p) {
					before, inTurn, any = last, true, false
				}
			}
			continue
		}
		if typ == "turn_context" {
			if m := codexModel(l.Payload, false); m != "" {
				model = m
			}
			continue
		}
		if typ != "event_msg" {
			continue
		}
		var ev struct {
			Type json.RawMessage `json:"type"`
			Info *struct {
				Total *struct {
					Input      json.RawMessage `json:"input_tokens"`
					Output     json.RawMessage `json:"output_tokens"`
					CacheRead  json.RawMessage `json:"cached_input_tokens"`
					CacheWrite json.RawMessage `json:"cache_write_input_tokens"`
					Reasoning  json.RawMessage `json:"reasoning_output_tokens"`
				} `json:"total_token_usage"`
			} `json:"info"`
		}
		if json.Unmarshal(l.Payload, &ev) != nil {
			continue
		}
		switch t, _ := jsonString(ev.Type); {
		case t == "thread_settings_applied":
			if m := codexModel(l.Payload, true); m != "" {
				model = m
			}
			continue
		case t != "token_count" || ev.Info == nil || ev.Info.Total == nil:
			continue
		}
		tot := ev.Info.Total
		last = Usage{Input: int64Of(tot.Input), Output: int64Of(tot.Output), CacheRead: int64Of(tot.CacheRead),
			CacheWrite: int64Of(tot.CacheWrite), Reasoning: int64Of(tot.Reasoning)}
		any = any || inTurn
	}
	if !any {
		return Usage{}, false
	}
	sub := func(a, b int64) int64 { return max(a-b, 0) }
	cached := sub(last.CacheRead, before.CacheRead)
	return Usage{Input: sub(sub(last.Input, before.Input), cached), Output: sub(last.Output, before.Output),
		CacheRead: cached, CacheWrite: sub(last.CacheWrite, before.CacheWrite),
		Reasoning: sub(last.Reasoning, before.Reasoning), Model: model, Quota: CodexQuota(data)}, true
}

// codexModel is the model a codex settings payload names: a turn_context's model, or
// with settings a thread_settings_applied event's thread_settings.model.
func codexModel(payload json.RawMessage, settings bool) string {
	var p struct {
		Model    json.RawMessage `json:"model"`
		Settings *struct {
			Model json.RawMessage `json:"model"`
		} `json:"thread_settings"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	raw := p.Model
	if settings {
		if p.Settings == nil {
			return ""
		}
		raw = p.Settings.Model
	}
	m, _ := jsonString(raw)
	return m
}

// inTurnContext reports whether a codex user message is context codex adds (its
// environment context, AGENTS.md instructions) rather than the user's prompt.
func inTurnContext(p codexPayload) bool {
	var blocks []codexBlock
	if json.Unmarshal(p.Content, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		s, _ := jsonString(b.Text)
		t := bytes.TrimSpace([]byte(s))
		if bytes.HasPrefix(t, []byte("<environment_context>")) || bytes.HasPrefix(t, []byte("# AGENTS.md instructions")) {
			return true
		}
	}
	return false
}

// TurnEnd is what a turn's completion reads from the transcript: the final response
// and the turn's usage, from one read of the file (docs/usage.md §6).
type TurnEnd struct {
	Response    string
	HasResponse bool
	Usage       Usage
	HasUsage    bool
}

// ReadTurnEnd reads the transcript at path once and takes from the same bytes the last
// response ([LastResponse] of its entries) and the last turn's usage ([TurnUsage]).
// Errors are [Read]'s.
func ReadTurnEnd(path, format string) (TurnEnd, error) {
	data, err := readTranscript(path, format)
	if err != nil {
		return TurnEnd{}, err
	}
	entries, err := Parse(format, data)
	if err != nil {
		return TurnEnd{}, err
	}
	var e TurnEnd
	e.Response, e.HasResponse = LastResponse(entries)
	e.Usage, e.HasUsage = TurnUsage(format, data)
	return e, nil
}
