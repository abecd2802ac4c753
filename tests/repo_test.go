package tests

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maxTrackedFile is the largest file the repository may track: binaries and generated
// artefacts belong in .gitignore, not in the history every clone downloads.
const maxTrackedFile = 1 << 20

// trackedFiles is the repository's root and what git tracks in it.
func trackedFiles(t *testing.T) (root string, files [][]byte) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the tests run from a git checkout)", err)
	}
	return root, bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0})
}

// TestNoLargeTrackedFiles fails when git tracks a file over 1 MiB.
func TestNoLargeTrackedFiles(t *testing.T) {
	root, files := trackedFiles(t)
	if len(files) < 10 {
		t.Fatalf("git ls-files listed %d files; expected the whole repository", len(files))
	}
	for _, f := range files {
		fi, err := os.Lstat(filepath.Join(root, string(f)))
		if err != nil {
			continue // deleted in the work tree but not yet in the index
		}
		if fi.Mode().IsRegular() && fi.Size() > maxTrackedFile {
			t.Errorf("%s is tracked and %d bytes (> 1 MiB): remove it and add it to .gitignore", f, fi.Size())
		}
	}
}

// topLevel is the repository's top level as the design card fixes it (README.md's
// layout): the seven folders of code, the module files, the task runner, the README, the
// reference and CI.
var topLevel = []string{".ci", ".gitignore", "README.md", "actors", "cmd", "config", "docs", "go.mod", "go.sum",
	"herdr", "justfile", "socketapi", "store", "tests"}

// TestTopLevelIsTheDesignCards fails when git tracks anything at the top level beyond
// topLevel: a new package goes under one of the seven folders.
func TestTopLevelIsTheDesignCards(t *testing.T) {
	_, files := trackedFiles(t)
	seen := map[string]bool{}
	for _, f := range files {
		top, _, _ := strings.Cut(string(f), "/")
		seen[top] = true
	}
	for top := range seen {
		if !slices.Contains(topLevel, top) {
			t.Errorf("%s is tracked at the top level: the design card allows only %s", top, strings.Join(topLevel, " "))
		}
	}
	if len(seen) < 10 {
		t.Fatalf("git ls-files listed %d top-level entries; expected the whole repository", len(seen))
	}
}

// TestEveryFuzzTargetInJustFuzz fails when a `func FuzzXxx` of the repository is missing
// from the `just fuzz` recipe, which runs each coverage-guided (CI runs only the seeds):
// a parser of outside input added without its fuzz run would go unfuzzed.
func TestEveryFuzzTargetInJustFuzz(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	justfile, err := os.ReadFile(filepath.Join(root, "justfile"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range decl.FindAllSubmatch(src, -1) {
			found++
			want := "-fuzz '^" + string(m[1]) + "$' -fuzztime 5s ./" + filepath.ToSlash(rel) + "\n"
			if !bytes.Contains(justfile, []byte(want)) {
				t.Errorf("%s (%s) is not in the justfile's fuzz recipe: add the line\n    go test -run '^$' %s", m[1], rel, strings.TrimSpace(want))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 20 {
		t.Errorf("found %d fuzz targets; the repository has at least 20", found)
	}
}
