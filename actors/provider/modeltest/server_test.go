package modeltest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func messagesBody(text string, stream bool) string {
	b, _ := json.Marshal(map[string]any{"model": "m", "stream": stream, "max_tokens": 10,
		"tools":    []any{map[string]any{"name": "Bash"}},
		"messages": []any{map[string]any{"role": "user", "content": text}}})
	return string(b)
}

// TestLimitLiftsAtReset: limit=429 answers 429 with retry-after counting down from the
// first request until reset= seconds after it, then the model answers; overloaded=<n>
// answers 529 n times, then the model answers.
func TestLimitLiftsAtReset(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	first := post(t, ctx, s.URL()+"/v1/messages", messagesBody("limit=429 reset=1 say=later", false))
	first.Body.Close()
	if first.StatusCode != http.StatusTooManyRequests || first.Header.Get("retry-after") != "1" ||
		first.Header.Get("anthropic-ratelimit-requests-remaining") != "0" {
		t.Fatalf("first: %d %v", first.StatusCode, first.Header)
	}
	var last int
	poll.Eventually(t, 5*time.Second, "the limit to lift after its reset of 1 s", func() bool {
		resp := post(t, ctx, s.URL()+"/v1/messages", messagesBody("limit=429 reset=1 say=later", false))
		resp.Body.Close()
		last = resp.StatusCode
		return last == http.StatusOK
	}, func() string { return fmt.Sprintf("last status %d", last) })
	if since := time.Since(s.Requests()[0].At); since < time.Second {
		t.Errorf("the limit lifted %s after the first request, before its reset", since)
	}
	var codes []int
	for range 3 {
		resp := post(t, ctx, s.URL()+"/v1/responses", `{"model":"m","input":"overloaded=2"}`)
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	if codes[0] != http.StatusServiceUnavailable || codes[1] != http.StatusServiceUnavailable || codes[2] != http.StatusOK {
		t.Errorf("overloaded=2: %v", codes)
	}
}

// TestStallHoldsStreamUntilRelease: stall sends the headers and nothing else until
// Release, then the whole stream; the request is recorded as a turn with its prompt.
func TestStallHoldsStreamUntilRelease(t *testing.T) {
	s := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp := post(t, ctx, s.URL()+"/v1/messages", messagesBody("stall say=resumed", true))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("content-type") != "text/event-stream" {
		t.Fatalf("headers: %d %v", resp.StatusCode, resp.Header)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		t.Fatalf("a stalled stream sent %q", l)
	case <-time.After(300 * time.Millisecond):
	}
	s.Release()
	var events []string
	for l := range lines {
		if e, ok := strings.CutPrefix(l, "event: "); ok {
			events = append(events, e)
		}
	}
	if len(events) == 0 || events[0] != "message_start" || events[len(events)-1] != "message_stop" {
		t.Errorf("after Release: %q", events)
	}
	if turns := s.Turns(Anthropic); len(turns) != 1 || turns[0].Prompt != "stall say=resumed" || !turns[0].Stream {
		t.Errorf("turns: %+v", turns)
	}
}

// TestPromptBesideToolResult: a user message holding a tool result and the user's text
// (claude sends a rejected call's result with the next prompt) is a new prompt, not the
// answer after the tool.
func TestPromptBesideToolResult(t *testing.T) {
	s := start(t)
	body := `{"model":"m","max_tokens":10,"tools":[{"name":"Bash"}],"messages":[
		{"role":"user","content":"tool=bash:touch_x say=old"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"touch x"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"rejected"},{"type":"text","text":"say=new"}]}]}`
	resp := post(t, context.Background(), s.URL()+"/v1/messages", body)
	defer resp.Body.Close()
	var m struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || len(m.Content) != 1 || m.Content[0].Text != "new" {
		t.Errorf("answer %+v (%v), want the text new", m, err)
	}
	if r := s.Requests()[0]; r.FollowUp || r.Prompt != "say=new" {
		t.Errorf("recorded %+v, want the prompt say=new, not a follow-up", r)
	}
}
