package modeltest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Anthropic Messages API as claude uses it: POST /v1/messages (server-sent events
// when stream is true), POST /v1/messages/count_tokens, GET /v1/models.

type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Content   json.RawMessage `json:"content"`
	ToolUseID string          `json:"tool_use_id"`
}

// anthropicPrompt reads the latest user text and, when the messages end with a tool
// result, its output.
func anthropicPrompt(req anthropicRequest) (prompt, toolResult string, followUp bool) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s, toolResult, followUp
		}
		var blocks []anthropicBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		var texts []string
		hasResult := false
		for _, b := range blocks {
			switch b.Type {
			case "tool_result":
				hasResult = true
				if i == len(req.Messages)-1 {
					followUp = true
					toolResult = textOf(b.Content)
				}
			case "text":
				if !strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>") {
					texts = append(texts, b.Text)
				}
			}
		}
		if len(texts) > 0 && (!hasResult || i == len(req.Messages)-1) {
			// The user's text beside a tool result (claude sends a rejected call's
			// result with the next prompt) is a new prompt, not a follow-up.
			if hasResult {
				followUp, toolResult = false, ""
			}
			return strings.Join(texts, "\n"), toolResult, followUp
		}
	}
	return "", toolResult, followUp
}

// anthropicShell is the shell tool among names: claude's Bash, else the first whose
// name says bash or shell (pi's and opencode's bash, qwen's and gemini's
// run_shell_command); the Chat Completions answer picks its tool by it too.
func anthropicShell(names []string) string {
	for _, n := range names {
		if n == "Bash" {
			return n
		}
	}
	for _, n := range names {
		l := strings.ToLower(n)
		if strings.Contains(l, "bash") || strings.Contains(l, "shell") {
			return n
		}
	}
	return ""
}

func (s *Server) messages(w http.ResponseWriter, ctx context.Context, body []byte, rec *Request) int {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return anthropicError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a Messages request: "+err.Error(), nil)
	}
	rec.Model, rec.Stream = req.Model, req.Stream
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	rec.Prompt, rec.ToolResult, rec.FollowUp = anthropicPrompt(req)
	s.record(rec) // seen before it is answered: a stalled request too
	d := ParseDirectives(rec.Prompt)
	if !rec.FollowUp {
		if status := s.gate(w, Anthropic, rec.Prompt, d); status != 0 {
			return status
		}
	}
	id := s.nextID()
	msg := map[string]any{
		"id": fmt.Sprintf("msg_standin%06d", id), "type": "message", "role": "assistant",
		"model": req.Model, "stop_sequence": nil,
	}
	var blocks []map[string]any
	if d.Think != "" && !rec.FollowUp {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": d.Think, "signature": "standin-signature"})
	}
	stop := "end_turn"
	text := answerText(d)
	if tool := anthropicShell(rec.Tools); d.Tool != "" && !rec.FollowUp && tool != "" {
		stop = "tool_use"
		blocks = append(blocks, map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_standin%06d", id), "name": tool,
			"input": map[string]any{"command": d.Tool, "description": "Run " + d.Tool},
		})
		text = ""
	} else {
		blocks = append(blocks, map[string]any{"type": "text", "text": text})
	}
	in, out, cacheRead, cacheNew := usage(d, body, text)
	u := map[string]any{
		"input_tokens": in, "output_tokens": out,
		"cache_read_input_tokens": cacheRead, "cache_creation_input_tokens": cacheNew,
	}
	for k, v := range okLimitHeaders() {
		w.Header().Set(k, v)
	}
	for k, v := range quotaHeaders(d, Anthropic, time.Now()) {
		w.Header().Set(k, v)
	}
	w.Header().Set("request-id", fmt.Sprintf("req_standin%06d", id))
	if !req.Stream {
		msg["content"], msg["stop_reason"], msg["usage"] = blocks, stop, u
		return writeJSON(w, http.StatusOK, nil, msg)
	}
	sseHeaders(w)
	if !s.stall(ctx, w, d) {
		return http.StatusOK
	}
	e := &sse{w: w, ctx: ctx, pause: time.Duration(d.StreamMS) * time.Millisecond}
	msg["content"], msg["stop_reason"] = []any{}, nil
	msg["usage"] = map[string]any{
		"input_tokens": in, "output_tokens": 1,
		"cache_read_input_tokens": cacheRead, "cache_creation_input_tokens": cacheNew,
	}
	if !e.send("message_start", map[string]any{"type": "message_start", "message": msg}) ||
		!e.send("ping", map[string]any{"type": "ping"}) {
		return http.StatusOK
	}
	for i, b := range blocks {
		if !streamAnthropicBlock(e, i, b) {
			return http.StatusOK
		}
	}
	if e.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": u}) {
		e.send("message_stop", map[string]any{"type": "message_stop"})
	}
	return http.StatusOK
}

