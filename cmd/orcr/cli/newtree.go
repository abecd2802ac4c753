package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// newTree writes files that must not exist yet below one directory, and remembers
// everything it created, so that a command that fails half-way (`orcr scaffold` after a
// failed `npm install`, `orcr skill install` after a failed write) can take it all back
// and leave the disk as it found it. It never replaces or deletes anything it did not
// create. Not safe for concurrent use.
type newTree struct {
	dir string
	// created lists the directories and files made, in creation order.
	created []string
	// later are paths below dir that a program run after the writes may create
	// (node_modules, package-lock.json, go.sum) and that did not exist when the tree
	// was opened: undo removes them too.
	later []string
}

// openTree returns a tree for dir (absolute). later names paths relative to dir that a
// later step may create; those that exist now are left alone by undo. A dir that exists
// and is not a directory is refused with an error that has nothing to undo.
func openTree(dir string, later ...string) (*newTree, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, &fs.PathError{Op: "mkdir", Path: dir, Err: errors.New("exists and is not a directory")}
	}
	t := &newTree{dir: dir}
	for _, rel := range later {
		p := filepath.Join(dir, rel)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			t.later = append(t.later, p)
		}
	}
	return t, nil
}

// existing returns the first of rels (slash-separated paths relative to the tree's dir)
// that is in the way: the path itself exists in any form (a dangling symlink included),
// or one of its parents below the dir exists and is not a directory. "" when none is.
func (t *newTree) existing(rels ...string) string {
	for _, rel := range rels {
		parts := strings.Split(rel, "/")
		for i := range parts {
			sub := strings.Join(parts[:i+1], "/")
			fi, err := os.Lstat(filepath.Join(t.dir, filepath.FromSlash(sub)))
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil || i == len(parts)-1 || !fi.IsDir() {
				return sub
			}
		}
	}
	return ""
}

// mkdirAll creates dir (absolute, at or below the tree's dir or one of its missing
// ancestors) and each missing parent, recording each one it made.
func (t *newTree) mkdirAll(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return &fs.PathError{Op: "mkdir", Path: d, Err: errors.New("exists and is not a directory")}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(missing)
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
		t.created = append(t.created, d)
	}
	return nil
}

// writeFile creates rel (relative to the tree's dir, with its parents) holding data. A
// file already there is an error: nothing is ever overwritten.
func (t *newTree) writeFile(rel string, data []byte) error {
	p := filepath.Join(t.dir, rel)
	if err := t.mkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	t.created = append(t.created, p)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyFS writes every regular file of src below rel.
func (t *newTree) copyFS(rel string, src fs.FS) error {
	return fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(src, name)
		if err != nil {
			return err
		}
		return t.writeFile(filepath.Join(rel, filepath.FromSlash(name)), data)
	})
}

// undo removes what the tree created and the later paths that appeared, newest first. A
// directory it made goes with everything in it (only this command and the programs it
// ran wrote there). Errors are ignored: undo runs on a path that already failed.
func (t *newTree) undo() {
	for _, p := range t.later {
		os.RemoveAll(p)
	}
	for i := len(t.created) - 1; i >= 0; i-- {
		os.RemoveAll(t.created[i])
	}
	t.created, t.later = nil, nil
}
