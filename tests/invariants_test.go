package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// anomaly is one broken invariant of a home at rest (docs/lifecycle.md §13, issue 10's
// crash campaign): what broke, for which agent, and enough detail to find it in the
// event stream.
type anomaly struct {
	Kind   string // one of the anomaly kinds below
	UUID   string // the agent ("" when the anomaly is not an agent's)
	Path   string
	Status string // the row's status when found
	Detail string
	// Events is the tail of the agent's event kinds (seq:kind), oldest first.
	Events []string
	// key identifies the anomaly across polls (kind, agent and what is wrong).
	key string
}

// The anomaly kinds, one per invariant.
const (
	anSeqGap         = "seq_gap"         // events.seq has a gap or does not start at 1
	anOpenIntent     = "open_intent"     // a *_requested event without its *_applied
	anIntentTable    = "intent_table"    // the intents table and the event stream disagree
	anAppliedShape   = "applied_shape"   // an *_applied that says ok and carries an error (protocol.md §8: error only on failure)
	anPaneMissing    = "pane_missing"    // a live row claims a terminal the owned session does not have
	anOrphanPane     = "orphan_pane"     // a pane labelled like an agent path that no row holds
	anDuplicatePane  = "duplicate_pane"  // two panes carry one agent's label
	anRunMissing     = "run_missing"     // an acknowledged agent.run whose row is gone
	anPathTwice      = "path_twice"      // two rows that are not ended hold one path
	anWorkingNoTurn  = "working_no_turn" // working without an open turn: nothing can complete it
	anWorkingStuck   = "working_stuck"   // working with an open turn while herdr shows the provider not working
	anStartingStuck  = "starting_stuck"  // starting longer than timings.max_starting while herdr answers
	anQueuedStuck    = "queued_stuck"    // queued longer than timings.max_starting while slots are free
	anHerdrUnreached = "herdr_unreached" // the owned session did not answer pane.list
	anRootShell      = "root_shell"      // the root shell of a workspace orcr created, left open (it keeps the workspace alive)
)

// permanent are the kinds found in the event history, which no later work can undo:
// they need no hold.
var permanent = map[string]bool{anSeqGap: true, anAppliedShape: true}

// eventTail is how many of an agent's last events an anomaly carries.
const eventTail = 10

