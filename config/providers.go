package config

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// The declarative provider contract (docs/providers.md §11): a provider defined by data
// under `providers.<name>` of config.json, without a release. Unlike the rest of the
// file, this section is strict: an unknown key is config_invalid, since a misspelt key
// of a launch recipe would start the wrong program or miss a screen.

// Values of a declared provider's status, session and transcript.format keys.
const (
	StatusHerdr  = "herdr"  // herdr's detection or the agent's own pane.report_agent
	StatusScreen = "screen" // the pane's screen classified with the screens rules (docs/providers.md §11.4)
	SessionHerdr = "herdr"  // herdr's agent_session pointer (requires the herdr layer)
	SessionNone  = "none"   // no session pointer: resume is not offered
	// SessionTranscript: the pointer is learned from the located transcript — pi's file
	// path, gemini's header sessionId (docs/providers.md §11.1, §12).
	SessionTranscript = "transcript"
	TranscriptNone    = "none"   // no transcript: no answer is captured (docs/providers.md §11.3)
	transcriptClaude  = "claude" // the built-in adapters (docs/providers.md §3.6, §4.6, §6.9)
	transcriptCodex   = "codex"
)

// Placeholders of a declared provider's argv templates.
const (
	PlaceholderModel   = "{model}"
	PlaceholderEffort  = "{effort}"
	PlaceholderSession = "{session}"
)

// ReservedProviders cannot be declared: the built-ins (claude, codex and the four
// shipped as contract values, docs/providers.md §12) and the mock win, and a
// declaration under their names is refused rather than silently ignored.
var ReservedProviders = []string{"claude", "codex", "gemini", "opencode", "pi", "qwen", MockProvider}

// TranscriptFormats are the values transcript.format takes: the adapters of
// actors/transcript (its Formats, docs/providers.md §3.6, §4.6, §6.9) and none. config
// cannot import the adapters; a test of actors/provider keeps the two lists equal.
// SessionTranscriptFormats are the transcript formats that name their conversation,
// so session `transcript` may use them: pi's file is its session, gemini's header
// holds its sessionId (docs/providers.md §12).
var SessionTranscriptFormats = []string{"gemini", "pi"}

var TranscriptFormats = []string{transcriptClaude, transcriptCodex, "gemini", "opencode", "pi", "qwen", TranscriptNone}

var (
	providerKeys   = []string{"command", "args", "model_args", "effort_args", "bypass_args", "approval_args", "resume_args", "env", "models", "default_model", "efforts", "default_effort", "screens", "status", "session", "transcript", "keys", "shutdown"}
	screensKeys    = []string{"ready", "working", "blocked", "login", "limit"}
	transcriptKeys = []string{"format", "data_dir_file"}
	keysKeys       = []string{"submit", "interrupt", "approve", "deny", "clear"}
	shutdownKeys   = []string{"line", "keys", "grace"}
	placeholderRE  = regexp.MustCompile(`\{[^{}]*\}`)
	providerNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
)

// ProviderSpec is one declared provider (docs/providers.md §11.1).
type ProviderSpec struct {
	Name    string
	Command string   // argv[0]: a name looked up on PATH or a path
	Args    []string // always passed, after Command
	// ModelArgs, EffortArgs and ResumeArgs are templates holding {model}, {effort} and
	// {session}; BypassArgs are left out for an agent started with approvals, and
	// ApprovalArgs are passed only for one (the CLI's asking mode where it is not the
	// default).
	ModelArgs, EffortArgs, BypassArgs, ApprovalArgs, ResumeArgs []string
	Env                                                         map[string]string // extra pane environment; never nil
	Models                                                      []string          // empty = any model
	DefaultModel                                                string
	Efforts                                                     []string // empty = any effort
	DefaultEffort                                               string
	Screens                                                     ProviderScreens
	Status                                                      string // StatusHerdr or StatusScreen
	Session                                                     string // SessionHerdr, SessionTranscript or SessionNone
	Transcript                                                  ProviderTranscript
	Keys                                                        ProviderKeys
	Shutdown                                                    ProviderShutdown
}

// ProviderScreens are the screen rules: each one matches when any of its regular
// expressions matches the visible screen (compiled case-insensitively).
type ProviderScreens struct {
	Ready, Working, Blocked, Login, Limit []*regexp.Regexp
}

