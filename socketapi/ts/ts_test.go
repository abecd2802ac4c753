package ts_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/ts"
)

// The embedded package is what `orcr scaffold` writes into a project: its manifest must
// name the SDK at the CLI's version (cli.Version is api.Version) and point at files
// that are there.
func TestFilesIsThePackage(t *testing.T) {
	files := ts.Files()
	raw, err := fs.ReadFile(files, "package.json")
	if err != nil {
		t.Fatalf("Files(): no package.json: %v", err)
	}
	var pkg struct {
		Name, Version, Type, Main, Types string
		Engines                          map[string]string
		Dependencies                     map[string]string
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	if pkg.Name != "@orchestratr/sdk" || pkg.Version != api.Version || pkg.Type != "module" {
		t.Errorf("package.json: got name %q version %q type %q, want @orchestratr/sdk %s module", pkg.Name, pkg.Version, pkg.Type, api.Version)
	}
	if len(pkg.Dependencies) != 0 {
		t.Errorf("package.json: runtime dependencies %v, want none", pkg.Dependencies)
	}
	if pkg.Engines["node"] != ">=20" {
		t.Errorf("package.json: engines.node %q, want >=20", pkg.Engines["node"])
	}
	for _, name := range []string{pkg.Main, pkg.Types, "dist/index.js", "dist/index.d.ts", "dist/generated.js", "README.md"} {
		if _, err := fs.Stat(files, name); err != nil {
			t.Errorf("Files(): %s missing: %v", name, err)
		}
	}
	// Every relative import of the built package resolves inside it.
	imp := regexp.MustCompile(`from "(\./[^"]+)"`)
	fs.WalkDir(files, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(files, p)
		for _, m := range imp.FindAllSubmatch(b, -1) {
			target := filepath.Join(filepath.Dir(p), string(m[1]))
			if _, err := fs.Stat(files, target); err != nil {
				t.Errorf("%s imports %s, which the package lacks", p, m[1])
			}
		}
		return nil
	})
}

// The SDK applies no client timeout to the methods whose deadline the server owns; its
// list must follow the method table's Unbounded flags.
func TestUnboundedMethodsFollowTheTable(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("src", "wire.ts"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`UNBOUNDED_METHODS[^=]*= Object\.freeze\(\[([^\]]*)\]\)`).FindSubmatch(src)
	if m == nil {
		t.Fatal("src/wire.ts: no UNBOUNDED_METHODS list")
	}
	var got []string
	for _, q := range regexp.MustCompile(`"([^"]+)"`).FindAllSubmatch(m[1], -1) {
		got = append(got, string(q[1]))
	}
	var want []string
	for _, spec := range api.Methods {
		if spec.Info().Unbounded {
			want = append(want, spec.Info().Name)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("UNBOUNDED_METHODS: got %v, want the table's %v", got, want)
	}
}

// node finds node and the package's installed dev dependencies (npm ci). Without them
// the test is skipped with the reason, unless CI=1 (or true) or ORCR_REQUIRE_NODE=1,
// where it fails: CI installs Node.
func node(t *testing.T) (nodeBin string) {
	t.Helper()
	reason := ""
	nodeBin, err := exec.LookPath("node")
	switch {
	case err != nil:
		reason = "node is not on PATH"
	case !exists(filepath.Join("node_modules", ".bin", "tsc")) || !exists(filepath.Join("node_modules", ".bin", "tsx")):
		reason = "socketapi/ts/node_modules is missing: run `npm ci` in socketapi/ts"
	default:
		return nodeBin
	}
	if RequireNode() {
		t.Fatalf("%s (required: CI or ORCR_REQUIRE_NODE is set)", reason)
	}
	t.Skipf("skipped: %s", reason)
	return ""
}

// RequireNode reports whether a missing Node must fail the Node-backed tests.
func RequireNode() bool {
	ci := strings.ToLower(os.Getenv("CI"))
	return ci == "1" || ci == "true" || os.Getenv("ORCR_REQUIRE_NODE") == "1"
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// dist/ is committed so that `go build` needs no Node; it must be exactly what
// `npm run build` makes of src/.
func TestDistIsCurrent(t *testing.T) {
	node(t)
	out := t.TempDir()
	run(t, nil, filepath.Join("node_modules", ".bin", "tsc"), "-p", "tsconfig.json", "--outDir", out)
	built := tree(t, out)
	committed := tree(t, "dist")
	for name, b := range built {
		c, ok := committed[name]
		switch {
		case !ok:
			t.Errorf("dist/%s is not committed: run `npm run build` in socketapi/ts", name)
		case !bytes.Equal(b, c):
			t.Errorf("dist/%s is stale: run `npm run build` in socketapi/ts", name)
		}
	}
	for name := range committed {
		if _, ok := built[name]; !ok {
			t.Errorf("dist/%s is not built from src/ any more: remove it", name)
		}
	}
}

func tree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// src/generated.ts must be what codegen makes of a freshly built orcr's `api schema`,
// and the CLI's version the package's.
func TestCodegenCheck(t *testing.T) {
	node(t)
	bin := filepath.Join(t.TempDir(), "orcr")
	run(t, nil, "go", "build", "-o", bin, "../../cmd/orcr")
	if got := strings.TrimSpace(run(t, nil, bin, "--version")); got != "orcr "+api.Version {
		t.Errorf("orcr --version: got %q, want orcr %s", got, api.Version)
	}
	t.Log(run(t, []string{"ORCR_BIN=" + bin}, filepath.Join("node_modules", ".bin", "tsx"), "scripts/codegen.ts", "--check"))
}

// The SDK's unit tests (npm test: path grammar, scopes, errors, wire framing, auto-start,
// the helper mapping, codegen), so that `go test ./...` runs them too.
func TestNodeUnitTests(t *testing.T) {
	node(t)
	tests, _ := filepath.Glob(filepath.Join("test", "*.test.ts"))
	if len(tests) == 0 {
		t.Fatal("no test/*.test.ts")
	}
	out := run(t, nil, filepath.Join("node_modules", ".bin", "tsx"), append([]string{"--test", "--test-reporter=dot"}, tests...)...)
	t.Log(out)
}

// The sources, scripts, tests (among them a program in the documented style, compiled
// against the built dist/index.d.ts) and the benchmark typecheck.
func TestTypecheck(t *testing.T) {
	node(t)
	run(t, nil, filepath.Join("node_modules", ".bin", "tsc"), "-p", "tsconfig.check.json")
}
