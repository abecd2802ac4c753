package provider

import (
	"regexp"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/config"
)

// The four agent CLIs shipped as built-ins expressed through the declarative contract
// (docs/providers.md §12): their declarations are Go values, not config, and a
// `providers.<name>` under their names is refused at load (config.ReservedProviders).
const (
	Gemini   = "gemini"   // @google/gemini-cli 0.61 (docs/providers.md §12.2)
	Opencode = "opencode" // opencode-ai 1.18 (docs/providers.md §12.4)
	Pi       = "pi"       // @mariozechner/pi-coding-agent 0.73 (docs/providers.md §12.1)
	Qwen     = "qwen"     // @qwen-code/qwen-code 0.24 (docs/providers.md §12.3)
)

// Transcript formats of the contract built-ins (actors/transcript, docs/providers.md §6.9).
const (
	FormatGemini   = "gemini"
	FormatOpencode = "opencode"
	FormatPi       = "pi"
	FormatQwen     = "qwen"
)

// Screen rules of a contract provider, in the order [ClassifyScreen] tries them.
const (
	ScreenLogin   = "login"
	ScreenBlocked = "blocked"
	ScreenLimit   = "limit"
	ScreenWorking = "working"
	ScreenReady   = "ready"
)

// PiThinkingLevels are pi's --thinking levels (pi 0.73 `--help`).
var PiThinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// screenRes compiles screen rules as config does: case-insensitive.
func screenRes(srcs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(srcs))
	for i, s := range srcs {
		out[i] = regexp.MustCompile("(?i)" + s)
	}
	return out
}

// The screens of docs/providers.md §10.2 as the four CLIs drew them, checked against
// the recorded fixtures (testdata/screens/<cli>/).
var (
	inputBox = `type your message or @path/to/file` // gemini's and qwen's empty input box

	contractSpecs = map[string]config.ProviderSpec{
		Pi: {
			Name: Pi, Command: "pi",
			ModelArgs: []string{"--model", config.PlaceholderModel}, EffortArgs: []string{"--thinking", config.PlaceholderEffort},
			Efforts: PiThinkingLevels,
			Screens: config.ProviderScreens{
				Ready:   screenRes(`\d+(\.\d+)?%/\d+k`, `ctrl\+c/ctrl\+d clear/exit`),
				Working: screenRes(`working\.\.\.`),
			},
			// herdr 0.8.2's pi extension reported no agent_session when measured
			// (docs/herdr.md §12.1): the transcript is located from the cwd, and that
			// file is the session pi resumes (docs/providers.md §12.1).
			ResumeArgs: []string{"--session", config.PlaceholderSession},
			Status:     config.StatusHerdr, Session: config.SessionTranscript,
			Transcript: config.ProviderTranscript{Format: FormatPi},
			Keys:       contractKeys(nil, nil),
			Shutdown:   config.ProviderShutdown{Keys: []string{"ctrl+d"}},
		},
		Qwen: {
			Name: Qwen, Command: "qwen",
			ModelArgs: []string{"-m", config.PlaceholderModel},
			// A fresh home starts in auto mode (an LLM classifier), so approvals ask
			// for the mode that asks.
			BypassArgs: []string{"--approval-mode", "yolo"}, ApprovalArgs: []string{"--approval-mode", "default"},
			ResumeArgs: []string{"--resume", config.PlaceholderSession},
			Screens: config.ProviderScreens{
				// The input box may hold a suggestion; the mode line stays.
				Ready:   screenRes(inputBox, `\(shift \+ tab to cycle\)`),
				Working: screenRes(`esc to cancel`),
				Blocked: screenRes(`allow execution of`, `waiting for user confirmation`),
			},
			Status: config.StatusHerdr, Session: config.SessionHerdr,
			Transcript: config.ProviderTranscript{Format: FormatQwen},
			Keys:       contractKeys(nil, nil),
			Shutdown:   config.ProviderShutdown{Line: "/quit", Keys: []string{KeyEnter}},
		},
		Gemini: {
			Name: Gemini, Command: "gemini",
			ModelArgs:  []string{"-m", config.PlaceholderModel},
			BypassArgs: []string{"--approval-mode", "yolo"}, ApprovalArgs: []string{"--approval-mode", "default"},
			Screens: config.ProviderScreens{
				Ready:   screenRes(inputBox),
				Working: screenRes(`esc to cancel`),
				Blocked: screenRes(`allow execution of`),
				Login:   screenRes(`how would you like to authenticate`),
				Limit:   screenRes(`usage limit reached for`),
			},
			// No herdr integration: the transcript is located by project (§6.9), and
			// its header's sessionId is what gemini resumes (docs/providers.md §12.2).
			ResumeArgs: []string{"--resume", config.PlaceholderSession},
			Status:     config.StatusHerdr, Session: config.SessionTranscript,
			Transcript: config.ProviderTranscript{Format: FormatGemini},
			Keys:       contractKeys(nil, nil),
			Shutdown:   config.ProviderShutdown{Line: "/quit", Keys: []string{KeyEnter}},
		},
		Opencode: {
			Name: Opencode, Command: "opencode",
			ModelArgs: []string{"-m", config.PlaceholderModel}, BypassArgs: []string{"--auto"},
			ResumeArgs: []string{"--session", config.PlaceholderSession},
			Screens: config.ProviderScreens{
				Ready:   screenRes(`ctrl\+p commands`),
				Working: screenRes(`esc interrupt`),
				Blocked: screenRes(`permission required`),
				Limit:   screenRes(`(usage|rate) limit (has been|was)? ?reached`, `rate limit exceeded`),
			},
			Status: config.StatusHerdr, Session: config.SessionHerdr,
			Transcript: config.ProviderTranscript{Format: FormatOpencode},
			// Esc twice: the first arms opencode's interrupt, the second stops the
			// turn. Its permission dialog selects with ⇆: Reject is two to the right.
			Keys:     contractKeys([]string{KeyEscape, KeyEscape}, []string{"right", "right", KeyEnter}),
			Shutdown: config.ProviderShutdown{Keys: []string{"ctrl+c"}},
		},
	}

	// contractTrust are the trust questions of the contract built-ins (§5.2): typed
	// into, the prompt's Enter would answer them.
	contractTrust = map[string][]string{Gemini: {"do you trust the files in this folder"}}
)