// ProviderTranscript says where the answer comes from.
type ProviderTranscript struct {
	Format      string // one of TranscriptFormats
	DataDirFile string // a path relative to the agent's data dir; "" = located from agent_session
}

// ProviderKeys are herdr key names.
type ProviderKeys struct {
	Submit                   string // default Enter
	Interrupt, Approve, Deny []string
	// Clear empties the input box before every delivery (docs/providers.md §5.1); nil:
	// the shared recipe (Ctrl-E, Ctrl-U).
	Clear []string
}

// ProviderShutdown is the graceful shutdown: type Line (when set), press Keys, wait Grace.
type ProviderShutdown struct {
	Line  string
	Keys  []string
	Grace time.Duration // 0 = the tuning's shutdown_grace_ms
}

// NeedsHerdr reports whether the herdr layer is part of the support rule for p
// (docs/providers.md §1): only with session herdr.
func (p ProviderSpec) NeedsHerdr() bool { return p.Session == SessionHerdr }

// fieldInvalid is config_invalid with details.field naming the offending key.
func fieldInvalid(field, msg string) *wire.Error {
	return wire.Env(wire.CauseConfigInvalid, "`"+field+"`: "+msg, "field", field)
}

// strict refuses every key of obj not in known.
func strict(obj map[string]any, known []string, section string) error {
	for _, k := range sortedKeys(obj) {
		if slices.Contains(known, k) {
			continue
		}
		msg := "unknown key"
		if s, ok := Suggest(k, known); ok {
			msg += " (did you mean `" + s + "`?)"
		}
		return fieldInvalid(qualify(section, k), msg+"; known keys: "+strings.Join(known, ", "))
	}
	return nil
}

// providers reads the providers section (docs/providers.md §11.1).
func (l *loader) providers(obj map[string]any) error {
	for _, name := range sortedKeys(obj) {
		field := "providers." + name
		switch {
		case slices.Contains(ReservedProviders, name):
			return fieldInvalid(field, "`"+name+"` is built into orcr and cannot be declared; choose another name")
		case !providerNameRE.MatchString(name):
			return fieldInvalid(field, "a provider name is 1–32 lowercase letters, digits, `_` and `-`, starting with a letter")
		}
		entry, err := object(obj[name], field)
		if err != nil {
			return fieldInvalid(field, "must be a JSON object")
		}
		spec, err := parseProvider(name, entry)
		if err != nil {
			return err
		}
		l.cfg.Providers[name] = spec
	}
	return nil
}

