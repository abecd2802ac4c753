package transcript_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/transcript"
)

// TestTurnUsage reads the usage of the last turn from transcripts of claude 2.1.328 and
// codex 0.169.0 that ran a shell call against the model stand-in with tokens=10,20,30(,40)
// (two model requests each), and starts again at the next prompt.
func TestTurnUsage(t *testing.T) {
	read := func(p ...string) string {
		b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, p...)...))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	claude, codex := read("usage", "claude_tool.jsonl"), read("codex", "real_0169_tool.jsonl")
	claudeNext := `{"type":"user","message":{"role":"user","content":"next"}}
{"type":"assistant","message":{"id":"m9","model":"m","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}}}
{"type":"assistant","message":{"id":"m9","model":"m","role":"assistant","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}}}
`
	codexNext := `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"next"}]}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":25,"cached_input_tokens":61,"output_tokens":47,"cache_write_input_tokens":2,"reasoning_output_tokens":3}}}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":25,"cached_input_tokens":61,"output_tokens":47,"cache_write_input_tokens":2,"reasoning_output_tokens":3}}}}
`
	// codex before 0.169 named the model in turn_context.
	codexOld := `{"type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-codex"}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":30,"output_tokens":20,"reasoning_output_tokens":5}}}}
`
	tests := []struct {
		name, format, data string
		want               transcript.Usage
		ok                 bool
	}{
		{"claude tool turn", transcript.FormatClaude, claude, transcript.Usage{Input: 20, Output: 40, CacheRead: 60, CacheWrite: 80, Model: "claude-opus-5-5"}, true},
		{"claude next turn, a message in two lines", transcript.FormatClaude, claude + claudeNext, transcript.Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, Model: "m"}, true},
		{"claude prompt without answer", transcript.FormatClaude, claude + `{"type":"user","message":{"role":"user","content":"next"}}` + "\n", transcript.Usage{}, false},
		// Recorded when the stand-in reported less input than cached input: the input
		// not read from the cache is none.
		{"codex tool turn", transcript.FormatCodex, codex, transcript.Usage{Input: 0, Output: 40, CacheRead: 60, Model: "gpt-5.6-luna"}, true},
		{"codex next turn, an event repeated", transcript.FormatCodex, codex + codexNext, transcript.Usage{Input: 4, Output: 7, CacheRead: 1, CacheWrite: 2, Reasoning: 3, Model: "gpt-5.6-luna"}, true},
		{"codex turn_context names the model", transcript.FormatCodex, codexOld, transcript.Usage{Input: 70, Output: 20, CacheRead: 30, Reasoning: 5, Model: "gpt-5-codex"}, true},
		{"empty", transcript.FormatCodex, "", transcript.Usage{}, false},
	}
	for _, tt := range tests {
		got, ok := transcript.TurnUsage(tt.format, []byte(tt.data))
		if !cmp.Equal(got, tt.want) || ok != tt.ok {
			t.Errorf("%s: TurnUsage = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
