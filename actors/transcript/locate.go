package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Session kinds of herdr's agent_session (herdr.AgentSession.Kind).
const (
	SessionKindID   = "id"
	SessionKindPath = "path"
)

// Locator is what the identity gate needs to know about one agent.
type Locator struct {
	// Home is the user's home directory ($HOME) under which claude keeps
	// .claude/projects and codex keeps .codex/sessions. Empty means os.UserHomeDir.
	Home string
	// ClaudeDir and CodexHome replace Home/.claude and Home/.codex when set: the
	// directories claude's CLAUDE_CONFIG_DIR and codex's CODEX_HOME name.
	ClaudeDir, CodexHome string
	// DataDir is the agent's orcr data dir; used only with DataDirFile.
	DataDir string
	// Format is a format of [Formats]: where to look for a session id's file.
	Format string
	// AgentDir replaces the default directory of the CLIs of docs/providers.md §6.9
	// (Home/.pi/agent, Home/.qwen, Home/.gemini) when set: the directory pi's
	// PI_CODING_AGENT_DIR names, or the one a provider's config moves qwen's or gemini's
	// to.
	AgentDir string
	// DataDirFile, when not empty, is the transcript's path relative to DataDir, used
	// regardless of the session (the mock provider).
	DataDirFile string
	// SessionKind and SessionValue are herdr's agent_session kind ("id" or "path") and
	// value as stored on the row. An empty value means no session was reported. Any
	// kind other than "path" is treated as an id.
	SessionKind  string
	SessionValue string
	// CreatedAt is the agent's created_at; it breaks ties between several candidates.
	CreatedAt time.Time
	// Cwd is the agent's recorded working directory (claude's project slug; the base
	// of a relative "path" session).
	Cwd string
}

