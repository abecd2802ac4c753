// Package service registers the orcr server with the user's service manager, so that it
// starts at login and loops fire after a reboot (docs/loops.md §12, docs/cli.md §5.21):
// a systemd user unit on Linux, a launchd agent on macOS. It renders the unit from a
// template, writes or removes the file, and runs the service manager's commands through
// a [Runner], which tests replace with a recorder ([servicetest.Recorder]).
//
// The unit file is the registration: [Manager.Installed] reports it, and that is what
// server.status calls loops_firing. Loading the unit into a running service manager is
// best effort, because a machine without a user bus (CI, a container, an SSH session
// without a login manager) can still carry the file.
package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Values are what a unit carries (docs/loops.md §12.1).
type Values struct {
	// Orcr is the absolute path of the orcr binary the unit runs as
	// `<Orcr> server start --foreground`.
	Orcr string
	// Home is the resolved orcr home, written as ORCR_HOME.
	Home string
	// HerdrBin is written as ORCR_HERDR_BIN ([HerdrBin]); "" leaves the variable out,
	// so the server looks herdr up on its PATH.
	HerdrBin string
	// Path is written as PATH ([SearchPath]): the service manager's own PATH is short
	// (systemd's lacks ~/.local/bin, npm's and nvm's bin directories), and the server
	// starts the providers from it. "" leaves the variable out.
	Path string
}

// Unit is where one platform keeps the registration.
type Unit struct {
	// Path is the unit file.
	Path string
	// Verify is a shell command that shows the service manager's view of the unit.
	Verify string
	// Linger is the command that lets the unit start at boot instead of at login, ""
	// when the platform has none for a per-user unit.
	Linger string
}

// Manager registers the orcr server on one platform. The zero value serves the running
// platform with the process environment and runs the real commands. Fields must not
// change while a method runs.
type Manager struct {
	// GOOS chooses the service manager: "linux" (systemd) or "darwin" (launchd); ""
	// means runtime.GOOS.
	GOOS string
	// Getenv reads HOME and XDG_CONFIG_HOME, which locate the unit file; nil means
	// os.Getenv.
	Getenv func(string) string
	// Runner runs the service manager's commands; nil means [Exec].
	Runner Runner
	// UID is the user whose launchd domain (gui/<uid>) is addressed; nil means
	// os.Getuid.
	UID func() int
	// SystemdRunDir exists when systemd runs this machine (sd_booted(3)); "" means
	// /run/systemd/system. Without it no user unit ever starts.
	SystemdRunDir string
}

// Enabled is the outcome of [Manager.Enable].
type Enabled struct {
	Unit
	// Changed reports whether the file was written: false when it already held exactly
	// this unit, which is then left untouched.
	Changed bool
	// Loaded reports whether the service manager took the unit now.
	Loaded bool
	// AtLogin reports whether the service manager will start the unit at the next
	// login: true on macOS (every agent in ~/Library/LaunchAgents is), on Linux when
	// `systemctl --user enable` succeeded, which works even without a user bus.
	AtLogin bool
	// LoadErr is why the unit was not loaded, when it was not.
	LoadErr error
	// Registered reports what [Manager.Registered] reports after the load: the service
	// manager will start the server at login, so loops fire durably.
	Registered bool
	// NotRegistered says why Registered is false ("" when it is true).
	NotRegistered string
}

// Plan is what [Manager.Enable] would do for some values, done by [Manager.Plan]
// without touching anything (`server enable --dry-run`).
type Plan struct {
	Unit
	// Content is the unit file that would be written.
	Content []byte
	// Commands are the service manager's commands that would run, in order (the
	// fallbacks run after a failure are not listed).
	Commands []string
}

// Disabled is the outcome of [Manager.Disable].
type Disabled struct {
	Unit
	// Removed reports whether a unit file was there and was deleted.
	Removed bool
	// Unloaded reports whether the service manager's unload command succeeded.
	Unloaded bool
}

