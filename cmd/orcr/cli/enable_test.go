package cli_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/config/service/servicetest"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// `server enable` / `server disable` on both platforms: what they print, the file, the
// recorded service-manager commands; enabling twice changes nothing, disabling twice
// says nothing was installed.
func TestServerEnableDisable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		goos, unit, verify string
		enable, disable    []string
		linger             bool
	}{
		{"linux", ".config/systemd/user/orcr.service", "systemctl --user status orcr.service",
			[]string{"systemctl --user daemon-reload", "systemctl --user enable --now orcr.service"},
			[]string{"systemctl --user disable --now orcr.service", "systemctl --user daemon-reload"}, true},
		{"darwin", "Library/LaunchAgents/dev.orchestratr.orcr.plist", "launchctl list | grep dev.orchestratr.orcr",
			[]string{"launchctl enable gui/<uid>/dev.orchestratr.orcr", "launchctl bootstrap gui/<uid> <unit>"},
			[]string{"launchctl bootout gui/<uid>/dev.orchestratr.orcr"}, false},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			h := newHarness(t)
			h.goos = tc.goos
			h.vars["ORCR_HERDR_BIN"] = "/opt/herdr/bin/herdr"
			h.systemdRuns(t)
			unit := filepath.Join(h.home, tc.unit)
			expand := func(cmds []string) []string {
				out := make([]string, len(cmds))
				for i, c := range cmds {
					out[i] = strings.NewReplacer("<uid>", itoa(os.Getuid()), "<unit>", unit).Replace(c)
				}
				return out
			}
			wantOut := "enabled: wrote " + unit + "\n  verify: " + tc.verify + "\n"
			var wantErr string
			if tc.linger {
				wantErr = "note: the unit starts when you log in; for loops to fire after a reboot before any login, run: loginctl enable-linger\n"
			}
			var first []byte
			for i := range 2 {
				got := h.run(t, "server", "enable")
				if got.code != 0 || got.stdout != wantOut || got.stderr != wantErr {
					t.Errorf("enable #%d: exit %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", i+1, got.code, got.stdout, wantOut, got.stderr, wantErr)
				}
				if diff := cmp.Diff(expand(tc.enable), h.services.Calls()); diff != "" {
					t.Errorf("enable #%d: commands (-want +got):\n%s", i+1, diff)
				}
				content, err := os.ReadFile(unit)
				if err != nil {
					t.Fatalf("enable #%d: %v", i+1, err)
				}
				for _, s := range []string{h.exe, h.home, "/opt/herdr/bin/herdr"} {
					if !strings.Contains(string(content), s) {
						t.Errorf("enable #%d: the unit lacks %q:\n%s", i+1, s, content)
					}
				}
				if i == 1 && string(content) != string(first) {
					t.Errorf("the second enable changed the unit:\n%s\nwas:\n%s", content, first)
				}
				first = content
			}
			env := decodeEnvelope(t, h.run(t, "--json", "server", "enable").stdout)
			h.services.Calls()
			wantJSON := map[string]any{"status": "enabled", "unit": unit, "verify": tc.verify, "loaded": true, "firing_durable": true}
			if diff := cmp.Diff(wantJSON, decodeObject(t, env.Result)); !env.OK || diff != "" {
				t.Errorf("enable --json (-want +got):\n%s", diff)
			}

			got := h.run(t, "server", "disable")
			if got.code != 0 || got.stdout != "disabled: removed "+unit+"\n" || got.stderr != "" {
				t.Errorf("disable: exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
			}
			if diff := cmp.Diff(expand(tc.disable), h.services.Calls()); diff != "" {
				t.Errorf("disable: commands (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(unit); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("disable left the unit: %v", err)
			}
			if entries := listTree(t, filepath.Dir(unit)); len(entries) > 1 || len(entries) == 1 && entries[0] != "default.target.wants/" {
				t.Errorf("disable left %v in %s", entries, filepath.Dir(unit))
			}

			// Nothing installed: the loader fails (as systemctl and launchctl do for an
			// unknown unit), nothing is removed, and the line says so.
			h.services.Fail = func([]string) error { return errors.New("no such unit") }
			got = h.run(t, "server", "disable")
			if got.code != 0 || got.stdout != "disabled: nothing was installed at "+unit+"\n" {
				t.Errorf("disable with nothing installed: exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
			}
			env = decodeEnvelope(t, h.run(t, "--json", "server", "disable").stdout)
			wantJSON = map[string]any{"status": "disabled", "unit": unit, "removed": false, "unloaded": false}
			if diff := cmp.Diff(wantJSON, decodeObject(t, env.Result)); !env.OK || diff != "" {
				t.Errorf("disable --json with nothing installed (-want +got):\n%s", diff)
			}
		})
	}
}

