package config_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// shortTemp returns a short temporary directory (Unix socket paths must stay short),
// removed when the test ends.
func shortTemp(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "o")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// foreignUID is the owner used for foreign-ownership cases (needs root to chown).
const foreignUID = 12345

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("chown to a foreign uid needs root; foreign-owner case not testable as a normal user")
	}
}

func mustWrite(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustMode(t testing.TB, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestResolveHome(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"ORCR_HOME absolute", map[string]string{"ORCR_HOME": "/srv/orcr", "HOME": "/home/u"}, "/srv/orcr"},
		{"ORCR_HOME cleaned", map[string]string{"ORCR_HOME": "/srv//orcr/"}, "/srv/orcr"},
		{"ORCR_HOME relative", map[string]string{"ORCR_HOME": "rel/home"}, filepath.Join(cwd, "rel/home")},
		{"empty ORCR_HOME falls back", map[string]string{"ORCR_HOME": "", "HOME": "/home/u"}, "/home/u/.orcr"},
		{"HOME only", map[string]string{"HOME": "/home/u"}, "/home/u/.orcr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.ResolveHome(env(tt.env))
			if err != nil {
				t.Fatalf("ResolveHome(%v): %v", tt.env, err)
			}
			if got != tt.want {
				t.Errorf("ResolveHome(%v): got %q, want %q", tt.env, got, tt.want)
			}
		})
	}
	_, err = config.ResolveHome(noEnv)
	checkEnvErr(t, "ResolveHome(no vars)", err, "no_home_dir", "")
}

func TestNewPaths(t *testing.T) {
	got := config.NewPaths("/h")
	want := config.Paths{
		Home: "/h", Socket: "/h/orcr.sock", Lock: "/h/orcr.lock", DB: "/h/orcr.db",
		Config: "/h/config.json", Logs: "/h/logs", ServerLog: "/h/logs/server.log", Data: "/h/data",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewPaths(/h) mismatch (-want +got):\n%s", diff)
	}
}

func TestEnsureHomeCreates(t *testing.T) {
	home := filepath.Join(shortTemp(t), "a", "b", "home")
	if err := config.EnsureHome(home); err != nil {
		t.Fatalf("EnsureHome(new): %v", err)
	}
	if got := mustMode(t, home); got != 0o700 {
		t.Errorf("EnsureHome(new): home mode got %#o, want 0700", got)
	}
	for _, d := range []string{"logs", "data"} {
		fi, err := os.Stat(filepath.Join(home, d))
		if err != nil || !fi.IsDir() {
			t.Errorf("EnsureHome(new): %s: got (%v, %v), want a directory", d, fi, err)
		}
	}
	// Idempotent.
	if err := config.EnsureHome(home); err != nil {
		t.Errorf("EnsureHome(again): %v", err)
	}
}

func TestEnsureHomeKeepsExisting(t *testing.T) {
	home := shortTemp(t)
	if err := os.Chmod(home, 0o755); err != nil { // group/world readable is allowed
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(home, "orcr.db"), "keep")
	if err := config.EnsureHome(home); err != nil {
		t.Fatalf("EnsureHome(0755): %v", err)
	}
	if got := mustMode(t, home); got != 0o755 {
		t.Errorf("EnsureHome(0755): mode got %#o, want 0755 unchanged", got)
	}
	if b, err := os.ReadFile(filepath.Join(home, "orcr.db")); err != nil || string(b) != "keep" {
		t.Errorf("EnsureHome(0755): orcr.db got (%q, %v), want keep", b, err)
	}
}

func TestEnsureHomeFollowsSymlink(t *testing.T) {
	dir := shortTemp(t)
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := config.EnsureHome(link); err != nil {
		t.Fatalf("EnsureHome(symlink to safe dir): %v", err)
	}
	if _, err := os.Stat(filepath.Join(real, "logs")); err != nil {
		t.Errorf("EnsureHome(symlink): logs not created in the target: %v", err)
	}
}

