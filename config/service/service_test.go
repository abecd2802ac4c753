package service_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/config/service"
	"github.com/orcr-go/orcr/config/service/servicetest"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

const uid = 501

// manager is a Manager for goos whose HOME is a fresh directory, recording commands, on
// a machine systemd runs.
func manager(t *testing.T, goos string) (service.Manager, *servicetest.Recorder, string) {
	t.Helper()
	home := t.TempDir()
	rec := &servicetest.Recorder{}
	return service.Manager{GOOS: goos, Getenv: env("HOME", home), Runner: rec, UID: func() int { return uid }, SystemdRunDir: t.TempDir()},
		rec, home
}

// systemdLinks links and unlinks the unit under home as systemctl does.
func systemdLinks(home string) func(argv []string) {
	return servicetest.SystemdLinks(filepath.Join(home, ".config", "systemd", "user"))
}

func TestUnitPath(t *testing.T) {
	for _, tc := range []struct {
		goos string
		env  []string
		want string
	}{
		{"linux", []string{"HOME", "/home/ada"}, "/home/ada/.config/systemd/user/orcr.service"},
		{"linux", []string{"HOME", "/home/ada", "XDG_CONFIG_HOME", "/cfg"}, "/cfg/systemd/user/orcr.service"},
		{"linux", []string{"XDG_CONFIG_HOME", "/cfg"}, "/cfg/systemd/user/orcr.service"},
		// A relative XDG_CONFIG_HOME is ignored (XDG base directory rule).
		{"linux", []string{"HOME", "/home/ada", "XDG_CONFIG_HOME", "cfg"}, "/home/ada/.config/systemd/user/orcr.service"},
		{"darwin", []string{"HOME", "/Users/ada", "XDG_CONFIG_HOME", "/cfg"}, "/Users/ada/Library/LaunchAgents/dev.orchestratr.orcr.plist"},
	} {
		u, err := service.Manager{GOOS: tc.goos, Getenv: env(tc.env...)}.Unit()
		if err != nil || u.Path != tc.want {
			t.Errorf("Unit(%s, %v): got %q, %v; want %q", tc.goos, tc.env, u.Path, err, tc.want)
		}
	}
	for _, goos := range []string{"linux", "darwin"} {
		_, err := service.Manager{GOOS: goos, Getenv: env()}.Unit()
		if !wire.Is(err, wire.EnvironmentError, "no_home_dir") {
			t.Errorf("Unit(%s) without HOME: got %v, want environment_error no_home_dir", goos, err)
		}
	}
}

