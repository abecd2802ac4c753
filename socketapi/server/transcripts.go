package server

import (
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
)

// transcripts implements actors.Transcripts with the adapters of actors/transcript,
// choosing the format and file per provider (provider.Transcript).
type transcripts struct {
	s *Server
}

func (t transcripts) spec(name string) provider.Transcript {
	prov, err := provider.Lookup(name, t.s.providerOptions())
	if err != nil {
		return provider.Transcript{Format: name}
	}
	return prov.Transcript()
}

func (t transcripts) Locate(a actors.TranscriptTarget) (string, error) {
	sp := t.spec(a.Provider)
	return transcript.Locate(transcript.Locator{
		Home: t.s.getenv("HOME"), DataDir: a.DataDir, Format: sp.Format, DataDirFile: sp.DataDirFile,
		SessionKind: a.SessionKind, SessionValue: a.SessionValue, CreatedAt: a.CreatedAt, Cwd: a.Cwd,
	})
}

func (t transcripts) LastResponse(providerName, path string) (string, error) {
	entries, err := transcript.Read(path, t.spec(providerName).Format)
	if err != nil {
		return "", err
	}
	text, ok := transcript.LastResponse(entries)
	if !ok {
		return "", transcript.Unavailable(transcript.CauseNoFinalResponse, "the transcript has no final response yet")
	}
	return text, nil
}

func (transcripts) Settled(path string, settle time.Duration, now time.Time) bool {
	return transcript.Settled(path, settle, now)
}

func (transcripts) Cursor(path string) (string, bool) { return transcript.Cursor(path) }

func (transcripts) ClassifyBlocked(parts ...string) string {
	return transcript.ClassifyBlocked(parts...)
}