func TestEnsureHomeUnsafe(t *testing.T) {
	tests := []struct {
		name string
		mode os.FileMode
	}{
		{"group writable", 0o770},
		{"world writable", 0o703},
		{"both writable", 0o777},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := shortTemp(t)
			mustWrite(t, filepath.Join(home, "orcr.db"), "keep")
			if err := os.Chmod(home, tt.mode); err != nil {
				t.Fatal(err)
			}
			err := config.EnsureHome(home)
			checkEnvErr(t, "EnsureHome("+tt.name+")", err, "unsafe_home", "")
			if err != nil && !strings.Contains(err.Error(), "chmod 700 "+home) {
				t.Errorf("EnsureHome(%s): got %q, want it to suggest %q", tt.name, err, "chmod 700 "+home)
			}
			if got := mustMode(t, home); got != tt.mode {
				t.Errorf("EnsureHome(%s): mode got %#o, want %#o unchanged", tt.name, got, tt.mode)
			}
			if b, err := os.ReadFile(filepath.Join(home, "orcr.db")); err != nil || string(b) != "keep" {
				t.Errorf("EnsureHome(%s): orcr.db got (%q, %v), want it kept", tt.name, b, err)
			}
			if _, err := os.Stat(filepath.Join(home, "logs")); !os.IsNotExist(err) {
				t.Errorf("EnsureHome(%s): logs/ got %v, want not created", tt.name, err)
			}
		})
	}
}

func TestEnsureHomeNotDir(t *testing.T) {
	home := filepath.Join(shortTemp(t), "home")
	mustWrite(t, home, "a file")
	err := config.EnsureHome(home)
	checkEnvErr(t, "EnsureHome(file)", err, "unsafe_home", "home "+home+" is not a directory")
	if b, err := os.ReadFile(home); err != nil || string(b) != "a file" {
		t.Errorf("EnsureHome(file): file got (%q, %v), want it kept", b, err)
	}
}

func TestEnsureHomeStatFailure(t *testing.T) {
	file := filepath.Join(shortTemp(t), "f")
	mustWrite(t, file, "x")
	err := config.EnsureHome(filepath.Join(file, "home")) // ENOTDIR, not "does not exist"
	checkEnvErr(t, "EnsureHome(under a file)", err, "unsafe_home", "")
}

func TestEnsureHomeForeignOwner(t *testing.T) {
	requireRoot(t)
	home := shortTemp(t)
	if err := os.Chown(home, foreignUID, foreignUID); err != nil {
		t.Fatal(err)
	}
	err := config.EnsureHome(home)
	checkEnvErr(t, "EnsureHome(foreign owner)", err, "unsafe_home", "")
	if _, err := os.Stat(filepath.Join(home, "logs")); !os.IsNotExist(err) {
		t.Errorf("EnsureHome(foreign owner): logs/ got %v, want not created", err)
	}
}

func TestEnsureHomeCreateFailed(t *testing.T) {
	dir := shortTemp(t)
	dangling := filepath.Join(dir, "home")
	if err := os.Symlink(filepath.Join(dir, "missing", "target"), dangling); err != nil {
		t.Fatal(err)
	}
	err := config.EnsureHome(dangling)
	checkEnvErr(t, "EnsureHome(dangling symlink)", err, "home_create_failed", "")
	if _, err := os.Lstat(dangling); err != nil {
		t.Errorf("EnsureHome(dangling symlink): link got %v, want it kept", err)
	}
}

func TestEnsureHomeSubdirFailed(t *testing.T) {
	home := shortTemp(t)
	mustWrite(t, filepath.Join(home, "logs"), "not a dir")
	err := config.EnsureHome(home)
	checkEnvErr(t, "EnsureHome(logs is a file)", err, "home_create_failed", "")
	if b, err := os.ReadFile(filepath.Join(home, "logs")); err != nil || string(b) != "not a dir" {
		t.Errorf("EnsureHome(logs is a file): got (%q, %v), want file kept", b, err)
	}
}

// listenUnix creates a socket file at path and returns it open (closing it would unlink
// the file, so the listener is closed only at cleanup).
func listenUnix(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
}

