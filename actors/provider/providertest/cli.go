// Package providertest finds the real provider CLIs (claude, codex and the contract
// built-ins of docs/providers.md §12) for the provider fidelity
// tests and holds the pure checks they apply: the flags of a --help text compared with
// the flags orcr puts in an argv, and the codex app-server's JSON schema applied to the
// messages orcr writes (docs/providers.md §10).
package providertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// EnvBinDir names the directories holding the CLIs (npm prefixes' node_modules/.bin, as
// .ci/run installs them), a list like PATH's. The CLIs are looked up there first, then
// on PATH.
const EnvBinDir = "ORCR_TEST_PROVIDER_BIN_DIR"

// versionTimeout bounds `<cli> --version` and every --help run.
const versionTimeout = 30 * time.Second

// CLI is one installed provider CLI.
type CLI struct {
	Name    string // "claude", "codex", "pi", …
	Path    string // absolute path of the executable
	Version string // first line of `<cli> --version`
}

// String is "claude 2.1.328 (Claude Code) at /path": what a drift message names.
func (c CLI) String() string { return c.Name + " " + c.Version + " at " + c.Path }

// Find looks name up in $ORCR_TEST_PROVIDER_BIN_DIR, then on PATH, and asks it for its
// version.
func Find(name string) (CLI, error) {
	path := ""
	for _, dir := range filepath.SplitList(os.Getenv(EnvBinDir)) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); dir != "" && err == nil && !st.IsDir() {
			path = p
			break
		}
	}
	if path == "" {
		p, err := exec.LookPath(name)
		if err != nil {
			where := "on PATH"
			if dir := os.Getenv(EnvBinDir); dir != "" {
				where = "in $" + EnvBinDir + " (" + dir + ") or on PATH"
			}
			return CLI{}, fmt.Errorf("%s is not installed %s", name, where)
		}
		path = p
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return CLI{}, err
	}
	c := CLI{Name: name, Path: abs}
	stdout, both, err := c.run(context.Background(), nil, "--version")
	if err != nil {
		return CLI{}, fmt.Errorf("%s --version: %w", abs, err)
	}
	// stdout only: codex may print a warning about its home on stderr first. pi prints
	// its version on stderr alone.
	if len(bytes.TrimSpace(stdout)) == 0 {
		stdout = both
	}
	c.Version, _, _ = strings.Cut(strings.TrimSpace(string(stdout)), "\n")
	return c, nil
}

// Required reports whether a missing CLI must fail the tests: CI=1 (or true), as
// .ci/run sets it.
func Required() bool {
	ci := strings.ToLower(os.Getenv("CI"))
	return ci == "1" || ci == "true"
}

// Require returns the CLI name for a live test. When it cannot be found the test is
// skipped with the reason, or fails under [Required].
func Require(tb testing.TB, name string) CLI {
	tb.Helper()
	c, err := Find(name)
	if err == nil {
		tb.Logf("using %s", c)
		return c
	}
	if Required() {
		tb.Fatalf("%v (CI is set: the provider CLIs must be installed, see .ci/run)", err)
	}
	tb.Skipf("skipped: %v (install it on PATH or into $%s to run the provider fidelity tests)", err, EnvBinDir)
	return CLI{}
}

// Output runs the CLI with args and extra environment entries ("K=V", appended to the
// process environment), stdin empty, and returns stdout and stderr together. A run
// that exits non-zero is an error that quotes the output.
func (c CLI) Output(ctx context.Context, env []string, args ...string) ([]byte, error) {
	_, both, err := c.run(ctx, env, args...)
	return both, err
}

// run is [CLI.Output] that also returns stdout alone. The combined output is stdout
// followed by stderr (their interleaving is not kept).
func (c CLI) run(ctx context.Context, env []string, args ...string) (stdout, both []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	both = append(bytes.Clone(out.Bytes()), errOut.Bytes()...)
	if err != nil {
		if ctx.Err() != nil {
			err = errors.Join(err, ctx.Err())
		}
		return out.Bytes(), both, fmt.Errorf("%s %s: %w\n%s", c.Name, strings.Join(args, " "), err, both)
	}
	return out.Bytes(), both, nil
}
