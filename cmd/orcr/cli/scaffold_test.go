package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/ts"
)

// The scaffold tests drive node, npm and go through fake programs: shell scripts in a
// bin dir that the harness's PATH names. A PATH of that dir alone hides the machine's
// real programs, so "missing" means missing.

// fakeBin writes an executable /bin/sh script name into dir.
func fakeBin(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Fake program bodies (see also recordingNPM).
const (
	node20  = `echo v20.11.1`
	node18  = `echo v18.19.0`
	npmOK   = `[ "$1" = --version ] && { echo 10.2.4; exit 0; }; exit 0`
	goOK    = `[ "$1" = version ] && { echo go version go1.26.0 linux/amd64; exit 0; }; exit 0`
	failing = `echo "it broke" >&2; exit 3`
)

// recordingNPM is an npm that answers --version and appends "<pwd> <args>" to record
// for any other call; with fail it also leaves what a failed install leaves (a lock
// file) and exits 3.
func recordingNPM(record string, fail bool) string {
	body := `[ "$1" = --version ] && { echo 10.2.4; exit 0; }
echo "$(pwd) $*" >> '` + record + `'`
	if fail {
		body += `
: > package-lock.json
echo "npm ERR! network" >&2
exit 3`
	}
	return body
}

// scaffoldHarness is a harness whose PATH is a fresh bin dir only.
func scaffoldHarness(t *testing.T) (*harness, string) {
	t.Helper()
	h := newHarness(t)
	bin := t.TempDir()
	h.vars["PATH"] = bin
	return h, bin
}

// listTree returns every file and directory below dir, slash-separated, dirs with a
// trailing /; nil when dir does not exist.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

func wantError(t *testing.T, got outcome, exit int, code, key, value string) map[string]any {
	t.Helper()
	env := decodeEnvelope(t, got.stdout)
	if got.code != exit || env.Error == nil || string(env.Error.Code) != code || env.Error.Details[key] != value {
		t.Fatalf("got exit %d %s (stderr %q), want exit %d %s %s=%s", got.code, got.stdout, got.stderr, exit, code, key, value)
	}
	return env.Error.Details
}

// Every preflight failure is reported before anything is touched: the project dir (and
// its missing parents) do not exist afterwards.
func TestScaffoldPreflightFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		lang     string
		bins     map[string]string
		spec     string
		exit     int
		code     string
		key, val string
	}{
		{"no node", "ts", map[string]string{"npm": npmOK}, "", 2, "environment_error", "cause", "node_missing"},
		{"node fails", "ts", map[string]string{"node": failing, "npm": npmOK}, "", 2, "environment_error", "cause", "node_missing"},
		{"node says nonsense", "ts", map[string]string{"node": `echo hello`, "npm": npmOK}, "", 2, "environment_error", "cause", "node_missing"},
		{"node 18", "ts", map[string]string{"node": node18, "npm": npmOK}, "", 2, "environment_error", "cause", "node_too_old"},
		{"no npm", "ts", map[string]string{"node": node20}, "", 2, "environment_error", "cause", "npm_missing"},
		{"npm fails", "ts", map[string]string{"node": node20, "npm": failing}, "", 2, "environment_error", "cause", "npm_missing"},
		{"no go", "go", map[string]string{"node": node20, "npm": npmOK}, "", 2, "environment_error", "cause", "go_missing"},
		{"go fails", "go", map[string]string{"go": failing}, "", 2, "environment_error", "cause", "go_missing"},
		{"go spec not a checkout", "go", map[string]string{"go": goOK}, "/", 1, "invalid_request", "reason", "invalid_sdk_spec"},
		{"go spec not a version", "go", map[string]string{"go": goOK}, "latest", 1, "invalid_request", "reason", "invalid_sdk_spec"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, bin := scaffoldHarness(t)
			for name, body := range tc.bins {
				fakeBin(t, bin, name, body)
			}
			h.vars["ORCR_SDK_SPEC"] = tc.spec
			parent := filepath.Join(t.TempDir(), "new")
			dir := filepath.Join(parent, "demo")
			got := h.run(t, "--json", "scaffold", dir, "--lang", tc.lang)
			details := wantError(t, got, tc.exit, tc.code, tc.key, tc.val)
			if tc.val == "node_too_old" && (details["found_major"] != float64(18) || details["required_major"] != float64(20)) {
				t.Errorf("node_too_old details %v, want found_major 18, required_major 20", details)
			}
			if tc.code == "environment_error" && details["hint"] == nil {
				t.Errorf("details %v carry no install hint", details)
			}
			if _, err := os.Lstat(parent); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s exists after a failed preflight (%v): %v", parent, err, listTree(t, parent))
			}
		})
	}
}