func parseProvider(name string, entry map[string]any) (ProviderSpec, error) {
	field := "providers." + name
	if err := strict(entry, providerKeys, field); err != nil {
		return ProviderSpec{}, err
	}
	p := ProviderSpec{Name: name, Env: map[string]string{}, Status: StatusHerdr, Session: SessionNone,
		Transcript: ProviderTranscript{Format: TranscriptNone}}
	var err error
	str := func(key string, dst *string) {
		if err == nil {
			_, _, err = stringKeyInto(entry, key, field+"."+key, dst)
			if err != nil {
				err = fieldInvalid(field+"."+key, "must be a string")
			}
		}
	}
	list := func(key string, dst *[]string, allowed ...string) {
		if err == nil {
			*dst, err = stringList(entry, key, field+"."+key, allowed)
		}
	}
	str("command", &p.Command)
	list("args", &p.Args)
	list("model_args", &p.ModelArgs, PlaceholderModel)
	list("effort_args", &p.EffortArgs, PlaceholderEffort)
	list("bypass_args", &p.BypassArgs)
	list("approval_args", &p.ApprovalArgs)
	list("resume_args", &p.ResumeArgs, PlaceholderSession)
	list("models", &p.Models)
	str("default_model", &p.DefaultModel)
	list("efforts", &p.Efforts)
	str("default_effort", &p.DefaultEffort)
	str("status", &p.Status)
	str("session", &p.Session)
	if err != nil {
		return ProviderSpec{}, err
	}
	if strings.TrimSpace(p.Command) == "" {
		return ProviderSpec{}, fieldInvalid(field+".command", "is required: the program to start (a name on PATH or a path)")
	}
	for _, c := range []struct {
		key, ph string
		args    []string
	}{{"model_args", PlaceholderModel, p.ModelArgs}, {"effort_args", PlaceholderEffort, p.EffortArgs}, {"resume_args", PlaceholderSession, p.ResumeArgs}} {
		if len(c.args) > 0 && !slices.ContainsFunc(c.args, func(a string) bool { return strings.Contains(a, c.ph) }) {
			return ProviderSpec{}, fieldInvalid(field+"."+c.key, "must hold "+c.ph)
		}
	}
	for _, c := range []struct {
		key, def string
		list     []string
	}{{"default_model", p.DefaultModel, p.Models}, {"default_effort", p.DefaultEffort, p.Efforts}} {
		if c.def != "" && len(c.list) > 0 && !slices.Contains(c.list, c.def) {
			return ProviderSpec{}, fieldInvalid(field+"."+c.key, "`"+c.def+"` is not in the list: "+strings.Join(c.list, ", "))
		}
	}
	if p.Status != StatusHerdr && p.Status != StatusScreen {
		return ProviderSpec{}, fieldInvalid(field+".status", "must be `herdr` or `screen`")
	}
	if p.Session != SessionHerdr && p.Session != SessionNone && p.Session != SessionTranscript {
		return ProviderSpec{}, fieldInvalid(field+".session", "must be `herdr`, `transcript` or `none`")
	}
	if len(p.ResumeArgs) > 0 && p.Session == SessionNone {
		return ProviderSpec{}, fieldInvalid(field+".resume_args", "needs session `herdr` or `transcript`: the session to resume is herdr's agent_session pointer or the transcript's")
	}
	if v, ok := entry["env"]; ok {
		env, e := object(v, field+".env")
		if e != nil {
			return ProviderSpec{}, fieldInvalid(field+".env", "must be a JSON object of strings")
		}
		for _, k := range sortedKeys(env) {
			s, isStr := env[k].(string)
			switch {
			case !isStr:
				return ProviderSpec{}, fieldInvalid(field+".env."+k, "must be a string")
			case k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(s, 0):
				return ProviderSpec{}, fieldInvalid(field+".env."+k, "is not a valid environment variable")
			}
			p.Env[k] = s
		}
	}
	if p.Screens, err = parseScreens(entry, field+".screens"); err != nil {
		return ProviderSpec{}, err
	}
	// A status read from the screen needs both ends of a turn on it: without a working
	// rule no turn is seen to start, without a ready rule none is seen to end.
	if p.Status == StatusScreen && (len(p.Screens.Ready) == 0 || len(p.Screens.Working) == 0) {
		return ProviderSpec{}, fieldInvalid(field+".screens", "status `screen` needs `ready` and `working` rules")
	}
	if p.Transcript, err = parseTranscript(entry, field+".transcript"); err != nil {
		return ProviderSpec{}, err
	}
	if p.Session == SessionTranscript && !slices.Contains(SessionTranscriptFormats, p.Transcript.Format) {
		return ProviderSpec{}, fieldInvalid(field+".session", "`transcript` needs transcript.format "+strings.Join(SessionTranscriptFormats, " or ")+
			": only their transcripts name their conversation")
	}
	if p.Keys, err = parseKeys(entry, field+".keys"); err != nil {
		return ProviderSpec{}, err
	}
	if p.Shutdown, err = parseShutdown(entry, field+".shutdown"); err != nil {
		return ProviderSpec{}, err
	}
	return p, nil
}

// section returns obj[key] as an object checked against known; nil when absent.
func section(obj map[string]any, key, field string, known []string) (map[string]any, error) {
	v, ok := obj[key]
	if !ok {
		return nil, nil
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return nil, fieldInvalid(field, "must be a JSON object")
	}
	return m, strict(m, known, field)
}

