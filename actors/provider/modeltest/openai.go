package modeltest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The OpenAI Responses API as codex uses it: POST /v1/responses, server-sent response.*
// events when stream is true.

type openaiRequest struct {
	Model  string       `json:"model"`
	Stream bool         `json:"stream"`
	Input  inputItems   `json:"input"`
	Tools  []openaiTool `json:"tools"`
	Text   struct {
		Format struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

// schemaAnswer is an answer in the JSON the schema asks for: an object whose required
// string properties hold text (cut to their maxLength), as a model bound to a
// json_schema format answers, and an enum property its first value. codex asks for its
// title this way ({"title": …}); gemini-cli its next speaker and its model route.
func schemaAnswer(schema json.RawMessage, text string) string {
	var sc struct {
		Properties map[string]struct {
			Type      string   `json:"type"`
			MaxLength int      `json:"maxLength"`
			Enum      []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	obj := map[string]any{}
	if json.Unmarshal(schema, &sc) == nil {
		for _, k := range sc.Required {
			p := sc.Properties[k]
			if len(p.Enum) > 0 {
				obj[k] = p.Enum[0] // gemini-cli's next-speaker check: "user" ends the turn
				continue
			}
			if strings.EqualFold(p.Type, "string") {
				v := text
				if p.MaxLength > 0 && len(v) > p.MaxLength {
					v = v[:p.MaxLength]
				}
				obj[k] = v
			}
		}
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

// inputItems is a request's input: a list of items, or a string read as one user
// message.
type inputItems []json.RawMessage

func (in *inputItems) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		item, _ := json.Marshal(map[string]any{"type": "message", "role": "user", "content": s})
		*in = inputItems{item}
		return nil
	}
	return json.Unmarshal(b, (*[]json.RawMessage)(in))
}

// openaiTool is a tool offered: a function, a custom (freeform) tool, or a namespace
// of tools. codex 0.169.0 offers its tools in an additional_tools input item: a
// namespace "functions" holding the custom tool "exec" (JavaScript that calls
// tools.exec_command and the rest), "wait" and "request_user_input".
type openaiTool struct {
	Type  string       `json:"type"`
	Name  string       `json:"name"`
	Tools []openaiTool `json:"tools"`
}

// toolNames lists the tools offered in the request's tools and additional_tools input
// items, a namespace's members by their own names.
func toolNames(req openaiRequest) []string {
	var names []string
	var walk func([]openaiTool)
	walk = func(ts []openaiTool) {
		for _, t := range ts {
			switch {
			case t.Type == "namespace":
				walk(t.Tools)
			case t.Name != "":
				names = append(names, t.Name)
			default:
				names = append(names, t.Type)
			}
		}
	}
	walk(req.Tools)
	for _, raw := range req.Input {
		var it struct {
			Type  string       `json:"type"`
			Tools []openaiTool `json:"tools"`
		}
		if json.Unmarshal(raw, &it) == nil && it.Type == "additional_tools" {
			walk(it.Tools)
		}
	}
	return names
}

type openaiItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

// openaiPrompt reads the latest user text and, when the input ends with a function
// call's output, that output.
func openaiPrompt(req openaiRequest) (prompt, toolResult string, followUp bool) {
	for i := len(req.Input) - 1; i >= 0; i-- {
		var it openaiItem
		if json.Unmarshal(req.Input[i], &it) != nil {
			continue
		}
		if i == len(req.Input)-1 && (it.Type == "function_call_output" || it.Type == "custom_tool_call_output") {
			followUp = true
			toolResult = textOf(it.Output)
			var o struct {
				Output string `json:"output"`
			}
			if json.Unmarshal([]byte(toolResult), &o) == nil && o.Output != "" {
				toolResult = o.Output
			}
			continue
		}
		if (it.Type == "message" || it.Type == "") && it.Role == "user" {
			return textOf(it.Content), toolResult, followUp
		}
	}
	return "", toolResult, followUp
}

// openaiShell is the shell tool codex offers and the arguments that run cmd with it;
// custom reports a freeform tool, whose input is the text args rather than JSON.
func openaiShell(names []string, cmd string, escalate bool) (name, args string, custom bool) {
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	var a any
	switch {
	case has["exec"]:
		q, _ := json.Marshal(cmd)
		extra := ""
		if escalate {
			extra = `, sandbox_permissions: "require_escalated", justification: "the test asks for it"`
		}
		return "exec", "const r = await tools.exec_command({cmd: " + string(q) + extra + "});\ntext(r.output);\n", true
	case has["exec_command"] && escalate:
		name, a = "exec_command", map[string]any{"cmd": cmd, "sandbox_permissions": "require_escalated", "justification": "the test asks for it"}
	case has["exec_command"]:
		name, a = "exec_command", map[string]any{"cmd": cmd}
	case has["shell_command"]:
		name, a = "shell_command", map[string]any{"command": cmd}
	case has["shell"]:
		name, a = "shell", map[string]any{"command": []string{"bash", "-lc", cmd}}
	default:
		return "", "", false
	}
	b, _ := json.Marshal(a)
	return name, string(b), false
}

func (s *Server) responses(w http.ResponseWriter, ctx context.Context, body []byte, rec *Request) int {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return writeJSON(w, http.StatusBadRequest, nil, map[string]any{"error": map[string]any{
			"type": "invalid_request_error", "message": "the body is not a Responses request: " + err.Error(), "param": nil, "code": nil}})
	}
	rec.Model, rec.Stream = req.Model, req.Stream
	rec.Tools = toolNames(req)
	rec.Prompt, rec.ToolResult, rec.FollowUp = openaiPrompt(req)
	// A request bound to a JSON schema (codex's title for a new conversation) is a
	// side request: answered in that JSON, with no tool call and no stall.
	rec.Side = req.Text.Format.Type == "json_schema"
	d, status := s.admit(w, OpenAI, rec, req.Text.Format.Schema)
	if status != 0 {
		return status
	}
	id := s.nextID()
	respID := fmt.Sprintf("resp_standin%06d", id)
	var item map[string]any
	text := answerText(d)
	if name, args, custom := openaiShell(rec.Tools, d.Tool, d.Escalate); d.Tool != "" && !rec.FollowUp && name != "" {
		item = map[string]any{"id": fmt.Sprintf("fc_standin%06d", id), "type": "function_call", "status": "completed",
			"call_id": fmt.Sprintf("call_standin%06d", id), "name": name, "arguments": args}
		if custom {
			item = map[string]any{"id": fmt.Sprintf("ctc_standin%06d", id), "type": "custom_tool_call", "status": "completed",
				"call_id": fmt.Sprintf("call_standin%06d", id), "name": name, "input": args}
		}
		text = ""
	} else {
		item = map[string]any{"id": fmt.Sprintf("msg_standin%06d", id), "type": "message", "status": "completed",
			"role": "assistant", "content": []any{outputText(text)}}
	}
	// The Responses API counts cached input inside input_tokens and reasoning inside
	// output_tokens; tokens= scripts the uncached input and the whole output.
	in, out, cacheRead, _ := usage(d, body, text)
	u := map[string]any{
		"input_tokens": in + cacheRead, "input_tokens_details": map[string]any{"cached_tokens": cacheRead},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": d.Reasoning},
		"total_tokens": in + cacheRead + out,
	}
	resp := func(status string, output []any, u any) map[string]any {
		return map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(),
			"status": status, "model": req.Model, "output": output, "usage": u, "error": nil,
			"incomplete_details": nil, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}}
	}
	w.Header().Set("x-request-id", fmt.Sprintf("req_standin%06d", id))
	for k, v := range quotaHeaders(d, OpenAI, time.Now()) {
		w.Header().Set(k, v)
	}
	if !req.Stream {
		return writeJSON(w, http.StatusOK, nil, resp("completed", []any{item}, u))
	}
	sseHeaders(w)
	if !s.stall(ctx, w, d) {
		return http.StatusOK
	}
	e := &sse{w: w, ctx: ctx, pause: time.Duration(d.StreamMS) * time.Millisecond}
	seq := 0
	send := func(typ string, fields map[string]any) bool {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return e.send(typ, fields)
	}
	if !send("response.created", map[string]any{"response": resp("in_progress", []any{}, nil)}) ||
		!send("response.in_progress", map[string]any{"response": resp("in_progress", []any{}, nil)}) {
		return http.StatusOK
	}
	itemID := item["id"]
	if item["type"] == "function_call" || item["type"] == "custom_tool_call" {
		field, event := "arguments", "response.function_call_arguments"
		if item["type"] == "custom_tool_call" {
			field, event = "input", "response.custom_tool_call_input"
		}
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		added["status"], added[field] = "in_progress", ""
		if !send("response.output_item.added", map[string]any{"output_index": 0, "item": added}) {
			return http.StatusOK
		}
		for _, c := range chunks(item[field].(string), 3) {
			if !send(event+".delta", map[string]any{"item_id": itemID, "output_index": 0, "delta": c}) {
				return http.StatusOK
			}
		}
		if !send(event+".done", map[string]any{"item_id": itemID, "output_index": 0, field: item[field]}) {
			return http.StatusOK
		}
	} else {
		if !send("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
			"id": itemID, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}}) ||
			!send("response.content_part.added", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": outputText("")}) {
			return http.StatusOK
		}
		for _, c := range chunks(text, 3) {
			if !send("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "delta": c, "logprobs": []any{}}) {
				return http.StatusOK
			}
		}
		if !send("response.output_text.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "text": text, "logprobs": []any{}}) ||
			!send("response.content_part.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": outputText(text)}) {
			return http.StatusOK
		}
	}
	if send("response.output_item.done", map[string]any{"output_index": 0, "item": item}) {
		send("response.completed", map[string]any{"response": resp("completed", []any{item}, u)})
	}
	return http.StatusOK
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

// admit records rec (seen before it is answered: a stalled request too), applies the
// directives that answer instead of the model to a request that is not a follow-up,
// and returns the directives the answer follows: a side request's are its answer in the
// JSON schema asks for, with no tool call and no stall. A non-zero status is that of the
// error answer written.
func (s *Server) admit(w http.ResponseWriter, api string, rec *Request, schema json.RawMessage) (Directives, int) {
	s.record(rec)
	d := ParseDirectives(rec.Prompt)
	if !rec.FollowUp {
		if status := s.gate(w, api, rec.Prompt, d); status != 0 {
			return d, status
		}
	}
	if rec.Side {
		d = Directives{Say: schemaAnswer(schema, answerText(d)), StreamMS: d.StreamMS, Tokens: d.Tokens,
			TokensIn: d.TokensIn, TokensOut: d.TokensOut, CacheRead: d.CacheRead}
	}
	return d, 0
}
