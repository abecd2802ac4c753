package modeltest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider/providertest"
)

// EnvClientsDir names the node_modules directory holding the providers' official client
// libraries, @anthropic-ai/sdk and openai (.ci/run installs them into a cache
// directory).
const EnvClientsDir = "ORCR_TEST_MODEL_CLIENTS_DIR"

// clientsDir returns the node_modules directory with both client libraries. Without
// node or the libraries the test is skipped with the reason, or fails under CI=1.
func clientsDir(t *testing.T) (node, dir string) {
	t.Helper()
	reason := ""
	node, err := exec.LookPath("node")
	dir = os.Getenv(EnvClientsDir)
	switch {
	case err != nil:
		reason = "node is not on PATH"
	case dir == "":
		reason = "$" + EnvClientsDir + " is not set (a node_modules directory with @anthropic-ai/sdk and openai, as .ci/run installs them)"
	default:
		for _, lib := range []string{"@anthropic-ai/sdk", "openai"} {
			if _, err := os.Stat(filepath.Join(dir, lib, "package.json")); err != nil {
				reason = lib + " is not installed in $" + EnvClientsDir + " (" + dir + ")"
			}
		}
	}
	if reason != "" {
		if providertest.Required() {
			t.Fatalf("CI=1: %s", reason)
		}
		t.Skip(reason)
	}
	return node, dir
}

