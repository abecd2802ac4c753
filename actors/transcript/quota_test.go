package transcript_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/transcript"
)

// tokenCount is a codex token_count event with rate_limits rl.
func tokenCount(rl string) string {
	return `{"timestamp":"2026-12-05T10:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":` + rl + "}}\n"
}

func TestCodexQuota(t *testing.T) {
	both := `{"limit_id":"codex","primary":{"used_percent":42.5,"window_minutes":300,"resets_at":1796472000},` +
		`"secondary":{"used_percent":7.0,"window_minutes":10080,"resets_at":1796990400},"plan_type":"plus"}`
	tests := []struct {
		name string
		in   string
		want []transcript.QuotaWindow
	}{
		{"codex 0.169 against a key without a plan: both null", tokenCount(`{"limit_id":"codex","primary":null,"secondary":null}`), nil},
		{"both windows", tokenCount(both), []transcript.QuotaWindow{
			{Window: "primary", UsedPercent: 42.5, WindowMinutes: 300, ResetsAt: 1796472000000},
			{Window: "secondary", UsedPercent: 7, WindowMinutes: 10080, ResetsAt: 1796990400000}}},
		{"the last event that reported one wins; a later null one does not erase it",
			tokenCount(`{"primary":{"used_percent":1,"window_minutes":300}}`) + tokenCount(both) + tokenCount(`{"primary":null}`),
			[]transcript.QuotaWindow{
				{Window: "primary", UsedPercent: 42.5, WindowMinutes: 300, ResetsAt: 1796472000000},
				{Window: "secondary", UsedPercent: 7, WindowMinutes: 10080, ResetsAt: 1796990400000}}},
		{"older codex: no resets_at", tokenCount(`{"primary":{"used_percent":3.0,"window_minutes":300}}`),
			[]transcript.QuotaWindow{{Window: "primary", UsedPercent: 3, WindowMinutes: 300}}},
		{"out of range values are clamped or dropped", tokenCount(`{"primary":{"used_percent":140,"window_minutes":-5,"resets_at":99999999999999}}`),
			[]transcript.QuotaWindow{{Window: "primary", UsedPercent: 100}}},
		{"a used percent that is not a number is no window", tokenCount(`{"primary":{"used_percent":"90"},"secondary":{"used_percent":null}}`), nil},
		{"another event type", `{"type":"event_msg","payload":{"type":"agent_message","rate_limits":` + both + "}}\n", nil},
		{"not an event", `{"type":"response_item","payload":{"type":"token_count","rate_limits":` + both + "}}\n", nil},
		{"garbage", "{\n}{", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, transcript.CodexQuota([]byte(tt.in))); d != "" {
				t.Fatalf("CodexQuota (-want +got):\n%s", d)
			}
		})
	}
	// The turn's usage carries them.
	u, ok := transcript.TurnUsage(transcript.FormatCodex, []byte(
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`+"\n"+
			`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5,"output_tokens":2}},"rate_limits":`+both+"}}\n"))
	if !ok || len(u.Quota) != 2 || u.Quota[0].UsedPercent != 42.5 {
		t.Fatalf("TurnUsage = %+v, %v; want the two windows", u, ok)
	}
}

func TestClaudeStatusQuota(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []transcript.QuotaWindow
	}{
		{"both windows", `{"model":{"id":"claude-opus-4-5"},"rate_limits":{"five_hour":{"used_percentage":96,"resets_at":1796472000},"seven_day":{"used_percentage":12.5,"resets_at":1796990400}}}`,
			[]transcript.QuotaWindow{
				{Window: "five_hour", UsedPercent: 96, WindowMinutes: 300, ResetsAt: 1796472000000},
				{Window: "seven_day", UsedPercent: 12.5, WindowMinutes: 10080, ResetsAt: 1796990400000}}},
		{"one window", `{"rate_limits":{"seven_day":{"used_percentage":50}}}`,
			[]transcript.QuotaWindow{{Window: "seven_day", UsedPercent: 50, WindowMinutes: 10080}}},
		{"a session without a plan sends none", `{"model":{"id":"x"},"cost":{"total_cost_usd":0.1}}`, nil},
		{"null windows", `{"rate_limits":{"five_hour":null,"seven_day":[]}}`, nil},
		{"garbage", `{"rate_limits":`, nil},
		{"claude 2.1.328 on an API key (the model stand-in's): no rate_limits",
			string(must(os.ReadFile(filepath.Join("testdata", "claude", "statusline_apikey.json")))), nil},
		{"a whole status-line JSON", string(must(os.ReadFile(filepath.Join("testdata", "claude", "statusline.json")))),
			[]transcript.QuotaWindow{
				{Window: "five_hour", UsedPercent: 96, WindowMinutes: 300, ResetsAt: 4102444800000},
				{Window: "seven_day", UsedPercent: 41.5, WindowMinutes: 10080, ResetsAt: 4102963200000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, transcript.ClaudeStatusQuota([]byte(tt.in))); d != "" {
				t.Fatalf("ClaudeStatusQuota (-want +got):\n%s", d)
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// checkQuota checks what holds of any windows parsed from outside input.
func checkQuota(t *testing.T, ws []transcript.QuotaWindow) {
	for _, w := range ws {
		if w.UsedPercent < 0 || w.UsedPercent > 100 || w.WindowMinutes < 0 || w.ResetsAt < 0 || w.Window == "" {
			t.Fatalf("window %+v out of range", w)
		}
	}
}

func FuzzQuota(f *testing.F) {
	seed(f, "codex")
	f.Add([]byte(tokenCount(`{"primary":{"used_percent":42.5,"window_minutes":300,"resets_at":1796472000},"secondary":null}`)))
	f.Add([]byte(`{"rate_limits":{"five_hour":{"used_percentage":96,"resets_at":1796472000},"seven_day":{"used_percentage":1e400}}}`))
	for _, name := range []string{"statusline.json", "statusline_apikey.json"} {
		if full, err := os.ReadFile(filepath.Join("testdata", "claude", name)); err == nil {
			f.Add(full) // a whole status-line JSON as claude passes it
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkQuota(t, transcript.CodexQuota(data))
		checkQuota(t, transcript.ClaudeStatusQuota(data))
	})
}