// A service manager that cannot be reached (no user bus in CI) is not an error: the
// unit is written, loaded is false, and a note says when it will start.
func TestServerEnableWithoutServiceManager(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.goos = "linux"
	h.systemdRuns(t)
	h.services.Fail = func(argv []string) error {
		if strings.Join(argv, " ") == "systemctl --user enable orcr.service" {
			return nil // the offline enable only links the unit
		}
		return errors.New("Failed to connect to bus: No medium found")
	}
	got := h.run(t, "server", "enable")
	if got.code != 0 || !strings.HasPrefix(got.stdout, "enabled: wrote ") ||
		!strings.HasPrefix(got.stderr, "note: not started now (Failed to connect to bus: No medium found); the service manager starts it at the next login\n") {
		t.Errorf("enable: exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	env := decodeEnvelope(t, h.run(t, "--json", "server", "enable").stdout)
	if res := decodeObject(t, env.Result); !env.OK || res["loaded"] != false {
		t.Errorf("enable --json: got %s, want loaded false", env.Result)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".config/systemd/user/orcr.service")); err != nil {
		t.Errorf("the unit was not written: %v", err)
	}
}

// Any platform but Linux and macOS: environment_error unsupported_platform, exit 2,
// before anything is written.
func TestServerEnableUnsupportedPlatform(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.goos = "windows"
	h.vars["ORCR_HOME"] = filepath.Join(h.home, "orcr")
	for _, verb := range []string{"enable", "disable"} {
		got := h.run(t, "--json", "server", verb)
		env := decodeEnvelope(t, got.stdout)
		if got.code != 2 || env.Error == nil || env.Error.Code != wire.EnvironmentError || env.Error.Cause() != "unsupported_platform" {
			t.Errorf("server %s on windows: exit %d %q, want environment_error unsupported_platform exit 2", verb, got.code, got.stdout)
		}
		got = h.run(t, "server", verb)
		if got.code != 2 || !strings.HasPrefix(got.stderr, "error: environment_error: start at login is supported on Linux (systemd) and macOS (launchd), not on windows") {
			t.Errorf("server %s on windows: exit %d stderr %q", verb, got.code, got.stderr)
		}
	}
	if entries, _ := os.ReadDir(h.home); len(entries) != 0 || len(h.services.Calls()) != 0 {
		t.Errorf("an unsupported platform wrote %v or ran commands", entries)
	}
}

// A unit that cannot be written or removed: environment_error server_start_failed.
func TestServerEnableFileErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.goos = "linux"
	if err := os.WriteFile(filepath.Join(h.home, "cfgfile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h.vars["XDG_CONFIG_HOME"] = filepath.Join(h.home, "cfgfile")
	got := h.run(t, "--json", "server", "enable")
	if env := decodeEnvelope(t, got.stdout); got.code != 2 || env.Error == nil || env.Error.Cause() != "server_start_failed" {
		t.Errorf("enable below a file: exit %d %q, want server_start_failed exit 2", got.code, got.stdout)
	}
	h.vars["XDG_CONFIG_HOME"] = filepath.Join(h.home, "cfg")
	if err := os.MkdirAll(filepath.Join(h.home, "cfg/systemd/user/orcr.service/x"), 0o755); err != nil {
		t.Fatal(err)
	}
	got = h.run(t, "--json", "server", "disable")
	if env := decodeEnvelope(t, got.stdout); got.code != 2 || env.Error == nil || env.Error.Cause() != "server_start_failed" {
		t.Errorf("disable of a directory: exit %d %q, want server_start_failed exit 2", got.code, got.stdout)
	}
}

// The unit's ORCR_HERDR_BIN: the caller's ORCR_HERDR_BIN, else config herdr.bin when it
// is executable, else herdr on PATH, else no variable at all.
func TestServerEnableHerdrBin(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(shortHome(t), "herdr")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		vars   map[string]string
		config string
		want   string
	}{
		{"ORCR_HERDR_BIN", map[string]string{"ORCR_HERDR_BIN": "/x/herdr", "PATH": filepath.Dir(bin)}, "", "Environment=ORCR_HERDR_BIN=/x/herdr\n"},
		{"config", nil, `{"herdr":{"bin":"` + bin + `"}}`, "Environment=ORCR_HERDR_BIN=" + bin + "\n"},
		{"PATH", map[string]string{"PATH": filepath.Dir(bin)}, "", "Environment=ORCR_HERDR_BIN=" + bin + "\n"},
		{"none", map[string]string{"PATH": "/nonexistent"}, "", ""},
	} {
		h := newHarness(t)
		h.goos = "linux"
		for k, v := range tc.vars {
			h.vars[k] = v
		}
		if tc.config != "" {
			if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if got := h.run(t, "server", "enable"); got.code != 0 {
			t.Fatalf("%s: enable: exit %d %s", tc.name, got.code, got.stderr)
		}
		content, _ := os.ReadFile(filepath.Join(h.home, ".config/systemd/user/orcr.service"))
		var line string
		for _, l := range strings.SplitAfter(string(content), "\n") {
			if strings.HasPrefix(l, "Environment=ORCR_HERDR_BIN=") {
				line = l
			}
		}
		if line != tc.want {
			t.Errorf("%s: got %q, want %q in:\n%s", tc.name, line, tc.want, content)
		}
	}
}

// server.status loops_firing follows the unit file: a real server, whose HOME is the
// CLI's, reports false, true after enable, false after disable.
func TestServerStatusLoopsFiringFollowsEnable(t *testing.T) {
	t.Parallel()
	user := shortHome(t)
	runDir := t.TempDir()
	srv := sockettest.NewServer(t, sockettest.WithEnv("HOME", user), sockettest.WithSystemdRunDir(runDir))
	h := newHarness(t)
	h.vars["ORCR_HOME"] = srv.Home
	h.vars["HOME"] = user
	h.runDir = runDir
	h.services.Effect = servicetest.SystemdLinks(filepath.Join(user, ".config", "systemd", "user"))
	firing := func(step string) bool {
		t.Helper()
		got := h.run(t, "--json", "server", "status")
		env := decodeEnvelope(t, got.stdout)
		v, ok := decodeObject(t, env.Result)["loops_firing"].(bool)
		if !env.OK || !ok {
			t.Fatalf("%s: server status: %q", step, got.stdout)
		}
		return v
	}
	if firing("before enable") {
		t.Errorf("loops_firing is true before enable")
	}
	if got := h.run(t, "server", "enable"); got.code != 0 {
		t.Fatalf("enable: exit %d %s", got.code, got.stderr)
	}
	if !firing("after enable") {
		t.Errorf("loops_firing is false after enable")
	}
	if got := h.run(t, "server", "status"); !strings.Contains(got.stdout, "  loops     firing_durable=true\n") {
		t.Errorf("human server status after enable:\n%s", got.stdout)
	}
	if got := h.run(t, "server", "disable"); got.code != 0 {
		t.Fatalf("disable: exit %d %s", got.code, got.stderr)
	}
	if firing("after disable") {
		t.Errorf("loops_firing is true after disable")
	}
}

func decodeObject(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, raw)
	}
	return m
}