// TestStreamsParseWithOfficialClients: every scripted answer of the stand-in, streamed
// and not, parses with the providers' own client libraries into the message its
// directives asked for: text, thinking, tool_use built from input_json_delta,
// function_call and custom_tool_call items, the answer after a tool result, usage,
// an answer bound to a JSON schema (codex's title request) in that JSON without tool
// call or stall, count_tokens, the models list, and the typed errors of a 429 (with retry-after and
// the rate-limit headers) and a 529; and the same of Chat Completions: content, reasoning
// and tool_calls deltas in chat.completion.chunk events, the usage chunk include_usage
// asks for, the answer after a role "tool" message, json_schema, 429 and 503.
func TestStreamsParseWithOfficialClients(t *testing.T) {
	node, dir := clientsDir(t)
	s := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "clients.cjs"), dir, s.URL())
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node clients.cjs: %v\n%s", err, stderr.String())
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("clients.cjs printed %q: %v", stdout.String(), err)
	}
	want := map[string]string{
		"anthropicStream":     `{"content":[{"type":"thinking","thinking":"pondering","signature":"standin-signature"},{"type":"text","text":"hello"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":7,"cache_read_input_tokens":3,"cache_creation_input_tokens":2}}`,
		"anthropicTool":       `{"content":[{"type":"tool_use","name":"Bash","input":{"command":"echo hi","description":"Run echo hi"}}],"stop_reason":"tool_use"}`,
		"anthropicFollowUp":   `{"content":[{"type":"text","text":"after"}],"stop_reason":"end_turn"}`,
		"anthropicPlain":      `{"content":[{"type":"text","text":"plain"}],"stop_reason":"end_turn"}`,
		"anthropicModels":     `["claude-sonnet-4-5","claude-opus-4-1","claude-haiku-4-5","gpt-5-standin"]`,
		"anthropicLimit":      `{"name":"RateLimitError","status":429,"type":"rate_limit_error","retryAfter":"60","unified":"rejected"}`,
		"anthropicOverloaded": `{"name":"OverloadedError","status":529,"type":"overloaded_error"}`,
		"openaiStream":        `{"status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}],"usage":{"input_tokens":8,"output_tokens":7,"input_tokens_details":{"cached_tokens":3},"total_tokens":15}}`,
		"openaiEvents":        `["response.created","response.in_progress","response.output_item.added","response.content_part.added","response.output_text.delta","response.output_text.delta","response.output_text.delta","response.output_text.done","response.content_part.done","response.output_item.done","response.completed"]`,
		"openaiTool":          `{"output":[{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"echo hi\"}"}]}`,
		"openaiCustom":        `{"output":[{"type":"custom_tool_call","name":"exec","input":"const r = await tools.exec_command({cmd: \"echo hi\"});\ntext(r.output);\n"}]}`,
		"openaiFollowUp":      `{"output":[{"type":"message","content":[{"type":"output_text","text":"after"}]}]}`,
		"openaiSchema":        `{"output":[{"type":"message","content":[{"type":"output_text","text":"{\"title\":\"Fix\"}"}]}]}`,
		"openaiPlain":         `{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"plain"}]}]}`,
		"openaiLimit":         `{"name":"RateLimitError","status":429,"retryAfter":"60","codexUsed":"100.0"}`,
		"chatStream":          `{"message":{"role":"assistant","content":"hello"},"finish_reason":"stop","usage":{"prompt_tokens":8,"completion_tokens":7,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":3}}}`,
		"chatChunks":          `["chat.completion.chunk:{\"content\":\"\",\"role\":\"assistant\"}:null","chat.completion.chunk:{\"reasoning_content\":\"h\"}:null","chat.completion.chunk:{\"reasoning_content\":\"m\"}:null","chat.completion.chunk:{\"content\":\"ch\"}:null","chat.completion.chunk:{\"content\":\"un\"}:null","chat.completion.chunk:{\"content\":\"ks\"}:null","chat.completion.chunk:{}:stop"]`,
		"chatTool":            `{"message":{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"run_shell_command","arguments":"{\"command\":\"echo hi\",\"description\":\"Run echo hi\"}"}}]},"finish_reason":"tool_calls"}`,
		"chatFollowUp":        `{"message":{"role":"assistant","content":"after"},"finish_reason":"stop"}`,
		"chatPlain":           `{"message":{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"run_shell_command"}}]},"finish_reason":"tool_calls","usage":{"prompt_tokens":4,"completion_tokens":2}}`,
		"chatSchema":          `{"message":{"content":"{\"title\":\"Fix\"}"},"finish_reason":"stop"}`,
		"chatModels":          `["claude-sonnet-4-5","claude-opus-4-1","claude-haiku-4-5","gpt-5-standin"]`,
		"chatLimit":           `{"name":"RateLimitError","status":429,"retryAfter":"60"}`,
		"chatOverloaded":      `{"name":"InternalServerError","status":503}`,
	}
	for name, w := range want {
		var wv, gv any
		if err := json.Unmarshal([]byte(w), &wv); err != nil {
			t.Fatalf("%s: the test's own want: %v", name, err)
		}
		if err := json.Unmarshal(got[name], &gv); err != nil {
			t.Errorf("%s: %q: %v", name, got[name], err)
			continue
		}
		if path, ok := contains(gv, wv, name); !ok {
			t.Errorf("%s: at %s the clients parsed\n%s\nwant (a subset)\n%s", name, path, got[name], w)
		}
	}
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal(got["anthropicCount"], &count); err != nil || count.InputTokens <= 0 {
		t.Errorf("count_tokens: %s", got["anthropicCount"])
	}
	// Every request reached the stand-in once and is recorded with its prompt.
	var prompts []string
	for _, r := range s.Requests() {
		prompts = append(prompts, r.Prompt)
	}
	for _, p := range []string{"say=hello think=pondering tokens=5,7,3,2 stream_ms=5", "limit=429 reset=60", "say=events"} {
		if n := strings.Count("\x00"+strings.Join(prompts, "\x00")+"\x00", "\x00"+p+"\x00"); n < 1 {
			t.Errorf("prompt %q recorded %d times in %q", p, n, prompts)
		}
	}
	for _, api := range []string{OpenAI, Chat} {
		if !slices.ContainsFunc(s.Requests(), func(r Request) bool { return r.FollowUp && r.ToolResult == "hi" && r.API == api }) {
			t.Errorf("no %s follow-up recorded with the tool output \"hi\"", api)
		}
	}
	if n := len(s.Turns(Chat)); n != 3 {
		t.Errorf("%d Chat Completions turns recorded, want 3 (stream, tool call, plain)", n)
	}
}

// contains reports whether got holds everything in want: objects by key (extra keys
// allowed), arrays element by element with equal lengths, values equal.
func contains(got, want any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, wv := range w {
			if p, ok := contains(g[k], wv, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := contains(g[i], w[i], path+"["+string(rune('0'+i%10))+"]"); !ok {
				return p, false
			}
		}
		return "", true
	default:
		return path, got == want
	}
}

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
