package provider_test

// Provider fidelity (docs/providers.md §10): orcr's claude and codex integrations
// checked against the installed CLIs. Each test finds its CLI through
// providertest.Require: in $ORCR_TEST_PROVIDER_BIN_DIR (where .ci/run installs the
// pinned versions), else on PATH; without it the test skips, or fails under CI=1.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/provider/providertest"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// isolatedEnv keeps the CLIs' state out of the user's home: codex writes its
// databases under CODEX_HOME, claude its settings under HOME.
func isolatedEnv(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	codexHome := filepath.Join(dir, ".codex")
	if err := os.Mkdir(codexHome, 0o700); err != nil { // codex refuses a CODEX_HOME that does not exist
		t.Fatal(err)
	}
	return []string{"HOME=" + dir, "CODEX_HOME=" + codexHome}
}

// launchArgv is the launch argv of r's provider.
func launchArgv(t *testing.T, r provider.Route) []string {
	t.Helper()
	p, err := provider.Lookup(r.Provider, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	argv, err := p.LaunchArgv(r)
	if err != nil {
		t.Fatal(err)
	}
	return argv
}

// argvCase is one argv orcr launches and the help command that must declare its flags.
type argvCase struct {
	name string
	argv []string
	help []string // arguments of the help command, after the CLI name
}

// launchCases returns every argv the integration of name builds, with the routes that
// exercise each of its flags: the bypass on and off, model and effort, a lifecycle-only
// route without either, and resumption from a session id and from a transcript path.
func launchCases(t *testing.T, name string) []argvCase {
	t.Helper()
	p, err := provider.Lookup(name, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]provider.Route{
		"bypass":         {Provider: name, Model: "m", Effort: "high"},
		"approvals":      {Provider: name, Model: "m", Effort: "high", Approvals: true},
		"lifecycle-only": {Provider: name},
	}
	help := []string{"--help"}
	resumeHelp := help
	id, path := "0b7c6f1e-5a4d-4c3b-9a2e-1f0e9d8c7b6a", "/h/.claude/projects/p/0b7c6f1e-5a4d-4c3b-9a2e-1f0e9d8c7b6a.jsonl"
	if name == provider.Codex {
		resumeHelp = []string{provider.CodexResumeCommand, "--help"}
		path = "/h/.codex/sessions/2026/11/02/rollout-2026-11-02T10-11-12-" + id + ".jsonl"
	}
	resumes := map[string]string{provider.SessionKindID: id, provider.SessionKindPath: path}
	switch name {
	case provider.Pi, provider.Gemini: // no session pointer, no resume (docs/providers.md §12)
		resumes = nil
	case provider.Qwen, provider.Opencode: // herdr reports their session ids
		delete(resumes, provider.SessionKindPath)
	}
	var cases []argvCase
	for _, rn := range []string{"bypass", "approvals", "lifecycle-only"} {
		r := routes[rn]
		argv, err := p.LaunchArgv(r)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, argvCase{"launch " + rn, argv, help})
		for kind, value := range resumes {
			argv, err := p.ResumeArgv(r, kind, value)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, argvCase{"resume " + kind + " " + rn, argv, resumeHelp})
		}
	}
	if name == provider.Codex {
		cases = append(cases, argvCase{"model catalogue", (&provider.CodexCatalog{}).Argv(), []string{"app-server", "--help"}})
	}
	return cases
}

// helpText runs `<cli> <args…>` once per distinct args.
type helpText struct {
	t    *testing.T
	cli  providertest.CLI
	env  []string
	seen map[string]string
}

func (h *helpText) get(args []string) string {
	key := strings.Join(args, " ")
	if s, ok := h.seen[key]; ok {
		return s
	}
	out, err := h.cli.Output(context.Background(), h.env, args...)
	if err != nil {
		h.t.Fatalf("%s %s: %v", h.cli.Name, h.cli.Version, err)
	}
	h.seen[key] = string(out)
	return string(out)
}

