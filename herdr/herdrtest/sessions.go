package herdrtest

import (
	"net"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// SessionRow is one row of `herdr session list --json` (docs/herdr.md §1.4).
type SessionRow struct {
	Default    bool   `json:"default"`
	Name       string `json:"name"`
	Running    bool   `json:"running"`
	SessionDir string `json:"session_dir"`
	SocketPath string `json:"socket_path"`
}

// SocketAnswers reports whether a socket file exists at path and a connect succeeds.
func SocketAnswers(path string) bool {
	if _, err := os.Lstat(path); err != nil {
		return false
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// SessionRowFor builds the list row of session name under config dir c.
func SessionRowFor(c, name string) SessionRow {
	if name == "" {
		name = "default"
	}
	sock := SocketPath(c, name)
	return SessionRow{Name: name, Default: name == "default", Running: SocketAnswers(sock),
		SocketPath: sock, SessionDir: SessionDir(c, name)}
}

// ListSessions reads the filesystem the way `herdr session list` does: the default
// session first, then every valid-named directory under c/sessions sorted by name.
func ListSessions(c string) []SessionRow {
	rows := []SessionRow{SessionRowFor(c, "default")}
	entries, _ := os.ReadDir(filepath.Join(c, "sessions"))
	var names []string
	for _, e := range entries {
		if e.IsDir() && ValidSessionName(e.Name()) && e.Name() != "default" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		rows = append(rows, SessionRowFor(c, n))
	}
	return rows
}
