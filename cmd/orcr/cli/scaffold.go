package cli

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/ts"
)

// `orcr scaffold` (docs/cli.md §5.24) writes a small workflow project on one of the SDKs
// and installs its dependencies. It runs in the CLI alone: no home, no server. Every
// check runs before the first write, and a failure after it (the install step included)
// removes everything the scaffold created, so a failed scaffold leaves nothing behind.

type scaffoldCmd struct {
	Dir  string `arg:"" optional:"" default:"." help:"Project directory (created if missing)."`
	Lang string `enum:"ts,go" default:"ts" help:"The project's language: ts (the TypeScript SDK) or go (the Go SDK)."`
}

// The scaffold's fixed values.
const (
	// nodeMajorRequired is the oldest Node.js the TypeScript SDK runs on.
	nodeMajorRequired = 20
	// sdkPackage is the TypeScript SDK's npm name; vendorDir is where a project gets the
	// copy embedded in this binary.
	sdkPackage = "@orchestratr/sdk"
	vendorDir  = "vendor/orcr-sdk"
	// orcrModule is this repository's Go module, the Go SDK's home.
	orcrModule = "github.com/orcr-go/orcr"
	// goDirective is the go line of a scaffolded go.mod: the Go release orcr's own
	// go.mod asks for (a test keeps them equal).
	goDirective = "1.26.7"
	// probeTimeout bounds `node --version`, `npm --version` and `go version`.
	probeTimeout = 30 * time.Second
)

// The scaffold's error causes and reasons (docs/protocol.md §9.3), and the install
// pointers its environment errors carry as details.hint.
const (
	nodeInstallHint = "install Node.js 20 or newer, which comes with npm: https://nodejs.org/en/download"
	goInstallHint   = "install Go: https://go.dev/doc/install"
)

//go:embed scaffold/workflow.ts scaffold/tsconfig.json scaffold/main.go.tmpl
var scaffoldFiles embed.FS

func scaffoldFile(name string) []byte {
	b, err := scaffoldFiles.ReadFile("scaffold/" + name)
	if err != nil {
		panic("cli: scaffold template " + name + " is not embedded")
	}
	return b
}

// project is what one scaffold writes and runs.
type project struct {
	// files are the project files by name (relative to the project dir), in order.
	files []projectFile
	// vendor, when not nil, is copied to vendorDir.
	vendor fs.FS
	// sdkVersion and sdkSpec are what the result reports.
	sdkVersion, sdkSpec string
	// install is the argv run in the project dir after the writes; cause names its
	// failure. outputs are what it may create there.
	install []string
	cause   string
	outputs []string
	// next is the command the human output ends with (after `cd <dir> && `).
	next string
}

type projectFile struct {
	name string
	data []byte
}

// targets lists what the project writes below its dir: its files, then the vendored
// package's dir. None of them may exist yet.
func (p *project) targets() []string {
	var out []string
	for _, f := range p.files {
		out = append(out, f.name)
	}
	if p.vendor != nil {
		out = append(out, vendorDir)
	}
	return out
}

// names is [project.targets] as the result lists them: a directory ends in /.
func (p *project) names() []string {
	out := p.targets()
	if p.vendor != nil {
		out[len(out)-1] += "/"
	}
	return out
}

// scaffoldResult is the --json result.
type scaffoldResult struct {
	Lang         string   `json:"lang"`
	Dir          string   `json:"dir"`
	Files        []string `json:"files"`
	SDKVersion   string   `json:"sdk_version"`
	SDKSpec      string   `json:"sdk_spec"`
	NPMInstalled bool     `json:"npm_installed"`
}

// Run implements `orcr scaffold`: preflight, the never-overwrite check, the writes, the
// install step.
func (c *scaffoldCmd) Run(a *app) error {
	dir, err := a.absDir(c.Dir)
	if err != nil {
		return err
	}
	var p *project
	if c.Lang == "go" {
		p, err = a.goProject()
	} else {
		p, err = a.tsProject()
	}
	if err != nil {
		return err
	}
	tree, err := openTree(dir, p.outputs...)
	if err != nil {
		return scaffoldFailed(dir, err)
	}
	if f := tree.existing(p.targets()...); f != "" {
		return wire.Conflict("orcr scaffold never overwrites: "+filepath.Join(dir, f)+" exists",
			"reason", wire.ReasonFileExists, "file", f, "dir", dir)
	}
	if err := p.write(tree); err != nil {
		tree.undo()
		return scaffoldFailed(dir, err)
	}
	if err := a.runInstall(dir, p); err != nil {
		tree.undo()
		return err
	}
	res := scaffoldResult{Lang: c.Lang, Dir: dir, Files: p.names(), SDKVersion: p.sdkVersion,
		SDKSpec: p.sdkSpec, NPMInstalled: c.Lang == "ts"}
	if a.json {
		a.printOKValue(res)
		return nil
	}
	what := sdkPackage
	if c.Lang == "go" {
		what = orcrModule
	}
	a.stdout("scaffolded %s (%s · %s %s)", dir, strings.Join(res.Files, ", "), what, p.sdkSpec)
	a.stdout("next: cd %s && %s", shellWord(dir), p.next)
	return nil
}

