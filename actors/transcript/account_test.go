package transcript_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/actors/transcript"
)

// copyLogin puts the fixture login file name at dst (its directories made).
func copyLogin(t *testing.T, name, dst string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "account", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAccountKey(t *testing.T) {
	home := t.TempDir()
	claudeDir, codexHome := filepath.Join(home, "work-claude"), filepath.Join(home, "work-codex")
	copyLogin(t, "claude_subscription.json", filepath.Join(claudeDir, ".claude.json"))
	copyLogin(t, "claude_apikey.json", filepath.Join(home, ".claude.json"))
	copyLogin(t, "codex_chatgpt.json", filepath.Join(codexHome, "auth.json"))
	copyLogin(t, "codex_apikey.json", filepath.Join(home, ".codex", "auth.json"))
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name, provider string
		getenv         func(string) string
		want           string
	}{
		{"claude subscription under CLAUDE_CONFIG_DIR: its email", "claude", env("HOME", home, "CLAUDE_CONFIG_DIR", claudeDir), "ada@example.com"},
		{"claude API key in ~/.claude.json: the config dir", "claude", env("HOME", home), filepath.Join(home, ".claude")},
		{"codex ChatGPT login under CODEX_HOME: the id token's email", "codex", env("HOME", home, "CODEX_HOME", codexHome), "grace@example.com"},
		{"codex API key in ~/.codex: the config dir", "codex", env("HOME", home), filepath.Join(home, ".codex")},
		{"no login file: the config dir", "codex", env("CODEX_HOME", filepath.Join(home, "none")), filepath.Join(home, "none")},
		{"a relative config dir is made absolute", "claude", env("CLAUDE_CONFIG_DIR", "rel"), mustAbs(t, "rel")},
		{"no HOME and no variable", "claude", env(), ""},
		{"another provider", "mock", env("HOME", home), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := transcript.AccountKey(tt.provider, tt.getenv); got != tt.want {
				t.Fatalf("AccountKey = %q, want %q", got, tt.want)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestLoginEmail(t *testing.T) {
	tests := []struct{ name, provider, in, want string }{
		{"claude without oauthAccount", "claude", `{"userID":"x"}`, ""},
		{"claude email that is not one", "claude", `{"oauthAccount":{"emailAddress":"no at sign"}}`, ""},
		{"claude email with a newline", "claude", `{"oauthAccount":{"emailAddress":"a@b\nc"}}`, ""},
		{"codex id token not a JWT", "codex", `{"tokens":{"id_token":"abc"}}`, ""},
		{"codex id token payload not base64", "codex", `{"tokens":{"id_token":"a.!!!.c"}}`, ""},
		{"codex tokens null", "codex", `{"OPENAI_API_KEY":"k","tokens":null}`, ""},
		{"not JSON", "claude", `{`, ""},
		{"padded JWT payload", "codex", `{"tokens":{"id_token":"e30.eyJlbWFpbCI6ImFAYi5jIn0=.c2ln"}}`, "a@b.c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := transcript.LoginEmail(tt.provider, []byte(tt.in)); got != tt.want {
				t.Fatalf("LoginEmail = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzLoginEmail: no login file, however made, panics the reader or yields a key that
// is not an email (one @, no blank or control byte, bounded).
func FuzzLoginEmail(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "account"))
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join("testdata", "account", e.Name())); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"tokens":{"id_token":"e30.eyJlbWFpbCI6ImFAYi5jIn0.c2ln"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []string{"claude", "codex"} {
			e := transcript.LoginEmail(p, data)
			if e == "" {
				continue
			}
			if len(e) > 254 || strings.Count(e, "@") != 1 || strings.ContainsAny(e, " \t\r\n\x00") {
				t.Fatalf("%s: LoginEmail = %q", p, e)
			}
		}
	})
}
