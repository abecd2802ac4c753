package service

import (
	"context"
	_ "embed"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/orcr-go/orcr/config"
)

// LaunchdLabel is the label of the launchd agent, and the name of its plist.
const LaunchdLabel = "dev.orchestratr.orcr"

// Log files of the launchd agent inside the orcr home's logs directory: launchd
// captures the server's stdout and stderr there.
const (
	launchdOutLog = "service.out.log"
	launchdErrLog = "service.err.log"
)

//go:embed orcr.plist.tmpl
var launchdTemplate string

var launchdPlist = template.Must(template.New(LaunchdLabel).Funcs(template.FuncMap{
	"xml": xmlText,
}).Parse(launchdTemplate))

// launchd is the macOS platform: a per-user agent (docs/loops.md §12.2). It uses
// launchctl's bootstrap/bootout rather than the deprecated load/unload
// (docs/decisions.md D13).
var launchd = platform{
	unitPath: func(getenv func(string) string) (string, error) {
		home, err := userHome(getenv)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "LaunchAgents", LaunchdLabel+".plist"), nil
	},
	render: func(v Values) ([]byte, error) {
		logs := config.NewPaths(v.Home).Logs
		return execute(launchdPlist, struct {
			Values
			Label, OutLog, ErrLog string
		}{v, LaunchdLabel, filepath.Join(logs, launchdOutLog), filepath.Join(logs, launchdErrLog)})
	},
	check:  func(Values) error { return nil },
	verify: "launchctl list | grep " + LaunchdLabel,
	load:   launchdLoad,
	unload: func(ctx context.Context, c commands) bool {
		return c.run(ctx, "launchctl", "bootout", launchdTarget(c.uid)) == nil
	},
	plan: func(uid int, path string) []string {
		return []string{"launchctl enable " + launchdTarget(uid), "launchctl bootstrap " + launchdDomain(uid) + " " + path}
	},
	// launchd loads every agent of ~/Library/LaunchAgents at login: the file is enough.
	registered: func(Manager, string) string { return "" },
}

// launchdDomain is the GUI login session of uid, where per-user agents live.
func launchdDomain(uid int) string { return fmt.Sprintf("gui/%d", uid) }

// launchdTarget names orcr's agent in uid's domain.
func launchdTarget(uid int) string { return launchdDomain(uid) + "/" + LaunchdLabel }

// launchdLoad clears a disabled mark left by `launchctl disable` or `unload -w` (a
// disabled service cannot be bootstrapped), then bootstraps the plist into the user's
// GUI domain. bootstrap fails for an agent that is already loaded (a second enable),
// so a failure is checked with `launchctl print`. launchd loads every agent of
// ~/Library/LaunchAgents at login, so the file alone starts the server at the next
// login.
func launchdLoad(ctx context.Context, c commands, path string) (loaded, atLogin bool, err error) {
	_ = c.run(ctx, "launchctl", "enable", launchdTarget(c.uid))
	err = c.run(ctx, "launchctl", "bootstrap", launchdDomain(c.uid), path)
	if err == nil || c.run(ctx, "launchctl", "print", launchdTarget(c.uid)) == nil {
		return true, true, nil
	}
	return false, true, err
}

// xmlText escapes s as XML character data (&, <, >, quotes).
func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
