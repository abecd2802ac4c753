package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// maxTrackedFile is the largest file the repository may track: binaries and generated
// artefacts belong in .gitignore, not in the history every clone downloads.
const maxTrackedFile = 1 << 20

// TestNoLargeTrackedFiles fails when git tracks a file over 1 MiB.
func TestNoLargeTrackedFiles(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the tests run from a git checkout)", err)
	}
	files := bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0})
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
