package agentpath_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
	"github.com/orcr-go/orcr/store/storetest"
)

// Fixed uuids; the 0191aaaa ones share a long prefix like uuidv7 values of one millisecond.
const (
	uWorker     = "01900000-0000-7000-8000-000000000001" // review/worker, working
	uWorkerOld  = "01900000-0000-7000-8000-000000000002" // review/worker, ended (created 500)
	uWorkerOld2 = "01900000-0000-7000-8000-000000000003" // review/worker, ended (created 800)
	uGoneA      = "01900000-0000-7000-8000-000000000004" // review/gone, ended (created 100)
	uGoneB      = "01900000-0000-7000-8000-000000000005" // review/gone, ended (created 200)
	uChild      = "01900000-0000-7000-8000-000000000006" // review/child, queued
	uReviewer   = "01900000-0000-7000-8000-000000000007" // reviewer/x, idle
	uUnderscore = "01900000-0000-7000-8000-000000000008" // review/a_b, idle
	uAxb        = "01900000-0000-7000-8000-000000000009" // review/axb, idle
	uLeaf       = "01900000-0000-7000-8000-00000000000a" // review/sub/leaf, working
	uReview     = "01900000-0000-7000-8000-00000000000b" // review, idle
	uUnmanaged  = "01900000-0000-7000-8000-00000000000c" // unmanaged/s/p, unknown, unmanaged
	uHexPath    = "01900000-0000-7000-8000-00000000000d" // deadbeef, idle
	uLost       = "01900000-0000-7000-8000-00000000000e" // review/lost, lost
	uAmb1       = "0191aaaa-bbbb-7000-8000-000000000001" // amb/one, idle
	uAmb2       = "0191aaaa-bbbb-7000-8000-000000000002" // amb/two, ended
	uAmb3       = "0191aaaa-bbbc-7000-8000-000000000001" // amb/three, idle
	uSolo       = "0192cccc-0000-7000-8000-000000000001" // solo, ended

	uRunRunning  = "01930000-0000-7000-8000-000000000001" // nightly/r82c9s
	uRunOther    = "01930000-0000-7000-8000-000000000002" // nightly/rother
	uRunStopping = "01930000-0000-7000-8000-000000000003" // nightly/rstop1
	uRunDone     = "01930000-0000-7000-8000-000000000004" // nightly/rdone1
	uRunPaused   = "01930000-0000-7000-8000-000000000005" // held/r00001
)

func fixture(t *testing.T) *store.DB {
	t.Helper()
	db := storetest.Open(t)
	agent := func(uuid, path, status string, created int64, extra map[string]any) {
		cols := map[string]any{"uuid": uuid, "path": path, "status": status, "created_at": created, "agent": "claude"}
		for k, v := range extra {
			cols[k] = v
		}
		storetest.InsertAgent(t, db, cols)
	}
	agent(uWorker, "review/worker", "working", 1000, nil)
	agent(uWorkerOld, "review/worker", "ended", 500, map[string]any{"exit_reason": "killed"})
	agent(uWorkerOld2, "review/worker", "ended", 800, map[string]any{"exit_reason": "completed"})
	agent(uGoneA, "review/gone", "ended", 100, nil)
	agent(uGoneB, "review/gone", "ended", 200, nil)
	agent(uChild, "review/child", "queued", 1100, map[string]any{"agent": "codex"})
	agent(uReviewer, "reviewer/x", "idle", 1000, nil)
	agent(uUnderscore, "review/a_b", "idle", 1000, nil)
	agent(uAxb, "review/axb", "idle", 1000, nil)
	agent(uLeaf, "review/sub/leaf", "working", 1000, nil)
	agent(uReview, "review", "idle", 1000, nil)
	agent(uUnmanaged, "unmanaged/s/p", "unknown", 1000, map[string]any{"managed": 0, "agent": nil, "origin": "detected"})
	agent(uHexPath, "deadbeef", "idle", 1000, nil)
	agent(uLost, "review/lost", "lost", 1000, nil)
	agent(uAmb1, "amb/one", "idle", 1000, nil)
	agent(uAmb2, "amb/two", "ended", 1000, nil)
	agent(uAmb3, "amb/three", "idle", 1000, nil)
	agent(uSolo, "solo", "ended", 1000, nil)

	nightly := storetest.InsertLoop(t, db, map[string]any{"name": "nightly"})
	storetest.InsertRun(t, db, nightly, map[string]any{"uuid": uRunRunning, "run_id": "r82c9s"})
	storetest.InsertRun(t, db, nightly, map[string]any{"uuid": uRunOther, "run_id": "rother"})
	storetest.InsertRun(t, db, nightly, map[string]any{"uuid": uRunStopping, "run_id": "rstop1", "status": "stopping"})
	storetest.InsertRun(t, db, nightly, map[string]any{"uuid": uRunDone, "run_id": "rdone1", "status": "ok"})
	held := storetest.InsertLoop(t, db, map[string]any{"name": "held", "status": "paused"})
	storetest.InsertRun(t, db, held, map[string]any{"uuid": uRunPaused, "run_id": "r00001"})
	storetest.InsertLoop(t, db, map[string]any{"name": "old", "status": "ended"})
	return db
}

