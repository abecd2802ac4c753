package service

import (
	"bytes"
	"context"
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

// SystemdUnitName is the name of the systemd user unit.
const SystemdUnitName = "orcr.service"

//go:embed orcr.service.tmpl
var systemdTemplate string

var systemdUnit = template.Must(template.New(SystemdUnitName).Funcs(template.FuncMap{
	"execPath": systemdExecPath,
	"env":      systemdEnv,
}).Parse(systemdTemplate))

// systemd is the Linux platform: a user unit (docs/loops.md §12.3).
var systemd = platform{
	unitPath: systemdPath,
	render:   func(v Values) ([]byte, error) { return execute(systemdUnit, v) },
	check:    systemdCheck,
	verify:   "systemctl --user status " + SystemdUnitName,
	// A user unit starts with the user's manager, at login; lingering starts that
	// manager at boot.
	linger: "loginctl enable-linger",
	load:   systemdLoad,
	unload: systemdUnload,
	forget: func(ctx context.Context, c commands) {
		// The file is gone; a reload makes the manager forget the unit as well.
		_ = c.run(ctx, "systemctl", "--user", "daemon-reload")
	},
	plan: func(int, string) []string {
		return []string{"systemctl --user daemon-reload", "systemctl --user enable --now " + SystemdUnitName}
	},
	registered: systemdRegistered,
}

// systemdRegistered says why the user unit at path will not start at login: systemd does
// not run this machine (no user manager will ever start), or the unit is not enabled
// (no link in default.target.wants: systemctl could not load or link it).
func systemdRegistered(m Manager, path string) string {
	run := m.SystemdRunDir
	if run == "" {
		run = "/run/systemd/system"
	}
	if fi, err := os.Stat(run); err != nil || !fi.IsDir() {
		return "systemd does not run this machine (no " + run + "), so no user unit starts at login"
	}
	link := filepath.Join(filepath.Dir(path), "default.target.wants", SystemdUnitName)
	if _, err := os.Stat(link); err != nil {
		return "the unit is not enabled (no " + link + "): systemd did not take it"
	}
	return ""
}

// systemdPath is <config dir>/systemd/user/orcr.service, the config dir being
// $XDG_CONFIG_HOME when it is an absolute path (the XDG rule: a relative one is
// ignored), else ~/.config.
func systemdPath(getenv func(string) string) (string, error) {
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home, err := userHome(getenv)
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "systemd", "user", SystemdUnitName), nil
}

// systemdLoad reloads the manager's view of the unit files and enables and starts the
// unit. Without a user bus `enable --now` fails, since nothing can start the unit, and
// whether it created the link that starts the unit at the next login before failing
// depends on the systemd version (252 does); a plain `enable` needs no bus, so it is run
// after a failure to make sure of the link, and its success is what atLogin reports.
func systemdLoad(ctx context.Context, c commands, _ string) (loaded, atLogin bool, err error) {
	_ = c.run(ctx, "systemctl", "--user", "daemon-reload") // without a bus, enable --now says why
	err = c.run(ctx, "systemctl", "--user", "enable", "--now", SystemdUnitName)
	if err == nil {
		return true, true, nil
	}
	return false, c.run(ctx, "systemctl", "--user", "enable", SystemdUnitName) == nil, err
}

// systemdUnload stops and disables the unit; when that fails (no user bus), a plain
// `disable`, which needs no bus, makes sure the unit's links are gone.
func systemdUnload(ctx context.Context, c commands) bool {
	if c.run(ctx, "systemctl", "--user", "disable", "--now", SystemdUnitName) == nil {
		return true
	}
	_ = c.run(ctx, "systemctl", "--user", "disable", SystemdUnitName)
	return false
}

// systemdCheck: systemd refuses to run an executable whose path holds a quote or a
// backslash, whatever the quoting.
func systemdCheck(v Values) error {
	if strings.ContainsAny(v.Orcr, `"'\`) {
		return valueError("the orcr binary", v.Orcr, "contains a quote or a backslash, which systemd does not accept in an executable path")
	}
	return nil
}

// systemdExecPath writes the executable of ExecStart: "%" doubled (specifiers), quoted
// when it holds white space. "$" is not expanded in the executable itself.
func systemdExecPath(p string) string {
	p = strings.ReplaceAll(p, "%", "%%")
	if strings.ContainsAny(p, " \t") {
		return `"` + p + `"`
	}
	return p
}

// systemdEnv writes one Environment= line for name=value: "%" doubled, and the
// assignment double-quoted, with "\" and `"` escaped, when it holds white space,
// quotes or backslashes. Environment= does not expand "$".
func systemdEnv(name, value string) string {
	a := strings.ReplaceAll(name+"="+value, "%", "%%")
	if strings.ContainsAny(a, " \t\"'\\") {
		a = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(a) + `"`
	}
	return "Environment=" + a
}

// execute renders t with v.
func execute(t *template.Template, v any) ([]byte, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