func itoa(n int) string { return strconv.Itoa(n) }

// systemdRuns makes the harness's machine one systemd runs, whose systemctl links the
// unit under HOME when it enables it.
func (h *harness) systemdRuns(t *testing.T) {
	h.runDir = t.TempDir()
	h.services.Effect = servicetest.SystemdLinks(filepath.Join(h.home, ".config", "systemd", "user"))
}

// Issue 33 item 8: `server enable` says when the server will not start at login, so loops
// do not fire durably (it said firing_durable=true while systemd had not taken the unit):
// systemctl failing, or no systemd running the machine at all.
func TestServerEnableSaysWhenNotDurable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, why string
		setup     func(h *harness)
	}{
		{"systemctl fails", "the unit is not enabled", func(h *harness) {
			h.runDir = h.home
			h.services.Fail = func([]string) error { return errors.New("Failed to enable unit: Unit file orcr.service is not valid") }
		}},
		{"no systemd", "systemd does not run this machine", func(h *harness) {
			h.services.Effect = servicetest.SystemdLinks(filepath.Join(h.home, ".config", "systemd", "user"))
			h.services.Fail = func(argv []string) error {
				if strings.Join(argv, " ") == "systemctl --user enable orcr.service" {
					return nil
				}
				return errors.New("Failed to connect to bus: No medium found")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.goos = "linux"
			tc.setup(h)
			got := h.run(t, "server", "enable")
			if got.code != 0 || !strings.HasPrefix(got.stderr, "warning: the server will not start at login, so loops do not fire durably: "+tc.why) {
				t.Errorf("enable: exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
			}
			res := decodeObject(t, decodeEnvelope(t, h.run(t, "--json", "server", "enable").stdout).Result)
			if why, _ := res["not_registered"].(string); res["firing_durable"] != false || !strings.HasPrefix(why, tc.why) {
				t.Errorf("enable --json: %v, want firing_durable false saying %q", res, tc.why)
			}
		})
	}
}

// `server enable --dry-run` prints the unit and the commands, and writes, creates and
// runs nothing; the unit carries the caller's PATH (absolute directories), so a provider
// installed by npm is found by a server started at login.
func TestServerEnableDryRunAndPath(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.goos = "linux"
	h.vars["ORCR_HOME"] = filepath.Join(h.home, "orcr")
	h.vars["PATH"] = "/home/u/.npm-global/bin:.:/usr/bin"
	got := h.run(t, "server", "enable", "--dry-run")
	unit := filepath.Join(h.home, ".config/systemd/user/orcr.service")
	for _, want := range []string{"dry run: would write " + unit + ":\n", "ExecStart=/opt/orcr/bin/orcr server start --foreground\n",
		"Environment=PATH=/home/u/.npm-global/bin:/usr/bin\n",
		"then run:\n  systemctl --user daemon-reload\n  systemctl --user enable --now orcr.service\n"} {
		if got.code != 0 || !strings.Contains(got.stdout, want) {
			t.Errorf("enable --dry-run: exit %d, stdout lacks %q:\n%s%s", got.code, want, got.stdout, got.stderr)
		}
	}
	res := decodeObject(t, decodeEnvelope(t, h.run(t, "--json", "server", "enable", "--dry-run").stdout).Result)
	if content, _ := res["content"].(string); res["status"] != "dry_run" || res["unit"] != unit || !strings.Contains(content, "Environment=PATH=") {
		t.Errorf("enable --dry-run --json: %v", res)
	}
	if entries, _ := os.ReadDir(h.home); len(entries) != 0 || len(h.services.Calls()) != 0 {
		t.Errorf("--dry-run wrote %v or ran commands", entries)
	}
	if got := h.run(t, "server", "enable"); got.code != 0 {
		t.Fatalf("enable: exit %d %s", got.code, got.stderr)
	}
	if content, _ := os.ReadFile(unit); !strings.Contains(string(content), "Environment=PATH=/home/u/.npm-global/bin:/usr/bin\n") {
		t.Errorf("the unit does not carry PATH:\n%s", content)
	}
}