func uuids(rows []store.AgentRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.UUID
	}
	return out
}

var (
	rootCaller   = agentpath.Caller{}
	workerCaller = agentpath.Caller{ID: uWorker, Path: "review/worker"}
)

func TestCallerScopeAndParent(t *testing.T) {
	tests := []struct {
		name       string
		c          agentpath.CallerContext
		scope      string
		hasScope   bool
		parentID   string
		parentPath string
	}{
		{"root", agentpath.CallerContext{}, "", false, "", ""},
		{"agent is a file", agentpath.CallerContext{ID: "x", Path: "review/worker"}, "review", true, "x", "review/worker"},
		{"top-level agent", agentpath.CallerContext{ID: "x", Path: "worker"}, "", false, "x", "worker"},
		{"deep agent", agentpath.CallerContext{ID: "x", Path: "a/b/c"}, "a/b", true, "x", "a/b/c"},
		{"path without id", agentpath.CallerContext{Path: "review/worker"}, "review", true, "", "review/worker"},
		{"id without path", agentpath.CallerContext{ID: "x"}, "", false, "x", ""},
		{"run is a directory", agentpath.CallerContext{ID: "r", Path: "nightly/r82c9s", Run: true}, "nightly/r82c9s", true, "r", "nightly/r82c9s"},
		{"run without path", agentpath.CallerContext{ID: "r", Run: true}, "", false, "r", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scope, has := tc.c.Scope()
			if scope != tc.scope || has != tc.hasScope {
				t.Errorf("%+v.Scope(): got (%q, %v), want (%q, %v)", tc.c, scope, has, tc.scope, tc.hasScope)
			}
			id, path := tc.c.Parent()
			if id != tc.parentID || path != tc.parentPath {
				t.Errorf("%+v.Parent(): got (%q, %q), want (%q, %q)", tc.c, id, path, tc.parentID, tc.parentPath)
			}
		})
	}
}

func TestResolveCaller(t *testing.T) {
	db := fixture(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		id, path string
		wantRun  bool
		scope    string
		creates  string // effective path of --name child / --path a/b
		viaPath  bool
	}{
		{name: "root", creates: "child"},
		{name: "agent caller creates sibling", id: uWorker, path: "review/worker", scope: "review", creates: "review/child"},
		{name: "stale agent id still an agent", id: "01990000-0000-7000-8000-000000000000", path: "review/worker", scope: "review", creates: "review/child"},
		{name: "run caller creates inside", id: uRunRunning, path: "nightly/r82c9s", wantRun: true, scope: "nightly/r82c9s", creates: "nightly/r82c9s/a/b", viaPath: true},
		{name: "absolute ignores run scope", id: uRunRunning, path: "nightly/r82c9s", wantRun: true, scope: "nightly/r82c9s", creates: "review/worker/child", viaPath: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := agentpath.ResolveCaller(ctx, db.Reader(), tc.id, tc.path)
			if err != nil {
				t.Fatalf("ResolveCaller: %v", err)
			}
			if c.Run != tc.wantRun {
				t.Errorf("ResolveCaller(%q).Run: got %v, want %v", tc.id, c.Run, tc.wantRun)
			}
			scope, _ := c.Scope()
			if scope != tc.scope {
				t.Errorf("ResolveCaller(%q).Scope(): got %q, want %q", tc.id, scope, tc.scope)
			}
			name, path := "child", ""
			if tc.viaPath {
				name, path = "", "a/b"
				if tc.name == "absolute ignores run scope" {
					path = "/review/worker/child"
				}
			}
			got, err := agentpath.Creation(scope, name, path, nil)
			if err != nil || got != tc.creates {
				t.Errorf("Creation(%q, %q, %q): got (%q, %v), want %q", scope, name, path, got, err, tc.creates)
			}
		})
	}
}