// The human error line names the cause and the hint.
func TestScaffoldPreflightHuman(t *testing.T) {
	t.Parallel()
	h, bin := scaffoldHarness(t)
	fakeBin(t, bin, "node", node18)
	got := h.run(t, "scaffold", filepath.Join(t.TempDir(), "demo"))
	if got.code != 2 || got.stdout != "" || !strings.HasPrefix(got.stderr, "error: environment_error: orcr scaffold needs Node.js 20 or newer, found v18.19.0 (") ||
		!strings.Contains(got.stderr, `"cause":"node_too_old"`) || !strings.Contains(got.stderr, "https://nodejs.org") {
		t.Errorf("got exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
}

// A file of the project that exists stops the scaffold before anything is written, and
// stays as it was.
func TestScaffoldNeverOverwrites(t *testing.T) {
	t.Parallel()
	for _, existing := range []string{"package.json", "tsconfig.json", "workflow.ts", "vendor/orcr-sdk", "vendor"} {
		t.Run(existing, func(t *testing.T) {
			h, bin := scaffoldHarness(t)
			fakeBin(t, bin, "node", node20)
			record := filepath.Join(t.TempDir(), "npm.log")
			fakeBin(t, bin, "npm", recordingNPM(record, false))
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(existing))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte("mine\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			before := listTree(t, dir)
			got := h.run(t, "--json", "scaffold", dir)
			details := wantError(t, got, 7, "state_conflict", "reason", "file_exists")
			// "vendor": a file where the vendor dir must go is in the way too.
			if details["file"] != existing || details["dir"] != dir {
				t.Errorf("details %v, want file %s dir %s", details, existing, dir)
			}
			if after := listTree(t, dir); !slices.Equal(before, after) {
				t.Errorf("tree changed: before %v after %v", before, after)
			}
			if b, _ := os.ReadFile(p); string(b) != "mine\n" {
				t.Errorf("%s was overwritten: %q", existing, b)
			}
			if _, err := os.Stat(record); err == nil {
				t.Errorf("npm ran")
			}
		})
	}
	t.Run("go.mod", func(t *testing.T) {
		h, bin := scaffoldHarness(t)
		fakeBin(t, bin, "go", goOK)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
		got := h.run(t, "--json", "scaffold", dir, "--lang", "go")
		if d := wantError(t, got, 7, "state_conflict", "reason", "file_exists"); d["file"] != "main.go" {
			t.Errorf("details %v, want file main.go", d)
		}
		if after := listTree(t, dir); !slices.Equal(after, []string{"main.go"}) {
			t.Errorf("tree %v, want only main.go", after)
		}
	})
	t.Run("dir is a file", func(t *testing.T) {
		h, bin := scaffoldHarness(t)
		fakeBin(t, bin, "node", node20)
		fakeBin(t, bin, "npm", npmOK)
		file := filepath.Join(t.TempDir(), "f")
		os.WriteFile(file, []byte("x"), 0o644)
		wantError(t, h.run(t, "--json", "scaffold", file), 2, "environment_error", "cause", "scaffold_failed")
		if b, _ := os.ReadFile(file); string(b) != "x" {
			t.Errorf("file changed: %q", b)
		}
	})
}

// A failing install (npm install, go mod tidy) takes back everything the scaffold made:
// a new dir is gone, an existing one holds only what it held.
func TestScaffoldInstallFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	t.Run("npm new dir", func(t *testing.T) {
		h, bin := scaffoldHarness(t)
		fakeBin(t, bin, "node", node20)
		record := filepath.Join(t.TempDir(), "npm.log")
		fakeBin(t, bin, "npm", recordingNPM(record, true))
		parent := filepath.Join(t.TempDir(), "a")
		dir := filepath.Join(parent, "b", "demo")
		got := h.run(t, "--json", "scaffold", dir)
		details := wantError(t, got, 2, "environment_error", "cause", "npm_install_failed")
		if details["exit_code"] != float64(3) || details["dir"] != dir || details["command"] != "npm install" {
			t.Errorf("details %v", details)
		}
		if !strings.Contains(got.stderr, "npm ERR! network") {
			t.Errorf("npm's output did not reach stderr: %q", got.stderr)
		}
		if b, _ := os.ReadFile(record); string(b) != dir+" install\n" {
			t.Errorf("npm calls %q, want one install in %s", b, dir)
		}
		if _, err := os.Lstat(parent); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left behind: %v", parent, listTree(t, parent))
		}
	})
	t.Run("npm existing dir", func(t *testing.T) {
		h, bin := scaffoldHarness(t)
		fakeBin(t, bin, "node", node20)
		fakeBin(t, bin, "npm", recordingNPM(filepath.Join(t.TempDir(), "npm.log"), true))
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("keep"), 0o644)
		os.Mkdir(filepath.Join(dir, "vendor"), 0o755)
		os.WriteFile(filepath.Join(dir, "vendor", "other"), []byte("keep"), 0o644)
		before := listTree(t, dir)
		wantError(t, h.run(t, "--json", "scaffold", dir), 2, "environment_error", "cause", "npm_install_failed")
		if after := listTree(t, dir); !slices.Equal(before, after) {
			t.Errorf("tree after the failure %v, want %v", after, before)
		}
	})
	t.Run("go mod tidy", func(t *testing.T) {
		h, bin := scaffoldHarness(t)
		fakeBin(t, bin, "go", `[ "$1" = version ] && { echo go version go1.26.0; exit 0; }; : > go.sum; exit 1`)
		dir := filepath.Join(t.TempDir(), "demo")
		got := h.run(t, "--json", "scaffold", dir, "--lang", "go")
		wantError(t, got, 2, "environment_error", "cause", "go_mod_tidy_failed")
		env := decodeEnvelope(t, got.stdout)
		if !strings.Contains(env.Error.Message, "ORCR_SDK_SPEC") {
			t.Errorf("message %q does not point at ORCR_SDK_SPEC", env.Error.Message)
		}
		if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left behind: %v", dir, listTree(t, dir))
		}
	})
}

