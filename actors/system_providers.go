package actors

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// The provider side of the facade: integration checks, startup and shutdown recipes,
// and the transcript adapters wired into the turn machinery.

func (s *System) providerOptions() provider.Options {
	o := provider.OptionsFromEnv(s.getenv)
	if s.cfg.Config != nil {
		o.Declared = s.cfg.Config.Providers
	}
	return o
}

// herdrIntegrations caches `herdr integration status` (the herdr layer of the support
// gate, docs/providers.md §1.1) for a short while.
type herdrIntegrations struct {
	mu      sync.Mutex
	at      time.Time
	present map[string]bool
}

const integrationsTTL = 30 * time.Second

func (s *System) herdrInstalled(ctx context.Context) map[string]bool {
	s.integ.mu.Lock()
	defer s.integ.mu.Unlock()
	if s.integ.present != nil && time.Since(s.integ.at) < integrationsTTL {
		return s.integ.present
	}
	present := map[string]bool{}
	if s.driver.Bin() != "" {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		rows, err := s.driver.IntegrationStatus(cctx)
		cancel()
		if err != nil {
			s.cfg.Log.Warn("herdr integration status failed", "err", err)
		} else {
			present = provider.HerdrInstalled(rows)
		}
	}
	s.integ.present, s.integ.at = present, time.Now()
	return present
}

// EnvDisableDiscovery set to "1" in the server's environment turns unmanaged discovery
// off (docs/cli.md §7).
const EnvDisableDiscovery = "ORCR_DISABLE_DISCOVERY"

// supported is the support gate of discovery: only agents of providers with both
// layers (the mock counts when enabled) become unmanaged rows (docs/lifecycle.md §13.5).
func (s *System) supported(ctx context.Context, name string) bool {
	return s.providerOptions().Support(name, s.herdrInstalled(ctx)) == nil
}

// systemProviders is the server's [Providers]: the configured providers, the price
// table and herdr's contract check. System holds it (System.providers) and hands the
// same value to the agent actors.
type systemProviders struct {
	s  *System
	tr transcripts
}

// Shutdown implements [Providers]: the provider's graceful-shutdown recipe
// (docs/lifecycle.md §15.2): a line to type (claude and codex have none; the mock's is
// /quit) and the grace before close.
func (p systemProviders) Shutdown(name string) (string, time.Duration) {
	s := p.s
	prov, err := provider.Lookup(name, s.providerOptions())
	if err != nil {
		return "", 0
	}
	sd := prov.Shutdown(s.cfg.Config)
	return sd.Line, sd.Grace
}

// Tuning implements [Providers]: the configured completion tuning.
func (p systemProviders) Tuning(name string) config.Tuning { return p.s.cfg.Config.TuningFor(name) }

// Price implements [Providers]: the configured price table.
func (p systemProviders) Price(model string) (config.Price, bool) {
	return p.s.cfg.Config.PriceFor(model)
}

// NeedsAgentSession implements [Providers]: providers whose transcript is not a file
// of the agent's data dir (a declared provider without a transcript has none to find).
// gemini has no herdr integration and pi's reports no session: their transcripts are
// located from the cwd (§6.9, §12.1).
func (p systemProviders) NeedsAgentSession(name string) bool {
	sp := p.tr.spec(name)
	return sp.DataDirFile == "" && sp.Format != provider.FormatNone && sp.Format != provider.FormatGemini && sp.Format != provider.FormatPi
}

// HerdrGate implements [Providers]: the contract check against the live `herdr api
// schema --json`, once; a passing check is remembered, a failing one is retried at the
// next spawn (herdr may be upgraded meanwhile).
func (p systemProviders) HerdrGate(ctx context.Context) error {
	s := p.s
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	if s.gateOK {
		return nil
	}
	if err := s.driver.Conformance(ctx); err != nil {
		s.cfg.Log.Error("herdr contract check failed", "err", err)
		return err
	}
	s.gateOK = true
	return nil
}

// Submit implements [Providers]: a provider's startup recipe as the agent actor's
// delivery plan.
func (p systemProviders) Submit(name string) SubmitPlan {
	s := p.s
	prov, err := provider.Lookup(name, s.providerOptions())
	if err != nil {
		return SubmitPlan{EnterDelay: defaultEnterDelay}
	}
	st := prov.Startup(s.cfg.Config)
	var gate func(string) (string, string)
	if len(st.LoginScreens)+len(st.LoginPatterns)+len(st.TrustScreens)+len(st.SetupScreens) > 0 {
		gate = st.Gate
	}
	return SubmitPlan{
		Gate: gate, GateSettle: st.GateSettle,
		ReadyBudget: st.ReadyBudget, BlankBudget: s.cfg.Config.Timings.MaxStarting, ReadyPoll: st.ReadyPoll, Paste: st.Paste, ClearKeys: st.ClearKeys,
		EnterDelay:    st.EnterDelay,
		ConfirmBudget: st.Confirm.Budget, ConfirmPoll: st.Confirm.Poll, RetypeDelay: st.Confirm.RetypeDelay,
		Attempts: st.Confirm.Attempts, ProbeMaxChars: st.Confirm.ProbeMaxChars,
	}
}

