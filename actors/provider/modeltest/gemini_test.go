package modeltest

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

type geminiAnswer struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text         string `json:"text"`
				Thought      bool   `json:"thought"`
				FunctionCall *struct {
					Name string `json:"name"`
					Args struct {
						Command string `json:"command"`
					} `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
	} `json:"usageMetadata"`
}

// geminiStream posts body to :streamGenerateContent?alt=sse and reads its data-only
// events.
func geminiStream(t *testing.T, s *Server, body string) []geminiAnswer {
	t.Helper()
	var out []geminiAnswer
	for _, d := range dataEvents(t, s.URL()+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", body) {
		var a geminiAnswer
		if err := json.Unmarshal([]byte(d), &a); err != nil || len(a.Candidates) != 1 {
			t.Fatalf("event %q: %v", d, err)
		}
		out = append(out, a)
	}
	return out
}

// TestGeminiStream: gemini-cli's request (its <session_context> part before the user's
// text) streams the answer in text pieces, a thought whole, and the last event carries
// finishReason STOP and the usage; tool= calls its run_shell_command whole, and the
// answer after the functionResponse follows; the turns are recorded under the model of
// the path.
func TestGeminiStream(t *testing.T) {
	s := start(t)
	tools := `"tools":[{"functionDeclarations":[{"name":"read_file"},{"name":"run_shell_command"}]}]`
	events := geminiStream(t, s, `{"contents":[{"role":"user","parts":[{"text":"<session_context>\nsay=wrong\n</session_context>"},{"text":"say=hello think=hm tokens=5,7"}]}],`+tools+`}`)
	var text, thought string
	for _, e := range events {
		for _, p := range e.Candidates[0].Content.Parts {
			if p.Thought {
				thought += p.Text
			} else {
				text += p.Text
			}
		}
	}
	last := events[len(events)-1]
	if text != "hello" || thought != "hm" || last.Candidates[0].FinishReason != "STOP" || last.UsageMetadata == nil ||
		last.UsageMetadata.PromptTokenCount != 5 || last.UsageMetadata.CandidatesTokenCount != 7 {
		t.Errorf("text %q thought %q last %+v", text, thought, last)
	}
	events = geminiStream(t, s, `{"contents":[{"role":"user","parts":[{"text":"tool=bash:echo_hi say=after"}]}],`+tools+`}`)
	var call string
	for _, e := range events {
		for _, p := range e.Candidates[0].Content.Parts {
			if p.FunctionCall != nil {
				call = p.FunctionCall.Name + ":" + p.FunctionCall.Args.Command
			}
		}
	}
	if call != "run_shell_command:echo hi" {
		t.Errorf("function call %q, want run_shell_command:echo hi", call)
	}
	events = geminiStream(t, s, `{"contents":[{"role":"user","parts":[{"text":"tool=bash:echo_hi say=after"}]},
		{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"echo hi"}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"hi"}}}]}],`+tools+`}`)
	if len(events) == 0 || events[len(events)-1].Candidates[0].FinishReason != "STOP" {
		t.Fatalf("follow-up: %+v", events)
	}
	turns := s.Turns(Gemini)
	reqs := s.Requests()
	if len(turns) != 2 || turns[0].Model != "gemini-2.5-flash" || turns[0].Prompt != "say=hello think=hm tokens=5,7" ||
		!reqs[2].FollowUp || reqs[2].ToolResult != "hi" {
		t.Errorf("turns %+v, last request %+v", turns, reqs[2])
	}
}

// TestGeminiSideAndErrors: a request asking for JSON (gemini-cli's next-speaker check)
// is answered in the schema, an enum by its first value; limit=429 answers Google's
// RESOURCE_EXHAUSTED with a RetryInfo delay, overloaded 503 UNAVAILABLE; a path that is
// no Gemini method is a 404.
func TestGeminiSideAndErrors(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	resp := post(t, ctx, s.URL()+"/v1beta/models/gemini-2.5-flash:generateContent", `{"contents":[{"role":"user","parts":[{"text":"stall say=x"}]}],
		"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"reasoning":{"type":"string"},"next_speaker":{"type":"string","enum":["user","model"]}},"required":["reasoning","next_speaker"]}}}`)
	var a geminiAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || len(a.Candidates) != 1 {
		t.Fatalf("side: %v", err)
	}
	resp.Body.Close()
	if got := a.Candidates[0].Content.Parts[0].Text; got != `{"next_speaker":"user","reasoning":"x"}` {
		t.Errorf("side answer %q", got)
	}
	for _, c := range []struct {
		path, prompt string
		code         int
		want         string
	}{
		{"/v1beta/models/m:generateContent", "limit=429 reset=60", 429, `"status":"RESOURCE_EXHAUSTED"`},
		{"/v1beta/models/m:generateContent", "limit=429 reset=60", 429, `"retryDelay":"60s"`},
		{"/v1beta/models/m:streamGenerateContent", "overloaded", 503, `"status":"UNAVAILABLE"`},
		{"/v1beta/models/m:embedContent", "say=x", 404, `"status":"NOT_FOUND"`},
	} {
		resp := post(t, ctx, s.URL()+c.path, `{"contents":[{"role":"user","parts":[{"text":"`+c.prompt+`"}]}]}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(b), c.want) {
			t.Errorf("%s %q: %d %s, want %d with %s", c.path, c.prompt, resp.StatusCode, b, c.code, c.want)
		}
	}
}

func FuzzParseGemini(f *testing.F) {
	for _, s := range []string{
		`{"contents":[{"role":"user","parts":[{"text":"say=x"}]}]}`,
		`{"contents":[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"functionCall":{"name":"f"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"o"}}}]}],"tools":[{"functionDeclarations":[{"name":"f"}]}]}`,
		`{"contents":[{"parts":[{"text":"<session_context>x","thought":true}]}],"generationConfig":{"responseJsonSchema":{}}}`,
		`{"contents":null}`, `[]`, `{"contents":[{"parts":[{"functionResponse":{"response":7}}]}]}`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, tools, prompt, toolResult, followUp, err := parseGemini(body)
		if err != nil {
			return
		}
		n := 0
		for _, tl := range req.Tools {
			n += len(tl.FunctionDeclarations)
		}
		if len(tools) > n {
			t.Fatalf("%d tool names from %d declarations", len(tools), n)
		}
		if !followUp && toolResult != "" {
			t.Fatalf("a tool result %q without a follow-up", toolResult)
		}
		if strings.HasPrefix(strings.TrimSpace(prompt), "<session_context>") {
			t.Fatalf("the session context read as the prompt: %q", prompt)
		}
	})
}

// TestGeminiRoute: only /v1beta/models/{model}:{generate method} is a Gemini call.
func TestGeminiRoute(t *testing.T) {
	for path, want := range map[string]bool{
		"/v1beta/models/gemini-2.5-flash:streamGenerateContent": true,
		"/v1beta/models/m:generateContent":                      true,
		"/v1beta/models/m:countTokens":                          true,
		"/v1beta/models/:generateContent":                       false,
		"/v1beta/models/a/b:generateContent":                    false,
		"/v1beta/models/m":                                      false,
		"/v1/models/m:generateContent":                          false,
	} {
		if _, _, ok := geminiRoute(path); ok != want {
			t.Errorf("geminiRoute(%q) = %v, want %v", path, ok, want)
		}
	}
}
