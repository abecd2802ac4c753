package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Gemini API as gemini-cli uses it through GOOGLE_GEMINI_BASE_URL:
// POST /v1beta/models/{model}:streamGenerateContent (?alt=sse: data-only server-sent
// GenerateContentResponse events, no end marker), :generateContent and :countTokens
// (docs/providers.md §10.1).

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiPart struct {
	Text             string `json:"text"`
	Thought          bool   `json:"thought"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiContextPrefixes start the parts gemini-cli adds to a user message that are not
// the user's text.
var geminiContextPrefixes = []string{"<session_context>", "<system-reminder>"}

// parseGemini reads a generateContent body: the request, its function names, the
// latest user text (gemini-cli's <session_context> part left out) and, when the
// contents end with function responses, the last one's output.
func parseGemini(body []byte) (req geminiRequest, tools []string, prompt, toolResult string, followUp bool, err error) {
	if err = json.Unmarshal(body, &req); err != nil {
		return req, nil, "", "", false, err
	}
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			if f.Name != "" {
				tools = append(tools, f.Name)
			}
		}
	}
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c.Role != "user" && c.Role != "" {
			continue
		}
		var texts []string
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && i == len(req.Contents)-1 {
				followUp = true
				toolResult = geminiOutput(p.FunctionResponse.Response)
			}
			if p.Text != "" && !p.Thought && !hasAnyPrefix(strings.TrimSpace(p.Text), geminiContextPrefixes) {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 {
			return req, tools, strings.Join(texts, "\n"), toolResult, followUp, nil
		}
	}
	return req, tools, "", toolResult, followUp, nil
}

// geminiOutput is a function response's output: its "output" string, else its JSON.
func geminiOutput(raw json.RawMessage) string {
	var r struct {
		Output string `json:"output"`
	}
	if json.Unmarshal(raw, &r) == nil && r.Output != "" {
		return r.Output
	}
	return strings.TrimSpace(string(raw))
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// gemini answers POST /v1beta/models/{model}:{method}.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request, body []byte, rec *Request, model, method string) int {
	req, tools, prompt, toolResult, followUp, err := parseGemini(body)
	if err != nil {
		return geminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "the body is not a generateContent request: "+err.Error(), nil)
	}
	if method == "countTokens" {
		return writeJSON(w, http.StatusOK, nil, map[string]any{"totalTokens": len(body)/4 + 1})
	}
	rec.Model, rec.Stream, rec.Tools = model, method == "streamGenerateContent", tools
	rec.Prompt, rec.ToolResult, rec.FollowUp = prompt, toolResult, followUp
	schema := req.GenerationConfig.ResponseJSONSchema
	if len(schema) == 0 {
		schema = req.GenerationConfig.ResponseSchema
	}
	// gemini-cli's side requests (its next-speaker check, its model router) ask for JSON.
	rec.Side = len(schema) > 0 || req.GenerationConfig.ResponseMimeType == "application/json"
	d, status := s.admit(w, Gemini, rec, schema)
	if status != 0 {
		return status
	}
	id := s.nextID()
	text, finish := answerText(d), "STOP"
	var parts []any
	if d.Think != "" && !rec.FollowUp {
		parts = append(parts, map[string]any{"text": d.Think, "thought": true})
	}
	if tool := anthropicShell(rec.Tools); d.Tool != "" && !rec.FollowUp && tool != "" {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": fmt.Sprintf("call_standin%06d", id),
			"name": tool, "args": map[string]any{"command": d.Tool, "description": "Run " + d.Tool}}})
		text = ""
	} else {
		parts = append(parts, map[string]any{"text": text})
	}
	in, out, cacheRead, _ := usage(d, body, text)
	u := map[string]any{"promptTokenCount": in + cacheRead, "candidatesTokenCount": out - d.Reasoning,
		"thoughtsTokenCount": d.Reasoning, "cachedContentTokenCount": cacheRead, "totalTokenCount": in + cacheRead + out}
	answer := func(parts []any, finish string, u any) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		m := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": fmt.Sprintf("standin%06d", id)}
		if u != nil {
			m["usageMetadata"] = u
		}
		return m
	}
	if method != "streamGenerateContent" {
		return writeJSON(w, http.StatusOK, nil, answer(parts, finish, u))
	}
	sseHeaders(w)
	if !s.stall(r.Context(), w, d) {
		return http.StatusOK
	}
	e := &sse{w: w, ctx: r.Context(), pause: time.Duration(d.StreamMS) * time.Millisecond}
	// Text streams in pieces; a thought and a function call come whole, as Gemini
	// sends them; the last event carries the finish reason and the usage.
	var events [][]any
	for _, p := range parts {
		t, isText := p.(map[string]any)["text"].(string)
		if !isText || p.(map[string]any)["thought"] == true {
			events = append(events, []any{p})
			continue
		}
		for _, c := range chunks(t, 3) {
			events = append(events, []any{map[string]any{"text": c}})
		}
	}
	for i, ev := range events {
		if i == len(events)-1 {
			e.send("", answer(ev, finish, u))
			break
		}
		if !e.send("", answer(ev, "", nil)) {
			return http.StatusOK
		}
	}
	return http.StatusOK
}

// geminiRoute splits a Gemini API path, /v1beta/models/{model}:{method}.
func geminiRoute(path string) (model, method string, ok bool) {
	rest, ok := strings.CutPrefix(path, "/v1beta/models/")
	if !ok {
		return "", "", false
	}
	model, method, ok = strings.Cut(rest, ":")
	switch method {
	case "streamGenerateContent", "generateContent", "countTokens":
	default:
		ok = false
	}
	return model, method, ok && model != "" && !strings.Contains(model, "/")
}

// geminiError writes a Google API error.
func geminiError(w http.ResponseWriter, code int, status, message string, details []any) int {
	e := map[string]any{"code": code, "message": message, "status": status}
	if details != nil {
		e["details"] = details
	}
	return writeJSON(w, code, nil, map[string]any{"error": e})
}

// geminiLimit is the 429 RESOURCE_EXHAUSTED of a quota, with the RetryInfo gemini-cli
// waits by.
func geminiLimit(w http.ResponseWriter, secs int) int {
	w.Header().Set("retry-after", strconv.Itoa(secs))
	return geminiError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED",
		"You exceeded your current quota, please check your plan and billing details.", []any{
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
				"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
				"quotaId":     "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": strconv.Itoa(secs) + "s"},
		})
}