// Ctrl-C during npm install ends npm's whole process group, takes the project back and
// exits 130.
func TestScaffoldInterruptedInstall(t *testing.T) {
	t.Parallel()
	h, bin := scaffoldHarness(t)
	fakeBin(t, bin, "node", node20)
	started := filepath.Join(t.TempDir(), "started")
	fakeBin(t, bin, "npm", `[ "$1" = --version ] && { echo 10.2.4; exit 0; }
: > package-lock.json
: > '`+started+`'
/bin/sleep 60 & wait`)
	dir := filepath.Join(t.TempDir(), "demo")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		// In a goroutine, so not poll.Eventually: the test's wait on the run fails it instead.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(started); err == nil {
				break
			}
		}
		cancel(&cli.Interrupt{Signal: syscall.SIGINT})
	}()
	begin := time.Now()
	got := h.runCtx(t, ctx, "scaffold", dir)
	if got.code != 130 || !strings.Contains(got.stderr, "interrupted by SIGINT") {
		t.Errorf("got exit %d stderr %q, want 130 interrupted", got.code, got.stderr)
	}
	if d := time.Since(begin); d > 8*time.Second {
		t.Errorf("the interrupted install took %v to end", d)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s left behind: %v", dir, listTree(t, dir))
	}
}

// A TypeScript scaffold writes exactly the three files and the vendored SDK, and runs
// npm install once, in the project dir.
func TestScaffoldTypeScript(t *testing.T) {
	t.Parallel()
	h, bin := scaffoldHarness(t)
	fakeBin(t, bin, "node", node20)
	record := filepath.Join(t.TempDir(), "npm.log")
	fakeBin(t, bin, "npm", recordingNPM(record, false))
	dir := filepath.Join(t.TempDir(), "demo")

	got := h.run(t, "--json", "scaffold", dir)
	env := decodeEnvelope(t, got.stdout)
	if got.code != 0 || !env.OK {
		t.Fatalf("exit %d %s %s", got.code, got.stdout, got.stderr)
	}
	var res map[string]any
	json.Unmarshal(env.Result, &res)
	wantRes := map[string]any{"lang": "ts", "dir": dir, "files": []any{"package.json", "tsconfig.json", "workflow.ts", "vendor/orcr-sdk/"},
		"sdk_version": cli.Version, "sdk_spec": "file:./vendor/orcr-sdk", "npm_installed": true}
	if diff := cmp.Diff(wantRes, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(record); string(b) != dir+" install\n" {
		t.Errorf("npm calls %q, want one install in %s", b, dir)
	}

	want := []string{"package.json", "tsconfig.json", "vendor/", "workflow.ts"}
	fs.WalkDir(ts.Files(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == ".":
			want = append(want, "vendor/orcr-sdk/")
		case d.IsDir():
			want = append(want, "vendor/orcr-sdk/"+p+"/")
		default:
			want = append(want, "vendor/orcr-sdk/"+p)
		}
		return nil
	})
	slices.Sort(want)
	if got := listTree(t, dir); !slices.Equal(sorted(got), want) {
		t.Errorf("files %v, want %v", got, want)
	}
	var vendored []string
	fs.WalkDir(ts.Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		vendored = append(vendored, p)
		src, _ := fs.ReadFile(ts.Files(), p)
		dst, err := os.ReadFile(filepath.Join(dir, "vendor", "orcr-sdk", filepath.FromSlash(p)))
		if err != nil || string(dst) != string(src) {
			t.Errorf("vendor/orcr-sdk/%s: %v, or it differs from the embedded package", p, err)
		}
		return nil
	})
	if !slices.Contains(vendored, "package.json") || !slices.Contains(vendored, "dist/index.js") {
		t.Errorf("embedded SDK files %v lack package.json or dist/index.js", vendored)
	}

	var pkg map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "package.json"))
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatalf("package.json: %v\n%s", err, b)
	}
	wantPkg := map[string]any{
		"name": "orcr-workflow", "version": "0.0.0", "private": true, "type": "module",
		"scripts":         map[string]any{"start": "tsx workflow.ts"},
		"dependencies":    map[string]any{"@orchestratr/sdk": "file:./vendor/orcr-sdk"},
		"devDependencies": map[string]any{"@types/node": "^20", "tsx": "^4", "typescript": "^5"},
	}
	if diff := cmp.Diff(wantPkg, pkg); diff != "" {
		t.Errorf("package.json (-want +got):\n%s", diff)
	}

	var tsconfig struct {
		CompilerOptions map[string]any `json:"compilerOptions"`
		Include         []string       `json:"include"`
	}
	b, _ = os.ReadFile(filepath.Join(dir, "tsconfig.json"))
	if err := json.Unmarshal(b, &tsconfig); err != nil {
		t.Fatalf("tsconfig.json: %v", err)
	}
	for k, v := range map[string]any{"target": "ES2022", "module": "ES2022", "moduleResolution": "bundler",
		"strict": true, "esModuleInterop": true, "skipLibCheck": true, "types": []any{"node"}} {
		if !cmp.Equal(tsconfig.CompilerOptions[k], v) {
			t.Errorf("tsconfig compilerOptions.%s = %v, want %v", k, tsconfig.CompilerOptions[k], v)
		}
	}
	if !slices.Equal(tsconfig.Include, []string{"*.ts"}) {
		t.Errorf("tsconfig include %v", tsconfig.Include)
	}

	b, _ = os.ReadFile(filepath.Join(dir, "workflow.ts"))
	wf := string(b)
	for _, s := range []string{`import { orcr } from "@orchestratr/sdk"`, `orcr.scope("scaffold_demo"`, `name: "hello"`,
		`gc: "immediate"`, `say DONE"`, `.wait()`, `.lastResponse()`, "references/sdk.md"} {
		if !strings.Contains(wf, s) {
			t.Errorf("workflow.ts lacks %q", s)
		}
	}
	if strings.Contains(wf, "agent:") {
		t.Errorf("workflow.ts names a provider; defaults.agent must apply")
	}
	if n := strings.Count(wf, "\n"); n > 20 {
		t.Errorf("workflow.ts has %d lines, want about 15", n)
	}
}

