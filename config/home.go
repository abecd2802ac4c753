package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// File and directory names inside the home (docs/config.md §2).
const (
	SocketName    = "orcr.sock"
	LockName      = "orcr.lock"
	DBName        = "orcr.db"
	ConfigName    = "config.json"
	LogsDirName   = "logs"
	ServerLogName = "server.log"
	DataDirName   = "data"
)

// Paths are the well-known locations derived from a home directory. Every path moves
// with the home; none of them is created by [NewPaths].
type Paths struct {
	Home      string // the home itself
	Socket    string // <home>/orcr.sock
	Lock      string // <home>/orcr.lock
	DB        string // <home>/orcr.db
	Config    string // <home>/config.json
	Logs      string // <home>/logs
	ServerLog string // <home>/logs/server.log
	Data      string // <home>/data
}

// NewPaths derives the [Paths] of home. It does not touch the file system.
func NewPaths(home string) Paths {
	logs := filepath.Join(home, LogsDirName)
	return Paths{
		Home:      home,
		Socket:    filepath.Join(home, SocketName),
		Lock:      filepath.Join(home, LockName),
		DB:        filepath.Join(home, DBName),
		Config:    filepath.Join(home, ConfigName),
		Logs:      logs,
		ServerLog: filepath.Join(logs, ServerLogName),
		Data:      filepath.Join(home, DataDirName),
	}
}

// ResolveHome returns the orcr home (docs/protocol.md §1.1): $ORCR_HOME when it is non-empty,
// otherwise $HOME/.orcr. The result is made absolute against the process working
// directory. getenv is usually [os.Getenv]; nil means os.Getenv. When neither variable
// is usable the error is environment_error with cause no_home_dir. ResolveHome never
// touches the file system beyond reading the working directory for relative values.
func ResolveHome(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv(EnvHome)
	if home == "" {
		user := getenv("HOME")
		if user == "" {
			return "", wire.Env(wire.CauseNoHomeDir, "cannot determine the user home directory: set ORCR_HOME or HOME")
		}
		home = filepath.Join(user, ".orcr")
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", wire.Env(wire.CauseNoHomeDir, fmt.Sprintf("cannot make home %s absolute: %v", home, err), "path", home).Wrap(err)
	}
	return abs, nil
}

// EnsureHome performs the "ensure" step of docs/protocol.md §1.2 on home and then
// creates logs/ and data/: [EnsureHomeDir], then [EnsureDataDirs]. The server runs the
// two apart, with its config's checks between them, so that a refused start creates
// neither directory.
func EnsureHome(home string) error {
	if err := EnsureHomeDir(home); err != nil {
		return err
	}
	return EnsureDataDirs(home)
}

// EnsureHomeDir is the "ensure" step of docs/protocol.md §1.2:
//
//  1. if home does not exist it is created recursively and chmod-ed to 0700
//     (failure → environment_error home_create_failed);
//  2. the safety check, which follows a symlinked home: home must be a directory owned
//     by the caller's real uid whose mode has no group/world write bit (mode&0o022 == 0);
//     any violation, or a failing stat, is environment_error unsafe_home.
//
// It never deletes or re-permissions anything that already exists.
func EnsureHomeDir(home string) error {
	if _, err := os.Stat(home); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(home, 0o700); err != nil {
			return wire.Env(wire.CauseHomeCreateFailed, fmt.Sprintf("cannot create home %s: %v", home, err), "path", home).Wrap(err)
		}
		if err := os.Chmod(home, 0o700); err != nil {
			return wire.Env(wire.CauseHomeCreateFailed, fmt.Sprintf("cannot set mode 0700 on home %s: %v", home, err), "path", home).Wrap(err)
		}
	}
	return checkHome(home)
}

