package provider

import (
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Fixed timings of the shared startup and delivery recipe (docs/providers.md §5,
// docs/lifecycle.md §8.1 step 7 and §9, docs/config.md §1.8). They are not configurable.
const (
	SessionPollInterval = 150 * time.Millisecond // pane.get poll for agent_session after the spawn
	SessionPollTimeout  = 3 * time.Second        // how long that poll runs
	ReadyPollInterval   = 400 * time.Millisecond // readiness poll
	ConfirmPollInterval = 400 * time.Millisecond // confirmation poll
	RetypeEnterDelay    = 300 * time.Millisecond // send_text → Enter pause of a re-delivery
	// ClearTypePause is the pause between a delivery's clear keys and its text
	// (docs/providers.md §5.1): claude on a loaded machine that read both in one go
	// inserted the text into the box as it was before the clear (TestRealTurnsLive
	// with a three-line leftover failed 4 runs in 6 without a pause, none in 10 with
	// 100–300 ms).
	ClearTypePause      = 150 * time.Millisecond
	PromptProbeMaxChars = 60 // the on-screen prompt probe is capped at this many characters
	// ShowBudget, ShowPoll and ShowGap hold a confirmed delivery's Enter until its text
	// shows on screen (docs/lifecycle.md §9.1): read every ShowPoll for at most
	// ShowBudget, the Enter at least ShowGap after the read that saw it. gemini takes an
	// Enter it processes within 30–40 ms of typed or pasted text for a newline, and a
	// busy gemini processes keys that arrived a second apart back to back.
	ShowBudget = 10 * time.Second
	ShowPoll   = 200 * time.Millisecond
	ShowGap    = 150 * time.Millisecond
)

// Key names sent through herdr's pane.send_keys.
const (
	KeyEnter  = "Enter"
	KeyEscape = "Escape"
)

// ModelCommand is the slash command claude and the mock take to switch the running
// TUI's model: "/model <model>" (docs/providers.md §2.2).
const ModelCommand = "/model"

// slashModel is the model switch "/model <model>", refused for a model that is blank
// or holds a control character (it is typed into a terminal, docs/decisions.md D9).
func slashModel(model string) (string, bool) {
	if strings.TrimSpace(model) == "" || strings.ContainsFunc(model, unicode.IsControl) {
		return "", false
	}
	return ModelCommand + " " + model, true
}

// clearLines is how many lines of a leftover multi-line input clearInputKeys empty.
const clearLines = 8

// clearInputKeys empty an input box of up to clearLines+1 lines with the cursor on its
// last (docs/providers.md §5.1): Ctrl-E Ctrl-U empty the cursor's line, and each
// Backspace then joins it to the line above, which Ctrl-E Ctrl-U empty in turn. The
// editors of all six CLIs delete only the cursor's line on Ctrl-U (a pasted three-line
// box kept two lines: TestRealTurnsLive, TestRealAgentsLive), and Backspace on an
// empty box does nothing. Every provider uses them unless its declaration says
// otherwise (keys.clear).
var clearInputKeys = func() []string {
	keys := []string{"ctrl+e", "ctrl+u"}
	for range clearLines {
		keys = append(keys, "backspace", "ctrl+e", "ctrl+u")
	}
	return keys
}()

// Startup is the shared startup recipe of one provider (docs/providers.md §5): what the spawn
// pipeline waits for before typing the first input, and how every managed delivery is
// made and confirmed.
type Startup struct {
	// SessionPoll and SessionWait: poll pane.get every SessionPoll for up to
	// SessionWait for agent_session after the pane was recorded; absence is fine.
	SessionPoll time.Duration
	SessionWait time.Duration

	// ReadyBudget (submit_ready_ms) bounds the readiness wait before the first text is
	// typed; 0 skips it. Every ReadyPoll the pane is ready when herdr's agent.list
	// reports it working or blocked, or when two consecutive visible-screen reads are
	// non-empty and identical (herdr's idle proves nothing: a booting TUI's screen reads
	// idle too). On expiry deliver anyway.
	ReadyBudget time.Duration
	ReadyPoll   time.Duration
	// GateSettle (gate_settle_ms) is how long after the readiness wait the screen is
	// still read, every ReadyPoll, for a login, trust or setup screen ([Startup.Gate])
	// before the first prompt is typed; 0 reads it once.
	GateSettle time.Duration

	// Paste types the prompt as one bracketed paste, so its newlines are part of the
	// text and only the Enter after it submits (docs/providers.md §5). claude, codex
	// and the mock all enable bracketed paste.
	Paste bool
	// ClearKeys are sent before every delivery to empty the input box, so text left
	// there (an interrupted delivery, keys typed by hand) is not glued onto the prompt.
	ClearKeys []string

	// EnterDelay (submit_enter_delay_ms) is the pause between send_text and
	// send_keys([SubmitKey]); 0 presses it at once.
	EnterDelay time.Duration
	// SubmitKey is the key that submits typed text.
	SubmitKey string

	// Confirm is the confirmation loop after the first two calls.
	Confirm SubmitConfirm

	// LoginScreens are lowercase phrases of the provider's own login screens
	// (docs/providers.md §5.2): a visible screen holding one of them, read once the
	// readiness wait is over, means the TUI waits for a login and no prompt can reach
	// the model. Empty means orcr knows no such screen of the provider.
	LoginScreens []string
	// LoginPatterns are regular expressions of login screens, from a declared
	// provider's screens.login (docs/providers.md §11.1); matched like LoginScreens.
	LoginPatterns []*regexp.Regexp
	// TrustScreens are lowercase phrases of the provider's question whether to trust
	// the working directory (docs/providers.md §5.2): typed into, the prompt's Enter
	// would answer it (claude's default answer exits).
	TrustScreens []string
	// SetupScreens are lowercase phrases of a question about the provider's own
	// settings that it asks once (docs/providers.md §5.2): typed into, the prompt's
	// Enter would answer it with its selected option, changing the user's settings.
	SetupScreens []string
}

// Gate reports the first login, trust or setup phrase screen holds and the cause it
// stands for ([wire.CauseProviderLoginRequired], [wire.CauseProviderTrustRequired] or [wire.CauseProviderSetupRequired]); ""
// and "" when it holds none.
// Phrases are compared in lower case with every run of white space (a line break a
// narrow pane put into the phrase included) taken as one space.
func (s Startup) Gate(screen string) (phrase, cause string) {
	if len(s.LoginScreens)+len(s.LoginPatterns)+len(s.TrustScreens)+len(s.SetupScreens) == 0 {
		return "", ""
	}
	flat := strings.Join(strings.Fields(strings.ToLower(screen)), " ")
	for _, re := range s.LoginPatterns {
		if m := re.FindString(flat); m != "" {
			return m, wire.CauseProviderLoginRequired
		}
	}
	for _, g := range []struct {
		phrases []string
		cause   string
	}{{s.LoginScreens, wire.CauseProviderLoginRequired}, {s.TrustScreens, wire.CauseProviderTrustRequired}, {s.SetupScreens, wire.CauseProviderSetupRequired}} {
		for _, p := range g.phrases {
			if p != "" && strings.Contains(flat, strings.Join(strings.Fields(p), " ")) {
				return p, g.cause
			}
		}
	}
	return "", ""
}

// SubmitConfirm holds the parameters of the submit-confirmation loop (docs/providers.md
// §5 step 5c, docs/lifecycle.md §9.2).
type SubmitConfirm struct {
	// Budget (submit_confirm_ms) is the total time for verifying and re-driving a
	// delivery; 0 means plain two-call delivery without verification.
	Budget time.Duration
	// Attempts (submit_attempts) is the most full re-deliveries (text, RetypeDelay,
	// Enter) made within Budget; never after the prompt was seen on screen once.
	Attempts int
	// Poll is the interval of the loop.
	Poll time.Duration
	// RetypeDelay is the text → Enter pause of a re-delivery.
	RetypeDelay time.Duration
	// ProbeMaxChars caps the first non-empty prompt line looked for on screen.
	ProbeMaxChars int
}

// Enabled reports whether confirmation runs at all (Budget > 0).
func (s SubmitConfirm) Enabled() bool { return s.Budget > 0 }

// Shutdown is the graceful shutdown recipe of one pane (docs/lifecycle.md §15.2), used by
// kill, reap, timeout and immediate teardown. When Line is empty the pane is closed at
// once. Otherwise send_text(Line), send_keys(Keys), wait Grace, then pane.close.
// Errors of the first steps are ignored; the close is the hard guarantee.
type Shutdown struct {
	Line  string
	Keys  []string
	Grace time.Duration
}

// HasLine reports whether the recipe types anything before the close.
func (s Shutdown) HasLine() bool { return s.Line != "" }

// submitConfirmFor builds the confirmation parameters from a tuning.
func submitConfirmFor(t config.Tuning) SubmitConfirm {
	return SubmitConfirm{
		Budget:        t.SubmitConfirm,
		Attempts:      t.SubmitAttempts,
		Poll:          ConfirmPollInterval,
		RetypeDelay:   RetypeEnterDelay,
		ProbeMaxChars: PromptProbeMaxChars,
	}
}

// startupFor builds the shared startup recipe from a tuning.
func startupFor(t config.Tuning) Startup {
	return Startup{
		SessionPoll: SessionPollInterval,
		SessionWait: SessionPollTimeout,
		ReadyBudget: t.SubmitReady,
		ReadyPoll:   ReadyPollInterval,
		GateSettle:  t.GateSettle,
		Paste:       true,
		ClearKeys:   append([]string(nil), clearInputKeys...),
		EnterDelay:  t.SubmitEnterDelay,
		SubmitKey:   KeyEnter,
		Confirm:     submitConfirmFor(t),
	}
}

// common implements the tuning-derived members shared by every provider.
type common struct{ name string }

func (c common) Name() string { return c.name }

func (c common) Tuning(cfg *config.Config) config.Tuning {
	return cfgOrDefault(cfg).TuningFor(c.name)
}

func (c common) Startup(cfg *config.Config) Startup { return startupFor(c.Tuning(cfg)) }

func (c common) SubmitConfirm(cfg *config.Config) SubmitConfirm {
	return submitConfirmFor(c.Tuning(cfg))
}

// InterruptKeys is ["Escape"] for every provider (docs/decisions.md D6).
func (common) InterruptKeys() []string { return []string{KeyEscape} }

// Shutdown without a line: close the pane at once (claude §3.5, codex §4.5).
func (common) Shutdown(*config.Config) Shutdown { return Shutdown{} }

// Env has no extras by default.
func (common) Env([]string) map[string]string { return map[string]string{} }

// Preflight refuses nothing by default.
func (common) Preflight(Route, int, []string) error { return nil }
