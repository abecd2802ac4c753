package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
)

// loadWithin runs config.Load(home) and fails if it has not returned within d (a read
// of /dev/zero or a FIFO never would).
func loadWithin(t *testing.T, home string, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, _, err := config.Load(home, noEnv)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("config.Load did not return within %v", d)
		return nil
	}
}

// config.json must be a regular file of at most 1 MiB (after following a symlink):
// anything else is config_invalid at once, never an endless read or a hang.
func TestLoadRefusesNonRegularAndHugeFiles(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
		msg   string // the message ends with this
	}{
		{"symlink to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a device)"},
		{"FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a named pipe)"},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a directory)"},
		{"larger than 1 MiB", func(t *testing.T, path string) {
			doc := "{}" + strings.Repeat(" ", config.MaxConfigBytes-1)
			if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "larger than 1 MiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, config.ConfigName)
			tc.setup(t, path)
			err := loadWithin(t, home, 2*time.Second)
			checkEnvErr(t, "Load("+tc.name+")", err, "config_invalid", "")
			if err != nil && !strings.HasSuffix(err.Error(), "cannot read "+path+": "+tc.msg) {
				t.Errorf("Load(%s): got %q, want it to end with %q", tc.name, err, "cannot read "+path+": "+tc.msg)
			}
		})
	}
}

// Files that are fine: exactly 1 MiB, and a symlink to a regular file.
func TestLoadAcceptsBoundaryFiles(t *testing.T) {
	t.Run("exactly 1 MiB", func(t *testing.T) {
		home := t.TempDir()
		doc := `{"herdr":{"session":"big"}}`
		doc += strings.Repeat(" ", config.MaxConfigBytes-len(doc))
		if err := os.WriteFile(filepath.Join(home, config.ConfigName), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := config.Load(home, noEnv)
		if err != nil || cfg.Herdr.Session != "big" {
			t.Errorf("Load(1 MiB): got %v, %v; want session big", cfg, err)
		}
	})
	t.Run("symlink to a regular file", func(t *testing.T) {
		home := t.TempDir()
		target := filepath.Join(t.TempDir(), "shared.json")
		if err := os.WriteFile(target, []byte(`{"herdr":{"session":"linked"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(home, config.ConfigName)); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := config.Load(home, noEnv)
		if err != nil || cfg.Herdr.Session != "linked" {
			t.Errorf("Load(symlink): got %v, %v; want session linked", cfg, err)
		}
	})
}

// Every timing has a floor below which the server would burn CPU (ticks) or defeat the
// key's purpose (an agent failed before its pane can exist); a value under it is
// config_invalid naming the key and the floor.
func TestTimingMinimums(t *testing.T) {
	cases := []struct {
		key, tooShort, floor string
	}{
		{"idle_after", "999ms", "1s"},
		{"kill_after", "999ms", "1s"},
		{"gc_tick", "1ms", "100ms"},
		{"gc_tick", "99ms", "100ms"},
		{"max_starting", "4s", "5s"},
		{"attach_lease_ttl", "999ms", "1s"},
		{"loop_tick", "99ms", "100ms"},
		{"run_term_grace", "99ms", "100ms"},
	}
	for _, tc := range cases {
		t.Run(tc.key+"="+tc.tooShort, func(t *testing.T) {
			src := `{"timings":{"` + tc.key + `":"` + tc.tooShort + `"}}`
			_, _, err := parse(t, src, nil)
			checkEnvErr(t, "Parse("+src+")", err, "config_invalid",
				"timings."+tc.key+" must be at least "+tc.floor+` (got "`+tc.tooShort+`")`)

			src = `{"timings":{"` + tc.key + `":"` + tc.floor + `"}}`
			if _, _, err := parse(t, src, nil); err != nil {
				t.Errorf("Parse(%s): the floor itself is refused: %v", src, err)
			}
		})
	}
}
