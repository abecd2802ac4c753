package server_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// crashed is a server whose first run left an idle agent, then stopped; before the
// second run starts, the test writes into the store the state a crash at some point
// would have left (a server stop never leaves these: its ops finish).
type crashed struct {
	t    *testing.T
	home string
	sock string // the owned herdr session's socket, the same for both runs
	opts []sockettest.Option
	a    agentRow
}

func newCrashed(t *testing.T, path string, runParams map[string]any, opts ...sockettest.Option) *crashed {
	cr := &crashed{t: t, home: sockettest.TempHome(t)}
	cr.opts = append([]sockettest.Option{sockettest.WithHerdr(t), sockettest.WithHome(cr.home)}, opts...)
	srv := sockettest.NewServer(t, cr.opts...)
	cr.sock = srv.HerdrSocket()
	c := srv.Client(t)
	runParams["path"] = path
	a, err := run(t, c, runParams)
	if err != nil {
		t.Fatal(err)
	}
	cr.a = waitStatus(t, c, a.UUID, "idle")
	srv.Stop()
	if err := srv.Wait(); err != nil {
		t.Fatal(err)
	}
	return cr
}

// leave writes what the crash left, in one transaction.
func (cr *crashed) leave(op func(tx *store.Tx) error) {
	db, err := store.Open(cr.home + "/orcr.db")
	if err != nil {
		cr.t.Fatal(err)
	}
	defer db.Close()
	res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) { return nil, op(tx) }})
	if err == nil {
		err = res[0].Err
	}
	if err != nil {
		cr.t.Fatal(err)
	}
}

// restart starts the second run, recording every event from the start.
func (cr *crashed) restart() (*socketapi.Client, *recorder) {
	srv := sockettest.NewServer(cr.t, cr.opts...)
	c := srv.Client(cr.t)
	return c, record(cr.t, c)
}

func paneExists(t *testing.T, sock, paneOrTerminal string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := herdr.NewRemote(sock).ResolvePane(ctx, paneOrTerminal)
	return err == nil
}

// cutDelivery opens the next turn of uuid from status from and records its input
// intent, as a delivery of prompt does before typing it; it returns the intent's op id.
func cutDelivery(tx *store.Tx, uuid string, from store.Status, prompt string) (string, error) {
	seq, was, err := tx.OpenTurn(uuid, []store.Status{from})
	if err != nil {
		return "", err
	}
	a, err := tx.Agent(uuid)
	if err != nil {
		return "", err
	}
	opID, _, err := tx.Intent(uuid, &api.AgentInputRequested{InputSeq: seq, Target: a.TerminalID,
		Bytes: len(prompt), Probe: prompt, From: was})
	return opID, err
}

func noOpenIntents(t *testing.T, rec *recorder) {
	t.Helper()
	rec.waitForD(t, 20*time.Second, "every intent applied",
		func(evs []ev) bool { return len(openIntents(evs)) == 0 }, describeOpen)
}

// Defect 2: a kill cut off by a crash after its close intent (the shutdown line may
// have been typed) is finished at restart: the pane is closed, the intent applied as
// repaired, and the row ends killed — never a live row on a vanished pane.
func TestRecoveryFinishesACutOffTeardown(t *testing.T) {
	t.Parallel()
	cr := newCrashed(t, "rcv/kill", map[string]any{"gc": "never", "prompt": "turn_ms=20"})
	terminal := ""
	cr.leave(func(tx *store.Tx) error {
		a, err := tx.Agent(cr.a.UUID)
		terminal = a.TerminalID
		if err != nil {
			return err
		}
		_, _, err = tx.Intent(cr.a.UUID, &api.AgentCloseRequested{Target: a.TerminalID, Reason: "killed"})
		return err
	})
	c, rec := cr.restart()
	row := waitStatus(t, c, cr.a.UUID, "ended")
	if row.ExitReason != "killed" {
		t.Errorf("exit reason %q, want killed", row.ExitReason)
	}
	noOpenIntents(t, rec)
	if paneExists(t, cr.sock, terminal) {
		t.Error("the pane of the cut-off kill is still there")
	}
}

