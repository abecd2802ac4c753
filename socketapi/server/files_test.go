package server_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/server"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// Every file the server creates in the home is private to the user (0600): the store
// and its WAL hold every prompt and path, the log names them too.
func TestHomeFilesArePrivate(t *testing.T) {
	t.Parallel()
	home := sockettest.TempHome(t)
	opts := quietOptions(home)
	opts.Log = nil // the real log file under <home>/logs
	opts.Getenv = func(k string) string {
		if k == "ORCR_DEBUG_METHODS" {
			return "1"
		}
		return ""
	}
	s, _, err := server.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c := &socketapi.Client{Socket: s.Socket()}
	if err := c.Call(context.Background(), "__debug.emit_event", nil, nil); err != nil {
		t.Fatal(err)
	}
	check := func(when string, atLeast int) {
		t.Helper()
		n := 0
		filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n++
			if perm := fi.Mode().Perm(); perm&0o077 != 0 {
				t.Errorf("%s: %s has mode %#o, want no group or other bits", when, path, perm)
			}
			return nil
		})
		if n < atLeast {
			t.Errorf("%s: only %d files in the home, want at least %d", when, n, atLeast)
		}
	}
	check("while serving", 5) // store, -wal, -shm, lock, log
	s.Stop()
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	check("after stop", 3) // the WAL is checkpointed away
}
