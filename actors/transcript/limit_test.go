package transcript_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/actors/transcript"
)

// TestLimitNotice reads the limit messages of claude 2.1.328 (an API key's 429) and
// codex 0.169.0 (usage_limit_reached), captured against the model stand-in
// (testdata/limit), and lets a later prompt or answer clear them.
func TestLimitNotice(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "limit", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	claude, codex := read("claude.jsonl"), read("codex.jsonl")
	answer := `{"type":"assistant","message":{"model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"ok"}]}}`
	prompt := `{"type":"user","message":{"role":"user","content":"next"}}`
	codexPrompt := `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"next"}]}}`
	codexDone := `{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"ok","error":null}}`
	tests := []struct {
		name, format, data, want string
	}{
		{"claude 429", transcript.FormatClaude, claude, "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."},
		{"claude 429 then a prompt", transcript.FormatClaude, claude + prompt + "\n", ""},
		{"claude 429 then an answer", transcript.FormatClaude, claude + answer + "\n", ""},
		{"claude other api error", transcript.FormatClaude, `{"type":"assistant","message":{"model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: Connection error."}]}}`, ""},
		{"claude answer naming a limit", transcript.FormatClaude, `{"type":"assistant","message":{"model":"m","role":"assistant","content":[{"type":"text","text":"API Error 429 rate limit"}]}}`, ""},
		{"codex usage limit", transcript.FormatCodex, codex, "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 5:44 PM."},
		{"codex usage limit then a prompt", transcript.FormatCodex, codex + codexPrompt + "\n", ""},
		{"codex a later turn done", transcript.FormatCodex, codex + codexPrompt + "\n" + codexDone + "\n", ""},
		{"codex other error", transcript.FormatCodex, `{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"stream disconnected","codex_error_info":"other"}}}`, ""},
		{"empty", transcript.FormatCodex, "", ""},
		{"garbage", transcript.FormatClaude, "{\n[]\n{\"type\":1}\n", ""},
	}
	for _, tt := range tests {
		got, ok := transcript.LimitNotice(tt.format, []byte(tt.data))
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: LimitNotice = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
		if strings.Contains(tt.name, "garbage") && ok {
			t.Errorf("garbage read as a limit")
		}
	}
}
