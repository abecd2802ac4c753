package actors

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Launch is the launch payload written to <data dir>/launch.json before the agent row
// exists (docs/config.md §2.1). The spawn pipeline reads argv, env, cwd and prompt from this
// file, never from the store.
type Launch struct {
	Version       int               `json:"version"`
	UUID          string            `json:"uuid"`
	Path          string            `json:"path"`
	Provider      string            `json:"provider"`
	Argv          []string          `json:"argv"`
	Prompt        *string           `json:"prompt"`
	Model         string            `json:"model"`
	Effort        string            `json:"effort"`
	Cwd           *string           `json:"cwd"`
	GCMode        string            `json:"gc_mode"`
	Timeout       *string           `json:"timeout"`
	LaunchToken   string            `json:"launch_token"`
	EffectivePath string            `json:"effective_path"`
	Scope         *string           `json:"scope"`
	Env           map[string]string `json:"env"`
	CreatedAt     int64             `json:"created_at"`
	// Approvals is true when the agent was started with the approvals row mounted
	// (remote.approvals on; docs/remote.md §7): its argv has no permission bypass.
	Approvals bool `json:"approvals,omitempty"`
}

// paneEnv is the environment orcr gives an agent's pane (docs/cli.md §7.1) beyond the
// provider's own: identity, data dir, home and launch token.
func (s *System) paneEnv(prov provider.Provider, uid, path, token string) map[string]string {
	env := prov.Env(s.serverEnv())
	env["ORCR_ID"], env["ORCR_PATH"] = uid, path
	env["ORCR_AGENT_DATA_DIR"], env["ORCR_HOME"] = AgentDataDir(s.cfg.Home, path, uid), s.cfg.Home
	env["ORCR_LAUNCH_TOKEN"] = token
	return env
}

// accountOf is the account key of provider's agents whose pane gets env, orcr's
// additions to the server's environment the pane inherits (docs/usage.md §7.3): the
// login's email, else the provider's config directory, else "".
func (s *System) accountOf(provider string, env map[string]string) string {
	return transcript.AccountKey(provider, func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return s.getenv(k)
	})
}

// optional is s as a launch.json optional string: nil when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// AgentDataDir is <home>/data/<path segments…>/<uuid> (docs/config.md §3.9).
func AgentDataDir(home, path, uuid string) string {
	parts := append([]string{home, "data"}, strings.Split(path, "/")...)
	return filepath.Join(append(parts, uuid)...)
}

// WriteLaunch creates dir and writes launch.json (pretty-printed).
func WriteLaunch(dir string, l *Launch) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return wire.Internal(wire.CauseDataDir, "cannot create "+dir+": "+err.Error()).Wrap(err)
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return wire.Internal(wire.CauseEncode, err.Error())
	}
	if err := os.WriteFile(filepath.Join(dir, "launch.json"), append(b, '\n'), 0o600); err != nil {
		return wire.Internal(wire.CauseDataDir, "cannot write launch.json: "+err.Error()).Wrap(err)
	}
	return nil
}

// ReadLaunch reads dir/launch.json: missing → server_error launch_missing, unparsable
// → launch_decode.
func ReadLaunch(dir string) (*Launch, error) {
	b, err := os.ReadFile(filepath.Join(dir, "launch.json"))
	if err != nil {
		return nil, wire.Internal(wire.CauseLaunchMissing, fmt.Sprintf("cannot read %s/launch.json: %v", dir, err)).Wrap(err)
	}
	var l Launch
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, wire.Internal(wire.CauseLaunchDecode, fmt.Sprintf("cannot decode %s/launch.json: %v", dir, err)).Wrap(err)
	}
	return &l, nil
}

// paneMark starts the herdr pane label of every pane an orcr home spawns
// (docs/lifecycle.md §13.5): orcr:<home id>:<path>.
const paneMark = "orcr:"

// HomeID is the identity of an orcr home among the homes that share one herdr: the first
// 12 hex digits of the SHA-256 of its absolute path (docs/lifecycle.md §13.5).
func HomeID(home string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(home)))
	return hex.EncodeToString(sum[:6])
}

// PaneLabel is the herdr pane label of the agent at path spawned by home: orcr:<home
// id>:<path>. The tab keeps the bare path as its label (what a person sees in herdr).
func PaneLabel(home, path string) string {
	return paneMark + HomeID(home) + ":" + path
}

// OrcrPane reports whether a herdr pane label is one an orcr home gave its agent's pane
// (any home's: [PaneLabel]).
func OrcrPane(label string) bool {
	_, ok := PanePath(label)
	return ok
}

// PanePath is the agent path in a pane label an orcr home gave ([PaneLabel]); ok is
// false for any other label.
func PanePath(label string) (path string, ok bool) {
	rest, ok := strings.CutPrefix(label, paneMark)
	if !ok {
		return "", false
	}
	id, path, ok := strings.Cut(rest, ":")
	if !ok || len(id) != 12 || path == "" || strings.Trim(id, "0123456789abcdef") != "" {
		return "", false
	}
	return path, true
}

// HomeWorkspace is the herdr workspace of a path: its first segment when it has two or
// more, else "default".
func HomeWorkspace(path string) string {
	if i := strings.IndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return "default"
}
