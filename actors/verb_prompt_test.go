package actors_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Prompt delivery (docs/lifecycle.md §9.1): what reaches the mock agent is one
// submission holding the prompt as given, whatever its lines, size or what was left in
// the input box; control characters are refused before anything is written.

// entries returns target's transcript entries.
func entries(t *testing.T, sys *actors.System, target string) []api.LogEntry {
	t.Helper()
	logs, err := sys.Logs(t.Context(), api.LogsRequest{Target: target})
	if err != nil {
		t.Fatalf("Logs(%s): %v", target, err)
	}
	return logs.Entries
}

// userTexts are the prompts target's transcript records, oldest first.
func userTexts(t *testing.T, sys *actors.System, target string) []string {
	t.Helper()
	var out []string
	for _, e := range entries(t, sys, target) {
		if e.Role == "user" {
			out = append(out, e.Text)
		}
	}
	return out
}

func lastResponse(t *testing.T, sys *actors.System, target string) string {
	t.Helper()
	logs, err := sys.Logs(t.Context(), api.LogsRequest{Target: target, LastResponse: true})
	if err != nil || logs.Response == nil {
		t.Fatalf("Logs(%s, last response): %+v, %v", target, logs, err)
	}
	return logs.Response.Text
}

// A prompt with CRLF and CR line ends is one submission with its lines intact, both as
// the first prompt of a run and through a send.
func TestPromptMultiLineIsOneSubmission(t *testing.T) {
	sys, _ := newSystem(t)
	ctx := t.Context()
	if _, err := sys.Run(ctx, api.RunRequest{Path: "lines/one", Agent: "mock",
		Prompt: "first line\r\nline2\rline3\n\tindented"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	waitOK(t, sys, "lines/one")
	want := "first line\nline2\nline3\n\tindented"
	if got := userTexts(t, sys, "lines/one"); len(got) != 1 || got[0] != want {
		t.Fatalf("run: the mock's submissions are %q, want one: %q", got, want)
	}
	if got := lastResponse(t, sys, "lines/one"); got != "RESPONSE: "+want+"\nDONE" {
		t.Errorf("run: last response %q", got)
	}

	if _, err := sys.Send(ctx, api.SendRequest{Target: "lines/one", Prompt: "say=x\r\nline2\rline3"}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	waitOK(t, sys, "lines/one")
	got := userTexts(t, sys, "lines/one")
	if len(got) != 2 || got[1] != "say=x\nline2\nline3" {
		t.Fatalf("send: the mock's submissions are %q, want a second one: %q", got, "say=x\nline2\nline3")
	}
	if got := lastResponse(t, sys, "lines/one"); got != "x\nDONE" {
		t.Errorf("send: last response %q, want x\\nDONE", got)
	}
}

// Control characters other than newline and tab are refused with
// invalid_request/control_characters naming the first one, and nothing is written:
// no agent for a run or an ask, no event and no turn for a send.
func TestPromptControlCharactersRefused(t *testing.T) {
	sys, db := newSystem(t)
	ctx := t.Context()
	check := func(name string, err error, offset int, code rune) {
		t.Helper()
		pe, ok := wire.As(err)
		if !ok || pe.Code != wire.InvalidRequest || pe.Details["reason"] != "control_characters" {
			t.Fatalf("%s: got %v, want invalid_request control_characters", name, err)
		}
		if pe.Details["offset"] != offset || pe.Details["code"] != int(code) {
			t.Errorf("%s: details %v, want offset %d code %d", name, pe.Details, offset, code)
		}
	}
	_, err := sys.Run(ctx, api.RunRequest{Path: "ctl/run", Agent: "mock", Prompt: "say=x^C\x03\x04"})
	check("run with ^C^D", err, 7, 0x03)
	_, err = sys.Ask(ctx, api.AskRequest{Path: "ctl/ask", Agent: "mock", Prompt: "tab\tok\r\nthen \x1b[201~"})
	check("ask with ESC", err, 13, 0x1b)
	_, err = sys.Run(ctx, api.RunRequest{Path: "ctl/c1", Agent: "mock", Prompt: "é\u009b0m"})
	check("run with a C1 control", err, 2, 0x9b)
	if ls, err := sys.Ls(ctx, api.LsRequest{All: true}); err != nil || len(ls.Agents) != 0 {
		t.Fatalf("after refused runs: %d agents (%v), want none", len(ls.Agents), err)
	}

	if _, err := sys.Run(ctx, api.RunRequest{Path: "ctl/idle", Agent: "mock"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	waitOK(t, sys, "ctl/idle")
	before, _, _ := db.Bounds()
	for _, p := range []string{"\x03", "say=y\x04", "say=z\x1b", "del\x7f"} {
		_, err := sys.Send(ctx, api.SendRequest{Target: "ctl/idle", Prompt: p})
		pe, ok := wire.As(err)
		if !ok || pe.Code != wire.InvalidRequest || pe.Details["reason"] != "control_characters" {
			t.Errorf("Send(%q): got %v, want invalid_request control_characters", p, err)
		}
	}
	after, _, _ := db.Bounds()
	if after != before {
		evs, _ := db.EventsAfter(ctx, before, 20)
		t.Errorf("refused sends wrote %d events: %+v", after-before, evs)
	}
	ls, err := sys.Ls(ctx, api.LsRequest{Pattern: "ctl/idle"})
	if err != nil || len(ls.Agents) != 1 || ls.Agents[0].Status != store.StatusIdle || ls.Agents[0].TurnDeliveredAt != nil {
		t.Fatalf("after refused sends: %+v, %v; want the row idle with no turn", ls.Agents, err)
	}
	// The agent never saw any of it and still works.
	sent, err := sys.Send(ctx, api.SendRequest{Target: "ctl/idle", Prompt: "say=alive"})
	if err != nil || sent.InputSeq != 1 {
		t.Fatalf("Send after the refusals: %+v, %v; want input_seq 1", sent, err)
	}
	waitOK(t, sys, "ctl/idle")
	if got := userTexts(t, sys, "ctl/idle"); len(got) != 1 || got[0] != "say=alive" {
		t.Errorf("the mock's submissions: %q, want [say=alive]", got)
	}
}

// A prompt over the bound is refused before anything is written.
func TestPromptTooLargeRefused(t *testing.T) {
	sys, _ := newSystem(t)
	big := strings.Repeat("x", actors.MaxPromptBytes+1)
	_, err := sys.Run(t.Context(), api.RunRequest{Path: "big/run", Agent: "mock", Prompt: big})
	pe, ok := wire.As(err)
	if !ok || pe.Code != wire.InvalidRequest || pe.Details["reason"] != "prompt_too_large" ||
		pe.Details["limit_bytes"] != actors.MaxPromptBytes || pe.Details["prompt_bytes"] != len(big) {
		t.Fatalf("Run(%d bytes): got %v, want invalid_request prompt_too_large", len(big), err)
	}
	if ls, err := sys.Ls(t.Context(), api.LsRequest{All: true}); err != nil || len(ls.Agents) != 0 {
		t.Fatalf("after a refused run: %d agents (%v), want none", len(ls.Agents), err)
	}
}

// bigPrompt is about n bytes of varied text: multi-byte runes, characters JSON
// escapes, newlines and tabs, and the digest directive.
func bigPrompt(n int) string {
	var b strings.Builder
	b.WriteString("digest\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%06d\tañ€😀 <tag attr=\"v\"> a&b \\ %s\n", i, strings.Repeat("x", i%50))
	}
	return strings.TrimSpace(b.String())
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("bytes=%d sha256=%s\nDONE", len(s), hex.EncodeToString(sum[:]))
}

// A 5 MB prompt is delivered in several send_text calls under herdr's 1 MiB request
// limit, and the mock receives every byte of it, as a first prompt and as a send. Each
// turn may take minutes: 5 MB through the stand-in's PTY and the mock under -race took
// 26 s alone and over 45 s on the loaded 2-core machine.
func TestPromptFiveMegabytes(t *testing.T) {
	sys, _ := newSystem(t)
	ctx := t.Context()
	big := bigPrompt(5 << 20)
	start := time.Now()
	if _, err := sys.Run(ctx, api.RunRequest{Path: "huge/one", Agent: "mock", Prompt: big}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	waitOKWithin(t, sys, "huge/one", "3m")
	if got, want := lastResponse(t, sys, "huge/one"), digest(big); got != want {
		t.Fatalf("run: the mock answered %q, want %q", got, want)
	}
	t.Logf("5 MB first prompt delivered and answered in %v", time.Since(start))
	big2 := "second " + big
	start = time.Now()
	if _, err := sys.Send(ctx, api.SendRequest{Target: "huge/one", Prompt: big2}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	sent := time.Since(start)
	waitOKWithin(t, sys, "huge/one", "3m")
	t.Logf("5 MB send delivered in %v, answered in %v", sent, time.Since(start))
	if got, want := lastResponse(t, sys, "huge/one"), digest(big2); got != want {
		t.Fatalf("send: the mock answered %q, want %q", got, want)
	}
	if n := len(userTexts(t, sys, "huge/one")); n != 2 {
		t.Errorf("the mock saw %d submissions, want 2", n)
	}
}

// ownedPane connects to the owned herdr session of sys's test environment and returns
// it with target's pane id.
func ownedPane(t *testing.T, sys *actors.System, target string) (*herdr.Remote, string) {
	t.Helper()
	ls, err := sys.Ls(t.Context(), api.LsRequest{Pattern: target})
	if err != nil || len(ls.Agents) != 1 || ls.Agents[0].PaneID == nil {
		t.Fatalf("Ls(%s): %+v, %v", target, ls.Agents, err)
	}
	sock := herdrtest.SocketPath(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "herdr"), "orcr")
	return herdr.NewRemote(sock), *ls.Agents[0].PaneID
}

// Text left in the input box (typed there behind orcr's back, or a paste an
// interrupted delivery never closed) is cleared before the next delivery, not glued
// onto it.
func TestPromptInputBoxClearedBeforeDelivery(t *testing.T) {
	sys, _ := newSystem(t)
	ctx := t.Context()
	if _, err := sys.Run(ctx, api.RunRequest{Path: "clear/one", Agent: "mock"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	waitOK(t, sys, "clear/one")
	r, pane := ownedPane(t, sys, "clear/one")
	for i, left := range []string{"leftover", "\x1b[200~half a paste\nwith lines"} {
		if err := r.SendText(ctx, pane, left); err != nil {
			t.Fatalf("send_text %q: %v", left, err)
		}
		word := fmt.Sprintf("clean%d", i)
		if _, err := sys.Send(ctx, api.SendRequest{Target: "clear/one", Prompt: "say=" + word}); err != nil {
			t.Fatalf("Send: %v", err)
		}
		waitOK(t, sys, "clear/one")
		got := userTexts(t, sys, "clear/one")
		if len(got) != i+1 || got[i] != "say="+word {
			t.Fatalf("after %q was left in the box: the mock's submissions are %q, want the last to be %q", left, got, "say="+word)
		}
		if got := lastResponse(t, sys, "clear/one"); got != word+"\nDONE" {
			t.Errorf("last response %q, want %s\\nDONE", got, word)
		}
	}
}
