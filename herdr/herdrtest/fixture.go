package herdrtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Fixture is a set of sessions sharing one temporary config dir.
type Fixture struct {
	// ConfigDir is herdr's config dir C (XDGConfigHome/herdr).
	ConfigDir string
	// XDGConfigHome is the temporary directory that plays $XDG_CONFIG_HOME.
	XDGConfigHome string
	// Sessions maps session names to running sessions.
	Sessions map[string]*Session
}

// Start creates a short temporary config dir (os.MkdirTemp("", "h"), keeping socket
// paths under the Unix limit), starts the named sessions ("default" when none are
// given) and registers a cleanup that closes them and removes the directory.
// opts.ConfigDir is ignored.
func Start(tb testing.TB, opts Options, sessions ...string) *Fixture {
	tb.Helper()
	xdg, err := os.MkdirTemp("", "h")
	if err != nil {
		tb.Fatalf("herdrtest: %v", err)
	}
	f := &Fixture{XDGConfigHome: xdg, ConfigDir: filepath.Join(xdg, "herdr"), Sessions: map[string]*Session{}}
	tb.Cleanup(func() {
		for _, s := range f.Sessions {
			_ = s.Close()
		}
		_ = os.RemoveAll(xdg)
	})
	if len(sessions) == 0 {
		sessions = []string{"default"}
	}
	opts.ConfigDir = f.ConfigDir
	if opts.Logf == nil {
		opts.Logf = tb.Logf
	}
	for _, name := range sessions {
		s, err := NewSession(opts, name)
		if err != nil {
			tb.Fatalf("herdrtest: start session %q: %v", name, err)
		}
		f.Sessions[s.Name()] = s
	}
	return f
}

// Env returns the environment entries that make a herdr CLI (or the stand-in
// binary) resolve the fixture's config dir: XDG_CONFIG_HOME, with HERDR_SOCKET_PATH
// and HERDR_SESSION cleared so they do not override --session.
func (f *Fixture) Env() []string {
	return []string{"XDG_CONFIG_HOME=" + f.XDGConfigHome, "HERDR_SOCKET_PATH=", "HERDR_SESSION="}
}
