package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Bootstrap timings of the owned session (docs/herdr.md §11, docs/config.md §1.8).
const (
	SessionPollInterval = 150 * time.Millisecond
	SessionStartTimeout = 10 * time.Second
	cliTimeout          = 15 * time.Second
)

// InstallHint is the install pointer in herdr_missing messages.
const InstallHint = "install herdr (https://github.com/herdrdev/herdr) and put it on PATH, or set herdr.bin / ORCR_HERDR_BIN"

// FindBinary resolves the herdr executable: configured (config herdr.bin) when not
// empty, else $ORCR_HERDR_BIN (read through getenv; nil means os.Getenv) when not
// empty, else "herdr" on $PATH. The chosen file must be an executable regular file.
// Failure is environment_error cause herdr_missing with an install pointer.
func FindBinary(configured string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	try := func(origin, p string) (string, error) {
		abs, err := filepath.Abs(p)
		if err == nil {
			err = checkExecutable(abs)
		}
		if err != nil {
			return "", wire.Env(wire.CauseHerdrMissing,
				fmt.Sprintf("herdr binary %s (from %s) is not usable: %v; %s", p, origin, err, InstallHint),
				"bin", p, "origin", origin).Wrap(err)
		}
		return abs, nil
	}
	if configured != "" {
		return try("herdr.bin", configured)
	}
	if env := getenv("ORCR_HERDR_BIN"); env != "" {
		return try("ORCR_HERDR_BIN", env)
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, "herdr")
		if checkExecutable(p) == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, nil
			}
		}
	}
	return "", wire.Env(wire.CauseHerdrMissing, "herdr was not found on PATH; "+InstallHint, "origin", "PATH")
}

// checkExecutable says why p cannot be run as herdr, or nil: it must be a regular file
// with execute permission that starts as a program the kernel runs (an ELF or Mach-O
// image, or a #! script). Execute bits alone are not enough: a text file with them set
// (/etc/hostname on some systems) passed, and every spawn failed later with ENOEXEC. A file
// orcr may execute but not read is taken on trust.
func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return errors.New("not executable")
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if !isProgram(head[:n]) {
		return errors.New("not a program (neither a binary nor a #! script)")
	}
	return nil
}