// Defect 6: a kill that landed during a spawn, with a crash before the spawn was
// recorded, leaves an ended row, an open spawn intent and a pane nobody owns: restart
// closes the pane and the intent (ok, with the pane's ids).
func TestRecoveryClosesASpawnIntentOfAnEndedRow(t *testing.T) {
	t.Parallel()
	cr := newCrashed(t, "rcv/spawn", map[string]any{"gc": "never"})
	terminal := ""
	cr.leave(func(tx *store.Tx) error {
		a, err := tx.Agent(cr.a.UUID)
		if err != nil {
			return err
		}
		terminal = a.TerminalID
		if _, err := tx.Exec(`UPDATE agents SET terminal_id = NULL, pane_id = NULL WHERE uuid = ?`, cr.a.UUID); err != nil {
			return err
		}
		if err := tx.EndAgent(cr.a.UUID, []store.Status{store.StatusIdle}, store.ExitCanceled); err != nil {
			return err
		}
		_, _, err = tx.Intent(cr.a.UUID, &api.AgentSpawnRequested{Workspace: "rcv", Label: "rcv/spawn"})
		return err
	})
	_, rec := cr.restart()
	noOpenIntents(t, rec)
	poll.Eventually(t, 10*time.Second, "the orphan pane closed", func() bool { return !paneExists(t, cr.sock, terminal) })
	for _, e := range rec.events() {
		if e.Kind == "agent.spawn_applied" && (e.OK == nil || !*e.OK) {
			t.Errorf("spawn intent closed %+v, want ok (the pane had been made)", e)
		}
	}
}

// Defect 1: a crash between typing a prompt and Enter leaves the text in the input box
// and the row working with a turn that cannot finish. Restart clears the box and undoes
// the turn; the next prompt is answered alone, not glued onto the old text.
func TestRecoveryUndoesAnUnsubmittedPrompt(t *testing.T) {
	t.Parallel()
	cr := newCrashed(t, "rcv/input", map[string]any{"gc": "never", "prompt": "turn_ms=20"})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	r := herdr.NewRemote(cr.sock)
	if err := r.SendText(ctx, *cr.a.PaneID, "say=first"); err != nil {
		t.Fatal(err)
	}
	cr.leave(func(tx *store.Tx) error {
		seq, _, err := tx.OpenTurn(cr.a.UUID, []store.Status{store.StatusIdle})
		if err != nil {
			return err
		}
		a, err := tx.Agent(cr.a.UUID)
		if err != nil {
			return err
		}
		_, _, err = tx.Intent(cr.a.UUID, &api.AgentInputRequested{InputSeq: seq, Target: a.TerminalID,
			Bytes: 9, Probe: "say=first"})
		return err
	})
	c, rec := cr.restart()
	row := waitStatus(t, c, cr.a.UUID, "idle")
	noOpenIntents(t, rec)
	if _, err := c.Send(t.Context(), api.SendRequest{Target: cr.a.UUID, Prompt: "say=second turn_ms=20"}); err != nil {
		t.Fatal(err)
	}
	if w, err := c.Wait(t.Context(), api.WaitRequest{Targets: []string{row.UUID}, Timeout: "30s"}); err != nil || !w.AllOK {
		t.Fatalf("turn after recovery: %+v %v", w, err)
	}
	if got := lastResponse(t, c, "rcv/input"); got != "second\nDONE" {
		t.Errorf("answer %q, want the second prompt alone", got)
	}
}

