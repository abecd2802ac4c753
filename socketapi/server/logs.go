package server

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
)

type logsParams struct {
	callerParams
	Target       string `json:"target"`
	LastResponse bool   `json:"last_response"`
	Tail         *int   `json:"tail"`
	Follow       bool   `json:"follow"` // ignored: following is client-side
}

// agentLogs is agent.logs (lifecycle.md §11.4): the native transcript, or its final
// response behind the freshness gate. It fails loudly rather than guess.
func (s *Server) agentLogs(ctx context.Context, c *Call) (any, error) {
	var p logsParams
	c.Params(&p)
	row, resolved, err := s.exactTarget(ctx, p.callerParams, p.Target)
	if err != nil {
		return nil, err
	}
	res := map[string]any{"uuid": row.UUID, "path": row.Path, "resolved": resolved, "created_at": row.CreatedAt}
	if p.LastResponse {
		text, err := s.lastResponse(ctx, row)
		if err != nil {
			return nil, err
		}
		res["response"] = map[string]any{"text": text, "final": true}
		return res, nil
	}
	path, format, err := s.locateTranscript(ctx, row)
	if err != nil {
		return nil, err
	}
	entries, err := transcript.Read(path, format)
	if err != nil {
		return nil, annotate(err, row)
	}
	if p.Tail != nil && *p.Tail >= 0 && *p.Tail < len(entries) {
		entries = entries[len(entries)-*p.Tail:]
	}
	if entries == nil {
		entries = []transcript.Entry{}
	}
	res["entries"] = entries
	return res, nil
}

// locateTranscript checks both integration layers of the row's provider, then runs the
// identity gate. Errors carry {uuid, status, cause}.
func (s *Server) locateTranscript(ctx context.Context, row store.AgentRow) (path, format string, err error) {
	name := ""
	if row.Agent != nil {
		name = *row.Agent
	}
	if name != "" {
		opts := s.providerOptions()
		if name != provider.Mock || !opts.MockAllowed() {
			if err := provider.CheckSupport(name, opts.HasOrcr(name), s.herdrInstalled(ctx)); err != nil {
				return "", "", err
			}
		}
	}
	t := transcripts{s: s}
	var kind, value, cwd sql.NullString
	s.db.Reader().QueryRowContext(ctx, `SELECT agent_session_kind, agent_session_value, cwd FROM agents WHERE uuid = ?`,
		row.UUID).Scan(&kind, &value, &cwd)
	path, err = t.Locate(actors.TranscriptTarget{
		UUID: row.UUID, Path: row.Path, Provider: name,
		DataDir:     actors.AgentDataDir(s.opts.Home, row.Path, row.UUID),
		SessionKind: kind.String, SessionValue: value.String, Cwd: cwd.String,
		CreatedAt: time.UnixMilli(row.CreatedAt),
	})
	if err != nil {
		return "", "", annotate(err, row)
	}
	return path, t.spec(name).Format, nil
}

// lastResponse reads the final response: when the latest turn is completed with a
// recorded cursor, the file must have reached it within the provider's freshness
// timeout (else stale), so an answer is never older than the completion it belongs to.
func (s *Server) lastResponse(ctx context.Context, row store.AgentRow) (string, error) {
	path, format, err := s.locateTranscript(ctx, row)
	if err != nil {
		return "", err
	}
	var cursor sql.NullString
	var completed sql.NullInt64
	err = s.db.Reader().QueryRowContext(ctx, `SELECT completed_at, transcript_cursor FROM turns WHERE agent_uuid = ?
		ORDER BY input_seq DESC LIMIT 1`, row.UUID).Scan(&completed, &cursor)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", wire.From(err, "sqlite")
	}
	if completed.Valid && cursor.Valid && cursor.String != "" {
		name := ""
		if row.Agent != nil {
			name = *row.Agent
		}
		timeout := s.cfg.TuningFor(name).TranscriptFreshnessTimeout
		if err := transcript.WaitFresh(ctx, path, cursor.String, timeout); err != nil {
			if ctx.Err() != nil {
				return "", wire.Internal("canceled", "the request was canceled")
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
		return "", annotate(transcript.Unavailable(transcript.CauseNoFinalResponse, "the transcript has no final response"), row)
	}
	return text, nil
}

// annotate adds {uuid, status} to a transcript_unavailable error.
func annotate(err error, row store.AgentRow) error {
	pe, ok := wire.As(err)
	if !ok || pe.Code != wire.TranscriptUnavailable {
		return err
	}
	d := map[string]any{"uuid": row.UUID, "status": row.Status}
	for k, v := range pe.Details {
		d[k] = v
	}
	return &wire.Error{Code: pe.Code, Message: pe.Message, Details: d, Err: pe.Err}
}
