package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// Adoption (beyond the reference; docs/lifecycle.md §11.8, docs/decisions.md D12): an
// unmanaged agent becomes a managed one. herdr cannot move a pane from one session to
// another, so the agent moves by its conversation: its pane in the user's session is
// shut down, and a managed spawn in the owned session starts the provider again on the
// same conversation (herdr's agent_session pointer, [provider.Provider.ResumeArgv]).
// From then on it is an ordinary managed agent: queue, completion detection, GC.

// adoptTimeout bounds the agent actor's part (a graceful shutdown of the old pane).
const adoptTimeout = 2 * time.Minute

// transcriptSession is the conversation pointer a's located transcript names, for a
// provider whose session is learned from it (pi, gemini: docs/providers.md §12); ""
// when there is none yet.
func (s *System) transcriptSession(a store.Agent) (kind, value string) {
	t := transcripts{s: s}
	path, err := t.Locate(transcriptTarget(s.cfg.Home, a))
	if err != nil {
		return "", ""
	}
	kind, value, _ = t.Session(a.Provider, path)
	return kind, value
}

// AdoptAgent asks an unmanaged agent's actor to shut its pane down and turn its row into
// the managed, queued row at Path whose launch.json is already written. Reply:
// AdoptOutcome.
type AdoptAgent struct {
	UUID, Path string
}

// AdoptOutcome answers AdoptAgent.
type AdoptOutcome struct{ Err error }

// Adopt is agent.adopt: every check first (an idle unmanaged row of a provider orcr
// runs, with a conversation pointer the provider can resume, a path that agent.run
// would accept), then launch.json at the new path, then the agent actor's op, then a
// poke of the queue.
func (s *System) Adopt(ctx context.Context, r api.AdoptRequest) (api.AdoptResult, error) {
	if r.Path == "" {
		return api.AdoptResult{}, wire.Invalid(wire.ReasonPathRequired, "a path is required (--path)")
	}
	row, _, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return api.AdoptResult{}, err
	}
	if row.Status == store.StatusEnded {
		return api.AdoptResult{}, wire.New(wire.NotFound, "agent "+row.Path+" has ended", "target", r.Target)
	}
	if row.Managed {
		return api.AdoptResult{}, wire.Invalid(wire.ReasonNotUnmanaged, "agent "+row.Path+" is managed already; only unmanaged agents can be adopted",
			"target", r.Target, "path", row.Path)
	}
	if err := s.findHerdr(); err != nil {
		return api.AdoptResult{}, err
	}
	a, err := store.LoadAgent(ctx, s.cfg.DB.Reader(), row.UUID)
	if err != nil {
		return api.AdoptResult{}, wire.From(err, wire.CauseSQLite)
	}
	prov, err := provider.Lookup(a.Provider, s.providerOptions())
	if err != nil {
		return api.AdoptResult{}, err
	}
	route, err := prov.Route(s.cfg.Config, "", "")
	if err != nil {
		return api.AdoptResult{}, err
	}
	route.Approvals = s.cfg.Config.Remote.Approvals
	if a.SessionValue == "" {
		a.SessionKind, a.SessionValue = s.transcriptSession(a)
	}
	if a.SessionValue == "" {
		why := "herdr reports no conversation for agent " + a.Path + " (its pane has no agent_session; is the provider's herdr integration installed?)"
		if spec, ok := provider.Spec(prov); ok && spec.Session == config.SessionTranscript {
			why = "no transcript of agent " + a.Path + " is located, so its conversation is not known (has it completed a turn in its cwd?)"
		}
		return api.AdoptResult{}, wire.Conflict(why, "reason", wire.ReasonNoAgentSession, "current_status", a.Status)
	}
	argv, err := prov.ResumeArgv(route, a.SessionKind, a.SessionValue)
	if err != nil {
		return api.AdoptResult{}, err
	}
	if a.Status != store.StatusIdle {
		return api.AdoptResult{}, wire.Conflict(fmt.Sprintf("agent %s is %s; it can be adopted when idle", a.Path, a.Status),
			"current_status", a.Status)
	}
	caller, err := s.caller(ctx, r.Caller)
	if err != nil {
		return api.AdoptResult{}, err
	}
	scope, _ := caller.Scope()
	path, err := agentpath.Creation(scope, "", r.Path, nil)
	if err != nil {
		return api.AdoptResult{}, err
	}
	if err := agentpath.CheckLoopNamespace(ctx, s.cfg.DB.Reader(), path, r.CallerPath); err != nil {
		return api.AdoptResult{}, err
	}

	token := uuid.NewString()
	dir := AgentDataDir(s.cfg.Home, path, a.UUID)
	l := &Launch{Version: 1, UUID: a.UUID, Path: path, Provider: a.Provider, Argv: argv,
		Model: route.Model, Effort: route.Effort, GCMode: string(store.GCAuto), LaunchToken: token,
		EffectivePath: path, Env: s.paneEnv(prov, a.UUID, path, token), CreatedAt: time.Now().UnixMilli(),
		Cwd: optional(a.Cwd), Scope: optional(scope), Approvals: route.Approvals}
	if err := WriteLaunch(dir, l); err != nil {
		return api.AdoptResult{}, err
	}
	res, err := s.sys.Root.RequestFuture(s.agents, AdoptAgent{UUID: a.UUID, Path: path}, adoptTimeout).Result()
	if err != nil {
		os.RemoveAll(dir)
		return api.AdoptResult{}, wire.Internal(wire.CauseActor, "agent actor did not answer: "+err.Error())
	}
	if out := res.(AdoptOutcome); out.Err != nil {
		os.RemoveAll(dir)
		var inUse *store.PathInUseError
		if errors.As(out.Err, &inUse) {
			return api.AdoptResult{}, pathInUse(inUse)
		}
		return api.AdoptResult{}, wire.From(out.Err, wire.CauseHerdr)
	}
	// What the unmanaged row kept under its old path (opencode's export, §12.4 of
	// docs/providers.md) is the new path's to make again: the row no longer names it.
	old := AgentDataDir(s.cfg.Home, a.Path, a.UUID)
	os.Remove(filepath.Join(old, transcript.OpencodeExportFile))
	os.Remove(old)
	s.sys.Root.Send(s.queue, PokeQueue{})
	s.cfg.Log.Info("agent adopted", "agent", a.UUID, "from", a.Path, "path", path, "resume", a.SessionValue)
	now, err := store.AgentByUUID(ctx, s.cfg.DB.Reader(), a.UUID)
	if err != nil {
		return api.AdoptResult{}, wire.From(err, wire.CauseSQLite)
	}
	return api.AdoptResult{Agent: now, FromPath: a.Path, Resume: a.SessionValue}, nil
}