func notFound(kv ...any) errShape {
	d := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i].(string)] = kv[i+1]
	}
	return errShape{wire.NotFound, d}
}

func TestResolveExact(t *testing.T) {
	db := fixture(t)
	ctx := context.Background()
	hexCaller := agentpath.Caller{ID: "x", Path: "review/w"}
	tests := []struct {
		name     string
		caller   agentpath.Caller
		target   string
		wantUUID string
		resolved string
		wantErr  errShape
	}{
		{name: "relative path active", caller: workerCaller, target: "worker", wantUUID: uWorker, resolved: "active"},
		{name: "absolute path", caller: workerCaller, target: "/review/worker", wantUUID: uWorker, resolved: "active"},
		{name: "root caller full path", target: "review/worker", wantUUID: uWorker, resolved: "active"},
		{name: "lost counts as active", target: "review/lost", wantUUID: uLost, resolved: "active"},
		{name: "latest ended", caller: workerCaller, target: "gone", wantUUID: uGoneB, resolved: "latest_ended"},
		{name: "scope applies", target: "gone", wantErr: notFound("target", "gone")},
		{name: "full uuid of ended row", target: uWorkerOld, wantUUID: uWorkerOld, resolved: "latest_ended"},
		{name: "uuid prefix with dash", target: "0191aaaa-bbbc", wantUUID: uAmb3, resolved: "active"},
		{name: "uuid prefix without dashes", target: "0191aaaabbbc", wantUUID: uAmb3, resolved: "active"},
		{name: "uppercase uuid", target: "0192CCCC-0000-7000-8000-000000000001", wantUUID: uSolo, resolved: "latest_ended"},
		{name: "hex prefix no path", target: "0192cccc", wantUUID: uSolo, resolved: "latest_ended"},
		{name: "uppercase hex prefix", target: "0192CCCC", wantUUID: uSolo, resolved: "latest_ended"},
		{name: "hex path wins over prefix", target: "deadbeef", wantUUID: uHexPath, resolved: "active"},
		{name: "hex scoped no path no uuid", caller: hexCaller, target: "deadbeef", wantErr: notFound("target", "deadbeef")},
		{name: "ambiguous prefix", target: "0191aaaa", wantErr: notFound("target", "0191aaaa",
			"candidates", []string{uAmb1, uAmb2, "0191aaaa-bbbc"})},
		{name: "ambiguous includes ended", target: "0191aaaa-bbbb", wantErr: notFound("target", "0191aaaa-bbbb",
			"candidates", []string{uAmb1, uAmb2})},
		{name: "short hex is a path", target: "0191aaa", wantErr: notFound("target", "0191aaa")},
		{name: "dash means uuid only", target: "foo-bar", wantErr: notFound("target", "foo-bar")},
		{name: "short dash prefix", target: "0191-aa", wantErr: notFound("target", "0191-aa")},
		{name: "unknown", caller: workerCaller, target: "nope", wantErr: notFound("target", "nope")},
		{name: "star", target: "review/*", wantErr: invalid("wildcard_not_allowed")},
		{name: "double star", caller: workerCaller, target: "**", wantErr: invalid("wildcard_not_allowed")},
		{name: "partial star", target: "review/w*", wantErr: invalid("invalid_pattern")},
		{name: "bad segment", target: "Review", wantErr: invalid("invalid_segment")},
		{name: "empty", target: "", wantErr: invalid("target_required")},
		{name: "slash", target: "/", wantErr: invalid("empty_pattern")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			row, resolved, err := agentpath.ResolveExact(ctx, db.Reader(), tc.caller, tc.target)
			checkErr(t, "ResolveExact("+tc.target+")", err, tc.wantErr)
			if row.UUID != tc.wantUUID || resolved != tc.resolved {
				t.Errorf("ResolveExact(%q): got (%s, %q), want (%s, %q)", tc.target, row.UUID, resolved, tc.wantUUID, tc.resolved)
			}
		})
	}
}