// EnsureDataDirs creates logs/ and data/ under a home that passed [EnsureHomeDir],
// recursively with default permissions (umask applies); failure → home_create_failed.
// The server does it once its config passed and its remote listener is bound
// (docs/protocol.md §1.5 step 3).
func EnsureDataDirs(home string) error {
	for _, dir := range []string{LogsDirName, DataDirName} {
		p := filepath.Join(home, dir)
		if err := os.MkdirAll(p, 0o777); err != nil {
			return wire.Env(wire.CauseHomeCreateFailed, fmt.Sprintf("cannot create %s: %v", p, err), "path", p).Wrap(err)
		}
	}
	return nil
}

// checkHome is the safety check of docs/protocol.md §1.2 step 2.
func checkHome(home string) error {
	fi, err := os.Stat(home)
	if err != nil {
		return wire.Env(wire.CauseUnsafeHome, fmt.Sprintf("cannot inspect home %s: %v", home, err), "path", home).Wrap(err)
	}
	if !fi.IsDir() {
		return wire.Env(wire.CauseUnsafeHome, fmt.Sprintf("home %s is not a directory", home), "path", home)
	}
	if uid, ok := fileUID(fi); ok && uid != os.Getuid() {
		return wire.Env(wire.CauseUnsafeHome,
			fmt.Sprintf("home %s is owned by uid %d, not by the current user (uid %d)", home, uid, os.Getuid()), "path", home)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return wire.Env(wire.CauseUnsafeHome,
			fmt.Sprintf("home %s is group- or world-writable (mode %#o); tighten it with `chmod 700 %s`", home, perm, home), "path", home)
	}
	return nil
}

// MaxSocketPath is the longest socket path, in bytes, a Unix socket can be bound at: the
// kernel's sun_path holds the path and its terminating NUL (107 on Linux, 103 on macOS).
const MaxSocketPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// CheckSocketPath validates the server socket path before binding (docs/protocol.md §1.3),
// using lstat so a link is never followed:
//
//   - longer than [MaxSocketPath] → environment_error socket_path_too_long, details
//     {path, len, limit} (bind would fail with a bare "invalid argument");
//   - absent → (false, nil);
//   - a same-uid socket → (true, nil): a stale socket the caller, holding the instance
//     lock, may unlink;
//   - a symlink, a path owned by another uid, or anything that is not a socket →
//     environment_error unsafe_home;
//   - any other lstat failure → environment_error server_start_failed.
//
// CheckSocketPath never removes anything.
func CheckSocketPath(path string) (exists bool, err error) {
	if len(path) > MaxSocketPath {
		return false, wire.Env(wire.CauseSocketPathTooLong,
			fmt.Sprintf("socket path %s is %d bytes long, over the %d a Unix socket allows; choose a shorter ORCR_HOME", path, len(path), MaxSocketPath),
			"path", path, "len", len(path), "limit", MaxSocketPath)
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, wire.Env(wire.CauseServerStartFailed, fmt.Sprintf("cannot inspect socket path %s: %v", path, err), "path", path).Wrap(err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return true, wire.Env(wire.CauseUnsafeHome, fmt.Sprintf("socket path %s is a symlink; refusing to use it", path), "path", path)
	}
	if uid, ok := fileUID(fi); ok && uid != os.Getuid() {
		return true, wire.Env(wire.CauseUnsafeHome,
			fmt.Sprintf("socket path %s is owned by uid %d, not by the current user (uid %d)", path, uid, os.Getuid()), "path", path)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return true, wire.Env(wire.CauseUnsafeHome, fmt.Sprintf("%s exists and is not a socket; refusing to overwrite it", path), "path", path)
	}
	return true, nil
}

// CheckClientSocket is the client-side check before connecting (docs/protocol.md §1.3): a
// symlink at path is environment_error unsafe_home; anything else (including an absent
// path or a failing lstat) is left for the connect attempt to report.
func CheckClientSocket(path string) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return wire.Env(wire.CauseUnsafeHome, fmt.Sprintf("socket path %s is a symlink; refusing to connect", path), "path", path)
	}
	return nil
}

// fileUID returns the owner uid of fi when the platform exposes it.
func fileUID(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
