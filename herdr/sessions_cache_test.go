package herdr

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Discovery's session list (every 3 s) runs herdr's list again only when a session was
// made or removed, or after sessionListMax; in between a session whose socket stops (or
// starts) answering is seen at once.
func TestSessionCacheListsAgainOnlyOnChange(t *testing.T) {
	cfgDir := shortDir(t)
	named := filepath.Join(cfgDir, "sessions", "a")
	if err := os.MkdirAll(named, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(named, "herdr.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	lists := 0
	now := time.Now()
	c := &sessionCache{now: func() time.Time { return now }, list: func(context.Context) ([]SessionInfo, error) {
		lists++
		return DirSessions(cfgDir)
	}}
	ctx := context.Background()
	check := func(what string, wantLists int, want map[string]bool) {
		t.Helper()
		rows, err := c.sessions(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got := map[string]bool{}
		for _, r := range rows {
			got[r.Name] = r.Running
		}
		if lists != wantLists || len(got) != len(want) {
			t.Fatalf("%s: %d lists, rows %v; want %d lists, rows %v", what, lists, got, wantLists, want)
		}
		for name, running := range want {
			if r, ok := got[name]; !ok || r != running {
				t.Errorf("%s: %s running %v (listed %v), want %v", what, name, r, ok, running)
			}
		}
	}
	check("first", 1, map[string]bool{"default": false, "a": true})
	check("nothing changed", 1, map[string]bool{"default": false, "a": true})
	ln.Close()
	check("a stopped", 1, map[string]bool{"default": false, "a": false})
	if err := os.Mkdir(filepath.Join(cfgDir, "sessions", "b"), 0o700); err != nil {
		t.Fatal(err)
	}
	check("b made", 2, map[string]bool{"default": false, "a": false, "b": false})
	check("b made, again", 2, map[string]bool{"default": false, "a": false, "b": false})
	now = now.Add(sessionListMax)
	check("after sessionListMax", 3, map[string]bool{"default": false, "a": false, "b": false})
}
