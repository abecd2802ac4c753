package modeltest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestChatStreamWire: a streamed Chat Completions answer is data-only server-sent
// events (no event: lines), each a chat.completion.chunk, ended by "data: [DONE]"; a
// tool= directive streams a tool call of the request's shell tool (qwen's
// run_shell_command) whose arguments, joined, are the command; the request is recorded
// as a turn of the Chat API with its prompt and tools.
func TestChatStreamWire(t *testing.T) {
	s := start(t)
	body := `{"model":"qwen-standin","stream":true,"messages":[
		{"role":"system","content":"sys"},
		{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"tool=bash:echo_wire"}]}],
		"tools":[{"type":"function","function":{"name":"read_file"}},{"type":"function","function":{"name":"run_shell_command"}}]}`
	datas := dataEvents(t, s.URL()+"/v1/chat/completions", body)
	if len(datas) < 3 || datas[len(datas)-1] != "[DONE]" {
		t.Fatalf("stream %q, want chunks ended by [DONE]", datas)
	}
	var name, args, finish string
	for _, d := range datas[:len(datas)-1] {
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil || c.Object != "chat.completion.chunk" || len(c.Choices) != 1 {
			t.Fatalf("chunk %q: %v", d, err)
		}
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			name += tc.Function.Name
			args += tc.Function.Arguments
		}
		if f := c.Choices[0].FinishReason; f != nil {
			finish = *f
		}
	}
	var a struct {
		Command string `json:"command"`
	}
	if name != "run_shell_command" || json.Unmarshal([]byte(args), &a) != nil || a.Command != "echo wire" || finish != "tool_calls" {
		t.Errorf("tool call %q %q finish %q, want run_shell_command of echo wire", name, args, finish)
	}
	turns := s.Turns(Chat)
	if len(turns) != 1 || turns[0].Prompt != "tool=bash:echo_wire" || turns[0].Model != "qwen-standin" || len(turns[0].Tools) != 2 {
		t.Errorf("turns: %+v", turns)
	}
}

// TestChatBadBody: a body that is not a Chat Completions request gets a 400 in
// OpenAI's error shape and no answer from the model.
func TestChatBadBody(t *testing.T) {
	s := start(t)
	resp := post(t, context.Background(), s.URL()+"/v1/chat/completions", `{"messages":"nope"}`)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(b, &e) != nil || e.Error.Type != "invalid_request_error" {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	if r := s.Requests(); len(r) != 1 || r[0].API != Chat || r[0].Status != http.StatusBadRequest {
		t.Errorf("recorded %+v", r)
	}
}

func FuzzParseChat(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"say=x"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"tool","tool_call_id":"c","content":"out"}],"tools":[{"type":"function","function":{"name":"bash"}}]}`,
		`{"messages":[{"role":"tool","content":[{"type":"text","text":"x"}]}],"response_format":{"type":"json_schema","json_schema":{"schema":{}}}}`,
		`{"messages":null}`, `[]`, `{"messages":[{"content":7}]}`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, tools, _, toolResult, followUp, err := parseChat(body)
		if err != nil {
			return
		}
		if len(tools) > len(req.Tools) {
			t.Fatalf("%d tool names from %d tools", len(tools), len(req.Tools))
		}
		if !followUp && toolResult != "" {
			t.Fatalf("a tool result %q without a follow-up", toolResult)
		}
		if followUp && req.Messages[len(req.Messages)-1].Role != "tool" {
			t.Fatalf("a follow-up not ending with a tool message")
		}
	})
}

// dataEvents posts body to url and returns the data of the server-sent events it
// streams, failing on a status other than 200, another content type, or any line that is
// neither data nor blank (the Chat Completions and Gemini streams have no event: lines).
func dataEvents(t *testing.T, url, body string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp := post(t, ctx, url, body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("content-type") != "text/event-stream" {
		t.Fatalf("headers: %d %v", resp.StatusCode, resp.Header)
	}
	var datas []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		l := sc.Text()
		d, ok := strings.CutPrefix(l, "data: ")
		switch {
		case ok:
			datas = append(datas, d)
		case l != "":
			t.Fatalf("a line that is not data in the stream: %q", l)
		}
	}
	return datas
}
