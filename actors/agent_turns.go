package actors

import (
	"errors"
	"strconv"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Transcripts is how the turn machinery reaches a provider's native transcript (the
// adapters live in actors/transcript).
type Transcripts interface {
	// Locate returns the transcript file of an agent (identity gate), or an error
	// (transcript_unavailable) when it cannot be located.
	Locate(t TranscriptTarget) (string, error)
	// LastResponse returns the final assistant text of the transcript at path.
	LastResponse(provider, path string) (string, error)
	// LastPrompt returns the last user text of the transcript at path (false when it
	// has none or cannot be read).
	LastPrompt(provider, path string) (string, bool)
	// Settled reports whether the file has been quiet for settle.
	Settled(path string, settle time.Duration, now time.Time) bool
	// Cursor is the file's mtime in ms as a decimal string.
	Cursor(path string) (string, bool)
	// Stamp changes with every write to the file (its size and mtime in ns): whether
	// it changed since it was last read.
	Stamp(path string) (string, bool)
	// Tools reads the tool calls and results of the transcript at path, in file order
	// (the session log's tool/call and tool/result, docs/remote.md §5).
	Tools(provider, path string) ([]store.ToolLog, error)
	// ClassifyBlocked guesses why a pane is blocked (question, limit, login, unknown)
	// from herdr's title and name of the pane (docs/providers.md §7).
	ClassifyBlocked(parts ...string) string
	// Usage is the tokens the transcript's last turn used, if it reported any
	// (docs/providers.md §6.8).
	Usage(provider, path string) (store.TurnUsage, bool)
	// TurnEnd is LastResponse ("" when there is none) and Usage from one read of the
	// transcript at path, for a turn's completion (docs/usage.md §6).
	TurnEnd(provider, path string) (response string, usage store.TurnUsage, hasUsage bool)
	// LimitNotice is the message with which the provider ended the transcript's last
	// turn at its usage or rate limit, if it did (docs/providers.md §6.7).
	LimitNotice(provider, path string) (string, bool)
	// Session is the conversation pointer the transcript at path names, for a provider
	// whose session is learned from its transcript (docs/providers.md §12: pi's file,
	// gemini's sessionId); false for the others.
	Session(provider, path string) (kind, value string, ok bool)
}

// TranscriptTarget identifies an agent's transcript.
type TranscriptTarget struct {
	UUID, Path, Provider, DataDir string
	SessionKind, SessionValue     string
	Cwd                           string
	CreatedAt                     time.Time
}

// transcriptTarget is what the adapters need to find st's transcript under home.
func transcriptTarget(home string, st store.Agent) TranscriptTarget {
	return TranscriptTarget{
		UUID: st.UUID, Path: st.Path, Provider: st.Provider,
		DataDir:     AgentDataDir(home, st.Path, st.UUID),
		SessionKind: st.SessionKind, SessionValue: st.SessionValue, Cwd: st.Cwd,
		CreatedAt: time.UnixMilli(st.CreatedAt),
	}
}

var errNoTranscripts = errors.New("actors: no transcript adapters configured")

func (w *agentWork) locate() (string, error) {
	if w.env.Transcripts == nil {
		return "", errNoTranscripts
	}
	return w.env.Transcripts.Locate(transcriptTarget(w.env.Home, w.st))
}

// turn performs one step [decideTurn] chose (docs/lifecycle.md §10.2). It returns true
// when the row ended (gc immediate completion), and a time to decide again when a
// completion had to wait for the transcript.
func (w *agentWork) turn(op turnOp) (ended bool, retry int64) {
	r := op.report
	if r.AgentSession != nil && r.AgentSession.Value != "" && w.st.SessionValue == "" {
		w.logErr("record agent session", w.apply(func(tx *store.Tx) error {
			return tx.RecordAgentSession(w.uuid, r.AgentSession.Kind, r.AgentSession.Value)
		}))
	}
	switch op.step.Action {
	case turnUnpark:
		// A parked agent that works again (or asks something) is moved home first
		// (docs/lifecycle.md §10.2, M18; docs/lifecycle.md Q3: our decision covers blocked too).
		if err := w.unpark(); err != nil {
			w.log().Warn("un-park on herdr activity failed", "err", err)
		}
	case turnWorkingSeen, turnExternal:
		w.logErr("working seen", w.apply(func(tx *store.Tx) error { return tx.SeeWorking(w.uuid) }))
	case turnBlocked:
		kind := transcript.BlockedUnknown
		if w.env.Transcripts != nil {
			kind = w.env.Transcripts.ClassifyBlocked(r.Title, r.Name)
		}
		// A tool call waiting for approval is what the provider asks about
		// (docs/providers.md §7): the pane's title rarely says so.
		pending := w.awaitCall()
		if pending != nil && (kind == transcript.BlockedUnknown || kind == transcript.BlockedQuestion) {
			kind = transcript.BlockedPermission
		}
		limit := w.limitSeen(kind)
		w.logErr("mark blocked", w.apply(func(tx *store.Tx) error {
			if err := tx.MarkBlocked(w.uuid, kind, w.st.Turn.Seq); err != nil {
				return err
			}
			return limit(tx)
		}))
		w.requestApproval(pending)
	case turnStartIdle:
		w.logErr("start idle streak", w.apply(func(tx *store.Tx) error { return tx.StartIdle(w.uuid, op.step.IdleSince) }))
	case turnIdleEdge:
		// herdr's completion_seq moved on since the streak began: the agent went
		// working/blocked → idle in between, so the streak starts again now.
		err := w.apply(func(tx *store.Tx) error { return tx.RestartIdle(w.uuid, op.step.IdleSince) })
		w.logErr("restart idle streak", err)
		if err == nil && w.mark.Turn == w.st.Turn.Seq {
			w.mark.Seen = op.step.CompletionSeen
		}
	case turnCompleteCandidate:
		return w.complete()
	case turnProbeTranscript:
		w.probeTranscript(op.step.IdleSince)
	}
	return w.isEnded(), 0
}

// complete completes the open turn once the transcript agrees: settled (quiet for the
// provider's settle time) and, for gc immediate, the final response readable — the
// pane is closed only after that, so the answer is never cut off. Not ready yet: try
// again after one monitor tick.
func (w *agentWork) complete() (ended bool, retry int64) {
	now := time.Now()
	later := now.Add(MonitorTick).UnixMilli()
	tun := w.env.tuning(w.st.Provider)
	path, locErr := w.locate()
	if tun.TranscriptSettle > 0 && (locErr != nil || !w.env.Transcripts.Settled(path, tun.TranscriptSettle, now)) {
		w.log().Debug("completion waits for the transcript", "located", locErr == nil, "err", locErr)
		return false, later
	}
	immediate := w.st.GCMode == store.GCImmediate
	// A declared provider without a transcript has no answer to wait for
	// (docs/providers.md §11.3): its turn completes on status alone.
	noTranscript := wire.Is(locErr, wire.TranscriptUnavailable, wire.CauseNoTranscript)
	if immediate && !noTranscript {
		if locErr != nil {
			return false, later
		}
		if _, err := w.env.Transcripts.LastResponse(w.st.Provider, path); err != nil {
			return false, later // not flushed yet
		}
	}
	w.logTools()
	c := store.TurnCompletion{UUID: w.uuid, Seq: w.st.Turn.Seq}
	var kept store.End // the screen read at completion, kept by a gc-immediate end
	if noTranscript {
		c.Response, kept = w.screenAnswer()
	}
	if turnCompletionFlipsIdle(factsOf(w.st)) {
		c.IdleFrom = w.st.Status
	}
	if locErr == nil {
		c.Locator = path
		c.Cursor, _ = w.env.Transcripts.Cursor(path)
		// The session log's assistant/message (docs/remote.md §5) and the turn's usage,
		// from one read of the transcript (docs/usage.md §6).
		resp, u, ok := w.env.Transcripts.TurnEnd(w.st.Provider, path)
		c.Response = resp
		if ok {
			c.Usage = w.env.priceUsage(w.st, u)
		}
	}
	// A turn the provider ended at its usage or rate limit completes as the CLI ended
	// it, and pauses the provider like a block classified limit (docs/lifecycle.md
	// §7.6): the real CLIs end it idle, with their own message.
	limit := func(*store.Tx) error { return nil }
	if locErr == nil {
		if notice, ok := w.env.Transcripts.LimitNotice(w.st.Provider, path); ok {
			limit = w.limitPause(notice, time.Now())
		}
	}
	quota := w.quotaPause(c.Usage, time.Now())
	// A CLI whose transcript names its conversation (pi, gemini) has no herdr pointer:
	// the located transcript is it, recorded for a resume (docs/providers.md §12).
	var learned [2]string
	if locErr == nil && w.st.SessionValue == "" {
		if kind, value, ok := w.env.Transcripts.Session(w.st.Provider, path); ok {
			learned = [2]string{kind, value}
		}
	}
	var cuts []store.BudgetCut
	err := w.apply(func(tx *store.Tx) error {
		if learned[1] != "" {
			if err := tx.RecordAgentSession(w.uuid, learned[0], learned[1]); err != nil {
				return err
			}
		}
		var prev []store.QuotaWindow
		if quota != nil { // the windows before this turn's report, for quota.warned
			var err error
			if prev, err = tx.QuotaWindows(); err != nil {
				return err
			}
		}
		if err := tx.CompleteTurn(c); err != nil {
			return err
		}
		cuts = tx.BudgetCuts()
		if quota != nil {
			if err := quota(tx, prev); err != nil {
				return err
			}
		}
		return limit(tx)
	})
	w.logErr("complete turn", err)
	if err == nil && w.env.Agents != nil {
		cutTurns(func(m sendKeys) { w.root.Send(w.env.Agents, m) }, w.env.providers().RemoteKeys, cuts)
	}
	if err != nil || !immediate {
		return w.isEnded(), 0
	}
	// gc immediate: the response is readable; tear the pane down, then end completed,
	// keeping the screen read at completion (a provider without a transcript has its
	// answer there, docs/providers.md §11.3).
	w.shutdownPane(string(store.ExitCompleted))
	w.logErr("end completed", w.apply(func(tx *store.Tx) error {
		return tx.EndAgentWith(w.uuid, store.TurnStatuses, store.ExitCompleted, kept)
	}))
	return true, 0
}

// screenAnswer reads the answer of a provider without a transcript from its pane's
// screen at completion (docs/providers.md §11.3), for the session log; "" when it
// cannot be told. kept holds the screen read, for an end to keep with the row.
func (w *agentWork) screenAnswer() (answer string, kept store.End) {
	spec, ok := w.env.providers().Declared(w.st.Provider)
	if !ok || len(spec.Screens.Ready) == 0 || w.st.TerminalID == "" {
		return "", kept
	}
	screen, ok, _ := w.readScreen(w.st.TerminalID)
	if !ok {
		return "", kept
	}
	kept = store.End{Screen: screen, ScreenAt: time.Now().UnixMilli()}
	prompt, ok, err := store.LastPrompt(w.ctx, w.env.DB.Reader(), w.uuid)
	if err != nil || !ok {
		return "", kept
	}
	answer, _ = provider.ScreenAnswer(spec, screen, prompt)
	return answer, kept
}

// probeTranscript looks for the open turn's work in the transcript when herdr's reports
// cannot show it (the fast path closed without working seen): a transcript written
// after the delivery counts as working seen, at its write time. The idle streak is
// recorded first when it is new.
func (w *agentWork) probeTranscript(idleSince int64) {
	if w.st.IdleSince == 0 && idleSince != 0 {
		w.logErr("start idle streak", w.apply(func(tx *store.Tx) error { return tx.StartIdle(w.uuid, idleSince) }))
	}
	if w.st.Turn.Seq == 0 || w.st.Turn.WorkingSeenAt != 0 {
		return
	}
	written := w.transcriptWrittenAfter(w.st.Turn.DeliveredAt)
	if written == 0 {
		return
	}
	seq := w.st.Turn.Seq
	w.logErr("record the turn's work", w.apply(func(tx *store.Tx) error { return tx.RecordWorkSeen(w.uuid, seq, written) }))
}

// mtimeLag is how far a file's mtime can lag the clock orcr reads: the kernel stamps it
// from its coarse clock, up to one tick (at most 10 ms) behind.
const mtimeLag = 10 * time.Millisecond

// transcriptWrittenAfter returns when the agent's transcript was last written (unix ms,
// not before since) if that was after since, else 0 (no transcript, none located, or
// older). since is a delivered_at, taken right before the Enter, and a provider can
// answer within a millisecond: an mtime up to [mtimeLag] before it counts.
func (w *agentWork) transcriptWrittenAfter(since int64) int64 {
	if w.env.Transcripts == nil {
		return 0
	}
	path, err := w.locate()
	if err != nil {
		return 0
	}
	cursor, ok := w.env.Transcripts.Cursor(path)
	if !ok {
		return 0
	}
	written, err := strconv.ParseInt(cursor, 10, 64)
	if err != nil || written < since-mtimeLag.Milliseconds() {
		return 0
	}
	return max(written, since)
}
