package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// readmeSandboxBlock returns the lines of the first ```sh block of the README's "Try it
// without herdr" section.
func readmeSandboxBlock(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Try it without herdr\n")
	if !ok {
		t.Fatal(`README.md has no "## Try it without herdr" section`)
	}
	_, block, ok := strings.Cut(section, "\n```sh\n")
	if !ok {
		t.Fatal("the README's sandbox section has no ```sh block")
	}
	block, _, _ = strings.Cut(block, "\n```")
	return strings.Split(block, "\n")
}

// newcomerEnv is this process's environment without any ORCR_ or HERDR_ variable: a
// shell that has never seen orcr (the tests may themselves run inside an agent pane).
func newcomerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ORCR_") && !strings.HasPrefix(kv, "HERDR_") {
			env = append(env, kv)
		}
	}
	return env
}

type shellResult struct {
	exit           int
	stdout, stderr string
}

// shell runs script with sh in dir, as a user's shell would.
func shell(t *testing.T, dir string, env []string, script string) shellResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	r := shellResult{stdout: out.String(), stderr: errb.String()}
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("sh -c %q: %v", script, err)
	}
	return r
}

// lockFree reports whether the instance lock of home is free: its server has exited.
func lockFree(home string) bool {
	f, err := os.OpenFile(filepath.Join(home, "orcr.lock"), os.O_RDWR, 0)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// The README's "Try it without herdr" block works exactly as written: its first line's
// command builds the sandbox and prints the exports, and every further line, run by sh
// after those exports (what the eval does), prints what the README says.
func TestReadmeSandboxRecipe(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	lines := readmeSandboxBlock(t, root)
	m := regexp.MustCompile(`^eval "\$\((go run \./cmd/orcr-demo --sandbox (\S+))\)"$`).FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("the README block starts with %q, want eval \"$(go run ./cmd/orcr-demo --sandbox DIR)\"", lines[0])
	}
	readmeDir := m[2]
	if got, want := lines[1:len(lines)-1], tryCommands; !slices.Equal(got, want) {
		t.Errorf("README commands %q differ from what the sandbox suggests %q", got, want)
	}

	base, err := os.MkdirTemp("", "sb")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "s")
	here := func(s string) string { return strings.ReplaceAll(s, readmeDir, dir) }
	env := newcomerEnv()
	t.Cleanup(func() {
		for _, c := range [][]string{{"orcr", "server", "stop"}, {"herdr", "session", "stop", "orcr"}} {
			cmd := exec.Command(filepath.Join(dir, "bin", c[0]), c[1:]...)
			cmd.Env = append(env, "ORCR_HOME="+filepath.Join(dir, "home"))
			cmd.Run()
		}
		os.RemoveAll(base)
	})

	setup := shell(t, root, env, here(m[1]))
	if setup.exit != 0 {
		t.Fatalf("%s: exit %d\n%s", here(m[1]), setup.exit, setup.stderr)
	}
	for _, c := range tryCommands {
		if !strings.Contains(setup.stderr, "\n  "+c+"\n") {
			t.Errorf("the sandbox does not suggest %q on stderr:\n%s", c, setup.stderr)
		}
	}
	exports := setup.stdout
	if !strings.Contains(exports, "export ORCR_HOME=") || strings.Contains(exports, "building") {
		t.Fatalf("the sandbox's stdout is not just export lines:\n%s", exports)
	}

	uuid := regexp.MustCompile(`^hello [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n$`)
	ls := regexp.MustCompile(`(?m)^hello +[0-9a-f]{8} +idle +mock +\S+$`)
	checks := map[string]func(r shellResult) bool{
		`orcr agent run -a mock --name hello -p "hello there"`: func(r shellResult) bool { return uuid.MatchString(r.stdout) },
		`orcr agent wait hello`:                                func(r shellResult) bool { return r.stdout == "hello  turn_complete\n" },
		`orcr agent ls`:                                        func(r shellResult) bool { return ls.MatchString(r.stdout) },
		`orcr agent logs hello --last-response`:                func(r shellResult) bool { return r.stdout == "RESPONSE: hello there\nDONE\n" },
		tryCommands[4]: func(r shellResult) bool {
			return strings.HasPrefix(r.stdout, "scaffolded "+filepath.Join(dir, "wf")+" (go.mod, main.go")
		},
		// The scaffolded workflow as shipped: it names no provider, so the sandbox's
		// defaults.agent (mock) answers, and its agent ends (gc immediate).
		tryCommands[5]: func(r shellResult) bool {
			return r.stdout == "RESPONSE: In one short sentence, tell me which coding agent you are, then say DONE\nDONE\n"
		},
		`orcr server stop`:        func(r shellResult) bool { return r.stdout == "server stopped\n" },
		`herdr session stop orcr`: func(r shellResult) bool { return r.stdout == "stopped session orcr\n" },
		"rm -rf " + readmeDir:     func(shellResult) bool { _, err := os.Stat(dir); return errors.Is(err, os.ErrNotExist) },
	}
	for _, line := range lines[1:] {
		check, ok := checks[line]
		if !ok {
			t.Fatalf("README line %q has no check in this test: add one", line)
		}
		if strings.HasPrefix(line, "rm ") {
			// What the user does after the stops: let the server and the stand-in finish
			// exiting first, so nothing writes into the tree while it goes.
			poll.Eventually(t, 20*time.Second, "the sandbox's orcr server to exit", func() bool { return lockFree(filepath.Join(dir, "home")) })
			sock := filepath.Join(dir, "xdg", "herdr", "sessions", "orcr", "herdr.sock")
			poll.Eventually(t, 20*time.Second, "the stand-in's socket to go", func() bool { _, err := os.Stat(sock); return err != nil })
		}
		r := shell(t, root, env, exports+here(line))
		if r.exit != 0 || !check(r) {
			t.Fatalf("%s: exit %d, unexpected output\nstdout: %q\nstderr: %q", here(line), r.exit, r.stdout, r.stderr)
		}
	}
}

// The sandbox never builds into a directory that holds something else, nor into one
// whose sockets would be too long; both are refused before anything is written.
func TestSandboxRefusesUnfitDirectory(t *testing.T) {
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 80))
	for _, tc := range []struct{ dir, want string }{
		{foreign, "is not empty and not a sandbox"},
		{long, "is too long for the Unix sockets"},
	} {
		var stdout, stderr bytes.Buffer
		err := sandbox(context.Background(), tc.dir, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) || stdout.Len() != 0 {
			t.Errorf("sandbox(%s): got %v (stdout %q), want an error saying %q", tc.dir, err, stdout.String(), tc.want)
		}
		if _, err := os.Stat(filepath.Join(tc.dir, "bin")); err == nil {
			t.Errorf("sandbox(%s) created bin/ although it refused", tc.dir)
		}
	}
}
