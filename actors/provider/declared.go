package provider

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/config"
)

// FormatNone is the transcript format of a declared provider without a transcript
// (docs/providers.md §11.3): no answer is captured from a file.
const FormatNone = config.TranscriptNone

// declared is a provider defined by data under providers.<name> of config.json (the
// declarative contract, docs/providers.md §11). Tuning, startup timings and the
// confirmation loop come from common.
type declared struct {
	common
	spec config.ProviderSpec
}

// Transcript is the declared format; "none" has no file.
func (d declared) Transcript() Transcript {
	return Transcript{Format: d.spec.Transcript.Format, DataDirFile: d.spec.Transcript.DataDirFile}
}

// Route picks model and effort: the request's, else defaults.providers.<name>, else the
// declaration's default_model/default_effort. A declared list refuses a value not in
// it (an empty value too: invalid_model/invalid_effort with the valid list); without a
// list any value goes, and an empty one leaves the flag out (the CLI's own default).
func (d declared) Route(cfg *config.Config, model, effort string) (Route, error) {
	def := cfgOrDefault(cfg).Defaults.Providers[d.name]
	pick := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	r := Route{Provider: d.name, Model: pick(model, def.Model, d.spec.DefaultModel), Effort: pick(effort, def.Effort, d.spec.DefaultEffort)}
	if len(d.spec.Models) > 0 && !slices.Contains(d.spec.Models, r.Model) {
		return Route{}, invalidModel(d.name, d.name, r.Model, d.spec.Models)
	}
	// A built-in of §12 with an effort list (pi's --thinking) leaves an empty one out.
	if len(d.spec.Efforts) > 0 && !slices.Contains(d.spec.Efforts, r.Effort) && (r.Effort != "" || !IsBuiltin(d.name)) {
		return Route{}, invalidEffort(d.name, d.name, r.Model, r.Effort, d.spec.Efforts)
	}
	return r, nil
}

// fill replaces one placeholder in every element of a template; the slice is fresh.
func fill(tmpl []string, placeholder, value string) []string {
	out := make([]string, len(tmpl))
	for i, a := range tmpl {
		out[i] = strings.ReplaceAll(a, placeholder, value)
	}
	return out
}

// LaunchArgv is command, args, bypass_args (left out for r.Approvals) or approval_args
// (only for r.Approvals), model_args with {model} (left out for an empty model) and
// effort_args with {effort} (likewise).
func (d declared) LaunchArgv(r Route) ([]string, error) {
	argv := append([]string{d.spec.Command}, d.spec.Args...)
	if r.Approvals {
		argv = append(argv, d.spec.ApprovalArgs...)
	} else {
		argv = append(argv, d.spec.BypassArgs...)
	}
	if r.Model != "" {
		argv = append(argv, fill(d.spec.ModelArgs, config.PlaceholderModel, r.Model)...)
	}
	if r.Effort != "" {
		argv = append(argv, fill(d.spec.EffortArgs, config.PlaceholderEffort, r.Effort)...)
	}
	return argv, nil
}

// ResumeArgv is LaunchArgv(r) followed by resume_args with {session} replaced by the
// pointer's value: a session id (kind id, [validSessionID]) or, for kind path, the
// absolute path itself.
func (d declared) ResumeArgv(r Route, kind, value string) ([]string, error) {
	switch {
	case len(d.spec.ResumeArgs) == 0:
		return nil, notResumable(d.name, kind, value, "the declaration of `"+d.name+"` has no resume_args")
	case kind == "":
		return nil, notResumable(d.name, kind, value, noPointer)
	case kind == SessionKindID && !validSessionID(value):
		return nil, notResumable(d.name, kind, value, "a session id is ASCII letters, digits, `_` and `-`, not starting with `-`")
	case kind == SessionKindPath && !filepath.IsAbs(value):
		return nil, notResumable(d.name, kind, value, "the transcript path must be absolute")
	case kind != SessionKindID && kind != SessionKindPath:
		return nil, notResumable(d.name, kind, value, "the kind must be `id` or `path`")
	}
	argv, err := d.LaunchArgv(r)
	if err != nil {
		return nil, err
	}
	return append(argv, fill(d.spec.ResumeArgs, config.PlaceholderSession, value)...), nil
}

// Env is the declaration's env.
func (d declared) Env([]string) map[string]string {
	m := make(map[string]string, len(d.spec.Env))
	for k, v := range d.spec.Env {
		m[k] = v
	}
	return m
}

// Startup is the shared recipe (§5) with the declared submit and clear keys and login
// screens.
func (d declared) Startup(cfg *config.Config) Startup {
	st := d.common.Startup(cfg)
	st.SubmitKey = d.spec.Keys.Submit
	if len(d.spec.Keys.Clear) > 0 {
		st.ClearKeys = append([]string(nil), d.spec.Keys.Clear...)
	}
	st.LoginPatterns = append([]*regexp.Regexp(nil), d.spec.Screens.Login...)
	if IsBuiltin(d.name) {
		st.TrustScreens = append([]string(nil), contractTrust[d.name]...)
	}
	return st
}

// Shutdown types the declared line and keys, then waits the declared grace (else the
// tuning's shutdown_grace_ms). With neither line nor keys the pane is closed at once.
func (d declared) Shutdown(cfg *config.Config) Shutdown {
	s := d.spec.Shutdown
	if s.Line == "" && len(s.Keys) == 0 {
		return Shutdown{}
	}
	grace := s.Grace
	if grace == 0 {
		grace = d.Tuning(cfg).ShutdownGrace
	}
	return Shutdown{Line: s.Line, Keys: append([]string(nil), s.Keys...), Grace: grace}
}

func (d declared) InterruptKeys() []string { return append([]string(nil), d.spec.Keys.Interrupt...) }
func (d declared) ApproveKeys() []string   { return append([]string(nil), d.spec.Keys.Approve...) }
func (d declared) DenyKeys() []string      { return append([]string(nil), d.spec.Keys.Deny...) }

// ModelSwitch: the contract has no model-switch recipe yet.
func (declared) ModelSwitch(string) (string, bool) { return "", false }

// Spec returns the declaration behind a provider expressed through the contract: one
// declared in config, or a built-in shipped as contract values (gemini, opencode, pi,
// qwen, docs/providers.md §12); ok is false for claude, codex and the mock.
func Spec(p Provider) (config.ProviderSpec, bool) {
	d, ok := p.(declared)
	return d.spec, ok
}
