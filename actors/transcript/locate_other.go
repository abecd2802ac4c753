package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// locateOther is [Locate] for the formats of docs/providers.md §6.9: the adapter lists
// the candidates under the CLI's directory (AgentDir, else its default under Home), and
// the identity gate of §6.2 chooses among them. gemini chooses its own way
// ([geminiChoose]); opencode has no file to locate (its export is read through
// DataDirFile, [OpencodeExport]).
func locateOther(l Locator, a adapter, id string) (string, error) {
	if a.candidates == nil {
		return "", Unavailable(wire.CauseReadError, l.Format+" keeps no transcript file; orcr reads its export (docs/providers.md §6.9)")
	}
	dir := l.AgentDir
	if dir == "" {
		home := l.Home
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", Unavailable(wire.CauseReadError, "cannot find the home directory: "+err.Error()).Wrap(err)
			}
			home = h
		}
		dir = filepath.Join(home, filepath.FromSlash(a.defaultDir))
	}
	cands, err := a.candidates(l, dir, id)
	if err != nil {
		return "", err
	}
	if l.Format == FormatGemini {
		return geminiChoose(cands, l.CreatedAt, id)
	}
	return choose(cands, l.CreatedAt, "session "+id)
}

// globFiles lists the regular files matching pattern (filepath.Glob); a directory that
// cannot be read is read_error, what names the CLI in the message.
func globFiles(pattern, what string) ([]string, error) {
	// Glob ignores unreadable directories, so check the fixed part of the pattern.
	fixed := pattern
	if i := strings.IndexAny(pattern, "*?["); i >= 0 {
		fixed = filepath.Dir(pattern[:i])
	}
	if _, err := os.ReadDir(fixed); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return nil, Unavailable(wire.CauseReadError, "cannot list "+what+": "+err.Error()).Wrap(err)
	}
	ms, err := filepath.Glob(pattern)
	if err != nil {
		return nil, Unavailable(wire.CauseReadError, "bad pattern for "+what).Wrap(err)
	}
	var out []string
	for _, m := range ms {
		if isFile(m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// validID reports whether id can be part of a file name pattern: not empty and free of
// path separators and glob metacharacters.
func validID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\*?[]`+"\x00")
}
