package actors

import (
	"context"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Logs is agent.logs (docs/lifecycle.md §11.4): the native transcript, or its final
// response behind the freshness gate. It fails loudly rather than guess.
func (s *System) Logs(ctx context.Context, r api.LogsRequest) (api.LogsResult, error) {
	row, resolved, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return api.LogsResult{}, err
	}
	res := api.LogsResult{UUID: row.UUID, Path: row.Path, Resolved: resolved, CreatedAt: row.CreatedAt}
	if r.Screen {
		if r.LastResponse {
			return api.LogsResult{}, wire.Invalid(wire.ReasonConflictingFlags, "screen and last_response are mutually exclusive")
		}
		scr, err := s.screenOf(ctx, row)
		if err != nil {
			return api.LogsResult{}, err
		}
		res.Screen = scr
		return res, nil
	}
	if r.LastResponse {
		resp, err := s.lastResponse(ctx, row)
		if err != nil {
			return api.LogsResult{}, err
		}
		res.Response = &resp
		return res, nil
	}
	path, format, err := s.locateTranscript(ctx, row)
	if err != nil {
		return api.LogsResult{}, err
	}
	entries, err := transcript.Read(path, format)
	if err != nil {
		return api.LogsResult{}, annotate(err, row)
	}
	if r.Tail != nil && *r.Tail >= 0 && *r.Tail < len(entries) {
		entries = entries[len(entries)-*r.Tail:]
	}
	if entries == nil {
		entries = []transcript.Entry{}
	}
	res.Entries = entries
	return res, nil
}

// locateTranscript checks both integration layers of the row's provider, then runs the
// identity gate. Errors carry {uuid, status, cause}.
func (s *System) locateTranscript(ctx context.Context, row store.AgentRow) (path, format string, err error) {
	name := ""
	if row.Agent != nil {
		name = *row.Agent
	}
	if name != "" {
		opts := s.providerOptions()
		if name != provider.Mock || !opts.MockAllowed() {
			if err := opts.Support(name, s.herdrInstalled(ctx)); err != nil {
				return "", "", err
			}
		}
	}
	st, err := store.LoadAgent(ctx, s.cfg.DB.Reader(), row.UUID)
	if err != nil {
		return "", "", wire.From(err, wire.CauseSQLite)
	}
	t := transcripts{s: s}
	path, err = t.Locate(transcriptTarget(s.cfg.Home, st))
	if wire.Is(err, wire.TranscriptUnavailable, wire.CauseNotFound) {
		done, qerr := s.cfg.DB.AnyTurnCompleted(ctx, row.UUID)
		if qerr != nil {
			return "", "", wire.From(qerr, wire.CauseSQLite)
		}
		if !done {
			err = transcript.NeverWritten(err)
		}
	}
	if err != nil {
		return "", "", annotate(err, row)
	}
	return path, t.spec(name).Format, nil
}

// lastResponse reads the final response: when the latest turn is completed with a
// recorded cursor, the file must have reached it within the provider's freshness
// timeout (else stale), so an answer is never older than the completion it belongs to.
// A provider without a transcript has its answer read from the screen.
func (s *System) lastResponse(ctx context.Context, row store.AgentRow) (api.Response, error) {
	path, format, err := s.locateTranscript(ctx, row)
	if wire.Is(err, wire.TranscriptUnavailable, wire.CauseNoTranscript) {
		return s.screenResponse(ctx, row, err)
	}
	text, err := s.transcriptResponse(ctx, row, path, format, err)
	if err != nil {
		return api.Response{}, err
	}
	return api.Response{Text: text, Final: true}, nil
}

// screenResponse is the final response of a provider without a transcript, read from
// its pane's screen (docs/providers.md §11.3): the answer under the echo of the last
// prompt, on the live screen or, once the pane is gone, the screen kept with the row.
// When it cannot be told, it is noTranscript's transcript_unavailable no_transcript,
// saying why.
func (s *System) screenResponse(ctx context.Context, row store.AgentRow, noTranscript error) (api.Response, error) {
	if store.UnansweredStatuses.Has(row.Status) {
		return api.Response{}, annotate(transcript.Unavailable(wire.CauseNoFinalResponse, noFinalResponse(row)), row)
	}
	name := ""
	if row.Agent != nil {
		name = *row.Agent
	}
	cannot := func(why string) (api.Response, error) {
		msg := "provider `" + name + "` declares no transcript (transcript.format none), and its answer cannot be told from its screen: " + why
		return api.Response{}, annotate(transcript.Unavailable(wire.CauseNoTranscript, msg), row)
	}
	prov, err := s.lookupProvider(name)
	if err != nil {
		return api.Response{}, noTranscript
	}
	spec, ok := provider.Spec(prov)
	if !ok || len(spec.Screens.Ready) == 0 {
		return cannot("it declares no ready screen")
	}
	prompt, ok, err := store.LastPrompt(ctx, s.cfg.DB.Reader(), row.UUID)
	if err != nil {
		return api.Response{}, wire.From(err, wire.CauseSQLite)
	}
	if !ok {
		return cannot("no prompt was delivered to it")
	}
	scr, err := s.screenOf(ctx, row)
	if err != nil {
		return cannot("there is no screen to read")
	}
	text, ok := provider.ScreenAnswer(spec, scr.Text, prompt)
	if !ok {
		return cannot("the screen does not show the last prompt's echo with an answer under it and the provider ready")
	}
	return api.Response{Text: text, Final: true, FromScreen: true}, nil
}