// platform is one service manager.
type platform struct {
	// unitPath locates the unit file in the environment getenv.
	unitPath func(getenv func(string) string) (string, error)
	// render is the unit's content.
	render func(Values) ([]byte, error)
	// check refuses values the unit format cannot carry.
	check          func(Values) error
	verify, linger string
	// load registers the unit written at path and reports [Enabled]'s Loaded, AtLogin
	// and LoadErr.
	load func(ctx context.Context, c commands, path string) (loaded, atLogin bool, err error)
	// unload reverses load before the file goes; forget runs after the file went.
	unload func(ctx context.Context, c commands) bool
	forget func(ctx context.Context, c commands)
	// plan lists the commands load runs first, for the unit at path and uid.
	plan func(uid int, path string) []string
	// registered says why the unit at path, which exists, will not start at login ("":
	// it will).
	registered func(m Manager, path string) string
}

var platforms = map[string]platform{"linux": systemd, "darwin": launchd}

func (m Manager) goos() string {
	if m.GOOS == "" {
		return runtime.GOOS
	}
	return m.GOOS
}

func (m Manager) getenv() func(string) string {
	if m.Getenv == nil {
		return os.Getenv
	}
	return m.Getenv
}

func (m Manager) commands() commands {
	c := commands{r: m.Runner, uid: os.Getuid()}
	if c.r == nil {
		c.r = Exec{}
	}
	if m.UID != nil {
		c.uid = m.UID()
	}
	return c
}

// platform returns the platform of m and its unit; an unsupported GOOS is
// environment_error unsupported_platform.
func (m Manager) platform() (platform, Unit, error) {
	p, ok := platforms[m.goos()]
	if !ok {
		return platform{}, Unit{}, wire.Env(wire.CauseUnsupportedPlatform,
			fmt.Sprintf("start at login is supported on Linux (systemd) and macOS (launchd), not on %s", m.goos()),
			"platform", m.goos())
	}
	path, err := p.unitPath(m.getenv())
	if err != nil {
		return platform{}, Unit{}, err
	}
	return p, Unit{Path: path, Verify: p.verify, Linger: p.linger}, nil
}

// Unit returns the unit file and verify command of m's platform without touching
// anything.
func (m Manager) Unit() (Unit, error) {
	_, u, err := m.platform()
	return u, err
}

// Installed reports whether the unit file exists: the registration that makes loops
// fire after a reboot (server.status loops_firing, docs/loops.md §12.4). It is false on
// an unsupported platform and when the file cannot be located.
func (m Manager) Installed() bool {
	_, u, err := m.platform()
	if err != nil {
		return false
	}
	_, err = os.Stat(u.Path)
	return err == nil
}

// Registered reports whether the service manager will start the server at login: the
// unit file exists and, on Linux, systemd runs this machine and the unit is enabled (its
// link in default.target.wants, which `systemctl --user enable` makes). That is what
// server.status calls loops_firing (docs/loops.md §12.4). False on an unsupported
// platform and when the unit cannot be located.
func (m Manager) Registered() bool {
	return m.notRegistered() == ""
}

// notRegistered says why [Manager.Registered] is false; "" when it is true.
func (m Manager) notRegistered() string {
	p, u, err := m.platform()
	if err != nil {
		return err.Error()
	}
	if _, err := os.Stat(u.Path); err != nil {
		return "no unit file at " + u.Path
	}
	return p.registered(m, u.Path)
}

// Plan returns the unit m's platform would write for v and the commands that would load
// it, touching nothing.
func (m Manager) Plan(v Values) (Plan, error) {
	p, u, err := m.platform()
	if err != nil {
		return Plan{}, err
	}
	content, err := m.Render(v)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Unit: u, Content: content, Commands: p.plan(m.commands().uid, u.Path)}, nil
}

// Render returns the unit m's platform would write for v.
func (m Manager) Render(v Values) ([]byte, error) {
	p, _, err := m.platform()
	if err != nil {
		return nil, err
	}
	if err := checkValues(v, p); err != nil {
		return nil, err
	}
	return p.render(v)
}