func (p *project) write(t *newTree) error {
	if err := t.mkdirAll(t.dir); err != nil {
		return err
	}
	for _, f := range p.files {
		if err := t.writeFile(f.name, f.data); err != nil {
			return err
		}
	}
	if p.vendor != nil {
		return t.copyFS(filepath.FromSlash(vendorDir), p.vendor)
	}
	return nil
}

func scaffoldFailed(dir string, err error) error {
	return wire.Env(wire.CauseScaffoldFailed, "cannot write the project: "+err.Error(), "dir", dir).Wrap(err)
}

// tsProject checks for node and npm and plans the TypeScript project: package.json,
// tsconfig.json, workflow.ts and, unless ORCR_SDK_SPEC names the SDK, the SDK package
// embedded in this binary under vendor/orcr-sdk.
func (a *app) tsProject() (*project, error) {
	if err := a.checkNode(); err != nil {
		return nil, err
	}
	if _, err := a.probe("npm", "--version"); err != nil {
		return nil, wire.Env(wire.CauseNPMMissing, "orcr scaffold needs npm: "+err.Error(),
			"hint", nodeInstallHint).Wrap(err)
	}
	version, err := sdkPackageVersion()
	if err != nil {
		return nil, wire.Env(wire.CauseScaffoldFailed, "the SDK package embedded in orcr is unusable: "+err.Error()).Wrap(err)
	}
	p := &project{sdkVersion: version, sdkSpec: "file:./" + vendorDir, vendor: ts.Files(),
		install: []string{"npm", "install"}, cause: wire.CauseNPMInstallFailed,
		outputs: []string{"node_modules", "package-lock.json"}, next: "npx tsx workflow.ts"}
	if spec := strings.TrimSpace(a.env.Getenv("ORCR_SDK_SPEC")); spec != "" {
		p.sdkSpec, p.vendor = spec, nil
	}
	p.files = []projectFile{
		{"package.json", packageJSON(p.sdkSpec)},
		{"tsconfig.json", scaffoldFile("tsconfig.json")},
		{"workflow.ts", scaffoldFile("workflow.ts")},
	}
	return p, nil
}

// checkNode runs `node --version` and wants a major version of at least
// [nodeMajorRequired].
func (a *app) checkNode() error {
	out, err := a.probe("node", "--version")
	if err != nil {
		return wire.Env(wire.CauseNodeMissing, "orcr scaffold needs Node.js: "+err.Error(),
			"hint", nodeInstallHint).Wrap(err)
	}
	major, ok := nodeMajor(out)
	if !ok {
		return wire.Env(wire.CauseNodeMissing, fmt.Sprintf("orcr scaffold needs Node.js: `node --version` printed %q", out),
			"hint", nodeInstallHint)
	}
	if major < nodeMajorRequired {
		return wire.Env(wire.CauseNodeTooOld, fmt.Sprintf("orcr scaffold needs Node.js %d or newer, found %s", nodeMajorRequired, out),
			"found_major", major, "required_major", nodeMajorRequired, "hint", nodeInstallHint)
	}
	return nil
}

var nodeVersion = regexp.MustCompile(`^v?(\d+)\.\d+`)

