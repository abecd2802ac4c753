package actors

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// ProviderLs is provider.ls (docs/protocol.md §5.37): the built-ins (claude, codex and
// the contract built-ins of docs/providers.md §12), the mock when it is enabled, and the
// declared providers, with the support rule's answer for each.
func (s *System) ProviderLs(ctx context.Context, _ api.ProviderLsRequest) (api.ProviderLsResult, error) {
	opts := s.providerOptions()
	herdr := s.herdrInstalled(ctx)
	names := provider.Known()
	if opts.MockAllowed() {
		names = append(names, provider.Mock)
	}
	for name := range opts.Declared {
		if opts.HasOrcr(name) && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	rows := make([]api.ProviderRow, 0, len(names))
	for _, name := range names {
		row := api.ProviderRow{Name: name, Kind: api.ProviderBuiltin, Herdr: herdr[name], NeedsHerdr: name != provider.Mock,
			Supported: opts.Support(name, herdr) == nil}
		if p, err := provider.Lookup(name, opts); err == nil {
			if spec, ok := provider.Spec(p); ok {
				row.NeedsHerdr = spec.NeedsHerdr()
				if !provider.IsBuiltin(name) {
					row.Kind = api.ProviderDeclared
				}
			}
		}
		rows = append(rows, row)
	}
	return api.ProviderLsResult{Providers: rows}, nil
}

// Provider check timings: each program run, and the live turn.
const (
	checkRunTimeout  = 10 * time.Second
	checkTurnTimeout = "180s"
	// providerCheckPrompt is the prompt of the live check's turn.
	providerCheckPrompt = "Reply with the single word: ok"
)

// ProviderCheck is provider.check (docs/protocol.md §5.38, docs/cli.md §5.36): a
// doctor that reports per part of the provider's contract ok, failed or unknown.
func (s *System) ProviderCheck(ctx context.Context, r api.ProviderCheckRequest) (api.ProviderCheckResult, error) {
	opts := s.providerOptions()
	prov, err := provider.Lookup(r.Name, opts)
	if err != nil {
		return api.ProviderCheckResult{}, err
	}
	res := api.ProviderCheckResult{Name: r.Name}
	add := func(part, state, reason string) {
		res.Parts = append(res.Parts, api.ProviderCheckPart{Part: part, State: state, Reason: reason})
	}
	argv, argvErr := checkArgv(s, prov)
	if argvErr != nil {
		add("command", api.CheckFailed, argvErr.Error())
	} else {
		s.checkCommand(ctx, argv, add)
	}
	if err := opts.Support(r.Name, s.herdrInstalled(ctx)); err != nil {
		reason := err.Error()
		if pe, ok := wire.As(err); ok {
			reason = pe.Message
			if fix, _ := pe.Details["fix"].(string); fix != "" {
				reason += "; " + fix
			}
		}
		add("herdr", api.CheckFailed, reason)
	} else {
		add("herdr", api.CheckOK, "the support rule holds")
	}
	if !r.Static {
		s.checkTurn(ctx, r.Name, add)
	}
	res.OK = !slices.ContainsFunc(res.Parts, func(p api.ProviderCheckPart) bool { return p.State == api.CheckFailed })
	return res, nil
}

// checkArgv is the launch argv of the provider's default route, the bypass included,
// followed by the flags of its model, effort, approval and resume templates when it has
// them (so the flags check sees them all, a default route without a model too).
func checkArgv(s *System, prov provider.Provider) ([]string, error) {
	route, err := prov.Route(s.cfg.Config, "", "")
	if err != nil {
		route = provider.Route{Provider: prov.Name()}
	}
	argv, err := prov.LaunchArgv(route)
	if err != nil {
		return nil, err
	}
	if spec, ok := provider.Spec(prov); ok {
		for _, args := range [][]string{spec.ModelArgs, spec.EffortArgs, spec.ApprovalArgs, spec.ResumeArgs} {
			for _, a := range args {
				if strings.HasPrefix(a, "-") && !slices.Contains(argv, a) {
					argv = append(argv, a)
				}
			}
		}
	}
	return argv, nil
}

// checkCommand finds argv[0], runs --version and --help, and looks for every flag of
// argv in the help text.
func (s *System) checkCommand(ctx context.Context, argv []string, add func(part, state, reason string)) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		add("command", api.CheckFailed, "`"+argv[0]+"` is not found: "+err.Error())
		return
	}
	add("command", api.CheckOK, path)
	if out, err := runBrief(ctx, path, "--version"); err != nil {
		add("version", api.CheckUnknown, "`--version` failed: "+err.Error())
	} else {
		add("version", api.CheckOK, firstLine(out))
	}
	help, err := runBrief(ctx, path, "--help")
	if err != nil && help == "" {
		add("help", api.CheckUnknown, "`--help` failed: "+err.Error())
		add("flags", api.CheckUnknown, "no help text to check the flags against")
		return
	}
	add("help", api.CheckOK, "")
	var missing []string
	for _, a := range argv[1:] {
		flag, _, _ := strings.Cut(a, "=")
		if strings.HasPrefix(flag, "-") && flag != "-" && !strings.Contains(help, flag) && !slices.Contains(missing, flag) {
			missing = append(missing, flag)
		}
	}
	if missing != nil {
		add("flags", api.CheckFailed, "not in `--help`: "+strings.Join(missing, ", "))
		return
	}
	add("flags", api.CheckOK, "every flag of the launch argv is in `--help`")
}

// runBrief runs path with one argument, stdin empty, for at most checkRunTimeout, and
// returns its combined output.
func runBrief(ctx context.Context, path, arg string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, checkRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, path, arg)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// checkTurn runs one turn through the normal start path (agent.ask at
// /provider_check/<name>, its `-` as `_`: path segments take no `-`), reads its answer
// and ends the agent.
func (s *System) checkTurn(ctx context.Context, name string, add func(part, state, reason string)) {
	path := "/provider_check/" + strings.ReplaceAll(name, "-", "_")
	ask, err := s.Ask(ctx, api.AskRequest{Path: path, Agent: name, Prompt: providerCheckPrompt, Timeout: checkTurnTimeout})
	switch {
	case err == nil:
		add("turn", api.CheckOK, "the turn completed")
		if strings.TrimSpace(ask.Response.Text) == "" {
			add("answer", api.CheckFailed, "the final response is empty")
		} else if ask.Response.FromScreen {
			add("answer", api.CheckOK, "read from the screen: "+firstLine(ask.Response.Text))
		} else {
			add("answer", api.CheckOK, firstLine(ask.Response.Text))
		}
	case wire.Is(err, wire.TranscriptUnavailable, wire.CauseNoTranscript):
		add("turn", api.CheckOK, "the turn completed")
		add("answer", api.CheckUnknown, "the provider declares no transcript and its answer cannot be told from its screen (docs/providers.md §11.3)")
	default:
		add("turn", api.CheckFailed, checkErr(err))
	}
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := s.Kill(kctx, api.KillRequest{Targets: []string{path}}); err != nil && !isNoMatch(err) {
		add("end", api.CheckFailed, checkErr(err))
		return
	}
	add("end", api.CheckOK, "")
}

// checkErr is an error's message without the code.
func checkErr(err error) string {
	if pe, ok := wire.As(err); ok {
		return pe.Message
	}
	return err.Error()
}

// isNoMatch is a kill that found nothing to kill: the agent already ended.
func isNoMatch(err error) bool {
	var pe *wire.Error
	return errors.As(err, &pe) && pe.Code == wire.NotFound
}