// Enabling twice gives the same file and the same result; the second run does not
// rewrite the file and runs the same (idempotent) loader commands.
func TestEnableTwice(t *testing.T) {
	for _, tc := range []struct {
		goos, path, verify, linger string
		commands                   []string
	}{
		{"linux", ".config/systemd/user/orcr.service", "systemctl --user status orcr.service", "loginctl enable-linger", []string{
			"systemctl --user daemon-reload",
			"systemctl --user enable --now orcr.service",
		}},
		{"darwin", "Library/LaunchAgents/dev.orchestratr.orcr.plist", "launchctl list | grep dev.orchestratr.orcr", "", []string{
			"launchctl enable gui/501/dev.orchestratr.orcr",
			"launchctl bootstrap gui/501 <unit>",
		}},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			m, rec, home := manager(t, tc.goos)
			rec.Effect = systemdLinks(home)
			path := filepath.Join(home, tc.path)
			want := service.Enabled{Unit: service.Unit{Path: path, Verify: tc.verify, Linger: tc.linger}, Changed: true, Loaded: true, AtLogin: true,
				Registered: true}
			wantCommands := slices.Clone(tc.commands)
			for i := range wantCommands {
				wantCommands[i] = strings.ReplaceAll(wantCommands[i], "<unit>", path)
			}
			rendered, _ := m.Render(plain)

			got, err := m.Enable(context.Background(), plain)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("first Enable (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantCommands, rec.Calls()); diff != "" {
				t.Errorf("first Enable: commands (-want +got):\n%s", diff)
			}
			first := readFile(t, path)
			if string(first) != string(rendered) {
				t.Errorf("the unit file is not the rendered unit:\n%s", first)
			}
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}

			got, err = m.Enable(context.Background(), plain)
			if err != nil {
				t.Fatal(err)
			}
			want.Changed = false
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("second Enable (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantCommands, rec.Calls()); diff != "" {
				t.Errorf("second Enable: commands (-want +got):\n%s", diff)
			}
			if fi, err := os.Stat(path); err != nil || !fi.ModTime().Equal(old) || string(readFile(t, path)) != string(first) {
				t.Errorf("second Enable touched the unit file: %v %v", fi.ModTime(), err)
			}
			wantEntries := []string{filepath.Base(path)}
			if tc.goos == "linux" {
				wantEntries = []string{"default.target.wants/" + service.SystemdUnitName, filepath.Base(path)}
			}
			if entries := dirNames(t, filepath.Dir(path)); !slices.Equal(entries, wantEntries) {
				t.Errorf("the unit directory holds %v, want only the unit (and its link)", entries)
			}

			// A changed value rewrites the file.
			got, err = m.Enable(context.Background(), service.Values{Orcr: "/opt/orcr", Home: plain.Home})
			if err != nil || !got.Changed || strings.Contains(string(readFile(t, path)), "herdr") {
				t.Errorf("Enable with other values: got %+v, %v; file:\n%s", got, err, readFile(t, path))
			}
		})
	}
}

// A launchd agent that is already loaded makes bootstrap fail; launchctl print tells
// it is loaded.
func TestEnableLaunchdAlreadyLoaded(t *testing.T) {
	m, rec, home := manager(t, "darwin")
	rec.Fail = failing("launchctl bootstrap")
	got, err := m.Enable(context.Background(), plain)
	if err != nil || !got.Loaded || got.LoadErr != nil {
		t.Errorf("Enable: got %+v, %v; want loaded", got, err)
	}
	want := []string{
		"launchctl enable gui/501/dev.orchestratr.orcr",
		"launchctl bootstrap gui/501 " + filepath.Join(home, "Library/LaunchAgents/dev.orchestratr.orcr.plist"),
		"launchctl print gui/501/dev.orchestratr.orcr",
	}
	if diff := cmp.Diff(want, rec.Calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}

	rec.Fail = failing("launchctl bootstrap", "launchctl print")
	got, err = m.Enable(context.Background(), plain)
	if err != nil || got.Loaded || !got.AtLogin || got.LoadErr == nil || !strings.Contains(got.LoadErr.Error(), "bootstrap") {
		t.Errorf("Enable with bootstrap failing: got %+v, %v; want not loaded, at login, the bootstrap error", got, err)
	}
}