// Enable writes the unit for v (creating its directory; a file that already holds
// exactly this unit is left as it is) and asks the service manager to load it. A
// loader failure is not an error: it shows in [Enabled]. Errors are environment_error:
// unsupported_platform, no_home_dir, or server_start_failed for a file-system failure or
// a value the unit cannot carry.
func (m Manager) Enable(ctx context.Context, v Values) (Enabled, error) {
	p, u, err := m.platform()
	if err != nil {
		return Enabled{}, err
	}
	content, err := m.Render(v)
	if err != nil {
		return Enabled{}, err
	}
	changed, err := writeUnit(u.Path, content)
	if err != nil {
		return Enabled{}, err
	}
	loaded, atLogin, loadErr := p.load(ctx, m.commands(), u.Path)
	why := m.notRegistered()
	return Enabled{Unit: u, Changed: changed, Loaded: loaded, AtLogin: atLogin, LoadErr: loadErr,
		Registered: why == "", NotRegistered: why}, nil
}

// Disable asks the service manager to unload the unit (best effort: which also stops a
// server the service manager started), then deletes the unit file if there is one. The
// loader runs even when no file is there, so a job whose file was removed by hand is
// unloaded too. Errors are environment_error: unsupported_platform, no_home_dir, or
// server_start_failed when the file cannot be removed.
func (m Manager) Disable(ctx context.Context) (Disabled, error) {
	p, u, err := m.platform()
	if err != nil {
		return Disabled{}, err
	}
	c := m.commands()
	d := Disabled{Unit: u, Unloaded: p.unload(ctx, c)}
	switch err := os.Remove(u.Path); {
	case err == nil:
		d.Removed = true
	case !errors.Is(err, fs.ErrNotExist):
		return Disabled{}, fileError("remove", u.Path, err)
	}
	if d.Removed && d.Unloaded && p.forget != nil {
		p.forget(ctx, c)
	}
	return d, nil
}

// checkValues refuses values no unit can carry faithfully: empty ones (but HerdrBin),
// invalid UTF-8 and control characters; then the platform's own rules.
func checkValues(v Values, p platform) error {
	for _, f := range []struct{ name, value string }{
		{"the orcr binary", v.Orcr}, {config.EnvHome, v.Home}, {config.EnvHerdrBin, v.HerdrBin}, {"PATH", v.Path},
	} {
		if f.value == "" && f.name != config.EnvHerdrBin && f.name != "PATH" {
			return valueError(f.name, f.value, "is empty")
		}
		if !utf8.ValidString(f.value) {
			return valueError(f.name, f.value, "is not valid UTF-8")
		}
		for _, r := range f.value {
			if unicode.IsControl(r) {
				return valueError(f.name, f.value, "contains a control character")
			}
		}
	}
	if !filepath.IsAbs(v.Orcr) {
		return valueError("the orcr binary", v.Orcr, "is not an absolute path")
	}
	return p.check(v)
}

// valueError is the server_start_failed of a value a unit cannot carry.
func valueError(name, value, problem string) error {
	return wire.Env(wire.CauseServerStartFailed,
		fmt.Sprintf("cannot write the start-at-login unit: %s %q %s", name, value, problem),
		"value_of", name, "value", value)
}

// fileError is the server_start_failed of a file-system failure on the unit.
func fileError(verb, path string, err error) error {
	return wire.Env(wire.CauseServerStartFailed,
		fmt.Sprintf("cannot %s the start-at-login unit %s: %v", verb, path, err), "path", path).Wrap(err)
}

// writeUnit puts content at path, creating the directory, through a temporary file and
// a rename so that the service manager never reads half a unit. A file that already
// holds content is left alone (changed false).
func writeUnit(path string, content []byte) (changed bool, err error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
		return false, nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fileError("create the directory of", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return false, fileError("write", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing to remove
	_, err = tmp.Write(content)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return false, fileError("write", path, err)
	}
	return true, nil
}

// userHome is $HOME, which both unit locations derive from.
func userHome(getenv func(string) string) (string, error) {
	home := getenv("HOME")
	if home == "" {
		return "", wire.Env(wire.CauseNoHomeDir, "cannot locate the start-at-login unit: HOME is not set")
	}
	return home, nil
}

// SearchPath is the PATH a unit carries: the absolute directories of path (the caller's
// PATH), in order, each once. Relative entries ("", ".") are dropped: the server's
// working directory is not the caller's.
func SearchPath(path string) string {
	var dirs []string
	for _, d := range filepath.SplitList(path) {
		if filepath.IsAbs(d) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return strings.Join(dirs, string(filepath.ListSeparator))
}
