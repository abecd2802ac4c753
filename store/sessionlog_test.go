package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// logOf reads agent's whole session log and checks the envelope invariants every
// entry must hold: seq from 0 without gaps, UUIDv7 ids, at in microseconds.
func logOf(t *testing.T, db *store.DB, agent string) []store.LogEntry {
	t.Helper()
	es, err := db.LogAfter(context.Background(), agent, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range es {
		if e.Seq != int64(i) {
			t.Fatalf("entry %d has seq %d: the log must be gapless from 0", i, e.Seq)
		}
		var env map[string]any
		if err := json.Unmarshal(e.Frame(), &env); err != nil {
			t.Fatalf("frame of seq %d: %v", e.Seq, err)
		}
		if at, _ := env["at"].(string); !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`).MatchString(at) {
			t.Errorf("seq %d: at %q is not UTC with microseconds", e.Seq, at)
		}
		if env["session_id"] != agent || env["type"] != e.Type {
			t.Errorf("seq %d: envelope %v", e.Seq, env)
		}
	}
	return es
}

func types(es []store.LogEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type
	}
	return out
}

func logPayload(t *testing.T, e store.LogEntry) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func enqueue(t *testing.T, db *store.DB) string {
	t.Helper()
	id := storetest.NewUUID(t)
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return tx.Enqueue(store.NewAgent{UUID: id, Path: "a/" + id[:8], Provider: "mock", Model: "m1", Effort: "low",
			GCMode: store.GCAuto, Cwd: "/tmp", Session: "orcr"})
	})
	return id
}

// A managed agent's life — created, started, a turn with a steer and tool activity, the
// final response, killed mid-turn — is one gapless log in the order it happened.
func TestSessionLogFollowsTheAgent(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := enqueue(t, db)
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`UPDATE agents SET status = 'starting' WHERE uuid = ?`, id); err != nil {
			return nil, err
		}
		return nil, tx.SettleIdle(id)
	})
	turn := func(text string) int64 {
		return storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			seq, _, err := tx.OpenTurn(id, store.InputStatuses)
			if err != nil {
				return nil, err
			}
			return seq, tx.LogInput(id, seq, store.SourceRemote, text)
		}).(int64)
	}
	s1 := turn("first")
	s2 := turn("steer")
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		n, err := tx.LogTools(id, []store.ToolLog{{CallID: "c1", Name: "Bash", Args: json.RawMessage(`{"cmd":"ls"}`)},
			{Result: true, CallID: "c1", OK: true, Text: "a b"}, {CallID: "c2", Name: "Edit"}})
		if n != 3 {
			t.Errorf("LogTools appended %d, want 3", n)
		}
		return nil, err
	})
	// The same transcript read again appends nothing.
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		n, err := tx.LogTools(id, []store.ToolLog{{CallID: "c1", Name: "Bash"}, {Result: true, CallID: "c1", OK: true}})
		if n != 0 {
			t.Errorf("a repeated read appended %d entries", n)
		}
		return nil, err
	})
	// The first orcr turn completing does not close the log turn: a later input rides it.
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: s1, Response: "early"})
	})
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: s2, IdleFrom: store.StatusWorking, Response: "22C"})
	})
	s3 := turn("again")
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.EndAgent(id, []store.Status{store.StatusWorking}, store.ExitKilled)
	})
	es := logOf(t, db, id)
	// queued, idle (the raw update to starting emits nothing), working.
	want := []string{"session/created", "status/changed", "status/changed", "status/changed",
		"turn/start", "user/message", "context/injected", "tool/call", "tool/result", "tool/call",
		"assistant/message", "turn/end", "status/changed",
		"status/changed", "turn/start", "user/message",
		"turn/end", "status/changed", "session/ended"}
	if diff := cmp.Diff(want, types(es)); diff != "" {
		t.Fatalf("log types (-want +got):\n%s", diff)
	}
	created := logPayload(t, es[0])
	if created["path"] == nil || created["agent"] != "mock" || created["model"] != "m1" || created["gc"] != "auto" {
		t.Errorf("session/created payload %v", created)
	}
	if p := logPayload(t, es[4]); p["source"] != "remote" || p["input_seq"] != float64(s1) {
		t.Errorf("turn/start payload %v", p)
	}
	if p := logPayload(t, es[11]); p["status"] != "completed" || p["input_seq"] != float64(s2) {
		t.Errorf("turn/end payload %v, want completed naming input_seq %d", p, s2)
	}
	if p := logPayload(t, es[10]); p["text"] != "22C" {
		t.Errorf("assistant/message %v", p)
	}
	// The kill cut turn s3 short (it has no calls: c2 belonged to the closed turn, whose
	// completion needed no answers), so only its end is written, naming the killed input.
	if p := logPayload(t, es[16]); p["status"] != "cancelled" || p["reason"] != "killed" || p["input_seq"] != float64(s3) {
		t.Errorf("turn/end at kill %v", p)
	}
	if p := logPayload(t, es[18]); p["exit_reason"] != "killed" {
		t.Errorf("session/ended %v", p)
	}
	if p := logPayload(t, es[17]); p["status"] != "ended" || p["exit_reason"] != "killed" {
		t.Errorf("last status/changed %v", p)
	}
}

// A cancel answers every unanswered call and every standing approval, then closes the
// turn; verdicts are validated against the log.
func TestSessionLogCancelAndApprovals(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := enqueue(t, db)
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`UPDATE agents SET status = 'idle' WHERE uuid = ?`, id); err != nil {
			return nil, err
		}
		seq, _, err := tx.OpenTurn(id, store.InputStatuses)
		if err != nil {
			return nil, err
		}
		if err := tx.LogInput(id, seq, store.SourceOrcr, "go"); err != nil {
			return nil, err
		}
		_, err = tx.LogTools(id, []store.ToolLog{{CallID: "k1", Name: "Bash"}, {CallID: "k2", Name: "Write"}})
		return nil, err
	})
	write := func(op func(tx *store.Tx) error) error {
		res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) { return nil, op(tx) }})
		if err != nil {
			return err
		}
		return res[0].Err
	}
	if err := write(func(tx *store.Tx) error {
		ok, err := tx.RequestApproval(id, store.Approval{CallID: "k1", Name: "Bash", Args: json.RawMessage(`{"x":1}`)})
		if !ok {
			t.Error("first request not appended")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := write(func(tx *store.Tx) error {
		ok, err := tx.RequestApproval(id, store.Approval{CallID: "k1", Name: "Bash"})
		if ok {
			t.Error("a call asked twice in one turn")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	before := len(logOf(t, db, id))
	for _, call := range []string{"nope", "k2"} {
		err := write(func(tx *store.Tx) error {
			_, err := tx.ResolveApproval(id, call, store.VerdictApproved, "")
			return err
		})
		if !errors.Is(err, store.ErrStaleCall) {
			t.Errorf("verdict for %s: got %v, want ErrStaleCall", call, err)
		}
	}
	if n := len(logOf(t, db, id)); n != before {
		t.Errorf("stale verdicts appended %d entries", n-before)
	}
	if err := write(func(tx *store.Tx) error {
		ids, err := tx.CancelTurn(id, "user stop")
		if diff := cmp.Diff([]string{"k1"}, ids); diff != "" {
			t.Errorf("denied calls (-want +got):\n%s", diff)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	es := logOf(t, db, id)
	tail := es[before:]
	if diff := cmp.Diff([]string{"approval/resolved", "tool/result", "tool/result", "turn/end"}, types(tail)); diff != "" {
		t.Fatalf("cancel entries (-want +got):\n%s", diff)
	}
	if p := logPayload(t, tail[0]); p["verdict"] != "denied" || p["reason"] != "user stop" {
		t.Errorf("denial %v", p)
	}
	if p := logPayload(t, tail[1]); p["ok"] != false || p["text"] != store.CancelledBeforeExecution {
		t.Errorf("cancelled result %v", p)
	}
	if p := logPayload(t, tail[3]); p["status"] != "cancelled" || p["reason"] != "user stop" {
		t.Errorf("turn/end %v", p)
	}
	// A verdict for a request whose turn closed is stale; a second cancel finds no turn.
	if err := write(func(tx *store.Tx) error {
		_, err := tx.ResolveApproval(id, "k1", store.VerdictApproved, "")
		return err
	}); !errors.Is(err, store.ErrStaleCall) {
		t.Errorf("verdict after the turn closed: %v", err)
	}
	if err := write(func(tx *store.Tx) error { _, err := tx.CancelTurn(id, ""); return err }); !errors.Is(err, store.ErrNoTurn) {
		t.Errorf("cancel with no turn: %v", err)
	}
}

// The policy is rebuilt from the log: the last policy/updated wins.
func TestSessionLogPolicy(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := enqueue(t, db)
	ctx := context.Background()
	if p, err := store.Policy(ctx, db.Reader(), id); err != nil || p != nil {
		t.Fatalf("policy before any: %v %v", p, err)
	}
	for _, ps := range [][]string{{"Bash*"}, {"Read", "Grep"}} {
		storetest.Write(t, db, func(tx *store.Tx) (any, error) { return nil, tx.SetPolicy(id, ps) })
	}
	p, err := store.Policy(ctx, db.Reader(), id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Read", "Grep"}, p); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
}

// A rolled-back op leaves no entry and no gap: the next commit takes the same seq.
func TestSessionLogRollbackLeavesNoGap(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := enqueue(t, db)
	boom := errors.New("boom")
	res, _, err := db.Apply([]store.Op{
		func(tx *store.Tx) (any, error) { return nil, errors.Join(tx.SetModel(id, "main", "x"), boom) },
		func(tx *store.Tx) (any, error) { return nil, tx.SetModel(id, "main", "y") },
	})
	if err != nil || !errors.Is(res[0].Err, boom) || res[1].Err != nil {
		t.Fatalf("apply: %v %+v", err, res)
	}
	if len(res[0].Logs) != 0 || len(res[1].Logs) != 1 {
		t.Errorf("op logs: %d and %d, want 0 and 1", len(res[0].Logs), len(res[1].Logs))
	}
	es := logOf(t, db, id)
	last := es[len(es)-1]
	if p := logPayload(t, last); last.Type != "model/updated" || p["spec"] != "y" {
		t.Errorf("last entry %s %v", last.Type, p)
	}
}

// An agent's end revokes its stream tokens in the transaction that logs session/ended,
// and nothing is appended after session/ended: set_policy and set_model are refused
// (docs/remote.md §2, §3). A token issued after the end is live.
func TestSessionLogEndRevokesTokens(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := enqueue(t, db)
	ctx := context.Background()
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.IssueToken(id, "h1", false); err != nil {
			return nil, err
		}
		return tx.IssueToken(id, "h2", false)
	})
	if hs, err := store.LiveTokens(ctx, db.Reader(), id); err != nil || len(hs) != 2 {
		t.Fatalf("live tokens before the end: %v %v", hs, err)
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.EndAgent(id, []store.Status{store.StatusQueued}, store.ExitCanceled)
	})
	if hs, err := store.LiveTokens(ctx, db.Reader(), id); err != nil || len(hs) != 0 {
		t.Errorf("live tokens after the end: %v %v, want none", hs, err)
	}
	for name, op := range map[string]store.Op{
		"set_policy": func(tx *store.Tx) (any, error) { return nil, tx.SetPolicy(id, []string{"*"}) },
		"set_model":  func(tx *store.Tx) (any, error) { return nil, tx.SetModel(id, "main", "m2") },
	} {
		res, _, err := db.Apply([]store.Op{op})
		if err != nil || !errors.Is(res[0].Err, store.ErrLogEnded) {
			t.Errorf("%s after the end: %v %v, want ErrLogEnded", name, err, res[0].Err)
		}
	}
	if es := logOf(t, db, id); es[len(es)-1].Type != store.LogSessionEnded {
		t.Errorf("the log after the end: %v, want session/ended last", types(es))
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.IssueToken(id, "h3", false) })
	if hs, err := store.LiveTokens(ctx, db.Reader(), id); err != nil || len(hs) != 1 || hs[0] != "h3" {
		t.Errorf("a token issued after the end: %v %v, want it live", hs, err)
	}
}

// The last prompt is the last input the log holds, one that rode an open turn too.
func TestSessionLogLastPrompt(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := enqueue(t, db)
	ctx := context.Background()
	if p, ok, err := store.LastPrompt(ctx, db.Reader(), id); err != nil || ok {
		t.Fatalf("last prompt before any: %q %v %v", p, ok, err)
	}
	for i, text := range []string{"first", "second, while the first ran"} {
		storetest.Write(t, db, func(tx *store.Tx) (any, error) { return nil, tx.LogInput(id, int64(i+1), store.SourceOrcr, text) })
	}
	if p, ok, err := store.LastPrompt(ctx, db.Reader(), id); err != nil || !ok || p != "second, while the first ran" {
		t.Errorf("last prompt %q %v %v", p, ok, err)
	}
}