// checkInvariants reads the home's store (read side only: rows, open intents and the
// whole events table; it needs ORCR_EVENT_RETENTION above the number of events written)
// and the owned herdr session's pane list (the stand-in under <xdg>/herdr/sessions), and
// returns every invariant that does not hold at this moment. acked are the uuids of
// acknowledged agent.run (and agent.ask) calls, each of which must still have its row.
//
// One call is a snapshot: work in flight breaks some invariants for a moment (a pane
// closed just before its row ends, an intent just before its *_applied). Callers that
// check a live server use [settledAnomalies], which keeps only what holds still.
func checkInvariants(t testing.TB, home, xdg string, acked ...string) []anomaly {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, _, err := config.Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatalf("checkInvariants: config: %v", err)
	}
	db, err := store.Open(config.NewPaths(home).DB)
	if err != nil {
		t.Fatalf("checkInvariants: store: %v", err)
	}
	defer db.Close()
	now := time.Now()

	// Rows and intents, then the pane list, then the rows again: a row must be in the
	// same state on both sides of the pane list to be judged against it.
	rows1 := readRows(t, ctx, db)
	recon1 := readRecon(t, ctx, db)
	intents, err := db.OpenIntents()
	if err != nil {
		t.Fatalf("checkInvariants: intents: %v", err)
	}
	panes, paneErr := herdr.NewRemote(filepath.Join(xdg, "herdr", "sessions", cfg.Herdr.Session, "herdr.sock")).PaneList(ctx, "")
	recon2 := readRecon(t, ctx, db)
	rows2 := readRows(t, ctx, db)
	evs := readEvents(t, ctx, db)

	var out []anomaly
	add := func(kind string, row *store.AgentRow, keyDetail, detail string) {
		a := anomaly{Kind: kind, Detail: detail, key: kind + "|" + keyDetail}
		if row != nil {
			a.UUID, a.Path, a.Status = row.UUID, row.Path, string(row.Status)
			a.key += "|" + row.UUID
		}
		out = append(out, a)
	}
	byUUID := map[string]*store.AgentRow{}
	for i := range rows2 {
		byUUID[rows2[i].UUID] = &rows2[i]
	}
	for i := range rows1 {
		if byUUID[rows1[i].UUID] == nil {
			byUUID[rows1[i].UUID] = &rows1[i]
		}
	}

	// 1. events.seq is gapless from 1.
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			add(anSeqGap, nil, fmt.Sprint(i+1), fmt.Sprintf("position %d holds seq %d (expected %d)", i, e.Seq, i+1))
			break
		}
	}

	// 2. Every *_requested has its *_applied (docs/protocol.md §8), and the intents
	// table lists exactly the open ones.
	type open struct {
		kind, ref string
		seq, ts   int64
	}
	openByOp := map[string]open{}
	for _, e := range evs {
		var p struct {
			OpID string `json:"op_id"`
		}
		switch {
		case strings.HasSuffix(e.Kind, "_requested"):
			if json.Unmarshal(e.Payload, &p) == nil && p.OpID != "" {
				openByOp[p.OpID] = open{e.Kind, e.Ref, e.Seq, e.TS}
			}
		case strings.HasSuffix(e.Kind, "_applied"):
			var q struct {
				OK    bool   `json:"ok"`
				Error string `json:"error"`
			}
			if json.Unmarshal(e.Payload, &p) == nil {
				delete(openByOp, p.OpID)
			}
			if json.Unmarshal(e.Payload, &q) == nil && q.OK && q.Error != "" {
				add(anAppliedShape, byUUID[e.Ref], p.OpID, fmt.Sprintf("%s at seq %d is ok:true with error %q", e.Kind, e.Seq, q.Error))
			}
		}
	}
	lastInput := map[string]string{} // per agent: how its latest input_applied ended
	for _, e := range evs {
		if e.Kind != "agent.input_applied" {
			continue
		}
		var q struct {
			OK       bool   `json:"ok"`
			Error    string `json:"error"`
			Repaired bool   `json:"repaired"`
		}
		json.Unmarshal(e.Payload, &q)
		switch {
		case q.OK:
			lastInput[e.Ref] = "delivered"
		case q.Repaired:
			lastInput[e.Ref] = "delivery cut by the crash, closed by recovery"
		default:
			lastInput[e.Ref] = "delivery failed: " + q.Error
		}
	}
	inputOpen := map[string]bool{} // agents with a delivery in flight
	for _, o := range openByOp {
		if o.kind == "agent.input_requested" {
			inputOpen[o.ref] = true
		}
	}
	inTable := map[string]bool{}
	for _, in := range intents {
		inTable[in.OpID] = true
		if _, ok := openByOp[in.OpID]; !ok {
			add(anIntentTable, byUUID[in.Ref], in.OpID, fmt.Sprintf("intents row %s %s has no open *_requested in the stream", in.Kind, in.OpID))
		}
	}
	for op, o := range openByOp {
		add(anOpenIntent, byUUID[o.ref], op, fmt.Sprintf("%s op %s at seq %d, open %.1fs", o.kind, op[len(op)-8:], o.seq,
			now.Sub(time.UnixMilli(o.ts)).Seconds()))
		if !inTable[op] {
			add(anIntentTable, byUUID[o.ref], op, fmt.Sprintf("open %s %s is missing from the intents table", o.kind, op))
		}
	}

	// 6. Every acknowledged run still has its row (any status).
	for _, u := range acked {
		if byUUID[u] == nil {
			add(anRunMissing, nil, u, "acknowledged agent.run "+u+" has no row")
		}
	}

	// Two rows that are not ended on one path: the path grammar promises one.
	perPath := map[string][]string{}
	for _, r := range rows2 {
		if r.Status != store.StatusEnded {
			perPath[r.Path] = append(perPath[r.Path], r.UUID)
		}
	}
	for p, us := range perPath {
		if len(us) > 1 {
			add(anPathTwice, byUUID[us[1]], p, fmt.Sprintf("%d rows hold %s: %v", len(us), p, us))
		}
	}

	// Stuck queue: the stuck-start guard and the queue are bounded by max_starting.
	holding := 0
	for _, r := range rows2 {
		if r.Managed && r.Status != store.StatusQueued && r.Status != store.StatusEnded && r.Status != store.StatusLost {
			holding++
		}
	}
	maxStarting := cfg.Timings.MaxStarting
	for i := range rows2 {
		r := &rows2[i]
		switch {
		case r.Status == store.StatusStarting && paneErr == nil && r.StartingAt != nil &&
			now.Sub(time.UnixMilli(*r.StartingAt)) > maxStarting:
			add(anStartingStuck, r, "", fmt.Sprintf("starting for %.1fs (max_starting %v), pane %s", now.Sub(time.UnixMilli(*r.StartingAt)).Seconds(), maxStarting, deref(r.PaneID)))
		case r.Status == store.StatusQueued && paneErr == nil && holding < cfg.Concurrency.Max &&
			now.Sub(time.UnixMilli(r.CreatedAt)) > maxStarting:
			add(anQueuedStuck, r, "", fmt.Sprintf("queued for %.1fs with %d of %d slots held", now.Sub(time.UnixMilli(r.CreatedAt)).Seconds(), holding, cfg.Concurrency.Max))
		}
	}

	if paneErr != nil {
		// orcr starts its herdr session when an agent needs it: with no row that could
		// (a kill before the first run was stored leaves none), a session never started
		// is not an anomaly.
		if slices.ContainsFunc(rows2, func(r store.AgentRow) bool {
			return r.Managed && r.Status != store.StatusEnded && r.Status != store.StatusLost
		}) {
			add(anHerdrUnreached, nil, "", paneErr.Error())
		}
		return withEvents(out, evs)
	}

	paneByTerminal := map[string]herdr.PaneInfo{}
	perLabel := map[string][]string{}
	for _, p := range panes {
		paneByTerminal[p.TerminalID] = p
		if path, ok := actors.PanePath(p.Label); ok && agentpath.ValidatePath(path) == nil {
			perLabel[path] = append(perLabel[path], p.PaneID)
		}
	}
	// A row is judged against the pane list only when both reads agree on it.
	before := map[string]store.ReconRow{}
	for _, r := range recon1 {
		before[r.UUID] = r
	}
	stable := map[string]store.ReconRow{}
	for _, r := range recon2 {
		if before[r.UUID] == r {
			stable[r.UUID] = r
		}
	}
	held := map[string]bool{} // terminals some row that is not ended records (either read)
	for _, r := range slices.Concat(recon1, recon2) {
		if r.TerminalID != "" {
			held[r.TerminalID] = true
		}
	}
	for _, r := range recon2 {
		s, ok := stable[r.UUID]
		if !ok {
			continue
		}
		row := byUUID[r.UUID]
		live := s.Status != store.StatusLost && (s.Status != store.StatusStarting || s.TerminalID != "")
		pane, visible := paneByTerminal[s.TerminalID]
		// 3. A live row's terminal exists in the owned session.
		if live && s.TerminalID == "" {
			add(anPaneMissing, row, "none", fmt.Sprintf("%s with no terminal recorded (pane %q)", s.Status, s.PaneID))
		} else if live && !visible {
			add(anPaneMissing, row, s.TerminalID, fmt.Sprintf("%s on terminal %s (pane %s), not in the owned session", s.Status, s.TerminalID, s.PaneID))
		}
		// 7. A working row can finish: it has an open turn, and its provider works.
		if s.Status == store.StatusWorking && !s.TurnOpen {
			add(anWorkingNoTurn, row, "", fmt.Sprintf("working with no open turn (latest turn delivered %s, completed %s)",
				msAgo(now, row.TurnDeliveredAt), msAgo(now, row.TurnCompletedAt)))
		} else if s.Status == store.StatusWorking && visible && pane.AgentStatus != herdr.StatusWorking &&
			!inputOpen[r.UUID] && row.TurnDeliveredAt != nil && now.Sub(time.UnixMilli(*row.TurnDeliveredAt)) > completeBy(cfg, row) {
			add(anWorkingStuck, row, "", fmt.Sprintf("working with an open turn (opened %s; %s) while herdr reports %s",
				msAgo(now, row.TurnDeliveredAt), lastInput[r.UUID], pane.AgentStatus))
		}
	}
	// 4 and 5. Every agent-labelled pane is held by a row, and by one pane only.
	for label, ids := range perLabel {
		if len(ids) > 1 {
			add(anDuplicatePane, rowAt(rows2, label), label, fmt.Sprintf("%d panes labelled %s: %v", len(ids), label, ids))
		}
	}
	for _, p := range panes {
		path, ok := actors.PanePath(p.Label)
		if !ok || agentpath.ValidatePath(path) != nil || held[p.TerminalID] {
			continue
		}
		add(anOrphanPane, rowAt(rows2, path), p.TerminalID, fmt.Sprintf("pane %s (terminal %s, herdr %s) labelled %s belongs to no live row",
			p.PaneID, p.TerminalID, p.AgentStatus, p.Label))
	}
	// 8. No root shell of a workspace orcr created outlives the spawn or move that made
	// it: one a crash cut off is closed by reconciliation (docs/lifecycle.md §13.2).
	for _, p := range panes {
		if p.Label == herdr.RootShellLabel {
			add(anRootShell, nil, p.TerminalID, fmt.Sprintf("root shell %s (terminal %s) of workspace %s left open",
				p.PaneID, p.TerminalID, p.WorkspaceID))
		}
	}
	return withEvents(out, evs)
}