// TestResolveInsideTx: the resolvers read through a write transaction too.
func TestResolveInsideTx(t *testing.T) {
	db := fixture(t)
	got := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		row, _, err := agentpath.ResolveExact(tx.Context(), tx, workerCaller, "child")
		if err != nil {
			return nil, err
		}
		if err := agentpath.CheckLoopNamespace(tx.Context(), tx, "nightly/r82c9s/x", "nightly/r82c9s"); err != nil {
			return nil, err
		}
		rows, err := agentpath.ResolveBulk(tx.Context(), tx, workerCaller, []string{"*"})
		return append([]string{row.UUID}, uuids(rows)...), err
	})
	want := []string{uChild, uUnderscore, uAxb, uChild, uLost, uWorker}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolution inside a Tx (-want +got):\n%s", diff)
	}
}

func TestResolveBulk(t *testing.T) {
	db := fixture(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		caller  agentpath.Caller
		targets []string
		want    []string
		wantErr errShape
	}{
		{name: "star one level by path", caller: workerCaller, targets: []string{"*"},
			want: []string{uUnderscore, uAxb, uChild, uLost, uWorker}},
		{name: "star never matches prefix sibling", targets: []string{"review/*"},
			want: []string{uUnderscore, uAxb, uChild, uLost, uWorker}},
		{name: "double star excludes self", targets: []string{"review/**"},
			want: []string{uUnderscore, uAxb, uChild, uLost, uLeaf, uWorker}},
		{name: "self plus subtree", targets: []string{"review", "review/**"},
			want: []string{uReview, uUnderscore, uAxb, uChild, uLost, uLeaf, uWorker}},
		{name: "dedup first seen", caller: workerCaller, targets: []string{"worker", "*", uWorker, "/review/worker"},
			want: []string{uWorker, uUnderscore, uAxb, uChild, uLost}},
		{name: "underscore is literal", targets: []string{"review/a_b"}, want: []string{uUnderscore}},
		{name: "inner star", targets: []string{"*/sub/*"}, want: []string{uLeaf}},
		{name: "bare double star is everything active", targets: []string{"**"},
			want: []string{uAmb1, uAmb3, uHexPath, uReview, uUnderscore, uAxb, uChild, uLost, uLeaf, uWorker, uReviewer, uUnmanaged}},
		{name: "patterns skip ended rows", targets: []string{"amb/*"}, want: []string{uAmb1, uAmb3}},
		{name: "ambiguous prefix contributes nothing", targets: []string{"0191aaaa", "review/child"}, want: []string{uChild}},
		{name: "unique prefix", targets: []string{"0191aaaa-bbbc"}, want: []string{uAmb3}},
		{name: "ended path contributes nothing", caller: workerCaller, targets: []string{"gone"},
			wantErr: notFound("target", []string{"gone"})},
		{name: "ended uuid filtered", targets: []string{uSolo, "0192cccc"},
			wantErr: notFound("target", []string{uSolo, "0192cccc"})},
		{name: "unknown", targets: []string{"nope/*", "nope"}, wantErr: notFound("target", []string{"nope/*", "nope"})},
		{name: "malformed selector", targets: []string{"review/*", "Bad/*"}, wantErr: invalid("invalid_segment")},
		{name: "partial wildcard", targets: []string{"review/w*"}, wantErr: invalid("invalid_pattern")},
		{name: "no targets", targets: nil, wantErr: invalid("target_required")},
		{name: "empty target", targets: []string{""}, wantErr: invalid("empty_selector")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := agentpath.ResolveBulk(ctx, db.Reader(), tc.caller, tc.targets)
			checkErr(t, "ResolveBulk", err, tc.wantErr)
			if diff := cmp.Diff(tc.want, uuids(rows), cmpEmpty); diff != "" {
				t.Errorf("ResolveBulk(%q) (-want +got):\n%s", tc.targets, diff)
			}
		})
	}
}

