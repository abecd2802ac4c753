package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The sandbox (`orcr-demo --sandbox DIR`, README "Try it without herdr"): the
// binaries, a throwaway orcr home and the herdr stand-in's state, all under DIR, and
// the shell environment that points orcr at them. Nothing is started; the first orcr
// verb auto-starts a server with that environment.

// tryCommands are the commands the sandbox suggests after its exports. The README's
// "Try it without herdr" block runs the same lines, and a test runs that block.
// The scaffolded workflow (Go, on this checkout's SDK) goes next to the home, inside the
// sandbox, and runs on the sandbox's defaults.agent, the mock.
var tryCommands = []string{
	`orcr agent run -a mock --name hello -p "hello there"`,
	`orcr agent wait hello`,
	`orcr agent ls`,
	`orcr agent logs hello --last-response`,
	`ORCR_SDK_SPEC="$PWD" orcr scaffold "$ORCR_HOME/../wf" --lang go`,
	`go -C "$ORCR_HOME/../wf" run .`,
	`orcr server stop`,
	`herdr session stop orcr`,
}

// sandboxMarker marks a directory as a sandbox, so running --sandbox on it again
// rebuilds it in place instead of refusing a non-empty directory.
const sandboxMarker = ".orcr-sandbox"

// maxSocketPath is the longest Unix socket path every platform accepts (macOS's
// sun_path holds 104 bytes with the terminating NUL).
const maxSocketPath = 103

// sandbox builds the binaries into dir/bin, prepares dir/home (ORCR_HOME) and
// dir/xdg (the stand-in's XDG_CONFIG_HOME), writes dir/bin/herdr, and prints the
// export lines on stdout (so `eval "$(… --sandbox DIR)"` applies them); progress and
// the commands to try go to stderr.
func sandbox(ctx context.Context, dir string, stdout, stderr io.Writer) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := checkSandboxDir(dir); err != nil {
		return err
	}
	bin, home, xdg := filepath.Join(dir, "bin"), filepath.Join(dir, "home"), filepath.Join(dir, "xdg")
	// The longest socket either side creates: the stand-in's attach socket of the owned
	// session (docs/herdr.md §1.2); orcr's own is <home>/orcr.sock.
	if p := filepath.Join(xdg, "herdr", "sessions", "orcr", "herdr-client.sock"); len(p) > maxSocketPath {
		return fmt.Errorf("%s is too long for the Unix sockets the sandbox needs (%s is %d bytes, at most %d); choose a shorter directory such as /tmp/orcr-sandbox",
			dir, p, len(p), maxSocketPath)
	}
	for _, d := range []string{dir, bin, home, xdg} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, sandboxMarker), []byte("made by go run ./cmd/orcr-demo --sandbox\n"), 0o600); err != nil {
		return err
	}
	if err := writeSandboxConfig(home); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "building orcr, the herdr stand-in and the mock provider into %s\n", bin)
	if err := buildBinaries(ctx, bin, stderr); err != nil {
		return err
	}
	// herdr is the stand-in with its sessions kept in the sandbox, so the shell's own
	// XDG_CONFIG_HOME stays as it is.
	wrapper := "#!/bin/sh\n# The herdr stand-in (cmd/herdr-standin), its state kept in this sandbox.\n" +
		"XDG_CONFIG_HOME=" + shellQuote(xdg) + " exec " + shellQuote(filepath.Join(bin, "herdr-standin")) + ` "$@"` + "\n"
	if err := os.WriteFile(filepath.Join(bin, "herdr"), []byte(wrapper), 0o700); err != nil {
		return err
	}
	for _, line := range sandboxExports(dir) {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stderr, "\nsandbox ready in %s: orcr home %s (defaults.agent mock), herdr stand-in state %s.\n", dir, home, xdg)
	fmt.Fprintf(stderr, "Apply the export lines above to your shell, or run this command as\n\n  eval \"$(go run ./cmd/orcr-demo --sandbox %s)\"\n\nthen try:\n\n", dir)
	for _, c := range tryCommands {
		fmt.Fprintf(stderr, "  %s\n", c)
	}
	fmt.Fprintf(stderr, "\nWhen done, after the last two: rm -rf %s\n", dir)
	return nil
}

// sandboxConfig is the sandbox home's config.json: the mock is the default provider, so
// what names none (the scaffolded workflows) runs there; claude, the built-in default,
// cannot run in the stand-in.
const sandboxConfig = `{"defaults": {"agent": "mock"}}` + "\n"

// writeSandboxConfig writes home/config.json unless one is there (a rebuild keeps
// what the user changed).
func writeSandboxConfig(home string) error {
	f, err := os.OpenFile(filepath.Join(home, "config.json"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(sandboxConfig); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkSandboxDir accepts a missing or empty directory, or an earlier sandbox.
func checkSandboxDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(ents) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, sandboxMarker)); err != nil {
		return fmt.Errorf("%s is not empty and not a sandbox; choose a new directory", dir)
	}
	return nil
}

// sandboxExports are the shell lines that point orcr at the sandbox: its home, its
// binaries first on PATH, the stand-in as herdr, and the mock provider switched on (the
// server reads these from the environment of the CLI that auto-starts it,
// docs/cli.md §7.5).
func sandboxExports(dir string) []string {
	bin := filepath.Join(dir, "bin")
	return []string{
		"export ORCR_HOME=" + shellQuote(filepath.Join(dir, "home")),
		"export PATH=" + shellQuote(bin) + `:"$PATH"`,
		"export ORCR_HERDR_BIN=" + shellQuote(filepath.Join(bin, "herdr")),
		"export ORCR_ALLOW_MOCK_PROVIDER=1",
		"export ORCR_MOCK_AGENT_BIN=" + shellQuote(filepath.Join(bin, "orcr-mock-agent")),
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