func TestCheckSocketPath(t *testing.T) {
	t.Run("absent", func(t *testing.T) {
		exists, err := config.CheckSocketPath(filepath.Join(shortTemp(t), "orcr.sock"))
		if exists || err != nil {
			t.Errorf("CheckSocketPath(absent): got (%v, %v), want (false, nil)", exists, err)
		}
	})
	t.Run("stale own socket", func(t *testing.T) {
		p := filepath.Join(shortTemp(t), "orcr.sock")
		listenUnix(t, p)
		exists, err := config.CheckSocketPath(p)
		if !exists || err != nil {
			t.Errorf("CheckSocketPath(socket): got (%v, %v), want (true, nil)", exists, err)
		}
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("CheckSocketPath(socket): socket removed: %v", err)
		}
	})
	t.Run("symlink to socket", func(t *testing.T) {
		dir := shortTemp(t)
		target := filepath.Join(dir, "real.sock")
		listenUnix(t, target)
		p := filepath.Join(dir, "orcr.sock")
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		_, err := config.CheckSocketPath(p)
		checkEnvErr(t, "CheckSocketPath(symlink)", err, "unsafe_home", "socket path "+p+" is a symlink; refusing to use it")
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("CheckSocketPath(symlink): link got (%v, %v), want it kept", fi, err)
		}
	})
	t.Run("dangling symlink", func(t *testing.T) {
		p := filepath.Join(shortTemp(t), "orcr.sock")
		if err := os.Symlink("/nonexistent/x.sock", p); err != nil {
			t.Fatal(err)
		}
		_, err := config.CheckSocketPath(p)
		checkEnvErr(t, "CheckSocketPath(dangling symlink)", err, "unsafe_home", "")
	})
	t.Run("regular file", func(t *testing.T) {
		p := filepath.Join(shortTemp(t), "orcr.sock")
		mustWrite(t, p, "data")
		exists, err := config.CheckSocketPath(p)
		checkEnvErr(t, "CheckSocketPath(file)", err, "unsafe_home", p+" exists and is not a socket; refusing to overwrite it")
		if !exists {
			t.Errorf("CheckSocketPath(file): got exists false, want true")
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != "data" {
			t.Errorf("CheckSocketPath(file): got (%q, %v), want file kept", b, err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		p := filepath.Join(shortTemp(t), "orcr.sock")
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := config.CheckSocketPath(p)
		checkEnvErr(t, "CheckSocketPath(dir)", err, "unsafe_home", "")
	})
	t.Run("foreign owner", func(t *testing.T) {
		requireRoot(t)
		p := filepath.Join(shortTemp(t), "orcr.sock")
		listenUnix(t, p)
		if err := os.Chown(p, foreignUID, foreignUID); err != nil {
			t.Fatal(err)
		}
		_, err := config.CheckSocketPath(p)
		checkEnvErr(t, "CheckSocketPath(foreign)", err, "unsafe_home", "")
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("CheckSocketPath(foreign): socket removed: %v", err)
		}
	})
	t.Run("stat failure", func(t *testing.T) {
		file := filepath.Join(shortTemp(t), "f")
		mustWrite(t, file, "x")
		_, err := config.CheckSocketPath(filepath.Join(file, "orcr.sock"))
		checkEnvErr(t, "CheckSocketPath(ENOTDIR)", err, "server_start_failed", "")
	})
	// The longest path that binds is accepted; one byte more is refused before bind
	// could fail with a bare "invalid argument".
	t.Run("too long", func(t *testing.T) {
		dir := shortTemp(t)
		p := dir + "/" + strings.Repeat("s", config.MaxSocketPath-len(dir)-1)
		listenUnix(t, p)
		if exists, err := config.CheckSocketPath(p); !exists || err != nil {
			t.Errorf("CheckSocketPath(%d bytes): got (%v, %v), want (true, nil)", len(p), exists, err)
		}
		_, err := config.CheckSocketPath(p + "s")
		checkEnvErr(t, "CheckSocketPath(too long)", err, "socket_path_too_long", "")
		if pe, _ := wire.As(err); pe != nil && (pe.Details["len"] != len(p)+1 || pe.Details["limit"] != config.MaxSocketPath) {
			t.Errorf("CheckSocketPath(too long): details %v, want len %d limit %d", pe.Details, len(p)+1, config.MaxSocketPath)
		}
	})
}

func TestCheckClientSocket(t *testing.T) {
	dir := shortTemp(t)
	if err := config.CheckClientSocket(filepath.Join(dir, "absent.sock")); err != nil {
		t.Errorf("CheckClientSocket(absent): got %v, want nil (left to connect)", err)
	}
	sock := filepath.Join(dir, "s.sock")
	listenUnix(t, sock)
	if err := config.CheckClientSocket(sock); err != nil {
		t.Errorf("CheckClientSocket(socket): got %v, want nil", err)
	}
	link := filepath.Join(dir, "l.sock")
	if err := os.Symlink(sock, link); err != nil {
		t.Fatal(err)
	}
	checkEnvErr(t, "CheckClientSocket(symlink)", config.CheckClientSocket(link), "unsafe_home", "")
}