// Without a user bus (CI) the unit is still written and linked for the next login; the
// loader's failure is reported, not returned.
func TestEnableSystemdWithoutBus(t *testing.T) {
	m, rec, home := manager(t, "linux")
	rec.Fail = failing("systemctl --user daemon-reload", "systemctl --user enable --now")
	got, err := m.Enable(context.Background(), plain)
	if err != nil {
		t.Fatal(err)
	}
	if got.Loaded || !got.AtLogin || got.LoadErr == nil || !strings.Contains(got.LoadErr.Error(), "enable --now") {
		t.Errorf("Enable: got %+v; want not loaded, at login, the enable --now error", got)
	}
	want := []string{
		"systemctl --user daemon-reload",
		"systemctl --user enable --now orcr.service",
		"systemctl --user enable orcr.service",
	}
	if diff := cmp.Diff(want, rec.Calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if !m.Installed() {
		t.Errorf("Installed() = false after Enable, want true: %s", home)
	}

	rec.Fail = failing("systemctl")
	if got, _ := m.Enable(context.Background(), plain); got.Loaded || got.AtLogin {
		t.Errorf("Enable with systemctl failing: got %+v, want neither loaded nor at login", got)
	}
}

// Disable unloads, then removes the file and leaves nothing behind; with nothing
// installed it removes nothing and says so.
func TestDisable(t *testing.T) {
	for _, tc := range []struct {
		goos              string
		installed, noBus  []string // commands of a disable after an enable, and without a bus
		nothingInstalled  []string // commands when no unit is there and the loader fails
		unloadCommandFail string
	}{
		{"linux",
			[]string{"systemctl --user disable --now orcr.service", "systemctl --user daemon-reload"},
			[]string{"systemctl --user disable --now orcr.service", "systemctl --user disable orcr.service"},
			[]string{"systemctl --user disable --now orcr.service", "systemctl --user disable orcr.service"},
			"systemctl --user disable"},
		{"darwin",
			[]string{"launchctl bootout gui/501/dev.orchestratr.orcr"},
			[]string{"launchctl bootout gui/501/dev.orchestratr.orcr"},
			[]string{"launchctl bootout gui/501/dev.orchestratr.orcr"},
			"launchctl bootout"},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			m, rec, _ := manager(t, tc.goos)
			u, _ := m.Unit()
			for _, step := range []struct {
				name              string
				enable            bool
				fail              func([]string) error
				removed, unloaded bool
				commands          []string
			}{
				{"installed", true, nil, true, true, tc.installed},
				{"installed, no bus", true, failing(tc.unloadCommandFail), true, false, tc.noBus},
				{"nothing installed", false, failing(tc.unloadCommandFail), false, false, tc.nothingInstalled},
			} {
				rec.Fail = nil
				if step.enable {
					if _, err := m.Enable(context.Background(), plain); err != nil {
						t.Fatal(err)
					}
				}
				rec.Calls()
				rec.Fail = step.fail
				got, err := m.Disable(context.Background())
				want := service.Disabled{Unit: u, Removed: step.removed, Unloaded: step.unloaded}
				if err != nil || got != want {
					t.Errorf("%s: Disable: got %+v, %v; want %+v", step.name, got, err, want)
				}
				if diff := cmp.Diff(step.commands, rec.Calls()); diff != "" {
					t.Errorf("%s: commands (-want +got):\n%s", step.name, diff)
				}
				if names := dirNames(t, filepath.Dir(u.Path)); len(names) != 0 {
					t.Errorf("%s: Disable left %v in %s", step.name, names, filepath.Dir(u.Path))
				}
				if m.Installed() {
					t.Errorf("%s: Installed() = true after Disable", step.name)
				}
			}
		})
	}
}

func TestUnsupportedPlatform(t *testing.T) {
	for _, goos := range []string{"windows", "freebsd", "plan9"} {
		m := service.Manager{GOOS: goos, Getenv: env("HOME", t.TempDir()), Runner: &servicetest.Recorder{}}
		_, errEnable := m.Enable(context.Background(), plain)
		_, errDisable := m.Disable(context.Background())
		_, errUnit := m.Unit()
		for _, err := range []error{errEnable, errDisable, errUnit} {
			if !wire.Is(err, wire.EnvironmentError, wire.CauseUnsupportedPlatform) {
				t.Errorf("%s: got %v, want environment_error unsupported_platform", goos, err)
			}
		}
		if pe, _ := wire.As(errEnable); pe == nil || pe.Code.Exit() != 2 || pe.Details["platform"] != goos {
			t.Errorf("%s: got %+v, want exit 2 and details.platform", goos, pe)
		}
		if m.Installed() {
			t.Errorf("%s: Installed() = true", goos)
		}
	}
}