// streamAnthropicBlock sends one content block: start, its deltas, stop.
func streamAnthropicBlock(e *sse, i int, b map[string]any) bool {
	var start map[string]any
	var deltas []map[string]any
	switch b["type"] {
	case "thinking":
		start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		for _, c := range chunks(b["thinking"].(string), 3) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": c})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": b["signature"]})
	case "text":
		start = map[string]any{"type": "text", "text": ""}
		for _, c := range chunks(b["text"].(string), 3) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
	case "tool_use":
		start = map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
		input, _ := json.Marshal(b["input"])
		for _, c := range chunks(string(input), 3) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": c})
		}
	}
	if !e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start}) {
		return false
	}
	for _, d := range deltas {
		if !e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}) {
			return false
		}
	}
	return e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

func countTokens(w http.ResponseWriter, body []byte) int {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return anthropicError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a count_tokens request: "+err.Error(), nil)
	}
	return writeJSON(w, http.StatusOK, nil, map[string]any{"input_tokens": len(body)/4 + 1})
}

// standinModels are the models GET /v1/models lists.
var standinModels = []string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "gpt-5-standin"}

func models(w http.ResponseWriter, api, id string) int {
	created := "2025-01-01T00:00:00Z"
	entry := func(m string) map[string]any {
		if api == OpenAI {
			return map[string]any{"id": m, "object": "model", "created": 1735689600, "owned_by": "orcr-standin"}
		}
		return map[string]any{"type": "model", "id": m, "display_name": m, "created_at": created}
	}
	if id = strings.TrimPrefix(id, "/"); id != "" {
		return writeJSON(w, http.StatusOK, nil, entry(id))
	}
	var data []map[string]any
	for _, m := range standinModels {
		data = append(data, entry(m))
	}
	if api == OpenAI {
		return writeJSON(w, http.StatusOK, nil, map[string]any{"object": "list", "data": data})
	}
	return writeJSON(w, http.StatusOK, nil, map[string]any{
		"data": data, "has_more": false, "first_id": standinModels[0], "last_id": standinModels[len(standinModels)-1]})
}

func anthropicError(w http.ResponseWriter, status int, typ, message string, headers map[string]string) int {
	return writeJSON(w, status, headers, map[string]any{"type": "error",
		"error": map[string]any{"type": typ, "message": message}, "request_id": "req_standin_error"})
}

// okLimitHeaders are the anthropic-ratelimit-* headers of an answer within the limits.
func okLimitHeaders() map[string]string {
	reset := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	h := map[string]string{}
	for _, k := range []string{"requests", "tokens", "input-tokens", "output-tokens"} {
		h["anthropic-ratelimit-"+k+"-limit"] = "1000000"
		h["anthropic-ratelimit-"+k+"-remaining"] = "999999"
		h["anthropic-ratelimit-"+k+"-reset"] = reset
	}
	return h
}