// Locate is the identity gate (docs/providers.md §6.2): it selects exactly one transcript
// file for l or fails with a transcript_unavailable error ([Unavailable]).
//
//   - DataDirFile set (mock): DataDir/DataDirFile; no DataDir → no_session; missing →
//     not_found.
//   - No SessionValue → no_session.
//   - SessionKind "path": the value (relative values are taken relative to Cwd) must be
//     an existing regular file, else not_found.
//   - Otherwise SessionValue is a session id and the candidates depend on Format:
//     claude: <claude dir>/projects/<ClaudeProjectSlug(Cwd)>/<id>.jsonl (Cwd cleaned) if it exists,
//     else every <claude dir>/projects/*/<id>.jsonl; codex: every regular file under
//     <codex home>/sessions (symlinks not followed) whose name ends in -<id>.jsonl.
//     <claude dir> is ClaudeDir, else Home/.claude; <codex home> is CodexHome, else
//     Home/.codex.
//     An id holding a path separator or equal to "." or ".." matches nothing.
//     The formats of §6.9 (pi, qwen, gemini) have their own candidates
//     ([locateOther]); gemini needs no session value.
//
// The candidates are sorted and de-duplicated: none → not_found; one → it; several →
// those whose mtime (in ms) is at or after CreatedAt (in ms); if exactly one remains it
// is the answer, otherwise ambiguous with details.candidates = all candidates. A
// directory that exists but cannot be read is read_error. The returned path is the
// candidate as built from Home, DataDir or the session value (absolute when they are).
func Locate(l Locator) (string, error) {
	if l.DataDirFile != "" {
		if l.DataDir == "" {
			return "", Unavailable(wire.CauseNoSession, "agent has no data dir, so no transcript")
		}
		return single(filepath.Join(l.DataDir, l.DataDirFile))
	}
	if l.SessionValue == "" && l.Format != FormatGemini && l.Format != FormatPi {
		return "", Unavailable(wire.CauseNoSession, "no agent_session reported for the agent yet; no transcript to read")
	}
	if l.SessionKind == SessionKindPath {
		p := l.SessionValue
		if !filepath.IsAbs(p) {
			if l.Cwd == "" {
				return "", notFound(p)
			}
			p = filepath.Join(l.Cwd, p)
		}
		return single(filepath.Clean(p))
	}
	id := l.SessionValue
	if id == "." || id == ".." || strings.ContainsAny(id, `/\`+"\x00") {
		return "", Unavailable(wire.CauseNotFound, fmt.Sprintf("session id %q names no transcript file", id))
	}
	home := l.Home
	if home == "" && (l.Format == FormatClaude && l.ClaudeDir == "" || l.Format == FormatCodex && l.CodexHome == "") {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", Unavailable(wire.CauseReadError, "cannot find the home directory: "+err.Error()).Wrap(err)
		}
		home = h
	}
	var cands []string
	var err error
	switch l.Format {
	case FormatClaude:
		cands, err = claudeCandidates(orDir(l.ClaudeDir, home, ".claude"), l.Cwd, id)
	case FormatCodex:
		cands, err = codexCandidates(orDir(l.CodexHome, home, ".codex"), id)
	default:
		a, ok := adapters[l.Format]
		if !ok {
			return "", Unavailable(wire.CauseReadError, fmt.Sprintf("unknown transcript format %q", l.Format)).Wrap(ErrUnknownFormat)
		}
		return locateOther(l, a, id)
	}
	if err != nil {
		return "", err
	}
	return choose(cands, l.CreatedAt, "session "+id)
}

// orDir is dir, else home/name.
func orDir(dir, home, name string) string {
	if dir != "" {
		return dir
	}
	return filepath.Join(home, name)
}

// ClaudeProjectSlug is claude's project directory name for cwd: every character that is
// not an ASCII letter or digit becomes "-" (so "/srv/code/my.proj" is
// "-srv-code-my-proj"). A multi-byte character becomes one "-".
func ClaudeProjectSlug(cwd string) string {
	var b strings.Builder
	b.Grow(len(cwd))
	for _, r := range cwd {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// claudeCandidates lists claude's candidate files for session id (docs/providers.md §3.6).
func claudeCandidates(dir, cwd, id string) ([]string, error) {
	projects := filepath.Join(dir, "projects")
	name := id + ".jsonl"
	if cwd != "" {
		p := filepath.Join(projects, ClaudeProjectSlug(filepath.Clean(cwd)), name)
		if isFile(p) {
			return []string{p}, nil
		}
	}
	dirs, err := os.ReadDir(projects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, Unavailable(wire.CauseReadError, "cannot list claude projects: "+err.Error()).Wrap(err)
	}
	var out []string
	for _, d := range dirs {
		p := filepath.Join(projects, d.Name(), name)
		if isFile(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// codexCandidates lists codex's candidate files for session id (docs/providers.md §4.6).
// Subdirectories that cannot be read are skipped; an unreadable root is read_error.
func codexCandidates(dir, id string) ([]string, error) {
	root := filepath.Join(dir, "sessions")
	suffix := "-" + id + ".jsonl"
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), suffix) {
			out = append(out, p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, Unavailable(wire.CauseReadError, "cannot list codex sessions: "+err.Error()).Wrap(err)
	}
	return out, nil
}

// choose applies the selection rule of docs/providers.md §6.2 to cands.
func choose(cands []string, createdAt time.Time, what string) (string, error) {
	slices.Sort(cands)
	cands = slices.Compact(cands)
	switch len(cands) {
	case 0:
		return "", Unavailable(wire.CauseNotFound, "no transcript file for "+what+mayBeRotated)
	case 1:
		return cands[0], nil
	}
	var fresh []string
	for _, c := range cands {
		fi, err := os.Stat(c)
		if err == nil && fi.ModTime().UnixMilli() >= createdAt.UnixMilli() {
			fresh = append(fresh, c)
		}
	}
	if len(fresh) == 1 {
		return fresh[0], nil
	}
	return "", Unavailable(wire.CauseAmbiguous,
		fmt.Sprintf("%d transcript files match %s; refusing to guess", len(cands), what),
		"candidates", cands)
}

// single is the gate for a path known up front: it must be an existing regular file.
func single(p string) (string, error) {
	fi, err := os.Stat(p)
	switch {
	case err == nil && fi.Mode().IsRegular():
		return p, nil
	case err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return "", notFound(p)
	default:
		return "", Unavailable(wire.CauseReadError, "cannot stat transcript: "+err.Error()).Wrap(err)
	}
}

func notFound(p string) error {
	return Unavailable(wire.CauseNotFound, "transcript file "+p+" does not exist"+mayBeRotated)
}

// isFile reports whether p is an existing regular file (symlinks followed).
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
