package transcript_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// fixture reads testdata/<dir>/<name>.
func fixture(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstTurn is data up to (without) the line holding the text of the second prompt.
func firstTurn(t testing.TB, data []byte, second string) []byte {
	t.Helper()
	var out []byte
	for line := range bytes.Lines(data) {
		if bytes.Contains(line, []byte(`"text":"`+second)) {
			return out
		}
		out = append(out, line...)
	}
	t.Fatalf("no prompt %q", second)
	return nil
}

// TestOtherTurnUsage reads the usage of the last turn from the real transcripts of
// pi 0.73.1, qwen 0.24.4, gemini 0.61.0 and opencode 1.18.33 against the model
// stand-in (docs/providers.md §6.9): a turn with a shell call (two model requests of
// tokens=11,22,33,44) and a second turn of tokens=5,6,7,8 (opencode's third
// tokens=1,10,3,4,5: 10 output tokens, 5 of them reasoning).
func TestOtherTurnUsage(t *testing.T) {
	pi, qwen := fixture(t, "pi", "turns.jsonl"), fixture(t, "qwen", "turns.jsonl")
	gemini, opencode := fixture(t, "gemini", "turns.jsonl"), fixture(t, "opencode", "turns.export.json")
	tests := []struct {
		name, format string
		data         []byte
		want         transcript.Usage
		ok           bool
	}{
		// pi reports Anthropic's four counters as they came.
		{"pi second turn", transcript.FormatPi, pi, transcript.Usage{Input: 5, Output: 6, CacheRead: 7, CacheWrite: 8, Model: "claude-sonnet-4-5"}, true},
		{"pi tool turn", transcript.FormatPi, firstTurn(t, pi, "say=second"), transcript.Usage{Input: 22, Output: 44, CacheRead: 66, CacheWrite: 88, Model: "claude-sonnet-4-5"}, true},
		// qwen: promptTokenCount counts the cached input (5+7 = 12); Chat Completions
		// reports no cache writes. The memory extractor's 11223 tokens after the turn
		// are telemetry only and not counted.
		{"qwen second turn", transcript.FormatQwen, qwen, transcript.Usage{Input: 5, Output: 6, CacheRead: 7, Model: "gpt-5-standin"}, true},
		{"qwen tool turn", transcript.FormatQwen, firstTurn(t, qwen, "say=second"), transcript.Usage{Input: 22, Output: 44, CacheRead: 66, Model: "gpt-5-standin"}, true},
		// The same turns typed into qwen's TUI: its suggestion request (whose answer
		// "ok" filled the input box) wrote nothing, its memory extractor telemetry only.
		{"qwen TUI second turn", transcript.FormatQwen, fixture(t, "qwen", "tui.jsonl"), transcript.Usage{Input: 5, Output: 6, CacheRead: 7, Model: "gpt-5-standin"}, true},
		// gemini: the tool turn's answer record is written twice (without, then with its
		// toolCalls) and counted once.
		{"gemini second turn", transcript.FormatGemini, gemini, transcript.Usage{Input: 5, Output: 6, CacheRead: 7, Model: "gemini-2.5-flash"}, true},
		{"gemini tool turn", transcript.FormatGemini, firstTurn(t, gemini, "say=second"), transcript.Usage{Input: 22, Output: 44, CacheRead: 66, Model: "gemini-2.5-flash"}, true},
		// The TUI's transcript: the turn after the one refused at the limit.
		{"gemini TUI after the limit", transcript.FormatGemini, fixture(t, "gemini", "tui.jsonl"), transcript.Usage{Input: 5, Output: 6, CacheRead: 7, Model: "gemini-2.5-flash"}, true},
		{"gemini TUI at the limit", transcript.FormatGemini, fixture(t, "gemini", "tui_limit.jsonl"), transcript.Usage{}, false},
		{"opencode third turn", transcript.FormatOpencode, opencode, transcript.Usage{Input: 1, Output: 10, CacheRead: 3, Reasoning: 5, Model: "gpt-5-standin"}, true},
		{"qwen at the limit", transcript.FormatQwen, fixture(t, "qwen", "limit.jsonl"), transcript.Usage{}, false},
		{"opencode retrying a 429", transcript.FormatOpencode, fixture(t, "opencode", "limit.export.json"), transcript.Usage{}, false},
		{"pi prompt only", transcript.FormatPi, []byte(`{"type":"message","message":{"role":"user","content":"hi"}}`), transcript.Usage{}, false},
		{"opencode not an export", transcript.FormatOpencode, []byte(`[1]`), transcript.Usage{}, false},
		{"gemini empty", transcript.FormatGemini, nil, transcript.Usage{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := transcript.TurnUsage(tt.format, tt.data)
			if ok != tt.ok {
				t.Fatalf("TurnUsage ok = %v, want %v (%+v)", ok, tt.ok, got)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("TurnUsage (-want +got):\n%s", d)
			}
		})
	}
}

// TestOtherLimitNotice: none of the real transcripts ends at a limit; the shapes the
// adapters read as one (not written by the CLIs at the stand-in's 429, which they
// retry or report only on screen or stderr, docs/providers.md §6.9) are notices until
// a later prompt.
func TestOtherLimitNotice(t *testing.T) {
	for format, data := range map[string][]byte{
		transcript.FormatPi:       fixture(t, "pi", "turns.jsonl"),
		transcript.FormatQwen:     fixture(t, "qwen", "turns.jsonl"),
		transcript.FormatGemini:   fixture(t, "gemini", "turns.jsonl"),
		transcript.FormatOpencode: fixture(t, "opencode", "turns.export.json"),
	} {
		if n, ok := transcript.LimitNotice(format, data); ok {
			t.Errorf("%s: notice %q in a transcript with no limit", format, n)
		}
	}
	// qwen recorded the 429 of its first attempt as api_error telemetry, then kept
	// retrying (killed after 150 s).
	if n, _ := transcript.LimitNotice(transcript.FormatQwen, fixture(t, "qwen", "limit.jsonl")); n != "429 The usage limit has been reached" {
		t.Errorf("qwen at the limit: notice %q", n)
	}
	// gemini's TUI wrote its quota error; the next turn's answer clears it.
	if n, _ := transcript.LimitNotice(transcript.FormatGemini, fixture(t, "gemini", "tui_limit.jsonl")); !strings.HasPrefix(n, "[API Error: You have exhausted your daily quota on this model.]\nPlease wait") {
		t.Errorf("gemini TUI at the limit: notice %q", n)
	}
	if n, ok := transcript.LimitNotice(transcript.FormatGemini, fixture(t, "gemini", "tui.jsonl")); ok {
		t.Errorf("gemini TUI answered after the limit: notice %q", n)
	}
	const msg = "429 You have hit your usage limit. Try again at 5:44 PM."
	tests := []struct {
		name, format, data string
		want               string
	}{
		{"pi", transcript.FormatPi, `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"go"}]}}
{"type":"message","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"` + msg + `"}}`, msg},
		{"pi other error", transcript.FormatPi, `{"type":"message","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"socket hang up"}}`, ""},
		{"pi cleared", transcript.FormatPi, `{"type":"message","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"` + msg + `"}}
{"type":"message","message":{"role":"user","content":"again"}}`, ""},
		{"qwen", transcript.FormatQwen, `{"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_error","error_message":"` + msg + `"}}}`, msg},
		{"qwen other error", transcript.FormatQwen, `{"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_error","error_message":"socket hang up","status_code":500}}}`, ""},
		{"qwen cleared", transcript.FormatQwen, `{"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_error","error_message":"` + msg + `"}}}
{"type":"user","message":{"role":"user","parts":[{"text":"again"}]}}`, ""},
		{"gemini", transcript.FormatGemini, `{"id":"1","type":"user","content":[{"text":"go"}]}
{"id":"2","type":"error","content":"` + msg + `"}`, msg},
		{"gemini answered", transcript.FormatGemini, `{"id":"2","type":"error","content":"` + msg + `"}
{"id":"3","type":"gemini","content":"fine"}`, ""},
		{"opencode", transcript.FormatOpencode, `{"messages":[{"info":{"role":"user"},"parts":[{"type":"text","text":"go"}]},
{"info":{"role":"assistant","error":{"name":"APIError","data":{"message":"` + msg + `"}}},"parts":[]}]}`, msg},
		{"opencode cleared", transcript.FormatOpencode, `{"messages":[{"info":{"role":"assistant","error":{"data":{"message":"` + msg + `"}}},"parts":[]},
{"info":{"role":"user"},"parts":[{"type":"text","text":"again"}]}]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := transcript.LimitNotice(tt.format, []byte(tt.data))
			if got != tt.want || ok != (tt.want != "") {
				t.Fatalf("LimitNotice = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

// install copies testdata/<dir>/<name> to path with mtime at.
func install(t *testing.T, dir, name, path string, at time.Time) string {
	t.Helper()
	touch(t, path, at)
	if err := os.WriteFile(path, fixture(t, dir, name), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOtherLocate is the identity gate for the CLIs of docs/providers.md §6.9, in the
// layouts the real CLIs wrote.
func TestOtherLocate(t *testing.T) {
	created := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	before, after := created.Add(-time.Hour), created.Add(time.Minute)
	const cwd = "/srv/code/proj"
	piID, qwenID := "01a24896-e793-75c3-9639-7e4808ca5462", "395bc6e3-82a0-4049-afcb-1a97ac3434e3"
	gemID := "e83d3723-1315-447f-b258-aadf51efa6a3"
	geminiProjects := func(home string) {
		touch(t, filepath.Join(home, ".gemini", "projects.json"), before)
		if err := os.WriteFile(filepath.Join(home, ".gemini", "projects.json"), []byte(`{"projects":{"`+cwd+`":"proj"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chats := func(home string) string { return filepath.Join(home, ".gemini", "tmp", "proj", "chats") }
	tests := []struct {
		name  string
		setup func(home string) (transcript.Locator, string)
		cause string
	}{
		{"pi by cwd and id", func(home string) (transcript.Locator, string) {
			p := install(t, "pi", "turns.jsonl", filepath.Join(home, ".pi", "agent", "sessions", "--srv-code-proj--", "2026-03-01T11-00-00-000Z_"+piID+".jsonl"), before)
			touch(t, filepath.Join(home, ".pi", "agent", "sessions", "--srv-code-proj--", "2026-03-01T11-00-00-000Z_other.jsonl"), after)
			return transcript.Locator{Home: home, Format: transcript.FormatPi, Cwd: cwd, SessionValue: piID, CreatedAt: created}, p
		}, ""},
		{"pi moved cwd, PI_CODING_AGENT_DIR", func(home string) (transcript.Locator, string) {
			p := install(t, "pi", "turns.jsonl", filepath.Join(home, "piagent", "sessions", "--elsewhere--", "x_"+piID+".jsonl"), before)
			return transcript.Locator{AgentDir: filepath.Join(home, "piagent"), Format: transcript.FormatPi, Cwd: cwd, SessionValue: piID}, p
		}, ""},
		{"pi without a session: the file written since the start", func(home string) (transcript.Locator, string) {
			dir := filepath.Join(home, ".pi", "agent", "sessions", "--srv-code-proj--")
			touch(t, filepath.Join(dir, "2026-03-01T10-00-00-000Z_old.jsonl"), before)
			p := install(t, "pi", "turns.jsonl", filepath.Join(dir, "2026-03-01T12-00-01-000Z_"+piID+".jsonl"), after)
			return transcript.Locator{Home: home, Format: transcript.FormatPi, Cwd: cwd, CreatedAt: created}, p
		}, ""},
		{"pi without a session: only an older session", func(home string) (transcript.Locator, string) {
			touch(t, filepath.Join(home, ".pi", "agent", "sessions", "--srv-code-proj--", "2026-03-01T10-00-00-000Z_old.jsonl"), before)
			return transcript.Locator{Home: home, Format: transcript.FormatPi, Cwd: cwd, CreatedAt: created}, ""
		}, wire.CauseNotFound},
		{"pi without a session: two agents in the directory", func(home string) (transcript.Locator, string) {
			dir := filepath.Join(home, ".pi", "agent", "sessions", "--srv-code-proj--")
			touch(t, filepath.Join(dir, "a_1.jsonl"), after)
			touch(t, filepath.Join(dir, "b_2.jsonl"), after)
			return transcript.Locator{Home: home, Format: transcript.FormatPi, Cwd: cwd, CreatedAt: created}, ""
		}, wire.CauseAmbiguous},
		{"pi glob in id", func(home string) (transcript.Locator, string) {
			install(t, "pi", "turns.jsonl", filepath.Join(home, ".pi", "agent", "sessions", "--srv-code-proj--", "x_"+piID+".jsonl"), before)
			return transcript.Locator{Home: home, Format: transcript.FormatPi, Cwd: cwd, SessionValue: "*"}, ""
		}, wire.CauseNotFound},
		{"qwen by cwd and id", func(home string) (transcript.Locator, string) {
			p := install(t, "qwen", "turns.jsonl", filepath.Join(home, ".qwen", "projects", "-srv-code-proj", "chats", qwenID+".jsonl"), before)
			return transcript.Locator{Home: home, Format: transcript.FormatQwen, Cwd: cwd, SessionValue: qwenID}, p
		}, ""},
		{"qwen two projects", func(home string) (transcript.Locator, string) {
			install(t, "qwen", "turns.jsonl", filepath.Join(home, ".qwen", "projects", "-a", "chats", qwenID+".jsonl"), after)
			install(t, "qwen", "turns.jsonl", filepath.Join(home, ".qwen", "projects", "-b", "chats", qwenID+".jsonl"), after)
			return transcript.Locator{Home: home, Format: transcript.FormatQwen, Cwd: "/gone", SessionValue: qwenID, CreatedAt: created}, ""
		}, wire.CauseAmbiguous},
		{"gemini resumed: the stray new file holds no prompt", func(home string) (transcript.Locator, string) {
			geminiProjects(home)
			p := install(t, "gemini", "turns.jsonl", filepath.Join(chats(home), "session-2026-03-01T11-00-e83d3723.jsonl"), after.Add(time.Second))
			install(t, "gemini", "resume_stray.jsonl", filepath.Join(chats(home), "session-2026-03-01T12-00-e83d3723.jsonl"), after.Add(2*time.Second))
			return transcript.Locator{Home: home, Format: transcript.FormatGemini, Cwd: cwd, CreatedAt: created}, p
		}, ""},
		{"gemini by id", func(home string) (transcript.Locator, string) {
			geminiProjects(home)
			p := install(t, "gemini", "turns.jsonl", filepath.Join(chats(home), "session-2026-03-01T11-00-e83d3723.jsonl"), before)
			install(t, "gemini", "resume_stray.jsonl", filepath.Join(chats(home), "session-2026-03-01T12-00-e83d3723.jsonl"), after)
			return transcript.Locator{Home: home, Format: transcript.FormatGemini, Cwd: cwd, SessionValue: gemID, CreatedAt: created}, p
		}, ""},
		{"gemini an older session only", func(home string) (transcript.Locator, string) {
			geminiProjects(home)
			install(t, "gemini", "turns.jsonl", filepath.Join(chats(home), "session-2026-03-01T11-00-e83d3723.jsonl"), before)
			return transcript.Locator{Home: home, Format: transcript.FormatGemini, Cwd: cwd, CreatedAt: created}, ""
		}, wire.CauseNotFound},
		{"gemini two sessions since the start", func(home string) (transcript.Locator, string) {
			geminiProjects(home)
			install(t, "gemini", "turns.jsonl", filepath.Join(chats(home), "session-2026-03-01T12-01-e83d3723.jsonl"), after)
			other := bytes.ReplaceAll(fixture(t, "gemini", "turns.jsonl"), []byte(gemID), []byte("0badf00d-1315-447f-b258-aadf51efa6a3"))
			p := filepath.Join(chats(home), "session-2026-03-01T12-02-0badf00d.jsonl")
			if err := os.WriteFile(p, other, 0o644); err != nil {
				t.Fatal(err)
			}
			return transcript.Locator{Home: home, Format: transcript.FormatGemini, Cwd: cwd, CreatedAt: created}, ""
		}, wire.CauseAmbiguous},
		{"gemini unknown project", func(home string) (transcript.Locator, string) {
			return transcript.Locator{Home: home, Format: transcript.FormatGemini, Cwd: cwd, CreatedAt: created}, ""
		}, wire.CauseNotFound},
		{"opencode has no file", func(home string) (transcript.Locator, string) {
			return transcript.Locator{Home: home, Format: transcript.FormatOpencode, Cwd: cwd, SessionValue: "ses_x"}, ""
		}, wire.CauseReadError},
		{"opencode export in the data dir", func(home string) (transcript.Locator, string) {
			p := install(t, "opencode", "turns.export.json", filepath.Join(home, "data", transcript.OpencodeExportFile), before)
			return transcript.Locator{DataDir: filepath.Join(home, "data"), DataDirFile: transcript.OpencodeExportFile, Format: transcript.FormatOpencode, SessionValue: "ses_x"}, p
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			l, want := tt.setup(home)
			got, err := transcript.Locate(l)
			if tt.cause == "" {
				if err != nil || got != want {
					t.Fatalf("Locate = %q, %v; want %q", got, err, want)
				}
				return
			}
			var pe *wire.Error
			if !errors.As(err, &pe) || pe.Details["cause"] != tt.cause {
				t.Fatalf("Locate = %q, %v; want cause %s", got, err, tt.cause)
			}
		})
	}
}

func TestPiSessionDir(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/h17ad/pi-home/proj": "--tmp-h17ad-pi-home-proj--", // as pi 0.73.1 wrote it
		"/srv/code/proj/":         "--srv-code-proj--",
	} {
		if got := transcript.PiSessionDir(in); got != want {
			t.Errorf("PiSessionDir(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOpencodeTurnOpen: the export of a finished session is settled; one whose last
// assistant message is not completed, or asked for tools, or whose prompt has no
// answer yet, is not.
func TestOpencodeTurnOpen(t *testing.T) {
	done := fixture(t, "opencode", "turns.export.json")
	if transcript.OpencodeTurnOpen(done) {
		t.Error("finished session read as open")
	}
	// opencode retrying the stand-in's 429 (killed after 45 s) left its answer open.
	if !transcript.OpencodeTurnOpen(fixture(t, "opencode", "limit.export.json")) {
		t.Error("export of a turn retrying a 429 read as settled")
	}
	for name, data := range map[string]string{
		"not completed": `{"messages":[{"info":{"role":"user"},"parts":[{"type":"text","text":"go"}]},{"info":{"role":"assistant","time":{"created":1}},"parts":[]}]}`,
		"tool calls":    `{"messages":[{"info":{"role":"user"},"parts":[{"type":"text","text":"go"}]},{"info":{"role":"assistant","finish":"tool-calls","time":{"created":1,"completed":2}},"parts":[]}]}`,
		"unanswered":    `{"messages":[{"info":{"role":"user"},"parts":[{"type":"text","text":"go"}]}]}`,
	} {
		if !transcript.OpencodeTurnOpen([]byte(data)) {
			t.Errorf("%s: read as settled", name)
		}
	}
}

// TestOpencodeExport runs a stand-in for `opencode export` (a script printing a fixed
// export, or failing): the export lands in the data dir (made when missing), an unchanged export keeps the
// file's mtime (the cursor of §6.3), a changed one rewrites it, and a failure removes
// it and names opencode's error.
func TestOpencodeExport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "export.json")
	if err := os.WriteFile(src, fixture(t, "opencode", "turns.export.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "opencode")
	script := "#!/bin/sh\n[ \"$1\" = export ] && [ \"$2\" = ses_ok ] && exec cat \"$EXPORT\"\necho 'Error: Session not found' >&2\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"EXPORT=" + src, "PATH=/usr/bin:/bin"}
	// An unmanaged agent's data dir does not exist until its first export
	// (docs/providers.md §12.4: a hand-started opencode's answers and its adoption).
	data := filepath.Join(dir, "data", "unmanaged", "work", "w1_p2", "uuid")
	ctx := context.Background()
	p, err := transcript.OpencodeExport(ctx, bin, env, "ses_ok", data)
	if err != nil || p != filepath.Join(data, transcript.OpencodeExportFile) {
		t.Fatalf("OpencodeExport = %q, %v", p, err)
	}
	if fi, err := os.Stat(data); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the data dir made for the export: %v, %v", fi, err)
	}
	entries, err := transcript.Read(p, transcript.FormatOpencode)
	if s, _ := transcript.LastResponse(entries); err != nil || s != "third" {
		t.Fatalf("Read export: last response %q, %v", s, err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := transcript.OpencodeExport(ctx, bin, env, "ses_ok", data); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(old) {
		t.Fatalf("unchanged export rewrote the file: %v, %v", fi.ModTime(), err)
	}
	if err := os.WriteFile(src, bytes.Replace(fixture(t, "opencode", "turns.export.json"), []byte(`"third"`), []byte(`"fourth"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := transcript.OpencodeExport(ctx, bin, env, "ses_ok", data); err != nil {
		t.Fatal(err)
	}
	entries, _ = transcript.Read(p, transcript.FormatOpencode)
	if s, _ := transcript.LastResponse(entries); s != "fourth" {
		t.Fatalf("changed export: last response %q", s)
	}
	_, err = transcript.OpencodeExport(ctx, bin, env, "ses_gone", data)
	var pe *wire.Error
	if !errors.As(err, &pe) || pe.Details["cause"] != wire.CauseReadError || !strings.Contains(pe.Message, "Session not found") {
		t.Fatalf("failed export: %v", err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("failed export left the old copy: %v", err)
	}
}