// quotaHeaders are the quota windows' headers quota= asks of an answer within the
// limits: codex's x-codex-primary/secondary-* (used percent, window minutes, reset
// unix s), claude's anthropic-ratelimit-unified-5h/7d-* (utilization as a fraction,
// reset unix s). None without quota=.
func quotaHeaders(d Directives, api string, now time.Time) map[string]string {
	if !d.Quota {
		return nil
	}
	resetS := d.ResetS
	if resetS == 0 {
		resetS = 60
	}
	reset := strconv.FormatInt(now.Add(time.Duration(resetS)*time.Second).Unix(), 10)
	pct := func(n int) string { return strconv.Itoa(n) + ".0" }
	frac := func(n int) string { return strconv.FormatFloat(float64(n)/100, 'f', -1, 64) }
	if api == OpenAI {
		return map[string]string{
			"x-codex-primary-used-percent": pct(d.QuotaPrimary), "x-codex-primary-window-minutes": "300",
			"x-codex-primary-reset-at": reset, "x-codex-primary-reset-after-seconds": strconv.Itoa(resetS),
			"x-codex-secondary-used-percent": pct(d.QuotaSecondary), "x-codex-secondary-window-minutes": "10080",
			"x-codex-secondary-reset-at": reset, "x-codex-secondary-reset-after-seconds": strconv.Itoa(resetS),
		}
	}
	return map[string]string{
		"anthropic-ratelimit-unified-status": "allowed", "anthropic-ratelimit-unified-reset": reset,
		"anthropic-ratelimit-unified-5h-status": "allowed", "anthropic-ratelimit-unified-5h-utilization": frac(d.QuotaPrimary),
		"anthropic-ratelimit-unified-5h-reset":  reset,
		"anthropic-ratelimit-unified-7d-status": "allowed", "anthropic-ratelimit-unified-7d-utilization": frac(d.QuotaSecondary),
		"anthropic-ratelimit-unified-7d-reset": reset,
	}
}

func overloadedError(w http.ResponseWriter, api string) int {
	if api == Gemini {
		return geminiError(w, http.StatusServiceUnavailable, "UNAVAILABLE", "The model is overloaded. Please try again later.", nil)
	}
	if api != Anthropic {
		return writeJSON(w, http.StatusServiceUnavailable, nil, map[string]any{"error": map[string]any{
			"type": "server_is_overloaded", "code": "server_is_overloaded", "message": "The model stand-in is overloaded.", "param": nil}})
	}
	return anthropicError(w, 529, "overloaded_error", "Overloaded", nil)
}

// limitError answers a request over the limit until reset: claude's 429
// rate_limit_error with retry-after and the anthropic-ratelimit-* headers (the unified
// ones a subscription's limit carries too), codex's 429 usage_limit_reached with the
// x-codex-* rate-limit headers.
func limitError(w http.ResponseWriter, api string, reset, now time.Time) int {
	secs := int(reset.Sub(now).Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	if api == Gemini {
		return geminiLimit(w, secs)
	}
	retry := strconv.Itoa(secs)
	if api != Anthropic {
		h := map[string]string{
			"retry-after":                         retry,
			"x-ratelimit-limit-requests":          "1000",
			"x-ratelimit-remaining-requests":      "0",
			"x-ratelimit-reset-requests":          retry + "s",
			"x-codex-primary-used-percent":        "100.0",
			"x-codex-primary-window-minutes":      "300",
			"x-codex-primary-reset-after-seconds": retry,
			"x-codex-primary-reset-at":            strconv.FormatInt(reset.Unix(), 10),
			"x-codex-secondary-used-percent":      "40.0",
			"x-codex-secondary-window-minutes":    "10080",
		}
		return writeJSON(w, http.StatusTooManyRequests, h, map[string]any{"error": map[string]any{
			"type": "usage_limit_reached", "message": "The usage limit has been reached",
			"plan_type": "plus", "resets_at": reset.Unix(), "resets_in_seconds": secs}})
	}
	rfc := reset.UTC().Format(time.RFC3339)
	h := map[string]string{
		"retry-after":                                         retry,
		"anthropic-ratelimit-requests-limit":                  "50",
		"anthropic-ratelimit-requests-remaining":              "0",
		"anthropic-ratelimit-requests-reset":                  rfc,
		"anthropic-ratelimit-tokens-limit":                    "1000000",
		"anthropic-ratelimit-tokens-remaining":                "0",
		"anthropic-ratelimit-tokens-reset":                    rfc,
		"anthropic-ratelimit-unified-status":                  "rejected",
		"anthropic-ratelimit-unified-reset":                   strconv.FormatInt(reset.Unix(), 10),
		"anthropic-ratelimit-unified-representative-claim":    "five_hour",
		"anthropic-ratelimit-unified-5h-status":               "rejected",
		"anthropic-ratelimit-unified-5h-reset":                strconv.FormatInt(reset.Unix(), 10),
		"anthropic-ratelimit-unified-5h-utilization":          "1.0",
		"anthropic-ratelimit-unified-overage-status":          "rejected",
		"anthropic-ratelimit-unified-overage-disabled-reason": "org_level_disabled",
	}
	return anthropicError(w, http.StatusTooManyRequests, "rate_limit_error",
		"This request would exceed your account's rate limit. Please try again later.", h)
}