// transcripts implements [Transcripts] with the adapters of actors/transcript,
// choosing the format and file per provider.
type transcripts struct {
	s *System
}

func (t transcripts) spec(name string) provider.Transcript {
	prov, err := provider.Lookup(name, t.s.providerOptions())
	if err != nil {
		return provider.Transcript{Format: name}
	}
	return prov.Transcript()
}

func (t transcripts) Locate(a TranscriptTarget) (string, error) {
	sp := t.spec(a.Provider)
	if sp.Format == provider.FormatNone {
		return "", transcript.Unavailable(wire.CauseNoTranscript,
			"provider `"+a.Provider+"` declares no transcript (transcript.format none), so orcr reads no answer from a file")
	}
	if sp.Format == provider.FormatOpencode {
		return t.opencodeExport(a)
	}
	return transcript.Locate(transcript.Locator{
		Home: t.s.getenv("HOME"), ClaudeDir: t.s.getenv("CLAUDE_CONFIG_DIR"), CodexHome: t.s.getenv("CODEX_HOME"), DataDir: a.DataDir, Format: sp.Format, DataDirFile: sp.DataDirFile,
		AgentDir:    t.agentDir(a.Provider, sp.Format),
		SessionKind: a.SessionKind, SessionValue: a.SessionValue, CreatedAt: a.CreatedAt, Cwd: a.Cwd,
	})
}

// EnvPiAgentDir is pi's own directory variable (docs/providers.md §12.1).
const EnvPiAgentDir = "PI_CODING_AGENT_DIR"

// agentDir is the directory of a §6.9 CLI when the pane's environment moves it: pi's
// PI_CODING_AGENT_DIR, from the provider's env, else the server's (the pane inherits
// it); "" leaves the CLI's default under HOME.
func (t transcripts) agentDir(name, format string) string {
	if format != provider.FormatPi {
		return ""
	}
	if prov, err := t.s.lookupProvider(name); err == nil {
		if v := prov.Env(nil)[EnvPiAgentDir]; v != "" {
			return v
		}
	}
	return t.s.getenv(EnvPiAgentDir)
}

// opencodeExportEvery bounds how often opencode's export runs for one agent: the
// completion's check, a read and the stall and freshness probes all locate the
// transcript, and one export is a process (docs/providers.md §6.9).
const opencodeExportEvery = time.Second

// opencodeExports remembers, per agent data dir, when its export last ran.
type opencodeExports struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// due reports whether dataDir's export is older than opencodeExportEvery, and marks it
// run now when it is.
func (e *opencodeExports) due(dataDir string, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last == nil {
		e.last = map[string]time.Time{}
	}
	if at, ok := e.last[dataDir]; ok && now.Sub(at) < opencodeExportEvery {
		return false
	}
	for d, at := range e.last { // only the pace matters: forget what is past it
		if now.Sub(at) >= opencodeExportEvery {
			delete(e.last, d)
		}
	}
	e.last[dataDir] = now
	return true
}

