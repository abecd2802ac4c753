package actors

import (
	"errors"
	"strings"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/store"
)

// The agent actor's side of rate-limit-aware admission (docs/lifecycle.md §7.6): a block
// classified limit reads the reset time from the pane's screen (one pane.read), else
// from the transcript's last response, and pauses the provider in the transaction that
// marks the agent blocked, so the pause is as durable as the block.

// limitSeen returns what the block op writes besides the block for kind: nothing unless
// kind is limit; then the pause [decideLimit] chooses for the row's provider.
func (w *agentWork) limitSeen(kind string) func(tx *store.Tx) error {
	if kind != transcript.BlockedLimit || !w.st.Managed || w.st.Provider == "" {
		return func(*store.Tx) error { return nil }
	}
	now := time.Now()
	var text string
	if w.env.Herdr != nil && w.st.PaneID != "" {
		text, _ = w.screen(w.st.PaneID)
	}
	reset, ok := ParseLimitReset(text, now)
	if !ok && w.env.Transcripts != nil {
		if path, err := w.locate(); err == nil {
			if resp, err := w.env.Transcripts.LastResponse(w.st.Provider, path); err == nil {
				text = resp
				reset, ok = ParseLimitReset(resp, now)
			}
		}
	}
	return w.pauseFor(text, reset, ok, now)
}

// limitPause is what a turn that ended with the provider's own limit message (notice)
// writes besides its completion: the pause [decideLimit] chooses, the reset read from
// the message.
func (w *agentWork) limitPause(notice string, now time.Time) func(tx *store.Tx) error {
	if !w.st.Managed || w.st.Provider == "" {
		return func(*store.Tx) error { return nil }
	}
	reset, ok := ParseLimitReset(notice, now)
	return w.pauseFor(notice, reset, ok, now)
}

// pauseFor is the pause of the row's provider for a limit seen at now in text, with
// its reset when known.
func (w *agentWork) pauseFor(text string, reset time.Time, known bool, now time.Time) func(tx *store.Tx) error {
	obs := limitObs{At: now.UnixMilli(), Blocked: true}
	if known {
		obs.ResetAt = reset.UnixMilli()
	}
	return w.pauseWith(obs, "", limitLine(text))
}

// quotaPause is what a completed turn whose transcript reported quota windows writes
// besides its completion, given the windows recorded before it (read in the same
// transaction before the completion records them): quota.warned for the windows that
// reached quota.warn_at and, for a managed agent, the pause [decideQuota] calls for,
// until the window's reset (docs/usage.md §7).
func (w *agentWork) quotaPause(u *store.TurnUsage, now time.Time) func(tx *store.Tx, prev []store.QuotaWindow) error {
	if u == nil || len(u.Quota) == 0 || w.st.Provider == "" {
		return nil
	}
	provider, account, uuid, ws, env, managed := w.st.Provider, w.st.Account, w.uuid, u.Quota, w.env, w.st.Managed
	return func(tx *store.Tx, prev []store.QuotaWindow) error {
		_, err := recordQuota(tx, provider, account, uuid, ws, prev, env.QuotaWarnAt, env.QuotaPauseAt, now.UnixMilli(), false, managed)
		return err
	}
}

// pauseWith writes the pause [decideLimit] chooses for obs, with source when one is
// given (else the rule's), and message.
func (w *agentWork) pauseWith(obs limitObs, source, message string) func(tx *store.Tx) error {
	provider, account, uuid, backoff := w.st.Provider, w.st.Account, w.uuid, w.env.LimitBackoff
	return func(tx *store.Tx) error {
		return writePause(tx, provider, account, uuid, obs, backoff, source, message)
	}
}

// writePause writes the pause of provider's account that [decideLimit] chooses for obs
// seen by agent uuid, with source when one is given (else the rule's), and message.
func writePause(tx *store.Tx, provider, account, uuid string, obs limitObs, backoff time.Duration, source, message string) error {
	pauses, err := tx.ProviderPauses()
	if err != nil {
		return err
	}
	var cur *store.ProviderPause
	for i := range pauses {
		if pauses[i].Provider == provider && pauses[i].Account == account {
			cur = &pauses[i]
		}
	}
	step := decideLimit(cur, obs, backoff)
	if step.Action != limitPause {
		return nil
	}
	if source != "" {
		step.Source = source
	}
	return tx.PauseProvider(store.ProviderPause{Provider: provider, Account: account, Since: step.Since, Until: step.Until,
		AgentUUID: uuid, Source: step.Source, Message: message})
}