var cmpEmpty = cmp.Transformer("nilEmpty", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

func TestResolveEnded(t *testing.T) {
	db := fixture(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		caller  agentpath.Caller
		targets []string
		want    []string
		wantErr errShape
	}{
		{name: "path to latest ended, patterns skipped", caller: workerCaller,
			targets: []string{"gone", "*", uWorkerOld}, want: []string{uGoneB, uWorkerOld}},
		{name: "active path falls back to its latest ended row", caller: workerCaller,
			targets: []string{"worker"}, want: []string{uWorkerOld2}},
		{name: "prefix unique among ended", targets: []string{"0191aaaa"}, want: []string{uAmb2}},
		{name: "hex prefix", targets: []string{"0192cccc", uSolo}, want: []string{uSolo}},
		{name: "nothing ended", targets: []string{"review/child", "review/*"},
			wantErr: notFound("target", []string{"review/child", "review/*"})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := agentpath.ResolveEnded(ctx, db.Reader(), tc.caller, tc.targets)
			checkErr(t, "ResolveEnded", err, tc.wantErr)
			if diff := cmp.Diff(tc.want, uuids(rows), cmpEmpty); diff != "" {
				t.Errorf("ResolveEnded(%q) (-want +got):\n%s", tc.targets, diff)
			}
		})
	}
}

func TestList(t *testing.T) {
	db := fixture(t)
	ctx := context.Background()
	allActive := []string{uAmb1, uAmb3, uHexPath, uReview, uUnderscore, uAxb, uChild, uLost, uLeaf, uWorker, uReviewer, uUnmanaged}
	tests := []struct {
		name    string
		caller  agentpath.Caller
		f       agentpath.ListFilter
		want    []string
		wantErr errShape
	}{
		{name: "no filter is every active row by path", f: agentpath.ListFilter{}, want: allActive},
		{name: "no pattern ignores scope", caller: workerCaller, want: allActive},
		{name: "all includes ended by path then created_at", f: agentpath.ListFilter{Pattern: "review/*", All: true},
			want: []string{uUnderscore, uAxb, uChild, uGoneA, uGoneB, uLost, uWorkerOld, uWorkerOld2, uWorker}},
		{name: "literal pattern is one path", caller: workerCaller, f: agentpath.ListFilter{Pattern: "worker", All: true},
			want: []string{uWorkerOld, uWorkerOld2, uWorker}},
		{name: "literal pattern active only", caller: workerCaller, f: agentpath.ListFilter{Pattern: "worker"}, want: []string{uWorker}},
		{name: "ended path without all", caller: workerCaller, f: agentpath.ListFilter{Pattern: "gone"}, want: nil},
		{name: "agent filter", f: agentpath.ListFilter{Pattern: "review/**", Agent: "codex"}, want: []string{uChild}},
		{name: "status filter", f: agentpath.ListFilter{Status: "working"}, want: []string{uLeaf, uWorker}},
		{name: "status ended needs all", f: agentpath.ListFilter{Status: "ended"}, want: nil},
		{name: "status ended with all", f: agentpath.ListFilter{Pattern: "review/gone", Status: "ended", All: true},
			want: []string{uGoneA, uGoneB}},
		{name: "unmanaged only", f: agentpath.ListFilter{Unmanaged: true}, want: []string{uUnmanaged}},
		{name: "managed only", f: agentpath.ListFilter{Pattern: "unmanaged/**", Managed: true}, want: nil},
		{name: "managed and unmanaged is no filter", f: agentpath.ListFilter{Pattern: "unmanaged/**", Managed: true, Unmanaged: true},
			want: []string{uUnmanaged}},
		{name: "uuid ignores other filters", f: agentpath.ListFilter{Pattern: uWorkerOld, Status: "idle", Unmanaged: true},
			want: []string{uWorkerOld}},
		{name: "hex with no such path is a uuid", caller: workerCaller, f: agentpath.ListFilter{Pattern: "0192cccc"}, want: []string{uSolo}},
		{name: "hex naming a path is a path", f: agentpath.ListFilter{Pattern: "deadbeef"}, want: []string{uHexPath}},
		{name: "hex naming an ended path is a path", f: agentpath.ListFilter{Pattern: "solo", All: true}, want: []string{uSolo}},
		{name: "ambiguous prefix", f: agentpath.ListFilter{Pattern: "0191aaaa-bbbb"},
			wantErr: notFound("target", "0191aaaa-bbbb", "candidates", []string{uAmb1, uAmb2})},
		{name: "unknown uuid", f: agentpath.ListFilter{Pattern: "abcdef12-"}, wantErr: notFound("target", "abcdef12-")},
		{name: "invalid pattern", f: agentpath.ListFilter{Pattern: "phase_*"}, wantErr: invalid("invalid_pattern")},
		{name: "no match is empty", f: agentpath.ListFilter{Pattern: "nope/**"}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := agentpath.List(ctx, db.Reader(), tc.caller, tc.f)
			checkErr(t, "List", err, tc.wantErr)
			if diff := cmp.Diff(tc.want, uuids(rows), cmpEmpty); diff != "" {
				t.Errorf("List(%+v) (-want +got):\n%s", tc.f, diff)
			}
		})
	}
}