// stringList reads obj[key] as an array of strings. Placeholders ({…}) other than
// allowed are refused, as are NUL bytes; ok absent = nil.
func stringList(obj map[string]any, key, field string, allowed []string) ([]string, error) {
	v, ok := obj[key]
	if !ok {
		return nil, nil
	}
	arr, isArr := v.([]any)
	if !isArr {
		return nil, fieldInvalid(field, "must be an array of strings")
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, isStr := e.(string)
		if !isStr || strings.ContainsRune(s, 0) {
			return nil, fieldInvalid(field, "must be an array of strings")
		}
		for _, ph := range placeholderRE.FindAllString(s, -1) {
			if !slices.Contains(allowed, ph) {
				msg := "unknown placeholder " + ph
				if len(allowed) > 0 {
					msg += "; this list takes " + strings.Join(allowed, ", ")
				} else {
					msg += "; this list takes none"
				}
				return nil, fieldInvalid(field, msg)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func parseScreens(entry map[string]any, field string) (ProviderScreens, error) {
	var s ProviderScreens
	obj, err := section(entry, "screens", field, screensKeys)
	if err != nil || obj == nil {
		return s, err
	}
	dsts := []*[]*regexp.Regexp{&s.Ready, &s.Working, &s.Blocked, &s.Login, &s.Limit}
	for i, k := range screensKeys {
		srcs, err := stringList(obj, k, field+"."+k, nil)
		if err != nil {
			return s, err
		}
		for _, src := range srcs {
			if src == "" {
				return s, fieldInvalid(field+"."+k, "an empty pattern would match every screen")
			}
			re, rerr := regexp.Compile("(?i)" + src)
			if rerr != nil {
				return s, fieldInvalid(field+"."+k, "bad regular expression: "+rerr.Error())
			}
			*dsts[i] = append(*dsts[i], re)
		}
	}
	return s, nil
}

func parseTranscript(entry map[string]any, field string) (ProviderTranscript, error) {
	t := ProviderTranscript{Format: TranscriptNone}
	obj, err := section(entry, "transcript", field, transcriptKeys)
	if err != nil || obj == nil {
		return t, err
	}
	for _, k := range []struct {
		key string
		dst *string
	}{{"format", &t.Format}, {"data_dir_file", &t.DataDirFile}} {
		if _, _, err := stringKeyInto(obj, k.key, field+"."+k.key, k.dst); err != nil {
			return t, fieldInvalid(field+"."+k.key, "must be a string")
		}
	}
	if !slices.Contains(TranscriptFormats, t.Format) {
		return t, fieldInvalid(field+".format", "must be one of "+strings.Join(TranscriptFormats, ", "))
	}
	if t.DataDirFile != "" {
		clean := t.DataDirFile
		switch {
		case t.Format == TranscriptNone:
			return t, fieldInvalid(field+".data_dir_file", "needs a format")
		case strings.HasPrefix(clean, "/") || slices.Contains(strings.Split(clean, "/"), ".."):
			return t, fieldInvalid(field+".data_dir_file", "must be a path inside the agent's data dir")
		}
	}
	return t, nil
}

func parseKeys(entry map[string]any, field string) (ProviderKeys, error) {
	k := ProviderKeys{Submit: "Enter", Interrupt: []string{"Escape"}, Approve: []string{"Enter"}, Deny: []string{"Escape"}}
	obj, err := section(entry, "keys", field, keysKeys)
	if err != nil || obj == nil {
		return k, err
	}
	if _, _, err := stringKeyInto(obj, "submit", field+".submit", &k.Submit); err != nil || strings.TrimSpace(k.Submit) == "" {
		return k, fieldInvalid(field+".submit", "must be a key name")
	}
	for _, c := range []struct {
		key string
		dst *[]string
	}{{"interrupt", &k.Interrupt}, {"approve", &k.Approve}, {"deny", &k.Deny}, {"clear", &k.Clear}} {
		if _, ok := obj[c.key]; !ok {
			continue
		}
		keys, err := stringList(obj, c.key, field+"."+c.key, nil)
		if err != nil {
			return k, err
		}
		if len(keys) == 0 || slices.Contains(keys, "") {
			return k, fieldInvalid(field+"."+c.key, "must be a non-empty list of key names")
		}
		*c.dst = keys
	}
	return k, nil
}

func parseShutdown(entry map[string]any, field string) (ProviderShutdown, error) {
	var s ProviderShutdown
	obj, err := section(entry, "shutdown", field, shutdownKeys)
	if err != nil || obj == nil {
		return s, err
	}
	if _, _, err := stringKeyInto(obj, "line", field+".line", &s.Line); err != nil {
		return s, fieldInvalid(field+".line", "must be a string")
	}
	if strings.ContainsAny(s.Line, "\r\n\x00") {
		return s, fieldInvalid(field+".line", "must be one line")
	}
	if s.Keys, err = stringList(obj, "keys", field+".keys", nil); err != nil {
		return s, err
	}
	if s.Line != "" && s.Keys == nil {
		s.Keys = []string{"Enter"}
	}
	d, _, err := durationKey(obj, "grace", field+".grace")
	if err != nil {
		return s, fieldInvalid(field+".grace", "must be a duration such as \"2s\"")
	}
	s.Grace = d
	return s, nil
}
