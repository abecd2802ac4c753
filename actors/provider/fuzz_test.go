package provider_test

import (
	"slices"
	"testing"

	"github.com/orcr-go/orcr/actors/provider"
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
