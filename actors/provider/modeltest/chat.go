package modeltest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The OpenAI Chat Completions API as the OpenAI-compatible agent CLIs use it (qwen,
// opencode, pi with api "openai-completions"): POST /v1/chat/completions, data-only
// server-sent chat.completion.chunk events ended by "data: [DONE]" when stream is true
// (docs/providers.md §10.1).

type chatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
}

// parseChat reads a Chat Completions body: the request, its tools' names, the latest
// user text and, when the messages end with tool results, the last one's output.
func parseChat(body []byte) (req chatRequest, tools []string, prompt, toolResult string, followUp bool, err error) {
	if err = json.Unmarshal(body, &req); err != nil {
		return req, nil, "", "", false, err
	}
	for _, t := range req.Tools {
		if t.Function.Name != "" {
			tools = append(tools, t.Function.Name)
		}
	}
	end := len(req.Messages)
	if end > 0 && req.Messages[end-1].Role == "tool" {
		followUp = true
		toolResult = textOf(req.Messages[end-1].Content)
	}
	for i := end - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == "user" {
			prompt = chatUserText(m.Content)
			break
		}
	}
	return req, tools, prompt, toolResult, followUp, nil
}

// chatUserText is a user message's text, reminder blocks (<system-reminder>, which
// some CLIs add as text parts) left out.
func chatUserText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return textOf(raw)
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" && !strings.HasPrefix(strings.TrimSpace(p.Text), "<system-reminder>") {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func (s *Server) chat(w http.ResponseWriter, ctx context.Context, body []byte, rec *Request) int {
	req, tools, prompt, toolResult, followUp, err := parseChat(body)
	if err != nil {
		return writeJSON(w, http.StatusBadRequest, nil, map[string]any{"error": map[string]any{
			"type": "invalid_request_error", "message": "the body is not a Chat Completions request: " + err.Error(), "param": nil, "code": nil}})
	}
	rec.Model, rec.Stream, rec.Tools = req.Model, req.Stream, tools
	rec.Prompt, rec.ToolResult, rec.FollowUp = prompt, toolResult, followUp
	rec.Side = req.ResponseFormat.Type == "json_schema"
	d, status := s.admit(w, Chat, rec, req.ResponseFormat.JSONSchema.Schema)
	if status != 0 {
		return status
	}
	id := s.nextID()
	chatID := fmt.Sprintf("chatcmpl-standin%06d", id)
	created := time.Now().Unix()
	text, finish := answerText(d), "stop"
	var call map[string]any // the tool call, nil for a text answer
	if tool := anthropicShell(rec.Tools); d.Tool != "" && !rec.FollowUp && tool != "" {
		args, _ := json.Marshal(map[string]any{"command": d.Tool, "description": "Run " + d.Tool})
		call = map[string]any{"id": fmt.Sprintf("call_standin%06d", id), "type": "function",
			"function": map[string]any{"name": tool, "arguments": string(args)}}
		text, finish = "", "tool_calls"
	}
	think := ""
	if !rec.FollowUp {
		think = d.Think
	}
	// Chat Completions counts cached input inside prompt_tokens and reasoning inside
	// completion_tokens, as the Responses API does.
	in, out, cacheRead, _ := usage(d, body, text)
	u := map[string]any{
		"prompt_tokens": in + cacheRead, "completion_tokens": out, "total_tokens": in + cacheRead + out,
		"prompt_tokens_details":     map[string]any{"cached_tokens": cacheRead},
		"completion_tokens_details": map[string]any{"reasoning_tokens": d.Reasoning},
	}
	w.Header().Set("x-request-id", fmt.Sprintf("req_standin%06d", id))
	for k, v := range quotaHeaders(d, OpenAI, time.Now()) {
		w.Header().Set(k, v)
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": text, "refusal": nil}
		if think != "" {
			msg["reasoning_content"] = think
		}
		if call != nil {
			msg["content"], msg["tool_calls"] = nil, []any{call}
		}
		return writeJSON(w, http.StatusOK, nil, map[string]any{"id": chatID, "object": "chat.completion",
			"created": created, "model": req.Model, "system_fingerprint": "fp_standin",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   u})
	}
	sseHeaders(w)
	if !s.stall(ctx, w, d) {
		return http.StatusOK
	}
	e := &sse{w: w, ctx: ctx, pause: time.Duration(d.StreamMS) * time.Millisecond}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": chatID, "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "system_fingerprint": "fp_standin",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}}
	}
	if !e.send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return http.StatusOK
	}
	if think != "" {
		for _, c := range chunks(think, 3) {
			if !e.send("", chunk(map[string]any{"reasoning_content": c}, nil)) {
				return http.StatusOK
			}
		}
	}
	if call != nil {
		fn := call["function"].(map[string]any)
		if !e.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": call["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)) {
			return http.StatusOK
		}
		for _, c := range chunks(fn["arguments"].(string), 3) {
			if !e.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0,
				"function": map[string]any{"arguments": c}}}}, nil)) {
				return http.StatusOK
			}
		}
	} else {
		for _, c := range chunks(text, 3) {
			if !e.send("", chunk(map[string]any{"content": c}, nil)) {
				return http.StatusOK
			}
		}
	}
	if !e.send("", chunk(map[string]any{}, finish)) {
		return http.StatusOK
	}
	if req.StreamOptions.IncludeUsage {
		last := chunk(nil, nil)
		last["choices"], last["usage"] = []any{}, u
		if !e.send("", last) {
			return http.StatusOK
		}
	}
	e.done()
	return http.StatusOK
}