// settledAnomalies polls [checkInvariants] every 200 ms until what it finds holds still
// and returns the anomalies that were present in every poll for at least hold (an
// anomaly whose key is in confirmed, found at an earlier check, counts as held at
// once). It returns as soon as a poll is clean or every anomaly left has held; at
// deadline it returns the ones that held. transient are the anomalies seen and gone, or
// still changing at deadline: work in flight, reported apart.
func settledAnomalies(t testing.TB, home, xdg string, acked []string, hold, deadline time.Duration, confirmed map[string]bool) (held, transient []anomaly) {
	t.Helper()
	start := time.Now()
	first := map[string]time.Time{}
	gone := map[string]anomaly{}
	lasted := map[string]time.Duration{}
	for {
		found := checkInvariants(t, home, xdg, acked...)
		now := time.Now()
		seen := map[string]anomaly{}
		held = held[:0]
		for _, a := range found {
			seen[a.key] = a
			if _, ok := first[a.key]; !ok {
				first[a.key] = now
			}
			if confirmed[a.key] || permanent[a.Kind] || now.Sub(first[a.key]) >= hold {
				held = append(held, a)
			}
		}
		for k := range first {
			if _, ok := seen[k]; !ok {
				delete(first, k)
			}
		}
		for k, a := range seen {
			gone[k] = a
			lasted[k] = max(lasted[k], now.Sub(first[k]))
		}
		if len(held) == len(found) || now.Sub(start) >= deadline {
			held = dedupe(held)
			for _, a := range held {
				delete(gone, a.key)
			}
			for k, a := range gone {
				a.Detail += fmt.Sprintf(" [seen for %.1fs]", lasted[k].Seconds())
				transient = append(transient, a)
			}
			return held, dedupe(transient)
		}
		time.Sleep(200 * time.Millisecond) // the pace of the reads: an anomaly counts once it held over several
	}
}