// The human output lists the files and ends with the command to run next.
func TestScaffoldHuman(t *testing.T) {
	t.Parallel()
	h, bin := scaffoldHarness(t)
	fakeBin(t, bin, "node", node20)
	fakeBin(t, bin, "npm", npmOK)
	dir := filepath.Join(t.TempDir(), "my demo")
	got := h.run(t, "scaffold", dir)
	want := "scaffolded " + dir + " (package.json, tsconfig.json, workflow.ts, vendor/orcr-sdk/ · @orchestratr/sdk file:./vendor/orcr-sdk)\n" +
		"next: cd '" + dir + "' && npx tsx workflow.ts\n"
	if got.code != 0 || got.stdout != want {
		t.Errorf("got exit %d\n%q\nwant\n%q\n(stderr %q)", got.code, got.stdout, want, got.stderr)
	}
}

// ORCR_SDK_SPEC replaces the vendored SDK.
func TestScaffoldSDKSpec(t *testing.T) {
	t.Parallel()
	h, bin := scaffoldHarness(t)
	fakeBin(t, bin, "node", node20)
	fakeBin(t, bin, "npm", npmOK)
	h.vars["ORCR_SDK_SPEC"] = "file:/tmp/orchestratr-sdk-0.1.0.tgz"
	dir := t.TempDir()
	got := h.run(t, "--json", "scaffold", dir)
	env := decodeEnvelope(t, got.stdout)
	var res struct {
		Files   []string `json:"files"`
		SDKSpec string   `json:"sdk_spec"`
	}
	json.Unmarshal(env.Result, &res)
	if got.code != 0 || res.SDKSpec != "file:/tmp/orchestratr-sdk-0.1.0.tgz" || !slices.Equal(res.Files, []string{"package.json", "tsconfig.json", "workflow.ts"}) {
		t.Errorf("got exit %d %s", got.code, got.stdout)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "package.json"))
	json.Unmarshal(b, &pkg)
	if pkg.Dependencies["@orchestratr/sdk"] != "file:/tmp/orchestratr-sdk-0.1.0.tgz" {
		t.Errorf("dependencies %v", pkg.Dependencies)
	}
	if got := listTree(t, dir); !slices.Equal(got, []string{"package.json", "tsconfig.json", "workflow.ts"}) {
		t.Errorf("files %v: nothing may be vendored", got)
	}
}