// File-system failures are environment_error server_start_failed.
func TestFileErrors(t *testing.T) {
	m, _, home := manager(t, "linux")
	u, _ := m.Unit()
	// The unit's directory cannot be created below a file.
	if err := os.WriteFile(filepath.Join(home, ".config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable(context.Background(), plain); !wire.Is(err, wire.EnvironmentError, "server_start_failed") {
		t.Errorf("Enable below a file: got %v, want environment_error server_start_failed", err)
	}
	if err := os.Remove(filepath.Join(home, ".config")); err != nil {
		t.Fatal(err)
	}
	// A non-empty directory where the unit file belongs cannot be removed.
	if err := os.MkdirAll(filepath.Join(u.Path, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Disable(context.Background()); !wire.Is(err, wire.EnvironmentError, "server_start_failed") {
		t.Errorf("Disable of a directory: got %v, want environment_error server_start_failed", err)
	}
	if _, err := m.Enable(context.Background(), plain); !wire.Is(err, wire.EnvironmentError, "server_start_failed") {
		t.Errorf("Enable over a directory: got %v, want environment_error server_start_failed", err)
	}
}

// Values a unit cannot carry are refused before anything is written.
func TestValuesRefused(t *testing.T) {
	for _, tc := range []struct {
		goos string
		v    service.Values
		ok   bool
	}{
		{"linux", service.Values{Orcr: "bin/orcr", Home: "/h"}, false},
		{"linux", service.Values{Orcr: "/bin/orcr", Home: ""}, false},
		{"linux", service.Values{Orcr: "/bin/orcr", Home: "/h\nx"}, false},
		{"darwin", service.Values{Orcr: "/bin/orcr", Home: "/h", HerdrBin: "/h\x7f"}, false},
		{"darwin", service.Values{Orcr: "/bin/orcr", Home: "/h\xff"}, false},
		{"linux", service.Values{Orcr: `/opt/it's/orcr`, Home: "/h"}, false},
		{"linux", service.Values{Orcr: `/opt/a\b/orcr`, Home: "/h"}, false},
		{"darwin", service.Values{Orcr: `/opt/it's "x" \ /orcr`, Home: "/h"}, true},
	} {
		m, rec, home := manager(t, tc.goos)
		_, err := m.Enable(context.Background(), tc.v)
		if tc.ok {
			if err != nil {
				t.Errorf("Enable(%s, %+v): %v", tc.goos, tc.v, err)
			}
			continue
		}
		if !wire.Is(err, wire.EnvironmentError, "server_start_failed") {
			t.Errorf("Enable(%s, %+v): got %v, want environment_error server_start_failed", tc.goos, tc.v, err)
		}
		if calls := rec.Calls(); len(calls) != 0 || len(dirNames(t, home)) != 0 {
			t.Errorf("Enable(%s, %+v) refused but ran %v or wrote %v", tc.goos, tc.v, calls, dirNames(t, home))
		}
	}
}

func TestHerdrBin(t *testing.T) {
	dir := t.TempDir()
	exe := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	onPath := exe("path/herdr", 0o755)
	configured := exe("conf/herdr", 0o755)
	plainFile := exe("conf/notexec", 0o644)
	wd, _ := os.Getwd()
	for _, tc := range []struct {
		name       string
		env        []string
		configured string
		want       string
	}{
		{"ORCR_HERDR_BIN wins", []string{"ORCR_HERDR_BIN", "/x/herdr", "PATH", filepath.Dir(onPath)}, configured, "/x/herdr"},
		{"ORCR_HERDR_BIN made absolute", []string{"ORCR_HERDR_BIN", "bin/herdr"}, "", filepath.Join(wd, "bin/herdr")},
		{"config herdr.bin", []string{"PATH", filepath.Dir(onPath)}, configured, configured},
		{"unusable herdr.bin falls to PATH", []string{"PATH", "/nonexistent:" + filepath.Dir(onPath)}, plainFile, onPath},
		{"PATH", []string{"PATH", filepath.Dir(onPath)}, "", onPath},
		{"nothing found", []string{"PATH", "/nonexistent"}, "", ""},
	} {
		if got := service.HerdrBin(env(tc.env...), tc.configured); got != tc.want {
			t.Errorf("%s: HerdrBin: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestExec(t *testing.T) {
	if err := (service.Exec{}).Run(context.Background(), []string{"true"}); err != nil {
		t.Errorf("Exec true: %v", err)
	}
	err := (service.Exec{}).Run(context.Background(), []string{"sh", "-c", "echo no; echo bus >&2; exit 3"})
	var ce *service.CommandError
	if !errors.As(err, &ce) || ce.Output != "no bus" || !strings.Contains(err.Error(), "sh -c") || !strings.HasSuffix(err.Error(), ": exit status 3: no bus") {
		t.Errorf("Exec failing: got %v, want a CommandError with its output", err)
	}
}

// failing fails every command that starts with one of prefixes.
func failing(prefixes ...string) func([]string) error {
	return func(argv []string) error {
		cmd := strings.Join(argv, " ")
		for _, p := range prefixes {
			if strings.HasPrefix(cmd, p) {
				return errors.New(cmd + ": Failed to connect to bus")
			}
		}
		return nil
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dirNames lists dir, recursively, as slash paths relative to it (none when it is
// missing).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.IsDir() {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// Issue 33 item 8: loops fire durably only when the service manager will start the
// server at login. On Linux the unit file alone is not that: systemd must run the
// machine and the unit must be enabled (its link), which a systemctl that could not
// load the unit did not make. Enable reports it, and so does Registered (server.status's
// loops_firing).
func TestRegisteredNeedsSystemdToTakeTheUnit(t *testing.T) {
	m, rec, home := manager(t, "linux")
	rec.Fail = failing("systemctl")
	got, err := m.Enable(context.Background(), plain)
	if err != nil {
		t.Fatal(err)
	}
	if got.Registered || !strings.Contains(got.NotRegistered, "not enabled") || m.Registered() || !m.Installed() {
		t.Errorf("systemctl failing: got %+v, Registered() %v; want the file written but not registered", got, m.Registered())
	}

	rec.Fail, rec.Effect = nil, systemdLinks(home)
	if got, _ = m.Enable(context.Background(), plain); !got.Registered || !m.Registered() {
		t.Errorf("systemctl enabling it: got %+v, want registered", got)
	}

	m.SystemdRunDir = filepath.Join(home, "no-systemd")
	if got, _ = m.Enable(context.Background(), plain); got.Registered || !strings.Contains(got.NotRegistered, "systemd does not run") {
		t.Errorf("without systemd running the machine: got %+v, want not registered", got)
	}

	mac, _, _ := manager(t, "darwin")
	if mac.Registered() {
		t.Error("darwin: Registered() before Enable")
	}
	if got, _ := mac.Enable(context.Background(), plain); !got.Registered || !mac.Registered() {
		t.Errorf("darwin: the plist is the registration: got %+v", got)
	}
}

// Plan shows what Enable would write and run, and touches nothing.
func TestPlanTouchesNothing(t *testing.T) {
	m, rec, home := manager(t, "linux")
	p, err := m.Plan(plain)
	if err != nil {
		t.Fatal(err)
	}
	rendered, _ := m.Render(plain)
	want := []string{"systemctl --user daemon-reload", "systemctl --user enable --now orcr.service"}
	if string(p.Content) != string(rendered) || !slices.Equal(p.Commands, want) || p.Path != filepath.Join(home, ".config/systemd/user/orcr.service") {
		t.Errorf("Plan: got %+v", p)
	}
	if calls := rec.Calls(); len(calls) != 0 || len(dirNames(t, home)) != 0 {
		t.Errorf("Plan ran %v or wrote %v", calls, dirNames(t, home))
	}
}

// The unit's PATH is the caller's absolute directories, each once.
func TestSearchPath(t *testing.T) {
	if got := service.SearchPath("/usr/bin::.:/home/a/.npm-global/bin:/usr/bin:rel"); got != "/usr/bin:/home/a/.npm-global/bin" {
		t.Errorf("SearchPath: got %q", got)
	}
}