// dedupe drops repeated keys (a row found by both reads) and sorts by kind and path.
func dedupe(as []anomaly) []anomaly {
	seen := map[string]bool{}
	var out []anomaly
	for _, a := range as {
		if !seen[a.key] {
			seen[a.key] = true
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// withEvents fills each agent anomaly's tail of event kinds.
func withEvents(as []anomaly, evs []store.Event) []anomaly {
	per := map[string][]string{}
	for _, a := range as {
		if a.UUID != "" {
			per[a.UUID] = nil
		}
	}
	for _, e := range evs {
		if _, ok := per[e.Ref]; ok {
			per[e.Ref] = append(per[e.Ref], describeEvent(e))
		}
	}
	for i := range as {
		tail := per[as[i].UUID]
		as[i].Events = tail[max(0, len(tail)-eventTail):]
	}
	return as
}

// describeEvent is "seq:kind" plus the field that tells the transitions apart.
func describeEvent(e store.Event) string {
	var p struct {
		Status     string `json:"status"`
		ExitReason string `json:"exit_reason"`
		OK         *bool  `json:"ok"`
		Repaired   bool   `json:"repaired"`
	}
	json.Unmarshal(e.Payload, &p)
	s := fmt.Sprintf("%d:%s", e.Seq, strings.TrimPrefix(e.Kind, "agent."))
	switch {
	case e.Kind == "agent.status_changed" && p.ExitReason != "":
		s += "(" + p.Status + "," + p.ExitReason + ")"
	case e.Kind == "agent.status_changed":
		s += "(" + p.Status + ")"
	case p.OK != nil && !*p.OK:
		s += "(fail)"
	}
	if p.Repaired {
		s += "(repaired)"
	}
	return s
}

// completeBy is how long after its delivery a turn whose provider has gone quiet must
// have completed: the fast-turn grace, then a stable idle and a settled transcript
// (docs/lifecycle.md §10.2). A delivery still in flight is not judged by it.
func completeBy(cfg *config.Config, row *store.AgentRow) time.Duration {
	tu := cfg.TuningFor(deref(row.Agent))
	return tu.FastTurnGrace + tu.IdleStable + tu.TranscriptSettle
}

func readRows(t testing.TB, ctx context.Context, db *store.DB) []store.AgentRow {
	t.Helper()
	rows, err := store.QueryAgents(ctx, db.Reader(), "ORDER BY a.created_at")
	if err != nil {
		t.Fatalf("checkInvariants: agent rows: %v", err)
	}
	return rows
}

func readRecon(t testing.TB, ctx context.Context, db *store.DB) []store.ReconRow {
	t.Helper()
	rows, err := db.ReconRows(ctx)
	if err != nil {
		t.Fatalf("checkInvariants: reconcile rows: %v", err)
	}
	return rows
}

// readEvents reads the whole events table, oldest first.
func readEvents(t testing.TB, ctx context.Context, db *store.DB) []store.Event {
	t.Helper()
	var all []store.Event
	for {
		after := int64(0)
		if len(all) > 0 {
			after = all[len(all)-1].Seq
		}
		batch, err := db.EventsAfter(ctx, after, 5000)
		if err != nil {
			t.Fatalf("checkInvariants: events: %v", err)
		}
		if len(batch) == 0 {
			return all
		}
		all = append(all, batch...)
	}
}

func rowAt(rows []store.AgentRow, path string) *store.AgentRow {
	var found *store.AgentRow
	for i := range rows {
		if rows[i].Path == path {
			found = &rows[i] // the newest row of the path
		}
	}
	return found
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func msAgo(now time.Time, ms *int64) string {
	if ms == nil {
		return "never"
	}
	return fmt.Sprintf("%.1fs ago", now.Sub(time.UnixMilli(*ms)).Seconds())
}

// dumpHome writes the home's events (one JSON line each: seq, kind, ref, payload) and
// its server log into dir, for a post-mortem of a campaign.
func dumpHome(t testing.TB, home, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Errorf("dump: %v", err)
		return
	}
	db, err := store.Open(config.NewPaths(home).DB)
	if err != nil {
		t.Errorf("dump: %v", err)
		return
	}
	defer db.Close()
	var b strings.Builder
	for _, e := range readEvents(t, context.Background(), db) {
		line, _ := json.Marshal(map[string]any{"seq": e.Seq, "ts": e.TS, "kind": e.Kind, "ref": e.Ref, "payload": e.Payload})
		b.Write(line)
		b.WriteByte('\n')
	}
	os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(b.String()), 0o600)
	if log, err := os.ReadFile(config.NewPaths(home).ServerLog); err == nil {
		os.WriteFile(filepath.Join(dir, "server.log"), log, 0o600)
	}
}
