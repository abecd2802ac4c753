package provider_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
)

// TestScreenStatusOfFixtures: the status a screen-status provider reports is the
// recorded screen's rule, as herdr would say it (docs/providers.md §11.4).
func TestScreenStatusOfFixtures(t *testing.T) {
	want := map[string]herdr.Status{"idle": herdr.StatusIdle, "done": herdr.StatusIdle, "working": herdr.StatusWorking,
		"blocked": herdr.StatusBlocked, "limit": herdr.StatusBlocked, "login": herdr.StatusBlocked, "setup": herdr.StatusUnknown}
	for _, f := range screenFixtures(t) {
		spec, _ := provider.Spec(contractBuiltin(t, f.cli))
		st, title := provider.ScreenStatus(spec, f.screen)
		if st != want[f.want] {
			t.Errorf("%s/%s (want %s): status %q", f.cli, f.file, f.want, st)
		}
		if (f.want == "limit" || f.want == "login") && title != "screen: "+f.want {
			t.Errorf("%s/%s: title %q, want the rule for the blocked classification", f.cli, f.file, title)
		}
	}
}

// TestScreenAnswerOfFixtures reads the answers of the recorded turns from their screens
// (docs/providers.md §11.3): what the turn drew between the prompt's echo and the rule
// above the input box.
func TestScreenAnswerOfFixtures(t *testing.T) {
	for _, c := range []struct {
		cli, file, prompt string
		want              []string // the answer is the first and holds every other
	}{
		{"qwen", "after-tool.txt", "tool=bash:echo_qwtool say=done",
			[]string{"✓ Shell echo qwtool (Run echo qwtool)\n  qwtool\n\n◆︎ done"}},
		{"pi", "after-tool.txt", "tool=bash:echo_pitool say=done", []string{"$ echo pitool\n\npitool\n\nTook 0.0s\n\ndone"}},
		// The tool's box is part of the answer, and so is what the TUI drew under it.
		{"gemini", "after-tool.txt", "tool=bash:touch_gmfile say=done", []string{"", "✓  Shell touch gmfile", "\n✦ done\n", "? for shortcuts"}},
		{"opencode", "after-tool.txt", "tool=bash:touch_ocfile say=done", []string{"", "┃  $ touch ocfile", "\n   done\n", "▣  Build"}},
	} {
		spec, _ := provider.Spec(contractBuiltin(t, c.cli))
		got, ok := provider.ScreenAnswer(spec, fixtureScreen(t, c.cli, c.file), c.prompt)
		if !ok || (c.want[0] != "" && got != c.want[0]) {
			t.Errorf("%s/%s: answer %q %v, want %q", c.cli, c.file, got, ok, c.want[0])
		}
		for _, w := range c.want[1:] {
			if !strings.Contains(got, w) {
				t.Errorf("%s/%s: answer %q lacks %q", c.cli, c.file, got, w)
			}
		}
		if strings.Contains(got, c.prompt) || strings.Contains(got, "Type your message") {
			t.Errorf("%s/%s: answer %q holds the echo or the input box", c.cli, c.file, got)
		}
	}
}

// TestScreenAnswerCannotBeTold: no answer is guessed when the screen does not show a
// finished turn of that prompt.
func TestScreenAnswerCannotBeTold(t *testing.T) {
	qwen, _ := provider.Spec(contractBuiltin(t, "qwen"))
	done := fixtureScreen(t, "qwen", "after-tool.txt")
	for _, c := range []struct {
		name, screen, prompt string
		spec                 config.ProviderSpec
	}{
		{"another prompt", done, "something never typed", qwen},
		{"a prompt of no words", done, "  ...  ", qwen},
		{"no ready rule", done, "tool=bash:echo_qwtool say=done", config.ProviderSpec{}},
		{"still working", fixtureScreen(t, "qwen", "limit-retrying.txt"), "limit", qwen},
		{"no rule under the echo", "> hello\nRESPONSE: hello\n[idle]", "hello", mockScreenSpec()},
		{"the input area is not ready", "> hello\nRESPONSE: hello\n" + strings.Repeat("─", 20) + "\n[working]", "hello", mockScreenSpec()},
		{"an empty answer", "> hello\n\n" + strings.Repeat("─", 20) + "\n[idle]", "hello", mockScreenSpec()},
	} {
		if got, ok := provider.ScreenAnswer(c.spec, c.screen, c.prompt); ok {
			t.Errorf("%s: answer %q", c.name, got)
		}
	}
}

// TestScreenAnswerOfTheMock: the mock agent's screen, the last of two turns, a prompt of
// several lines and an answer that repeats the prompt.
func TestScreenAnswerOfTheMock(t *testing.T) {
	rule := strings.Repeat("─", 60)
	screen := strings.Join([]string{"orcr-mock-agent ready", rule, "> hello", "RESPONSE: hello", "DONE",
		"> second turn", "  with two lines", "RESPONSE: second turn", "with two lines", "DONE", rule, "› ", rule, "[idle]"}, "\n")
	got, ok := provider.ScreenAnswer(mockScreenSpec(), screen, "second turn\nwith two lines")
	if !ok || got != "RESPONSE: second turn\nwith two lines\nDONE" {
		t.Errorf("answer %q %v", got, ok)
	}
	if st, _ := provider.ScreenStatus(mockScreenSpec(), screen); st != herdr.StatusIdle {
		t.Errorf("status %q", st)
	}
}

// mockScreenSpec has the mock agent's status line as its screen rules.
func mockScreenSpec() config.ProviderSpec {
	return config.ProviderSpec{Screens: config.ProviderScreens{Ready: []*regexp.Regexp{regexp.MustCompile(`(?i)\[idle\]`)},
		Working: []*regexp.Regexp{regexp.MustCompile(`(?i)\[working\]`)}}}
}

// fixtureScreen is one recorded screen of testdata/screens/<cli>/<file>.
func fixtureScreen(t *testing.T, cli, file string) string {
	t.Helper()
	for _, f := range screenFixtures(t) {
		if f.cli == cli && f.file == file {
			return f.screen
		}
	}
	t.Fatalf("no fixture %s/%s", cli, file)
	return ""
}