func TestCheckLoopNamespace(t *testing.T) {
	db := fixture(t)
	ctx := context.Background()
	reserved := func(name string) errShape { return invalid("reserved_name", "name", name) }
	stopping := func(status string) errShape {
		return errShape{wire.StateConflict, map[string]any{"reason": "run_stopping", "current_status": status}}
	}
	tests := []struct {
		name       string
		path       string
		callerPath string
		wantErr    errShape
	}{
		{name: "no loop", path: "review/x", callerPath: ""},
		{name: "ended loop frees its name", path: "old/r00001/x", callerPath: ""},
		{name: "other name sharing a prefix", path: "nightlyx/a", callerPath: ""},
		{name: "run creates inside itself", path: "nightly/r82c9s/a/b", callerPath: "nightly/r82c9s"},
		{name: "agent inside run", path: "nightly/r82c9s/w2", callerPath: "nightly/r82c9s/w1"},
		{name: "other running run of same loop", path: "nightly/rother/x", callerPath: "nightly/r82c9s"},
		{name: "run by uuid", path: "nightly/" + uRunRunning + "/x", callerPath: "nightly/r82c9s"},
		{name: "caller outside loop", path: "nightly/r82c9s/x", callerPath: "review/worker", wantErr: reserved("nightly")},
		{name: "root caller", path: "nightly/r82c9s/x", callerPath: "", wantErr: reserved("nightly")},
		{name: "caller named like loop", path: "nightly/r82c9s/x", callerPath: "nightly", wantErr: reserved("nightly")},
		{name: "caller prefix sibling", path: "nightly/r82c9s/x", callerPath: "nightlyx/r1", wantErr: reserved("nightly")},
		{name: "loop root itself", path: "nightly", callerPath: "nightly/r82c9s", wantErr: reserved("nightly")},
		{name: "not a run", path: "nightly/rnope1/x", callerPath: "nightly/r82c9s", wantErr: reserved("nightly")},
		{name: "stopping run", path: "nightly/rstop1/x", callerPath: "nightly/r82c9s", wantErr: stopping("stopping")},
		{name: "finished run", path: "nightly/rdone1/x", callerPath: "nightly/rdone1", wantErr: stopping("ok")},
		{name: "paused loop protected", path: "held/r00001/x", callerPath: "review/w", wantErr: reserved("held")},
		{name: "paused loop running run", path: "held/r00001/x", callerPath: "held/r00001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := agentpath.CheckLoopNamespace(ctx, db.Reader(), tc.path, tc.callerPath)
			checkErr(t, "CheckLoopNamespace("+tc.path+")", err, tc.wantErr)
		})
	}
}