// opencodeExport is opencode's transcript: `opencode export <session>` kept in the
// agent's data dir (docs/providers.md §6.9), run again only when the kept one is
// older than opencodeExportEvery.
func (t transcripts) opencodeExport(a TranscriptTarget) (string, error) {
	if a.SessionValue == "" || a.DataDir == "" {
		return "", transcript.Unavailable(wire.CauseNoSession, "opencode has not reported its session to herdr yet")
	}
	kept := filepath.Join(a.DataDir, transcript.OpencodeExportFile)
	if !t.s.ocExports.due(a.DataDir, time.Now()) {
		if _, err := os.Stat(kept); err == nil {
			return kept, nil
		}
	}
	// The pane's environment as far as the server knows it: its own, HOME and the XDG
	// data dir as it sees them (opencode's database is under them), the provider's env.
	bin, env := "opencode", os.Environ()
	for _, k := range []string{"HOME", "XDG_DATA_HOME", "PATH"} {
		if v := t.s.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if prov, err := t.s.lookupProvider(a.Provider); err == nil {
		if spec, ok := provider.Spec(prov); ok {
			bin = spec.Command
		}
		for k, v := range prov.Env(nil) {
			env = append(env, k+"="+v)
		}
	}
	return transcript.OpencodeExport(context.Background(), bin, env, a.SessionValue, a.DataDir)
}

func (t transcripts) Tools(providerName, path string) ([]store.ToolLog, error) {
	evs, err := transcript.ReadTools(path, t.spec(providerName).Format)
	if err != nil {
		return nil, err
	}
	out := make([]store.ToolLog, 0, len(evs))
	for _, e := range evs {
		out = append(out, store.ToolLog{Result: e.Kind == transcript.ToolResult, CallID: e.CallID, Name: e.Name,
			Args: e.Args, OK: e.OK, Text: e.Text})
	}
	return out, nil
}

// RemoteKeys implements [Providers]: the stream's recipes of provider name.
func (p systemProviders) RemoteKeys(name string) (RemoteKeys, bool) {
	prov, err := p.s.lookupProvider(name)
	if err != nil {
		return RemoteKeys{}, false
	}
	return RemoteKeys{Interrupt: prov.InterruptKeys(), Approve: prov.ApproveKeys(), Deny: prov.DenyKeys(),
		ModelSwitch: prov.ModelSwitch}, true
}

// Declared implements [Providers]: the declaration of a contract provider.
func (p systemProviders) Declared(name string) (config.ProviderSpec, bool) {
	prov, err := p.s.lookupProvider(name)
	if err != nil {
		return config.ProviderSpec{}, false
	}
	return provider.Spec(prov)
}

// lookupProvider finds provider name with the server's options.
func (s *System) lookupProvider(name string) (provider.Provider, error) {
	return provider.Lookup(name, s.providerOptions())
}

func (t transcripts) LastResponse(providerName, path string) (string, error) {
	entries, err := transcript.Read(path, t.spec(providerName).Format)
	if err != nil {
		return "", err
	}
	text, ok := transcript.LastResponse(entries)
	if !ok {
		return "", transcript.Unavailable(wire.CauseNoFinalResponse, "the transcript has no final response yet")
	}
	return text, nil
}

func (t transcripts) LastPrompt(providerName, path string) (string, bool) {
	entries, err := transcript.Read(path, t.spec(providerName).Format)
	if err != nil {
		return "", false
	}
	return transcript.LastPrompt(entries)
}

// Settled is §6.4's check; opencode's export also needs its last answer closed
// (docs/providers.md §6.9).
func (transcripts) Settled(path string, settle time.Duration, now time.Time) bool {
	if !transcript.Settled(path, settle, now) {
		return false
	}
	if filepath.Base(path) == transcript.OpencodeExportFile {
		data, err := os.ReadFile(path)
		return err == nil && !transcript.OpencodeTurnOpen(data)
	}
	return true
}

func (transcripts) Cursor(path string) (string, bool) { return transcript.Cursor(path) }

func (transcripts) Stamp(path string) (string, bool) { return transcript.Stamp(path) }

func (t transcripts) Usage(providerName, path string) (store.TurnUsage, bool) {
	u, ok, err := transcript.ReadTurnUsage(path, t.spec(providerName).Format)
	if err != nil || !ok {
		return store.TurnUsage{}, false
	}
	return storeUsage(u), true
}

func (t transcripts) TurnEnd(providerName, path string) (string, store.TurnUsage, bool) {
	e, err := transcript.ReadTurnEnd(path, t.spec(providerName).Format)
	if err != nil || !e.HasUsage {
		return e.Response, store.TurnUsage{}, false
	}
	return e.Response, storeUsage(e.Usage), true
}

// storeUsage is u as the store keeps it.
func storeUsage(u transcript.Usage) store.TurnUsage {
	tu := store.TurnUsage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite,
		Reasoning: u.Reasoning, Model: u.Model}
	for _, w := range u.Quota {
		tu.Quota = append(tu.Quota, store.QuotaWindow{Window: w.Window, UsedPercent: w.UsedPercent,
			WindowMinutes: w.WindowMinutes, ResetsAt: w.ResetsAt})
	}
	return tu
}

// Session is transcript.SessionOf for a provider whose declared session is
// `transcript` (docs/providers.md §11.1).
func (t transcripts) Session(providerName, path string) (kind, value string, ok bool) {
	prov, err := t.s.lookupProvider(providerName)
	if err != nil {
		return "", "", false
	}
	spec, ok := provider.Spec(prov)
	if !ok || spec.Session != config.SessionTranscript {
		return "", "", false
	}
	return transcript.SessionOf(spec.Transcript.Format, path)
}

func (t transcripts) LimitNotice(providerName, path string) (string, bool) {
	n, ok, err := transcript.ReadLimitNotice(path, t.spec(providerName).Format)
	return n, ok && err == nil
}

func (transcripts) ClassifyBlocked(parts ...string) string {
	return transcript.ClassifyBlocked(parts...)
}
