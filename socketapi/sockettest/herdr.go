package sockettest

import (
	"go.uber.org/goleak"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binaries are the helper programs a full-stack test needs, built once per test process.
type Binaries struct {
	Dir       string
	Orcr      string
	HerdrBin  string // cmd/herdr-standin, or the real herdr of $ORCR_TEST_HERDR_BIN ([LiveHerdr])
	MockAgent string // cmd/orcr-mock-agent
}

var (
	binsOnce sync.Once
	bins     Binaries
	binsErr  error
)

// moduleRoot finds the repository root from this source file's location.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// BuildBinaries builds orcr, the herdr stand-in and the mock agent into a temporary
// directory (once per process; removed when the process exits through TestMain's
// cleanup is not needed: the directory is under the OS temp dir and small).
func BuildBinaries(tb testing.TB) Binaries {
	tb.Helper()
	b, err := buildBinaries()
	if err != nil {
		tb.Fatalf("building test binaries: %v", err)
	}
	return b
}

func buildBinaries() (Binaries, error) {
	binsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ob")
		if err != nil {
			binsErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", dir+"/", "./cmd/orcr", "./cmd/herdr-standin", "./cmd/orcr-mock-agent")
		cmd.Dir = moduleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			binsErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		bins = Binaries{Dir: dir, Orcr: filepath.Join(dir, "orcr"),
			HerdrBin: filepath.Join(dir, "herdr-standin"), MockAgent: filepath.Join(dir, "orcr-mock-agent")}
		if live := LiveHerdr(); live != "" {
			bins.HerdrBin = live
		}
	})
	return bins, binsErr
}

// EnvLiveHerdr names a real herdr binary the full-stack tests run against instead of
// the stand-in (docs/herdr.md §12.1, `just herdr-live`).
const EnvLiveHerdr = "ORCR_TEST_HERDR_BIN"

// LiveHerdr is the real herdr binary of $ORCR_TEST_HERDR_BIN, "" when the tests use
// the stand-in.
func LiveHerdr() string { return os.Getenv(EnvLiveHerdr) }

// RequireLiveHerdr skips tb, saying why, unless $ORCR_TEST_HERDR_BIN names a herdr, and
// returns that binary.
func RequireLiveHerdr(tb testing.TB) string {
	tb.Helper()
	bin := LiveHerdr()
	if bin == "" {
		tb.Skip("no real herdr: set " + EnvLiveHerdr + " to a herdr binary (just herdr-live); CI runs the stand-in")
	}
	return bin
}

// StandinOnly skips tb when the tests run against a real herdr: it relies on what
// only the stand-in can do (a test hook, a fault injection, a protocol it plays), named
// by why.
func StandinOnly(tb testing.TB, why string) {
	tb.Helper()
	if LiveHerdr() != "" {
		tb.Skip("needs the herdr stand-in (" + why + "); " + EnvLiveHerdr + " names a real herdr")
	}
}

// HerdrProfile is a herdr the stand-in can play (docs/herdr.md §12).
type HerdrProfile struct {
	Name     string // the subtest name [EachHerdr] gives it
	Protocol int    // HERDR_STANDIN_PROTOCOL
}

// The herdrs the completion suite runs against: protocol 20 without completion_seq,
// and herdr 0.9.x — protocol 22 with completion_seq, whose schema fixture is orcr's
// own construction (herdr/herdrschema).
var (
	Herdr20 = HerdrProfile{Name: "herdr20", Protocol: 20}
	Herdr22 = HerdrProfile{Name: "herdr22", Protocol: 22}
)

// profiles holds the herdr profile [UseHerdr] chose for a test (testing.TB →
// HerdrProfile), until the test's cleanup.
var profiles sync.Map

// UseHerdr makes every herdr stand-in of the servers that tb starts after it (with
// [WithHerdr] or [HerdrEnv] on tb itself, not on its subtests) play p: it sets
// HERDR_STANDIN_PROTOCOL in the server's environment, which orcr hands to every herdr
// process it starts (herdr.Config.Env), so such tests may run in parallel. Without it
// the stand-in plays what the test process's environment says, protocol 20 by default:
// with `HERDR_STANDIN_PROTOCOL=22 go test ./socketapi/server` every test that does not
// choose plays herdr 0.9.x.
func UseHerdr(tb testing.TB, p HerdrProfile) {
	tb.Helper()
	StandinOnly(tb, "it plays herdr protocol "+strconv.Itoa(p.Protocol))
	profiles.Store(tb, p)
	tb.Cleanup(func() { profiles.Delete(tb) })
}