// A crash while a prompt was being typed into an agent busy with an earlier turn: the
// TUI takes typed input only when that turn is over, so herdr's working says nothing
// about the new prompt. Restart undoes the new turn (nothing typed into the busy TUI),
// the row goes on with the earlier turn and settles when it completes, and the next
// prompt is answered alone. (Marking the prompt submitted, as herdr's working once
// made recovery do, left a turn open that nothing could complete: the crash campaign
// found it.)
func TestRecoveryUndoesAPromptTypedIntoABusyAgent(t *testing.T) {
	t.Parallel()
	cr := newCrashed(t, "rcv/busy", map[string]any{"gc": "never", "prompt": "turn_ms=20"})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	r := herdr.NewRemote(cr.sock)
	// The earlier turn, typed as orcr would have: the mock works for 4 s.
	if err := r.SendText(ctx, *cr.a.PaneID, "say=earlier turn_ms=4000"); err != nil {
		t.Fatal(err)
	}
	if err := r.SendKeys(ctx, *cr.a.PaneID, "Enter"); err != nil {
		t.Fatal(err)
	}
	// The new prompt cut off before its Enter, while the mock works.
	if err := r.SendText(ctx, *cr.a.PaneID, "say=cut"); err != nil {
		t.Fatal(err)
	}
	var opID string
	cr.leave(func(tx *store.Tx) (err error) {
		if _, _, err := tx.OpenTurn(cr.a.UUID, []store.Status{store.StatusIdle}); err != nil {
			return err
		}
		if err := tx.MarkDelivered(cr.a.UUID, 2, 0); err != nil {
			return err
		}
		opID, err = cutDelivery(tx, cr.a.UUID, store.StatusWorking, "say=cut")
		return err
	})
	c, rec := cr.restart()
	noOpenIntents(t, rec)
	applied := func(evs []ev) (out []ev) {
		for _, e := range evs {
			if e.Kind == "agent.input_applied" && e.OpID == opID {
				out = append(out, e)
			}
		}
		return out
	}
	evs := rec.waitFor(t, 20*time.Second, "the cut-off input applied", func(evs []ev) bool { return len(applied(evs)) > 0 })
	if in := applied(evs); len(in) != 1 || in[0].OK == nil || *in[0].OK {
		t.Errorf("the cut-off delivery: %+v, want one input_applied, ok false (the turn undone)", in)
	}
	if w, err := c.Wait(t.Context(), api.WaitRequest{Targets: []string{cr.a.UUID}, Timeout: "30s"}); err != nil || !w.AllOK {
		t.Fatalf("the earlier turn after recovery: %+v %v, want it completed", w, err)
	}
	if got := lastResponse(t, c, "rcv/busy"); got != "earlier\nDONE" {
		t.Errorf("answer %q, want the earlier turn's", got)
	}
	if _, err := c.Send(t.Context(), api.SendRequest{Target: cr.a.UUID, Prompt: "say=third turn_ms=20"}); err != nil {
		t.Fatal(err)
	}
	if w, err := c.Wait(t.Context(), api.WaitRequest{Targets: []string{cr.a.UUID}, Timeout: "30s"}); err != nil || !w.AllOK {
		t.Fatalf("turn after recovery: %+v %v", w, err)
	}
	if got := lastResponse(t, c, "rcv/busy"); got != "third\nDONE" {
		t.Errorf("answer %q, want the third prompt alone", got)
	}
}

// Defect 2, second half: a gc-immediate agent whose turn completed before a crash cut
// its teardown off is torn down at restart and ends completed.
func TestRecoveryResumesAGCImmediateTeardown(t *testing.T) {
	t.Parallel()
	cr := newCrashed(t, "rcv/imm", map[string]any{"gc": "never", "prompt": "turn_ms=20"})
	cr.leave(func(tx *store.Tx) error {
		_, err := tx.Exec(`UPDATE agents SET gc_mode = 'immediate', status = 'working' WHERE uuid = ?`, cr.a.UUID)
		return err
	})
	c, rec := cr.restart()
	row := waitStatus(t, c, cr.a.UUID, "ended")
	if row.ExitReason != "completed" {
		t.Errorf("exit reason %q, want completed", row.ExitReason)
	}
	noOpenIntents(t, rec)
	if paneExists(t, cr.sock, *cr.a.PaneID) {
		t.Error("the pane is still there")
	}
}

