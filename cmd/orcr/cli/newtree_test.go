package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

// undo takes back exactly what the tree made (new parents included) and what appeared
// at the later paths, and leaves everything that was there before.
func TestNewTreeUndo(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	os.WriteFile(filepath.Join(base, "keep.txt"), []byte("keep"), 0o644)
	os.Mkdir(filepath.Join(base, "node_modules"), 0o755) // there before: not a later path
	dir := filepath.Join(base, "a", "b")

	tree, err := openTree(dir, "lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.mkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := tree.writeFile("x.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := tree.copyFS("vendor/pkg", fstest.MapFS{"dist/index.js": {Data: []byte("js")}}); err != nil {
		t.Fatal(err)
	}
	if err := tree.writeFile("x.txt", []byte("again")); err == nil {
		t.Errorf("writeFile replaced a file")
	}
	os.WriteFile(filepath.Join(dir, "lock.json"), []byte("{}"), 0o644)
	if b, _ := os.ReadFile(filepath.Join(dir, "vendor", "pkg", "dist", "index.js")); string(b) != "js" {
		t.Errorf("copyFS wrote %q", b)
	}
	tree.undo()
	entries, _ := os.ReadDir(base)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"keep.txt", "node_modules"}) {
		t.Errorf("after undo %s holds %v, want keep.txt and node_modules", base, names)
	}

	// In a dir that existed, only the new files and later paths go.
	tree, _ = openTree(base, "lock.json", "node_modules")
	tree.writeFile("new/y.txt", []byte("y"))
	os.WriteFile(filepath.Join(base, "lock.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(base, "node_modules", "z"), []byte("z"), 0o644)
	tree.undo()
	entries, _ = os.ReadDir(base)
	names = nil
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"keep.txt", "node_modules"}) {
		t.Errorf("after undo %s holds %v", base, names)
	}
	if _, err := os.Stat(filepath.Join(base, "node_modules", "z")); err != nil {
		t.Errorf("undo removed from node_modules, which was there before: %v", err)
	}
}

func TestNewTreeExisting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("nowhere", filepath.Join(dir, "sub", "dangling"))
	tree, _ := openTree(dir)
	for rel, want := range map[string]string{
		"free": "", "sub/free": "", "file": "file", "file/below": "file",
		"sub/dangling": "sub/dangling", "sub": "sub",
	} {
		if got := tree.existing(rel); got != want {
			t.Errorf("existing(%q) = %q, want %q", rel, got, want)
		}
	}
	if _, err := openTree(filepath.Join(dir, "file")); err == nil {
		t.Errorf("openTree of a file: no error")
	}
}