// pauseProviderUntil pauses provider's account until (a quota window's reset,
// docs/usage.md §7), unless a later pause stands.
func pauseProviderUntil(tx *store.Tx, provider, account, uuid string, until int64, why string, now int64) error {
	return writePause(tx, provider, account, uuid, limitObs{At: now, Blocked: true, ResetAt: until}, 0, store.PauseSourceQuota, why)
}

// limitLine is the last non-blank line of text that names a limit (at most 200 bytes),
// for server.status; "" when none does.
func limitLine(text string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if low := strings.ToLower(l); strings.Contains(low, "limit") || strings.Contains(low, "quota") {
			if len(l) > 200 {
				l = l[:200]
			}
			return strings.ToValidUTF8(l, "")
		}
	}
	return ""
}

// relaunch rebuilds l for the provider the row was rerouted to and writes it back, so a
// restart's recovery spawns the same.
func (w *agentWork) relaunch(l *Launch) (*Launch, error) {
	nl, err := w.env.providers().Relaunch(l, w.st.Provider)
	if err != nil {
		return nil, err
	}
	if err := WriteLaunch(AgentDataDir(w.env.Home, w.st.Path, w.uuid), nl); err != nil {
		return nil, err
	}
	return nl, nil
}

// Relaunch implements [Providers]: l's launch for provider with its configured model and
// effort (the model and effort of another provider mean nothing to it), its argv and
// pane environment rebuilt; identity, prompt, cwd and the rest are kept.
func (p systemProviders) Relaunch(l *Launch, to string) (*Launch, error) {
	s := p.s
	prov, err := provider.Lookup(to, s.providerOptions())
	if err != nil {
		return nil, err
	}
	route, err := prov.Route(s.cfg.Config, "", "")
	if err != nil {
		return nil, err
	}
	route.Approvals = l.Approvals
	argv, err := prov.LaunchArgv(route)
	if err != nil {
		return nil, err
	}
	nl := *l
	nl.Provider, nl.Model, nl.Effort, nl.Argv = to, route.Model, route.Effort, argv
	nl.Env = s.paneEnv(prov, l.UUID, l.Path, l.LaunchToken)
	for _, k := range []string{"ORCR_PARENT_ID", "ORCR_PARENT_PATH", "ORCR_LOOP_DATA_DIR"} {
		if v, ok := l.Env[k]; ok {
			nl.Env[k] = v
		}
	}
	return &nl, nil
}

// fallbackFor is the queue's routing.fallback: the provider a paused provider's queued
// agents go to, with that provider's configured model and effort.
func (s *System) fallbackFor(from string) (store.Fallback, bool) {
	to, ok := s.cfg.Config.Routing.Fallback[from]
	if !ok {
		return store.Fallback{}, false
	}
	prov, err := provider.Lookup(to, s.providerOptions())
	if err != nil {
		return store.Fallback{}, false
	}
	// The provider's own routing (a catalogue check for codex); when that cannot be
	// done here, the configured defaults — the spawn routes again and fails the row
	// if they do not hold.
	route, err := prov.Route(s.cfg.Config, "", "")
	if err != nil {
		cr, cerr := s.cfg.Config.ResolveRoute(to, "", "")
		if cerr != nil {
			return store.Fallback{}, false
		}
		route.Model, route.Effort = cr.Model, cr.Effort
	}
	return store.Fallback{Provider: to, Model: route.Model, Effort: route.Effort,
		Account: s.accountOf(to, prov.Env(s.serverEnv()))}, true
}

// resumeDue resumes every pause [decideLimit] finds over at now (the queue pass's look
// at the clock) and returns the providers' accounts still paused, with the earliest
// end of theirs (0: none).
func resumeDue(tx *store.Tx) (paused store.PauseSet, nextEnd int64, err error) {
	pauses, err := tx.ProviderPauses()
	if err != nil {
		return nil, 0, err
	}
	paused = store.PauseSet{}
	for i := range pauses {
		p := &pauses[i]
		if decideLimit(p, limitObs{At: tx.Now()}, 0).Action == limitResume {
			if err := tx.ResumeProvider(p.Provider, p.Account, "elapsed"); err != nil && !errors.Is(err, store.ErrStale) {
				return nil, 0, err
			}
			continue
		}
		paused.Add(p.Provider, p.Account)
		if nextEnd == 0 || p.Until < nextEnd {
			nextEnd = p.Until
		}
	}
	return paused, nextEnd, nil
}
