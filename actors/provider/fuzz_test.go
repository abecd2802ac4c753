package provider_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/herdr"
)

func FuzzParseCodexModelList(f *testing.F) {
	for _, name := range []string{"codex_model_list.jsonl", "codex_model_list_error.jsonl",
		"codex_model_list_empty.jsonl", "codex_model_list_no_answer.jsonl"} {
		f.Add(readFixture(f, name))
	}
	f.Add([]byte(`{"id":2,"result":{"data":[{"model":"a","supportedReasoningEfforts":[{"reasoningEffort":"x"}]}]}}`))
	f.Add([]byte("{\"id\":2}\n{"))
	f.Fuzz(func(t *testing.T, in []byte) {
		models, err := provider.ParseCodexModelList(in)
		if err != nil {
			if models != nil {
				t.Fatalf("error %v with models %v", err, models)
			}
			return
		}
		if len(models) == 0 {
			t.Fatal("success with an empty catalogue")
		}
		seen := map[string]bool{}
		for _, m := range models {
			if m.Model == "" || seen[m.Model] {
				t.Fatalf("empty or repeated model %q in %v", m.Model, models)
			}
			seen[m.Model] = true
			if slices.Contains(m.Efforts, "") {
				t.Fatalf("blank effort in %v", m)
			}
			for i, e := range m.Efforts {
				if slices.Index(m.Efforts, e) != i {
					t.Fatalf("repeated effort in %v", m)
				}
			}
			// Every listed route validates; an unknown model never does.
			for _, e := range m.Efforts {
				if err := models.Validate(m.Model, e); err != nil {
					t.Fatalf("Validate(%q, %q): %v", m.Model, e, err)
				}
			}
		}
		if err := models.Validate("\x00not-a-model", "x"); err == nil && !seen["\x00not-a-model"] {
			t.Fatal("unknown model validated")
		}
		if !provider.IsCodexAnswer(firstAnswer(in)) {
			t.Fatal("parsed without an answer line")
		}
	})
}

// firstAnswer returns the first line IsCodexAnswer accepts, or nil.
func firstAnswer(in []byte) []byte {
	for len(in) > 0 {
		i := slices.Index(in, '\n')
		line := in
		if i >= 0 {
			line, in = in[:i], in[i+1:]
		} else {
			in = nil
		}
		if provider.IsCodexAnswer(line) {
			return line
		}
	}
	return nil
}

// FuzzScreenAnswer: a pane's screen is outside input (docs/providers.md §11.3). An
// answer is never empty, never holds a rule or the blank lines around it, and is only
// read from a screen that classifies as ready.
func FuzzScreenAnswer(f *testing.F) {
	rule := strings.Repeat("─", 20)
	f.Add("> hello\nRESPONSE: hello\nDONE\n"+rule+"\n› \n"+rule+"\n[idle]", "hello")
	f.Add("> a\n  b\nx\n\n\n   y\n"+rule+"\n[idle]", "a\nb")
	f.Add("╭"+rule+"╮\n> hi\n│ box │\n╰"+rule+"╯\nok\n"+rule+"\n[working]\n[idle]", "hi")
	f.Add("\r\n>\x00 \xff\n"+rule, "\xff")
	spec := mockScreenSpec()
	f.Fuzz(func(t *testing.T, screen, prompt string) {
		got, ok := provider.ScreenAnswer(spec, screen, prompt)
		st, _ := provider.ScreenStatus(spec, screen)
		if !ok {
			if got != "" {
				t.Fatalf("no answer, yet %q", got)
			}
			return
		}
		if st != herdr.StatusIdle {
			t.Fatalf("answer %q from a screen whose status is %q", got, st)
		}
		if strings.TrimSpace(got) == "" || strings.HasPrefix(got, "\n") || strings.HasSuffix(got, "\n") || strings.Contains(got, "\n\n\n") {
			t.Fatalf("answer %q", got)
		}
		if len(got) > len(screen) {
			t.Fatalf("answer %q longer than the screen %q", got, screen)
		}
	})
}

// FuzzScreenStatus: any screen classifies to one of herdr's statuses, and a title only
// with blocked.
func FuzzScreenStatus(f *testing.F) {
	f.Add("[idle]")
	f.Add("[working] [idle]")
	f.Add("\x00\xff[IDLE]\t\n")
	spec := mockScreenSpec()
	spec.Screens.Limit = []*regexp.Regexp{regexp.MustCompile(`(?i)usage limit`)}
	f.Fuzz(func(t *testing.T, screen string) {
		st, title := provider.ScreenStatus(spec, screen)
		switch st {
		case herdr.StatusIdle, herdr.StatusWorking, herdr.StatusUnknown:
			if title != "" {
				t.Fatalf("%q with title %q", st, title)
			}
		case herdr.StatusBlocked:
			if title != "screen: limit" {
				t.Fatalf("blocked with title %q", title)
			}
		default:
			t.Fatalf("status %q", st)
		}
	})
}