// nodeMajor reads the major version of `node --version` output ("v20.11.1").
func nodeMajor(out string) (int, bool) {
	m := nodeVersion.FindStringSubmatch(strings.TrimSpace(out))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// sdkPackageVersion is the version in the embedded SDK's package.json, which must be
// the package orcr scaffolds for.
func sdkPackageVersion() (string, error) {
	b, err := fs.ReadFile(ts.Files(), "package.json")
	if err != nil {
		return "", err
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("package.json: %w", err)
	}
	if pkg.Name != sdkPackage || pkg.Version == "" {
		return "", fmt.Errorf("package.json names %q version %q, want %s with a version", pkg.Name, pkg.Version, sdkPackage)
	}
	return pkg.Version, nil
}

// packageJSON is the project's manifest, depending on the SDK through spec.
func packageJSON(spec string) []byte {
	type manifest struct {
		Name            string            `json:"name"`
		Version         string            `json:"version"`
		Private         bool              `json:"private"`
		Type            string            `json:"type"`
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	m := manifest{
		Name: "orcr-workflow", Version: "0.0.0", Private: true, Type: "module",
		Scripts:      map[string]string{"start": "tsx workflow.ts"},
		Dependencies: map[string]string{sdkPackage: spec},
		// @types/node backs tsconfig's "types": ["node"], so `npx tsc` type-checks.
		DevDependencies: map[string]string{"@types/node": "^20", "tsx": "^4", "typescript": "^5"},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		panic("cli: cannot encode package.json: " + err.Error())
	}
	return b.Bytes()
}

// goProject checks for go and plans the Go project: go.mod requiring this module at
// the CLI's version (replaced by a local checkout when ORCR_SDK_SPEC names one) and
// main.go, then `go mod tidy`.
func (a *app) goProject() (*project, error) {
	if _, err := a.probe("go", "version"); err != nil {
		return nil, wire.Env(wire.CauseGoMissing, "orcr scaffold --lang go needs Go: "+err.Error(),
			"hint", goInstallHint).Wrap(err)
	}
	version, replace, err := a.goSDKSpec()
	if err != nil {
		return nil, err
	}
	var mod strings.Builder
	fmt.Fprintf(&mod, "module orcr-workflow\n\ngo %s\n\nrequire %s %s\n", goDirective, orcrModule, version)
	spec := version
	if replace != "" {
		fmt.Fprintf(&mod, "\nreplace %s => %s\n", orcrModule, replace)
		spec = version + " => " + replace
	}
	return &project{
		files:      []projectFile{{"go.mod", []byte(mod.String())}, {"main.go", scaffoldFile("main.go.tmpl")}},
		sdkVersion: Version, sdkSpec: spec,
		install: []string{"go", "mod", "tidy"}, cause: wire.CauseGoModTidyFailed,
		outputs: []string{"go.sum"}, next: "orcr server start && go run .",
	}, nil
}

// goSDKSpec reads ORCR_SDK_SPEC for a Go project: unset, the module at this CLI's
// version; a directory, a checkout of this module to replace it with (made absolute);
// anything else, the module version to require.
func (a *app) goSDKSpec() (version, replace string, err error) {
	version = "v" + Version
	spec := strings.TrimSpace(a.env.Getenv("ORCR_SDK_SPEC"))
	if spec == "" {
		return version, "", nil
	}
	if looksLikePath(spec) {
		dir, err := a.absDir(spec)
		if err != nil {
			return "", "", err
		}
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil || !declaresModule(b, orcrModule) {
			return "", "", wire.Invalid(wire.ReasonInvalidSDKSpec, "ORCR_SDK_SPEC "+spec+" is not a checkout of "+orcrModule+" (no go.mod declaring it)",
				"value", spec)
		}
		return version, dir, nil
	}
	if !goVersion.MatchString(spec) {
		return "", "", wire.Invalid(wire.ReasonInvalidSDKSpec, "ORCR_SDK_SPEC "+spec+" is neither a directory nor a module version (v1.2.3)",
			"value", spec)
	}
	return spec, "", nil
}

var goVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$`)

// looksLikePath tells a directory spec from a version: a version starts with v and a
// digit; a path has a separator or is one of . and ~.
func looksLikePath(s string) bool {
	return strings.ContainsRune(s, os.PathSeparator) || s == "." || s == ".." || s == "~"
}

// declaresModule reports whether go.mod content b has the module line of mod.
func declaresModule(b []byte, mod string) bool {
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == mod {
			return true
		}
	}
	return false
}

// errNotOnPath is a program missing from the CLI's PATH.
var errNotOnPath = errors.New("not found on PATH")

// lookPath finds name in the CLI's PATH (Env.Getenv, so tests put fake programs first).
func (a *app) lookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(a.env.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s %w", name, errNotOnPath)
}

// command is name (looked up on the CLI's PATH) with args, in the CLI's environment,
// in its own process group, which is killed when ctx ends.
func (a *app) command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	bin, err := a.lookPath(name)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = a.childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd, nil
}

// childEnv is the environment of the programs the CLI runs: its own, with the PATH it
// looks programs up in.
func (a *app) childEnv() []string {
	env := a.env.Environ()
	path := a.env.Getenv("PATH")
	if path == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+path)
}

// probe runs `name args…` and returns its trimmed standard output; a program that is
// missing, fails or does not answer within [probeTimeout] is an error saying so.
func (a *app) probe(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(a.ctx, probeTimeout)
	defer cancel()
	cmd, err := a.command(ctx, name, args...)
	if err != nil {
		return "", err
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		if msg != "" {
			return "", fmt.Errorf("`%s %s` failed: %v: %s", name, strings.Join(args, " "), err, msg)
		}
		return "", fmt.Errorf("`%s %s` failed: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(out.String()), nil
}

// runInstall runs the project's install step in dir with its output on the CLI's
// stderr, so stdout keeps only the result.
func (a *app) runInstall(dir string, p *project) error {
	argv := strings.Join(p.install, " ")
	cmd, err := a.command(a.ctx, p.install[0], p.install[1:]...)
	if err == nil {
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = a.env.Stderr, a.env.Stderr
		err = cmd.Run()
	}
	if err == nil {
		return nil
	}
	details := []any{"dir", dir, "command", argv}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		details = append(details, "exit_code", ee.ExitCode())
	}
	msg := fmt.Sprintf("`%s` in %s failed: %v; nothing was left behind", argv, dir, err)
	if p.cause == wire.CauseGoModTidyFailed && !strings.Contains(p.sdkSpec, "=>") {
		msg += fmt.Sprintf(" (%s is not published yet: set ORCR_SDK_SPEC to a checkout of it)", orcrModule)
	}
	return wire.Env(p.cause, msg, details...).Wrap(err)
}

// shellWord quotes s for a POSIX shell when it holds anything but plain path characters.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+@%:,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