// programMagic are the first bytes of the executable images orcr runs on: ELF and
// Mach-O (both byte orders, and universal).
var programMagic = [][]byte{
	[]byte("\x7fELF"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
}

// isProgram reports whether a file starting with head is a program: a #! script or
// one of [programMagic].
func isProgram(head []byte) bool {
	if bytes.HasPrefix(head, []byte("#!")) {
		return true
	}
	for _, m := range programMagic {
		if bytes.Equal(head, m) {
			return true
		}
	}
	return false
}

// SessionInfo is one row of `herdr session list --json`.
type SessionInfo struct {
	Name       string `json:"name"`
	Default    bool   `json:"default"`
	Running    bool   `json:"running"`
	SocketPath string `json:"socket_path"`
	SessionDir string `json:"session_dir"`
}

// ParseSessionList parses the output of `herdr session list --json`: one JSON object
// {"sessions":[…]}. Rows without a name or socket path are an error; unknown fields
// are ignored.
func ParseSessionList(out []byte) ([]SessionInfo, error) {
	var doc struct {
		Sessions *[]SessionInfo `json:"sessions"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &doc); err != nil {
		return nil, fmt.Errorf("herdr session list: %w", err)
	}
	if doc.Sessions == nil {
		return nil, errors.New(`herdr session list: no "sessions" array`)
	}
	for i, s := range *doc.Sessions {
		if s.Name == "" || s.SocketPath == "" {
			return nil, fmt.Errorf("herdr session list: row %d lacks name or socket_path", i)
		}
	}
	return *doc.Sessions, nil
}

// A cli is a herdr binary with the environment its processes get ([Config.Env]; nil:
// orcr's own).
type cli struct {
	bin string
	env []string
}

// runCLI runs bin with args in orcr's environment and returns stdout; failures carry
// stderr.
func runCLI(ctx context.Context, bin string, args ...string) ([]byte, error) {
	return cli{bin: bin}.run(ctx, args...)
}

// run runs c's binary with args and returns stdout; failures carry stderr.
func (c cli) run(ctx context.Context, args ...string) ([]byte, error) {
	bin := c.bin
	ctx, cancel := context.WithTimeout(ctx, cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = c.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return out, wire.Env(wire.CauseHerdrError, fmt.Sprintf("%s %s: %s", bin, strings.Join(args, " "), msg),
			"herdr_code", "cli_failed").Wrap(err)
	}
	return out, nil
}

// ListSessions runs `herdr session list --json`.
func ListSessions(ctx context.Context, bin string) ([]SessionInfo, error) {
	return cli{bin: bin}.listSessions(ctx)
}

func (c cli) listSessions(ctx context.Context) ([]SessionInfo, error) {
	out, err := c.run(ctx, "session", "list", "--json")
	if err != nil {
		return nil, err
	}
	rows, err := ParseSessionList(out)
	if err != nil {
		return nil, wire.Env(wire.CauseHerdrError, err.Error(), "herdr_code", "bad_output").Wrap(err)
	}
	return rows, nil
}

// FindSession returns the row named name.
func FindSession(rows []SessionInfo, name string) (SessionInfo, bool) {
	for _, r := range rows {
		if r.Name == name {
			return r, true
		}
	}
	return SessionInfo{}, false
}

// EnsureSession makes sure herdr session name runs: when `session list` does not show
// it running, it starts `herdr --session name server` detached (own session, stdio to
// /dev/null) and polls the list every 150 ms for up to 10 s. The returned row is
// running. Failure is environment_error cause server_start_failed with last_error.
func EnsureSession(ctx context.Context, bin, name string) (SessionInfo, error) {
	return cli{bin: bin}.ensureSession(ctx, name)
}

func (c cli) ensureSession(ctx context.Context, name string) (SessionInfo, error) {
	rows, err := c.listSessions(ctx)
	if err != nil {
		return SessionInfo{}, err
	}
	if s, ok := FindSession(rows, name); ok && s.Running {
		return s, nil
	}
	if err := c.startDetached("--session", name, "server"); err != nil {
		return SessionInfo{}, wire.Env(wire.CauseServerStartFailed, "could not start herdr session "+name+": "+err.Error(),
			"last_error", err.Error(), "session", name).Wrap(err)
	}
	deadline := time.Now().Add(SessionStartTimeout)
	last := "not running yet"
	for {
		t := time.NewTimer(SessionPollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return SessionInfo{}, ctx.Err()
		case <-t.C:
		}
		rows, err := c.listSessions(ctx)
		if err == nil {
			if s, ok := FindSession(rows, name); ok && s.Running {
				return s, nil
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return SessionInfo{}, wire.Env(wire.CauseServerStartFailed,
				fmt.Sprintf("herdr session %s did not start within %s", name, SessionStartTimeout),
				"last_error", last, "session", name)
		}
	}
}

// startDetached starts c's binary in its own session with stdio on /dev/null and does
// not wait for it; the child is reaped in the background so it never lingers as a zombie.
func (c cli) startDetached(args ...string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	cmd := exec.Command(c.bin, args...)
	cmd.Env = c.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// IntegrationState is one line of `herdr integration status`.
type IntegrationState struct {
	Target    string `json:"target"`    // as printed (dashes), e.g. "claude", "antigravity-cli"
	State     string `json:"state"`     // "current", "outdated", "needs_repair" or "not_installed"
	Version   string `json:"version"`   // "v3", "legacy", or "" when not installed
	Latest    string `json:"latest"`    // for outdated: the version herdr ships
	Path      string `json:"path"`      // the hook/plugin path
	Installed bool   `json:"installed"` // current or outdated
}

var integrationLine = regexp.MustCompile(
	`^([A-Za-z0-9._-]+):\s+(?:(current)\s+\(([^)<\s]+)\)|(outdated)\s+\(([^)<\s]+)\s*<\s*([^)\s]+)\)|(not installed)|(needs repair)\s+\(([^)<\s]+)\))\s+\((.*)\)$`)

// ParseIntegrationStatus parses `herdr integration status` text: one line per target,
// `<target>: current (v<N>) (<path>)`, `<target>: outdated (v<N> < v<M>) (<path>)`,
// `<target>: needs repair (v<N>) (<path>)` (a current hook whose other files are
// missing or changed, herdr 0.8.2's grok and opencode: not installed for orcr) or
// `<target>: not installed (<path>)` (docs/herdr.md §5.4). Blank lines are
// skipped; any other line is an error naming it.
func ParseIntegrationStatus(out []byte) ([]IntegrationState, error) {
	var res []IntegrationState
	for i, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		m := integrationLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("herdr integration status: line %d not understood: %q", i+1, line)
		}
		st := IntegrationState{Target: m[1], Path: m[10]}
		switch {
		case m[2] != "":
			st.State, st.Version, st.Installed = "current", m[3], true
		case m[4] != "":
			st.State, st.Version, st.Latest, st.Installed = "outdated", m[5], m[6], true
		case m[8] != "":
			st.State, st.Version = "needs_repair", m[9]
		default:
			st.State = "not_installed"
		}
		res = append(res, st)
	}
	return res, nil
}

// IntegrationStatus runs and parses `herdr integration status`.
func IntegrationStatus(ctx context.Context, bin string) ([]IntegrationState, error) {
	return cli{bin: bin}.integrationStatus(ctx)
}

func (c cli) integrationStatus(ctx context.Context) ([]IntegrationState, error) {
	out, err := c.run(ctx, "integration", "status")
	if err != nil {
		return nil, err
	}
	st, err := ParseIntegrationStatus(out)
	if err != nil {
		return nil, wire.Env(wire.CauseHerdrError, err.Error(), "herdr_code", "bad_output").Wrap(err)
	}
	return st, nil
}

// LiveSchema returns `herdr api schema --json` (the binary's own schema document).
func LiveSchema(ctx context.Context, bin string) ([]byte, error) {
	return cli{bin: bin}.run(ctx, "api", "schema", "--json")
}

// CheckLive fetches the live schema and runs [CheckContract] on it.
func CheckLive(ctx context.Context, bin string) error { return cli{bin: bin}.checkLive(ctx) }

func (c cli) checkLive(ctx context.Context) error {
	schema, err := c.run(ctx, "api", "schema", "--json")
	if err != nil {
		return err
	}
	return CheckContract(schema)
}

// AttachCommand returns the argv that attaches a terminal to an agent's pane
// (docs/decisions.md D6): `herdr --session <s> agent attach <pane_id>` first and, because
// herdr protocol ≥ 17 accepts only agent names or current pane ids there, the working
// protocol-20 form `herdr --session <s> terminal attach <terminal_id>` as the fallback.
// Either is empty when its id is empty.
func AttachCommand(bin, session, paneID, terminalID string) (primary, fallback []string) {
	if paneID != "" {
		primary = []string{bin, "--session", session, "agent", "attach", paneID}
	}
	if terminalID != "" {
		fallback = []string{bin, "--session", session, "terminal", "attach", terminalID}
	}
	if primary == nil {
		primary, fallback = fallback, nil
	}
	return primary, fallback
}

// ConfigDir returns herdr's config dir: $XDG_CONFIG_HOME/herdr, else ~/.config/herdr.
func ConfigDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "herdr")
	}
	return filepath.Join(getenv("HOME"), ".config", "herdr")
}

// DirSessions lists sessions the way `herdr session list` does, from the filesystem
// under configDir (docs/herdr.md §1.2, §1.4): the default session first, then
// every valid-named directory under sessions/, sorted; running = the socket accepts a
// connection. It is the fallback when no binary is at hand, and a test seam.
func DirSessions(configDir string) ([]SessionInfo, error) {
	rows := []SessionInfo{sessionRow(configDir, "default", configDir)}
	entries, err := os.ReadDir(filepath.Join(configDir, "sessions"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && ValidSessionName(e.Name()) && e.Name() != "default" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		rows = append(rows, sessionRow(configDir, n, filepath.Join(configDir, "sessions", n)))
	}
	return rows, nil
}

func sessionRow(configDir, name, dir string) SessionInfo {
	sock := filepath.Join(dir, "herdr.sock")
	return SessionInfo{Name: name, Default: name == "default", Running: socketAnswers(sock), SocketPath: sock, SessionDir: dir}
}

var sessionName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidSessionName applies herdr's session-name rule: 1–64 bytes of [A-Za-z0-9._-],
// not "." or "..".
func ValidSessionName(s string) bool {
	return sessionName.MatchString(s) && s != "." && s != ".."
}