// A Go scaffold writes go.mod (with the replace of ORCR_SDK_SPEC's checkout, at the go
// release orcr's own go.mod names) and main.go, then runs go mod tidy in the dir. The
// real build of the result is tests/scaffold_test.go's.
func TestScaffoldGo(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	h, bin := scaffoldHarness(t)
	record := filepath.Join(t.TempDir(), "go.log")
	fakeBin(t, bin, "go", `[ "$1" = version ] && { echo go version go1.26.0; exit 0; }
echo "$(pwd) $*" >> '`+record+`'`)
	dir := filepath.Join(t.TempDir(), "demo")
	for _, spec := range []struct{ env, require, replace, sdkSpec string }{
		{repo, "v" + cli.Version, repo, "v" + cli.Version + " => " + repo},
		{"v0.2.0-rc.1", "v0.2.0-rc.1", "", "v0.2.0-rc.1"},
		{"", "v" + cli.Version, "", "v" + cli.Version},
	} {
		os.RemoveAll(dir)
		h.vars["ORCR_SDK_SPEC"] = spec.env
		got := h.run(t, "--json", "scaffold", dir, "--lang", "go")
		env := decodeEnvelope(t, got.stdout)
		var res map[string]any
		json.Unmarshal(env.Result, &res)
		wantRes := map[string]any{"lang": "go", "dir": dir, "files": []any{"go.mod", "main.go"},
			"sdk_version": cli.Version, "sdk_spec": spec.sdkSpec, "npm_installed": false}
		if diff := cmp.Diff(wantRes, res); got.code != 0 || diff != "" {
			t.Fatalf("ORCR_SDK_SPEC=%q: exit %d %s %s (-want +got):\n%s", spec.env, got.code, got.stdout, got.stderr, diff)
		}
		gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
		wantMod := "module orcr-workflow\n\ngo " + goLine(t, filepath.Join(repo, "go.mod")) + "\n\nrequire github.com/orcr-go/orcr " + spec.require + "\n"
		if spec.replace != "" {
			wantMod += "\nreplace github.com/orcr-go/orcr => " + spec.replace + "\n"
		}
		if string(gomod) != wantMod {
			t.Errorf("go.mod:\n%s\nwant:\n%s", gomod, wantMod)
		}
		mainGo, _ := os.ReadFile(filepath.Join(dir, "main.go"))
		tmpl, _ := os.ReadFile("scaffold/main.go.tmpl")
		if string(mainGo) != string(tmpl) {
			t.Errorf("main.go differs from scaffold/main.go.tmpl")
		}
	}
	if b, _ := os.ReadFile(record); string(b) != strings.Repeat(dir+" mod tidy\n", 3) {
		t.Errorf("go calls %q", b)
	}
}

// goLine is the go directive of the go.mod at path.
func goLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s has no go line", path)
	return ""
}

// The embedded SDK package is the one the scaffold pins, at the CLI's version.
func TestEmbeddedSDKPackage(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(ts.Files(), "package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Name, Version, Type string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Name != "@orchestratr/sdk" || pkg.Version != cli.Version || pkg.Type != "module" {
		t.Errorf("embedded package.json: %+v, want @orchestratr/sdk %s, type module", pkg, cli.Version)
	}
}