// TestProviderFlagsLive: every flag orcr puts in the argv of a built-in — claude,
// codex and the contract built-ins pi, gemini, qwen, opencode (docs/providers.md §12):
// launch, resume and the codex catalogue's app-server — is declared by the installed
// CLI's --help of that subcommand. (The startup and shutdown recipes type no flags:
// claude and codex have no shutdown line, docs/providers.md §3.5, §4.5; gemini's and
// qwen's is their `/quit` command.)
func TestProviderFlagsLive(t *testing.T) {
	for _, name := range provider.Known() {
		t.Run(name, func(t *testing.T) {
			cli := providertest.Require(t, name)
			h := &helpText{t: t, cli: cli, env: isolatedEnv(t), seen: map[string]string{}}
			for _, c := range launchCases(t, name) {
				if err := providertest.CheckFlags(cli, c.help, h.get(c.help), c.argv); err != nil {
					t.Errorf("%s: %v", c.name, err)
				}
			}
			p, _ := provider.Lookup(name, provider.Options{})
			if sd := p.Shutdown(nil); sd.HasLine() && (name == provider.Claude || name == provider.Codex || !strings.HasPrefix(sd.Line, "/")) {
				t.Errorf("the shutdown recipe now types %q %q: check it against %s too", sd.Line, sd.Keys, cli)
			}
		})
	}
}

// TestClaudeFlagDriftLive is the drift check's own acceptance test: a copy of orcr's
// claude argv with one flag misspelt fails against the installed claude's --help, and
// the message names the provider, the installed version and the flag.
func TestClaudeFlagDriftLive(t *testing.T) {
	cli := providertest.Require(t, provider.Claude)
	argv := launchArgv(t, provider.Route{Provider: provider.Claude, Model: "opus", Effort: "high"})
	help, err := cli.Output(context.Background(), isolatedEnv(t), "--help")
	if err != nil {
		t.Fatal(err)
	}
	if err := providertest.CheckFlags(cli, []string{"--help"}, string(help), argv); err != nil {
		t.Fatalf("orcr's own argv: %v", err)
	}
	const wrong = "--reasoning-effort"
	bad := slices.Clone(argv)
	i := slices.Index(bad, "--effort")
	if i < 0 {
		t.Fatalf("argv %q has no --effort", argv)
	}
	bad[i] = wrong
	err = providertest.CheckFlags(cli, []string{"--help"}, string(help), bad)
	var drift *providertest.FlagDrift
	if !errors.As(err, &drift) {
		t.Fatalf("argv %q with %s: got %v, want a flag drift", bad, wrong, err)
	}
	if !slices.Equal(drift.Missing, []string{wrong}) {
		t.Errorf("missing: got %q, want only %s", drift.Missing, wrong)
	}
	for _, want := range []string{"claude", cli.Version, wrong, "claude --help"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("drift message %q does not name %q", err, want)
		}
	}
	t.Logf("the drift message: %v", err)
}

// TestCodexConfigOverridesLive: the `-c key=value` overrides orcr puts in a codex argv
// name configuration keys the installed codex knows. `codex app-server --strict-config
// --print-startup-config` loads the configuration with the overrides, refuses an
// unknown key, and starts nothing. (It checks the key only: a bad value such as
// model_reasoning_effort=bogus loads too.)
func TestCodexConfigOverridesLive(t *testing.T) {
	cli := providertest.Require(t, provider.Codex)
	env := isolatedEnv(t)
	check := func(kv string) error {
		_, err := cli.Output(context.Background(), env, "app-server", "--strict-config", "--print-startup-config", "-c", kv)
		return err
	}
	// The probe must be able to fail, or it proves nothing.
	if err := check("orcr_no_such_key=1"); err == nil || !strings.Contains(err.Error(), "orcr_no_such_key") {
		t.Fatalf("an unknown key: got %v, want codex to refuse it by name", err)
	}
	argv := launchArgv(t, provider.Route{Provider: provider.Codex, Model: "m", Effort: "high"})
	n := 0
	for i, a := range argv {
		if a != "-c" || i+1 == len(argv) {
			continue
		}
		n++
		if err := check(argv[i+1]); err != nil {
			t.Errorf("%s %s: orcr's override -c %s is refused: %v", cli.Name, cli.Version, argv[i+1], err)
		}
	}
	if n == 0 {
		t.Errorf("argv %q has no -c override: this test checks nothing", argv)
	}
}