// contractKeys are the keys of §12: Enter submits and allows once (the dialogs of
// qwen, gemini and opencode select it first), Escape interrupts and denies unless
// given.
func contractKeys(interrupt, deny []string) config.ProviderKeys {
	if interrupt == nil {
		interrupt = []string{KeyEscape}
	}
	if deny == nil {
		deny = []string{KeyEscape}
	}
	return config.ProviderKeys{Submit: KeyEnter, Interrupt: interrupt, Approve: []string{KeyEnter}, Deny: deny}
}

// contractSpec is the shipped declaration of a contract built-in.
func contractSpec(name string) (config.ProviderSpec, bool) {
	sp, ok := contractSpecs[name]
	return sp, ok
}

// ContractBuiltins lists the built-ins expressed through the contract, sorted.
func ContractBuiltins() []string {
	out := make([]string, 0, len(contractSpecs))
	for n := range contractSpecs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ClassifyScreen is the first screen rule of spec that matches screen (its runs of
// white space taken as one space), trying login, blocked, limit, working and ready in
// that order; "" when none does (docs/providers.md §11.1).
func ClassifyScreen(spec config.ProviderSpec, screen string) string {
	flat := strings.Join(strings.Fields(screen), " ")
	for _, r := range []struct {
		name string
		res  []*regexp.Regexp
	}{{ScreenLogin, spec.Screens.Login}, {ScreenBlocked, spec.Screens.Blocked}, {ScreenLimit, spec.Screens.Limit},
		{ScreenWorking, spec.Screens.Working}, {ScreenReady, spec.Screens.Ready}} {
		if slices.ContainsFunc(r.res, func(re *regexp.Regexp) bool { return re.MatchString(flat) }) {
			return r.name
		}
	}
	return ""
}