// transcriptResponse is lastResponse from the transcript at path, located with err.
func (s *System) transcriptResponse(ctx context.Context, row store.AgentRow, path, format string, err error) (string, error) {
	if wire.Is(err, wire.TranscriptUnavailable, wire.CauseNotFound) && store.UnansweredStatuses.Has(row.Status) {
		// A turn under way whose provider has not written its transcript yet has no
		// final response for the same reason as one that has: it is still working.
		return "", annotate(transcript.Unavailable(wire.CauseNoFinalResponse, noFinalResponse(row)), row)
	}
	if err != nil {
		return "", err
	}
	lt, err := s.cfg.DB.LatestTurnOf(ctx, row.UUID)
	if err != nil {
		return "", wire.From(err, wire.CauseSQLite)
	}
	if lt.CompletedAt != 0 && lt.Cursor != "" {
		name := ""
		if row.Agent != nil {
			name = *row.Agent
		}
		timeout := s.providers.Tuning(name).TranscriptFreshnessTimeout
		if err := transcript.WaitFresh(ctx, path, lt.Cursor, timeout); err != nil {
			if ctx.Err() != nil {
				return "", wire.Internal(wire.CauseCanceled, "the request was canceled")
			}
			return "", annotate(err, row)
		}
	}
	entries, err := transcript.Read(path, format)
	if err != nil {
		return "", annotate(err, row)
	}
	text, ok := transcript.LastResponse(entries)
	if !ok {
		return "", annotate(transcript.Unavailable(wire.CauseNoFinalResponse, noFinalResponse(row)), row)
	}
	return text, nil
}

// noFinalResponse says why there is no final response yet: an agent whose turn is still
// under way (queued, starting, working, blocked) has simply not answered yet, and the
// message says how to wait for it (docs/cli.md, agent logs).
func noFinalResponse(row store.AgentRow) string {
	if store.UnansweredStatuses.Has(row.Status) {
		return "the agent is still working on its turn, so there is no final response yet; wait for it with `orcr agent wait " +
			row.Path + "`"
	}
	return "the transcript has no final response"
}

// annotate adds {uuid, status} to a transcript_unavailable error; for an agent that
// ended or is lost it also says so first, with why (exit_reason, exit_detail) and where
// its last screen is, since that explains the missing transcript better than the file.
func annotate(err error, row store.AgentRow) error {
	pe, ok := wire.As(err)
	if !ok || pe.Code != wire.TranscriptUnavailable {
		return err
	}
	d := map[string]any{"uuid": row.UUID, "status": row.Status}
	msg := pe.Message
	if row.Status.Gone() {
		msg = endedNote(row) + "; " + msg
		if row.ExitReason != nil {
			d["exit_reason"] = *row.ExitReason
		}
		if row.ExitDetail != nil {
			d["exit_detail"] = *row.ExitDetail
		}
	}
	for k, v := range pe.Details {
		d[k] = v
	}
	return &wire.Error{Code: pe.Code, Message: msg, Details: d, Err: pe.Err}
}

// endedNote says how an ended or lost agent ended, and where its kept screen is:
// "agent c3 ended failed (mock exited during start: …); its last screen: orcr agent logs
// <uuid> --screen".
func endedNote(row store.AgentRow) string {
	note := "agent " + row.Path + " is lost (its pane is gone)"
	if row.Status == api.StatusEnded {
		reason := "without an exit reason"
		if row.ExitReason != nil {
			reason = *row.ExitReason
		}
		note = "agent " + row.Path + " ended " + reason
	}
	if row.ExitDetail != nil && *row.ExitDetail != "" {
		note += " (" + *row.ExitDetail + ")"
	}
	if row.ScreenAt != nil {
		note += "; its last screen: orcr agent logs " + row.UUID + " --screen"
	}
	return note
}

// screenOf is the screen agent.logs shows with screen (docs/lifecycle.md §11.4): the
// live screen of the agent's pane while herdr has it, else the last screen kept with
// the row; none is state_conflict, saying why.
func (s *System) screenOf(ctx context.Context, row store.AgentRow) (*api.Screen, error) {
	st, err := store.LoadAgent(ctx, s.cfg.DB.Reader(), row.UUID)
	if err != nil {
		return nil, wire.From(err, wire.CauseSQLite)
	}
	if st.TerminalID != "" && s.env.Herdr != nil && !st.Status.Gone() {
		sess := s.env.Herdr.Owned()
		if !st.Managed && st.Session != "" {
			sess = s.env.Herdr.Session(st.Session)
		}
		hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		rd, err := sess.Read(hctx, st.TerminalID, 0)
		cancel()
		if err == nil {
			return &api.Screen{Text: rd.Text, At: time.Now().UnixMilli(), Live: true}, nil
		}
	}
	text, at, ok, err := s.cfg.DB.LastScreen(ctx, row.UUID)
	if err != nil {
		return nil, wire.From(err, wire.CauseSQLite)
	}
	if ok {
		return &api.Screen{Text: text, At: at}, nil
	}
	why := "agent " + row.Path + " has no pane to read (status " + string(row.Status) + ")"
	if row.Status.Gone() {
		why = endedNote(row) + "; orcr kept no screen of its pane (it read none before the pane went away)"
	}
	return nil, wire.Conflict(why, "uuid", row.UUID, "current_status", row.Status, "reason", wire.ReasonNoScreen)
}