// EachHerdr runs body as one subtest per herdr profile ([Herdr20], [Herdr22]), each
// with [UseHerdr] and in parallel with the other; against a real herdr ([LiveHerdr])
// once, as subtest "live".
func EachHerdr(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	if LiveHerdr() != "" {
		t.Run("live", body)
		return
	}
	for _, p := range []HerdrProfile{Herdr20, Herdr22} {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			UseHerdr(t, p)
			body(t)
		})
	}
}

// WithHerdr gives the server the herdr stand-in binary and the mock provider: the
// environment of [HerdrEnv].
func WithHerdr(tb testing.TB) Option {
	return withEnvMap(HerdrEnv(tb))
}

func withEnvMap(env map[string]string) Option {
	return func(c *config) {
		for k, v := range env {
			c.env[k] = v
		}
	}
}

// HerdrEnv returns the environment a server needs to run agents on the herdr stand-in
// binary with the mock provider: a herdr config dir private to the test
// (XDG_CONFIG_HOME), the herdr profile of [UseHerdr], PATH and HOME. The server hands
// its environment to every herdr process it starts, and through herdr to the panes, so
// nothing is set in the test process's environment and such tests may run in parallel.
// At cleanup the owned herdr session is stopped, which ends every pane process.
func HerdrEnv(tb testing.TB) map[string]string {
	tb.Helper()
	env, stop, err := herdrEnv()
	if err != nil {
		tb.Fatal(err)
	}
	if v, ok := profiles.Load(tb); ok {
		env["HERDR_STANDIN_PROTOCOL"] = strconv.Itoa(v.(HerdrProfile).Protocol)
		delete(env, "HERDR_STANDIN_COMPLETION_SEQ")
	}
	tb.Cleanup(stop)
	return env
}

// herdrEnv is [HerdrEnv] without a testing.TB: the caller calls stop when done.
func herdrEnv() (env map[string]string, stop func(), err error) {
	b, err := buildBinaries()
	if err != nil {
		return nil, nil, err
	}
	xdg, err := os.MkdirTemp("", "x")
	if err != nil {
		return nil, nil, err
	}
	stop = func() {
		cmd := exec.Command(b.HerdrBin, "session", "stop", "orcr")
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+xdg)
		cmd.Run()
		// The stand-in's session server exits once stopped; give its socket a moment
		// to disappear before the directory goes.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(xdg, "herdr", "sessions", "orcr", "herdr.sock")); err != nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		// The session server and its panes carry XDG_CONFIG_HOME: they get 10 s to exit.
		EndProcsWithEnv("XDG_CONFIG_HOME="+xdg, 10*time.Second)
		os.RemoveAll(xdg)
	}
	env = map[string]string{
		"ORCR_HERDR_BIN":           b.HerdrBin,
		"ORCR_ALLOW_MOCK_PROVIDER": "1",
		"ORCR_MOCK_AGENT_BIN":      b.MockAgent,
		"ORCR_RUN_SHIM":            b.Orcr, // loop runs start through the real binary, not the test's
		"PATH":                     os.Getenv("PATH"),
		"HOME":                     os.Getenv("HOME"),
		"XDG_CONFIG_HOME":          xdg,
	}
	// The stand-in's knobs of the test process's environment (HERDR_STANDIN_PROTOCOL=22
	// go test …) reach it through the server's environment.
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HERDR_STANDIN_") {
			env[k] = v
		}
	}
	return env, stop, nil
}

// HerdrSocket is the socket of the owned herdr session ("orcr") of a server started
// with [WithHerdr]: under the XDG_CONFIG_HOME of its environment.
func (s *Server) HerdrSocket() string {
	return filepath.Join(s.Env["XDG_CONFIG_HOME"], "herdr", "sessions", "orcr", "herdr.sock")
}

// VerifyTestMain runs a package's tests as goleak.VerifyTestMain does, then removes
// the binaries [BuildBinaries] built for them: they live in the temp dir, 50–100 MB for
// each run of each package, and nothing else removes them.
func VerifyTestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		RemoveBinaries()
		os.Exit(code)
	}))
}

// RemoveBinaries removes the binaries [BuildBinaries] built, if it built any: for a
// TestMain of its own, after the tests ran.
func RemoveBinaries() {
	if bins.Dir != "" {
		os.RemoveAll(bins.Dir)
	}
}