// cutFirstPrompt leaves what two quick crashes can leave of an agent's first prompt:
// its turn opened and its input intent recorded, the prompt not typed (or cleared from
// the box again), and the TUI's start-up transcript written after the turn opened. The
// agent was started without a prompt, so no screen shows one; launch.json then gets
// the first prompt. opts go to both servers (the mock takes its knobs from the first).
func cutFirstPrompt(t *testing.T, path, prompt string, opts ...sockettest.Option) (cr *crashed, opID string) {
	cr = newCrashed(t, path, map[string]any{"gc": "never"}, opts...)
	dir := actors.AgentDataDir(cr.home, path, cr.a.UUID)
	l, err := actors.ReadLaunch(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Prompt = &prompt
	if err := actors.WriteLaunch(dir, l); err != nil {
		t.Fatal(err)
	}
	cr.leave(func(tx *store.Tx) (err error) {
		opID, err = cutDelivery(tx, cr.a.UUID, store.StatusIdle, prompt)
		return err
	})
	transcript := filepath.Join(dir, "transcript.jsonl")
	if err := os.WriteFile(transcript, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(transcript, later, later); err != nil {
		t.Fatal(err)
	}
	return cr, opID
}

// inputApplied returns the agent.input_applied events of op opID.
func inputApplied(evs []ev, opID string) (out []ev) {
	for _, e := range evs {
		if e.Kind == "agent.input_applied" && e.OpID == opID {
			out = append(out, e)
		}
	}
	return out
}

// Issue 32, defect 2: two quick crashes cut off an agent's first prompt after its turn
// was opened and before the text reached the TUI, which wrote its (empty) transcript
// at start-up after the turn's delivered_at. A transcript written since the delivery is
// no evidence that the prompt arrived: recovery types the first prompt again and the
// turn is answered — never marked delivered with a prompt the agent never got.
func TestRecoveryRedeliversAFirstPromptTheAgentNeverGot(t *testing.T) {
	t.Parallel()
	cr, opID := cutFirstPrompt(t, "rcv/first", "say=first turn_ms=20")
	answeredAfterRestart(t, cr, opID, "first\nDONE")
}

// answeredAfterRestart restarts cr's server and checks that its cut-off first prompt
// (intent opID) is applied ok and its turn answered with answer.
func answeredAfterRestart(t *testing.T, cr *crashed, opID, answer string) {
	t.Helper()
	c, rec := cr.restart()
	evs := rec.waitFor(t, 30*time.Second, "the cut-off input applied", func(evs []ev) bool { return len(inputApplied(evs, opID)) > 0 })
	if in := inputApplied(evs, opID); len(in) != 1 || in[0].OK == nil || !*in[0].OK {
		t.Errorf("the cut-off first prompt: %+v, want one input_applied, ok", in)
	}
	noOpenIntents(t, rec)
	if w, err := c.Wait(t.Context(), api.WaitRequest{Targets: []string{cr.a.UUID}, Timeout: "30s"}); err != nil || !w.AllOK {
		t.Fatalf("the first turn after recovery: %+v %v, want it answered", w, err)
	}
	if got := lastResponse(t, c, cr.a.UUID); got != answer {
		t.Errorf("answer %q, want %q", got, answer)
	}
}

// A first prompt the TUI took just before the crash, whose evidence comes late: the mock
// reports working 1.5 s after taking it and writes its transcript at the end of the
// turn, while the restarted server looks at once. Recovery looks again until the
// provider's fast-turn window (5 s here) has passed since its first look, sees it
// working and settles the delivery as submitted; it never types the prompt again (seen
// with the real claude: its first request reached the model 90 ms before the look that
// typed it again, and claude answered it twice; docs/lifecycle.md §13.1).
func TestRecoveryWaitsForLateEvidenceOfATakenPrompt(t *testing.T) {
	t.Parallel()
	const prompt = "say=late turn_ms=20"
	cr, opID := cutFirstPrompt(t, "rcv/late", prompt, sockettest.WithEnv("ORCR_MOCK_DELAY_WORKING_MS", "1500"),
		sockettest.WithConfig(`{"integrations": {"mock": {"fast_turn_grace_ms": 5000}}}`))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// The prompt reaches the TUI as the crashed server's delivery left it: typed and
	// entered, its intent open.
	if err := herdr.NewRemote(cr.sock).Submit(ctx, *cr.a.PaneID, herdr.Submission{Text: prompt, Pause: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	c, rec := cr.restart()
	evs := rec.waitFor(t, 30*time.Second, "the cut-off input applied", func(evs []ev) bool { return len(inputApplied(evs, opID)) > 0 })
	if in := inputApplied(evs, opID); len(in) != 1 || in[0].OK == nil || !*in[0].OK || in[0].TypedAgain != nil {
		t.Errorf("the cut-off first prompt: %+v, want one input_applied, ok, not typed again", in)
	}
	if w, err := c.Wait(t.Context(), api.WaitRequest{Targets: []string{cr.a.UUID}, Timeout: "30s"}); err != nil || !w.AllOK {
		t.Fatalf("the first turn after recovery: %+v %v, want it answered", w, err)
	}
	b, err := os.ReadFile(filepath.Join(actors.AgentDataDir(cr.home, "rcv/late", cr.a.UUID), "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(`"type":"user"`)); n != 1 {
		t.Errorf("the mock got %d prompts, want 1:\n%s", n, b)
	}
}

// A first prompt typed again by recovery that the TUI drops (ORCR_MOCK_DROP_FIRST_SENDS)
// shows no sign of having arrived within the provider's window: it is typed once more
// and answered. One the TUI drops every time is undone after the second typing: the row
// goes idle with no turn open, never left working on a prompt the agent never got.
func TestRecoveryTypesAFirstPromptAgainOrUndoesIt(t *testing.T) {
	t.Parallel()
	t.Run("dropped once: typed again", func(t *testing.T) {
		cr, opID := cutFirstPrompt(t, "rcv/drop1", "say=again turn_ms=20",
			sockettest.WithEnv("ORCR_MOCK_DROP_FIRST_SENDS", "1"))
		answeredAfterRestart(t, cr, opID, "again\nDONE")
	})
	t.Run("dropped every time: undone", func(t *testing.T) {
		cr, opID := cutFirstPrompt(t, "rcv/dropall", "say=never turn_ms=20",
			sockettest.WithEnv("ORCR_MOCK_DROP_FIRST_SENDS", "9"))
		c, rec := cr.restart()
		evs := rec.waitFor(t, 30*time.Second, "the cut-off input applied", func(evs []ev) bool { return len(inputApplied(evs, opID)) > 0 })
		noOpenIntents(t, rec)
		if in := inputApplied(evs, opID); len(in) != 1 || in[0].OK == nil || *in[0].OK {
			t.Errorf("the cut-off first prompt: %+v, want one input_applied, not ok (undone)", in)
		}
		waitStatus(t, c, cr.a.UUID, "idle")
		if w, err := c.Wait(t.Context(), api.WaitRequest{Targets: []string{cr.a.UUID}, Timeout: "5s"}); err != nil || !w.AllOK {
			t.Errorf("wait on the undone agent: %+v %v, want it settled idle", w, err)
		}
	})
}

// Issue 32, defect 5: a crash during a spawn that created a new workspace leaves the
// workspace's root shell (labelled as orcr labels it when it creates a workspace; no
// row claims it), which kept the workspace alive for good. The restarted server's
// reconciliation reports it and closes it, and the emptied workspace goes; the agent
// of another workspace is left alone.
func TestRecoveryClosesTheRootShellOfACutOffSpawn(t *testing.T) {
	t.Parallel()
	cr := newCrashed(t, "rcv/root", map[string]any{"gc": "never"})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	r := herdr.NewRemote(cr.sock)
	ws, err := r.WorkspaceCreate(ctx, "fresh", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Rename(ctx, ws.RootPane.PaneID, herdr.RootShellLabel); err != nil {
		t.Fatal(err)
	}
	c, _ := cr.restart()
	poll.Eventually(t, 20*time.Second, "the root shell closed", func() bool { return !paneExists(t, cr.sock, ws.RootPane.TerminalID) })
	poll.Eventually(t, 10*time.Second, "the root shell reported and its close counted as a repair", func() bool {
		d := drift(t, c)
		return d["root_shell_panes"] == 1 && d["repaired"] >= 1
	})
	wss, err := r.WorkspaceList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wss {
		if w.WorkspaceID == ws.Workspace.WorkspaceID {
			t.Errorf("the workspace of the root shell is still there: %+v", w)
		}
	}
	if row := waitStatus(t, c, cr.a.UUID, "idle"); !paneExists(t, cr.sock, *row.PaneID) {
		t.Error("the agent's pane was closed")
	}
}

// A starting row whose spawn a crash cut off, ended by its --timeout while its restart
// recovery still waits for herdr (frozen here): the timeout's cancel does not cut the
// recovery off, so once herdr answers the spawn intent is settled and the pane the
// spawn made is closed (docs/lifecycle.md §13.1). Cut off, the recovery left both: an
// open intent and an orphan pane, until the next restart.
func TestRecoverySettlesASpawnWhoseRowTimedOutMeanwhile(t *testing.T) {
	t.Parallel()
	cr := newCrashed(t, "rcv/late", map[string]any{"gc": "never"})
	terminal := ""
	cr.leave(func(tx *store.Tx) error {
		a, err := tx.Agent(cr.a.UUID)
		if err != nil {
			return err
		}
		terminal = a.TerminalID
		if _, err := tx.Exec(`UPDATE agents SET terminal_id = NULL, pane_id = NULL, status = 'starting', starting_at = ?,
			deadline_at = 1 WHERE uuid = ?`, time.Now().UnixMilli(), cr.a.UUID); err != nil {
			return err
		}
		_, _, err = tx.Intent(cr.a.UUID, &api.AgentSpawnRequested{Workspace: "rcv", Label: "rcv/late"})
		return err
	})
	// herdr's session server answers nothing while stopped; its panes run on.
	xdg := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(cr.sock))))
	var frozen []int
	for _, pid := range sockettest.ProcsWithEnv("XDG_CONFIG_HOME=" + xdg) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if strings.Contains(string(cmdline), "herdr-standin") && strings.Contains(string(cmdline), "\x00server") {
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			frozen = append(frozen, pid)
		}
	}
	if len(frozen) != 1 {
		t.Fatalf("herdr session servers under %s: %v, want one", xdg, frozen)
	}
	thaw := func() { syscall.Kill(frozen[0], syscall.SIGCONT) }
	t.Cleanup(thaw)
	_, rec := cr.restart()
	rec.waitFor(t, 20*time.Second, "the row to end timeout", func(evs []ev) bool {
		for _, e := range evs {
			if e.Kind == "agent.status_changed" && e.UUID == cr.a.UUID && e.Row != nil && e.Row.Status == "ended" &&
				e.Row.ExitReason != nil && *e.Row.ExitReason == "timeout" {
				return true
			}
		}
		return false
	})
	thaw()
	noOpenIntents(t, rec)
	poll.Eventually(t, 10*time.Second, "the orphan pane closed", func() bool { return !paneExists(t, cr.sock, terminal) })
}
