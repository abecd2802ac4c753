package transcript

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The account key of an agent (docs/usage.md §7.3): the login its provider runs under,
// as the pane's environment names it. Quota windows are kept, judged and paused per
// account. Only the login's email is read; tokens and keys are never kept or logged.

// maxLoginBytes bounds the login file read for an account key.
const maxLoginBytes = 4 << 20

// maxEmailBytes bounds an email taken as an account key.
const maxEmailBytes = 254

// AccountDir is provider's config directory in the environment getenv reads (the
// pane's, which inherits the server's) and the login file in it: claude's
// CLAUDE_CONFIG_DIR (login CLAUDE_CONFIG_DIR/.claude.json), else ~/.claude (login
// ~/.claude.json); codex's CODEX_HOME, else ~/.codex (login auth.json in it). Both ""
// for another provider, or when neither the variable nor HOME is set.
func AccountDir(provider string, getenv func(string) string) (dir, login string) {
	home := getenv("HOME")
	switch provider {
	case "claude":
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return d, filepath.Join(d, ".claude.json")
		}
		if home != "" {
			return filepath.Join(home, ".claude"), filepath.Join(home, ".claude.json")
		}
	case "codex":
		if d := getenv("CODEX_HOME"); d != "" {
			return d, filepath.Join(d, "auth.json")
		}
		if home != "" {
			d := filepath.Join(home, ".codex")
			return d, filepath.Join(d, "auth.json")
		}
	}
	return "", ""
}

// AccountKey is the account key of provider's agents in the environment getenv reads:
// the email its login file names, else its config directory's absolute path, else ""
// (another provider, or no directory). A missing or unreadable login file is a login
// without an email.
func AccountKey(provider string, getenv func(string) string) string {
	dir, login := AccountDir(provider, getenv)
	if dir == "" {
		return ""
	}
	var data []byte
	if f, err := os.Open(login); err == nil {
		data, _ = io.ReadAll(io.LimitReader(f, maxLoginBytes))
		f.Close()
	}
	return Account(provider, dir, data)
}

// Account is the account key for provider's config directory dir and the content of
// its login file (nil: none): the email the login names, else dir made absolute, else
// "".
func Account(provider, dir string, login []byte) string {
	if e := LoginEmail(provider, login); e != "" {
		return e
	}
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// LoginEmail is the email of the login a provider's login file holds, "" when it names
// none (an API-key login, or not a login file): claude's .claude.json
// oauthAccount.emailAddress; codex's auth.json, whose ChatGPT login carries its email
// in the claims of tokens.id_token (a JWT; only its `email` claim is read, nothing of
// it kept but that).
func LoginEmail(provider string, data []byte) string {
	if len(data) == 0 {
		return ""
	}
	switch provider {
	case "claude":
		var c struct {
			OAuthAccount struct {
				EmailAddress string `json:"emailAddress"`
			} `json:"oauthAccount"`
		}
		if json.Unmarshal(data, &c) != nil {
			return ""
		}
		return cleanEmail(c.OAuthAccount.EmailAddress)
	case "codex":
		var a struct {
			Tokens struct {
				IDToken string `json:"id_token"`
			} `json:"tokens"`
		}
		if json.Unmarshal(data, &a) != nil {
			return ""
		}
		parts := strings.Split(a.Tokens.IDToken, ".")
		if len(parts) != 3 {
			return ""
		}
		payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
		if err != nil {
			return ""
		}
		var claims struct {
			Email string `json:"email"`
		}
		if json.Unmarshal(payload, &claims) != nil {
			return ""
		}
		return cleanEmail(claims.Email)
	}
	return ""
}

// cleanEmail is e when it looks like an email (one @, no space or control byte, at
// most maxEmailBytes), else "".
func cleanEmail(e string) string {
	if len(e) > maxEmailBytes || strings.Count(e, "@") != 1 || e[0] == '@' || e[len(e)-1] == '@' {
		return ""
	}
	for _, r := range e {
		if r <= ' ' || r == 0x7f || r == 0xfffd {
			return ""
		}
	}
	return e
}