// TestCodexResumeArgvParsesLive: codex takes orcr's resume argv as it is ordered —
// `codex resume <session id>` followed by the launch flags (docs/providers.md §4.7) —
// up to the point where it needs a terminal: its argument parser accepts it, and
// refuses the same argv with a flag it does not know (so the check can fail).
func TestCodexResumeArgvParsesLive(t *testing.T) {
	cli := providertest.Require(t, provider.Codex)
	env := isolatedEnv(t)
	p, err := provider.Lookup(provider.Codex, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const id = "019a3c5e-7b21-7d40-a1f3-5c2e9b8d4a61"
	for _, r := range []provider.Route{
		{Provider: provider.Codex, Model: "gpt-5.6-luna", Effort: "high"},
		{Provider: provider.Codex, Model: "gpt-5.6-luna", Effort: "high", Approvals: true},
	} {
		argv, err := p.ResumeArgv(r, provider.SessionKindID, id)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := cli.Output(context.Background(), env, argv[1:]...)
		if strings.Contains(string(out), "unexpected argument") || strings.Contains(string(out), "Usage:") ||
			!strings.Contains(string(out), "stdin is not a terminal") {
			t.Errorf("%s %s: orcr's resume argv %q is not taken up to the terminal check:\n%s", cli.Name, cli.Version, argv, out)
		}
		bogus, _ := cli.Output(context.Background(), env, append(argv[1:], "--orcr-no-such-flag")...)
		if !strings.Contains(string(bogus), "unexpected argument '--orcr-no-such-flag'") {
			t.Errorf("%s %s: an unknown flag after the resume argv was not refused, so the check proves nothing:\n%s", cli.Name, cli.Version, bogus)
		}
	}
}

// generateCodexSchema writes the installed app-server's protocol schema into a
// temporary directory and compiles what orcr checks.
func generateCodexSchema(t *testing.T, cli providertest.CLI, env []string) (*providertest.CodexSchema, string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := cli.Output(context.Background(), env, "app-server", "generate-json-schema", "--out", dir); err != nil {
		t.Fatal(err)
	}
	s, err := providertest.LoadCodexSchema(dir)
	if err != nil {
		t.Fatalf("%s %s: %v", cli.Name, cli.Version, err)
	}
	return s, dir
}

// TestCodexAppServerSchemaLive: the three messages orcr writes to `codex app-server`
// (docs/providers.md §4.1 step 2) validate against the schema the installed codex
// generates, made strict so that an undeclared field fails; and the schema declares the
// answer fields orcr reads as required.
func TestCodexAppServerSchemaLive(t *testing.T) {
	cli := providertest.Require(t, provider.Codex)
	s, dir := generateCodexSchema(t, cli, isolatedEnv(t))
	lines := bytes.Split(bytes.TrimSuffix(provider.CodexRequests("1.2.3"), []byte("\n")), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("CodexRequests: %d lines, want 3", len(lines))
	}
	for _, line := range lines {
		if err := s.ValidateMessage(line); err != nil {
			t.Errorf("%s %s: %v", cli.Name, cli.Version, err)
		}
	}
	// Strictness against the real schema: a misspelt capability is refused by name.
	bad := bytes.Replace(lines[0], []byte(`"experimentalApi"`), []byte(`"experimentalAPI"`), 1)
	if err := s.ValidateMessage(bad); err == nil || !strings.Contains(err.Error(), "experimentalAPI") {
		t.Errorf("a misspelt initialize field: got %v, want an error naming it", err)
	}

	// orcr reads result.data[].model and .supportedReasoningEfforts[].reasoningEffort.
	raw, err := os.ReadFile(filepath.Join(dir, providertest.CodexModelListResponseFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Required    []string `json:"required"`
		Definitions map[string]struct {
			Required []string `json:"required"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		def   string
		names []string
		got   []string
	}{
		{"ModelListResponse", []string{"data"}, doc.Required},
		{"Model", []string{"model", "supportedReasoningEfforts"}, doc.Definitions["Model"].Required},
		{"ReasoningEffortOption", []string{"reasoningEffort"}, doc.Definitions["ReasoningEffortOption"].Required},
	} {
		for _, n := range x.names {
			if !slices.Contains(x.got, n) {
				t.Errorf("%s %s: %s no longer requires %q (it requires %q), which orcr reads", cli.Name, cli.Version, x.def, n, x.got)
			}
		}
	}
}

// TestCodexCatalogLive runs the real `codex app-server --stdio` exchange through
// orcr's own catalogue, with its default timeout and without any login: the answer
// validates against the installed schema and decodes into valid models with their
// efforts, and routing accepts a listed pair (and orcr's default route) and refuses an
// unlisted model or effort with the real lists. The cold fetch's duration is logged.
func TestCodexCatalogLive(t *testing.T) {
	cli := providertest.Require(t, provider.Codex)
	env := isolatedEnv(t)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v) // the catalogue's child inherits the test's environment
	}
	schema, _ := generateCodexSchema(t, cli, env)

	cat := &provider.CodexCatalog{Bin: cli.Path}
	start := time.Now()
	models, err := cat.Models(context.Background())
	cold := time.Since(start)
	if err != nil {
		t.Fatalf("%s %s: %v", cli.Name, cli.Version, err)
	}
	t.Logf("%s %s: cold model/list through CodexCatalog took %s (timeout %s): %d models",
		cli.Name, cli.Version, cold.Round(time.Millisecond), provider.DefaultCodexFetchTimeout, len(models))

	// The same exchange, raw, for the schema and the pagination.
	start = time.Now()
	out, err := provider.RunAppServer(context.Background(), cat.Argv(), provider.CodexRequests("1.2.3"))
	t.Logf("a second (warm) exchange took %s", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
	}
	for _, line := range bytes.Split(out, []byte("\n")) {
		if provider.IsCodexAnswer(line) {
			if err := json.Unmarshal(line, &answer); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if answer.Result == nil {
		t.Fatalf("no model/list result in %s", out)
	}
	if err := schema.ValidateModelList(answer.Result); err != nil {
		t.Errorf("%s %s: the model/list answer does not validate against its own schema: %v", cli.Name, cli.Version, err)
	}
	var page struct {
		NextCursor *string `json:"nextCursor"`
	}
	if err := json.Unmarshal(answer.Result, &page); err != nil {
		t.Fatal(err)
	}
	if page.NextCursor != nil {
		t.Errorf("%s %s: the catalogue has more than one page (nextCursor %q); orcr reads only the first", cli.Name, cli.Version, *page.NextCursor)
	}
	again, err := provider.ParseCodexModelList(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Names(), models.Names()) {
		t.Errorf("two exchanges listed %q and %q", models.Names(), again.Names())
	}
	for _, m := range models {
		t.Logf("  %s: %s", m.Model, strings.Join(m.Efforts, ", "))
		if len(m.Efforts) == 0 {
			t.Errorf("model %s lists no supportedReasoningEfforts: orcr would accept any effort for it", m.Model)
		}
	}

	p, err := provider.Lookup(provider.Codex, provider.Options{CodexCatalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	// orcr's built-in default route (docs/providers.md §4.1) is in the real catalogue.
	if r, err := p.Route(nil, "", ""); err != nil {
		t.Errorf("the default codex route: %v", err)
	} else {
		t.Logf("default route %s / %s", r.Model, r.Effort)
	}
	// Every listed pair routes and launches with that model and effort.
	for _, m := range models {
		for _, e := range m.Efforts {
			r, err := p.Route(nil, m.Model, e)
			if err != nil {
				t.Errorf("route %s / %s: %v", m.Model, e, err)
				continue
			}
			argv, _ := p.LaunchArgv(r)
			if !slices.Contains(argv, m.Model) || !slices.Contains(argv, "model_reasoning_effort="+e) {
				t.Errorf("route %s / %s launches %q", m.Model, e, argv)
			}
		}
	}
	const unlisted = "orcr-no-such-model"
	_, err = p.Route(nil, unlisted, "high")
	wantWireError(t, "an unlisted model", err, wire.InvalidRequest, "", map[string]any{
		"reason": wire.ReasonInvalidModel, "provider": provider.Codex, "model": unlisted,
		"valid_models": models.Names(),
	})
	const noEffort = "orcr-no-such-effort"
	m := models[0]
	_, err = p.Route(nil, m.Model, noEffort)
	wantWireError(t, "an unlisted effort", err, wire.InvalidRequest, "", map[string]any{
		"reason": wire.ReasonInvalidEffort, "provider": provider.Codex, "model": m.Model,
		"effort": noEffort, "valid_efforts": m.Efforts,
	})
}

// TestClaudeRouteValuesLive: the installed claude knows every model and effort of
// orcr's fixed routing lists (docs/providers.md §3.1). claude warns about a value it
// does not know, quoting it ("Unknown --effort value 'x' — ignoring it", "doesn't
// recognize the model \"x\""), and then carries on with its default, so an unknown
// value would not stop an agent, only change what it runs. Each pair runs `claude
// --model M --effort E -p hi` in an empty home and a bare environment, where it stops
// at once without credentials ("Not logged in"); its output must not quote M or E. A
// bogus pair first shows that the probe sees both warnings.
func TestClaudeRouteValuesLive(t *testing.T) {
	cli := providertest.Require(t, provider.Claude)
	home := t.TempDir()
	// No credentials can reach the probe: nothing of the test's environment but PATH.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=dumb"}
	probe := func(model, effort string) string {
		r := provider.Route{Provider: provider.Claude, Model: model, Effort: effort, Approvals: true}
		argv := append(launchArgv(t, r), "-p", "hi")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, cli.Path, argv[1:]...)
		cmd.Env, cmd.Dir = env, home
		out, _ := cmd.CombinedOutput() // exits 1: not logged in
		if ctx.Err() != nil {
			t.Fatalf("%q did not stop within 30 s: %s", argv, out)
		}
		return string(out)
	}
	quoted := func(out, v string) bool {
		return strings.Contains(out, "'"+v+"'") || strings.Contains(out, `"`+v+`"`)
	}
	const badModel, badEffort = "orcr-no-such-model", "orcr-no-such-effort"
	if out := probe(badModel, badEffort); !quoted(out, badModel) || !quoted(out, badEffort) {
		t.Fatalf("%s %s: an unknown model and effort were not both reported, so this probe proves nothing:\n%s", cli.Name, cli.Version, out)
	}
	n := max(len(provider.ClaudeModels), len(provider.ClaudeEfforts))
	for i := range n {
		m := provider.ClaudeModels[i%len(provider.ClaudeModels)]
		e := provider.ClaudeEfforts[i%len(provider.ClaudeEfforts)]
		out := probe(m, e)
		for _, v := range []string{m, e} {
			if quoted(out, v) {
				t.Errorf("%s %s does not know %q, which orcr routes (docs/providers.md §3.1):\n%s", cli.Name, cli.Version, v, out)
			}
		}
	}
}

// claudeRootRefusal is what claude 2.1.328 prints when it refuses its permission bypass
// as root (docs/providers.md §3.2).
const claudeRootRefusal = "cannot be used with root/sudo privileges"

// TestClaudeSandboxValueLive (issue 33 #2, docs/providers.md §3.2): orcr's root check
// agrees with the real claude on every value of IS_SANDBOX. Each value runs `claude
// --dangerously-skip-permissions -p hi` as root in an empty home with nothing of the
// test's environment but PATH: claude either refuses the bypass at once or goes on and
// stops without credentials ("Not logged in"), before any network call. Preflight must
// refuse exactly the values claude refuses. Only root sees claude's check.
func TestClaudeSandboxValueLive(t *testing.T) {
	cli := providertest.Require(t, provider.Claude)
	if os.Geteuid() != 0 {
		t.Skip("claude's root check is only observable as root")
	}
	p, err := provider.Lookup(provider.Claude, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := provider.Route{Provider: provider.Claude}
	argv := append(launchArgv(t, r), "-p", "hi")
	if !slices.Contains(argv, provider.ClaudeBypassFlag) {
		t.Fatalf("launch argv %q has no %s", argv, provider.ClaudeBypassFlag)
	}
	accepted := 0
	for _, v := range []string{"1", "yes", "true", "TRUE", "0", "01", " 1", ""} {
		home := t.TempDir()
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=dumb", provider.ClaudeSandboxEnv + "=" + v}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, cli.Path, argv[1:]...)
		cmd.Env, cmd.Dir = env, home
		out, _ := cmd.CombinedOutput() // exits 1 either way: refused, or not logged in
		late := ctx.Err() != nil
		cancel()
		if late {
			t.Fatalf("IS_SANDBOX=%q: %q did not stop within 30 s: %s", v, argv, out)
		}
		refused := strings.Contains(string(out), claudeRootRefusal)
		if !refused {
			accepted++
		}
		if perr := p.Preflight(r, 0, env); (perr != nil) != refused {
			t.Errorf("%s %s with IS_SANDBOX=%q: claude refuses the bypass: %v; orcr's preflight: %v\n%s",
				cli.Name, cli.Version, v, refused, perr, out)
		}
	}
	if accepted == 0 {
		t.Errorf("%s %s took no value of IS_SANDBOX, so this probe proves nothing", cli.Name, cli.Version)
	}
}
