package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// createFlags are the creation flags shared by `agent run` and `agent ask`
// (docs/cli.md §5.1–§5.2).
type createFlags struct {
	Name    *string  `help:"Agent name (one segment), created in the caller's scope."`
	Path    *string  `help:"Agent path relative to the caller's scope; a leading / is absolute."`
	Agent   string   `short:"a" help:"Provider (default: config defaults.agent)."`
	Prompt  *string  `short:"p" help:"First prompt; - reads all of stdin."`
	Model   string   `help:"Model (default: config defaults.providers.<provider>.model)."`
	Effort  string   `help:"Reasoning effort (default: config defaults.providers.<provider>.effort)."`
	Cwd     string   `help:"Working directory (default: the current directory)."`
	Timeout string   `help:"Kill the agent after this duration (e.g. 30m)."`
	Host    string   `help:"Run on this fleet host; any: on the member with the most free slots for the provider (default: config fleet.default_host, else this host)."`
	Label   []string `help:"With --host any: only members carrying this fleet label (repeatable; every one must match)."`
}

// placeOn checks --host and --label and, for another host, sets r's cwd to --cwd as
// given (a path there, never resolved here): the host the agent is to run on ("" the
// local one). Without --host it is fleet.default_host, except for a caller inside an
// agent, whose children belong under it on its own host (docs/fleet.md §4.3).
func (f *createFlags) placeOn(a *app, r *api.RunRequest) (string, error) {
	host := f.Host
	if host == "" && a.env.Getenv("ORCR_ID") == "" {
		def, err := a.fleetDefaultHost()
		if err != nil {
			return "", err
		}
		host = def
	}
	if len(f.Label) > 0 && host != config.FleetAnyHost {
		return "", wire.Invalid(wire.ReasonCLIParse, "--label chooses among the fleet's members: it needs --host any", "value", strings.Join(f.Label, ","))
	}
	if host == "" {
		return "", nil
	}
	if host != config.FleetAnyHost && !config.ValidHost(host) {
		return "", wire.Invalid(wire.ReasonCLIParse, "--host `"+host+"` is not a fleet host name (or any)", "value", host)
	}
	for _, l := range f.Label {
		if !config.ValidHost(l) {
			return "", wire.Invalid(wire.ReasonCLIParse, "--label `"+l+"` is not a fleet label (lowercase letters, digits and '-')", "value", l)
		}
	}
	if f.Cwd != "" && !filepath.IsAbs(f.Cwd) {
		return "", wire.Invalid(wire.ReasonFleetRelativeCwd, "--cwd must be absolute with --host: `"+f.Cwd+"` names nothing on another host",
			"value", f.Cwd)
	}
	r.Cwd = f.Cwd
	return host, nil
}

// request builds the agent.run request the flags describe (agent.ask uses all of it but
// gc).
func (f *createFlags) request(a *app) (api.RunRequest, error) {
	var r api.RunRequest
	if (f.Name == nil) == (f.Path == nil) {
		return r, wire.Invalid(wire.ReasonNameRequired, "exactly one of --name or --path is required")
	}
	if f.Name != nil {
		r.Name = *f.Name
	} else {
		r.Path = *f.Path
	}
	if f.Prompt != nil {
		prompt, err := a.promptText(*f.Prompt)
		if err != nil {
			return r, err
		}
		r.Prompt = prompt
	}
	r.Agent, r.Model, r.Effort, r.Timeout = f.Agent, f.Model, f.Effort, f.Timeout
	cwd, err := a.absDir(f.Cwd)
	if err != nil {
		return r, err
	}
	r.Cwd = cwd
	return r, nil
}

// promptText returns s, or all of stdin when s is "-" (docs/cli.md §1.5, no trimming).
func (a *app) promptText(s string) (string, error) {
	if s != "-" {
		return s, nil
	}
	var b []byte
	var err error
	if !a.interruptible(func() { b, err = io.ReadAll(a.env.Stdin) }) {
		return "", a.ctx.Err() // Run reports the interrupt
	}
	if err != nil {
		return "", wire.Invalid(wire.ReasonStdin, "cannot read the prompt from stdin: "+err.Error())
	}
	return string(b), nil
}

// interruptible runs read, a blocking read of stdin, and returns true when it finished,
// or false as soon as a.ctx ends (an interrupt) while read still blocks. read runs on
// its own goroutine, which an interrupt leaves behind: a read of stdin cannot be
// canceled, and the process is about to exit. read's results may only be used after a
// true return.
func (a *app) interruptible(read func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		read()
	}()
	select {
	case <-done:
		return true
	case <-a.ctx.Done():
		return false
	}
}

// absDir returns dir made absolute against the CLI's working directory; "" means the
// working directory itself.
func (a *app) absDir(dir string) (string, error) {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir), nil
	}
	wd, err := a.env.Getwd()
	if err != nil {
		return "", wire.Env(wire.CauseCwdUnavailable, "cannot read the current directory: "+err.Error())
	}
	return filepath.Join(wd, dir), nil
}

type agentRunCmd struct {
	createFlags   `embed:""`
	worktreeFlags `embed:""`
	GC            string `name:"gc" enum:"auto,immediate,never" default:"auto" help:"When to reap the agent: auto, immediate or never."`
	Budget        string `help:"A budget for the agent and the agents it spawns: a cost (2usd) or non-cached tokens (500k)."`
}

// worktreeFlags are the worktree flags shared by `agent run` and `agent ask`
// (docs/cli.md §5.1–§5.2, docs/lifecycle.md §8.4).
type worktreeFlags struct {
	Worktree     optionalValue `placeholder:"BRANCH" help:"Run in a git worktree of the cwd's repository, on BRANCH (optional; default orcr/<path with / as ->)."`
	KeepWorktree bool          `help:"Keep the worktree when the agent ends (needs --worktree)."`
}

// apply sets r's worktree params from the flags.
func (f *worktreeFlags) apply(r *api.RunRequest) {
	r.Worktree, r.WorktreeBranch, r.KeepWorktree = f.Worktree.Set, f.Worktree.Value, f.KeepWorktree
}

// optionalValue is a flag whose value may be left out: "--worktree", "--worktree
// <branch>" and "--worktree=<branch>" all set it; the next word is taken as its value
// only when it does not start with "-" (agent run and agent ask have no positional
// arguments, so no word is ambiguous).
type optionalValue struct {
	Set   bool
	Value string
}

// Decode implements kong.MapperValue.
func (o *optionalValue) Decode(ctx *kong.DecodeContext) error {
	o.Set = true
	if t := ctx.Scan.Peek(); t.IsValue() {
		return ctx.Scan.PopValueInto("branch", &o.Value)
	}
	return nil
}

// Run implements `orcr agent run` (docs/cli.md §5.1).
func (c *agentRunCmd) Run(a *app) error {
	req, err := c.request(a)
	if err != nil {
		return err
	}
	req.GC, req.Budget = c.GC, c.Budget
	c.apply(&req)
	host, err := c.placeOn(a, &req)
	if err != nil {
		return err
	}
	human := func(host string, r api.RunResult) error {
		target := qualify(host, r.Agent.Path)
		a.stdout("%s %s", target, r.Agent.UUID)
		if a.env.IsTTY() {
			hint := "wait: orcr agent wait %[1]s · response: orcr agent logs %[1]s --last-response"
			if host == "" {
				hint += " · attach: orcr agent attach %[1]s"
			}
			a.stderr(hint, target)
		}
		return nil
	}
	if host == config.FleetAnyHost {
		host, r, raw, err := anywhere(a, api.AgentRun, req.Agent, c.Label, req)
		switch {
		case err != nil:
			return err
		case a.json:
			a.printOK(raw)
			return nil
		}
		return human(host, r)
	}
	return requestAt(a, host, api.AgentRun, req, func(r api.RunResult) error { return human(host, r) })
}

type agentAskCmd struct {
	createFlags   `embed:""`
	worktreeFlags `embed:""`
}

// Run implements `orcr agent ask` (docs/cli.md §5.2). A target that died is state_conflict
// with an exit_reason and exits 5 (docs/decisions.md D6). The agent is run first, then
// asked about by uuid, so that a server going away before the answer is started again
// and the ask resumed on that agent (socketapi.AskRaw).
func (c *agentAskCmd) Run(a *app) error {
	run, err := c.request(a)
	if err != nil {
		return err
	}
	c.apply(&run)
	host, err := c.placeOn(a, &run)
	if err != nil {
		return err
	}
	var r api.AskResult
	var raw json.RawMessage
	switch host {
	case "":
		cl, cerr := a.connect()
		if cerr != nil {
			return cerr
		}
		r, raw, err = socketapi.AskRaw(a.ctx, cl, run.Ask())
	case config.FleetAnyHost:
		_, r, raw, err = anywhere(a, api.AgentAsk, run.Agent, c.Label, run.Ask())
	default:
		r, raw, err = invokeAt(a, host, api.AgentAsk, run.Ask())
	}
	switch {
	case err != nil:
	case a.json:
		a.printOK(raw)
	default:
		a.stdout("%s", r.Response.Text)
		a.fromScreenNote(r.Path, r.Response)
		if note := askWorktreeNote(r.Worktree); note != "" {
			a.stderr("%s", note)
		}
	}
	if pe, ok := wire.As(err); ok && pe.Code == wire.StateConflict {
		if _, died := pe.Details["exit_reason"]; died {
			a.printError(pe)
			return &ExitError{Code: 5}
		}
	}
	return err
}

// askWorktreeNote is what `agent ask --worktree` tells stderr about the worktree after
// the answer: where it is when it was not removed ("" when it was, or without one).
func askWorktreeNote(wt *api.AgentWorktree) string {
	if wt == nil {
		return ""
	}
	switch wt.State {
	case "removed", "unused":
		return ""
	case "kept":
		return fmt.Sprintf("worktree kept: %s (branch %s)", wt.Path, wt.Branch)
	case "dirty":
		return fmt.Sprintf("worktree kept, it has uncommitted changes: %s (branch %s)", wt.Path, wt.Branch)
	case "failed":
		return fmt.Sprintf("worktree kept, git could not remove it (see the server log): %s (branch %s)", wt.Path, wt.Branch)
	}
	return fmt.Sprintf("worktree %s: %s (branch %s)", wt.State, wt.Path, wt.Branch)
}

type agentSendCmd struct {
	Target     string  `arg:"" help:"Agent path or uuid."`
	PromptArg  *string `arg:"" optional:"" name:"prompt" help:"Prompt; - reads all of stdin."`
	PromptFlag *string `name:"prompt" short:"p" help:"Prompt (wins over the positional); - reads all of stdin."`
}

// Run implements `orcr agent send` (docs/cli.md §5.3).
func (c *agentSendCmd) Run(a *app) error {
	src := c.PromptFlag
	if src == nil {
		src = c.PromptArg
	}
	if src == nil {
		return wire.Invalid(wire.ReasonPromptRequired, "a prompt is required (positional, -p, or - for stdin)")
	}
	prompt, err := a.promptText(*src)
	if err != nil {
		return err
	}
	host, target := splitHost(c.Target)
	req := api.SendRequest{Target: target, Prompt: prompt}
	return requestAt(a, host, api.AgentSend, req, func(r api.SendResult) error {
		path := qualify(host, r.Path)
		if r.Queued != "" {
			a.stdout("%s queued (paused on %s; orcr budget extend %s --by …)", path, r.Queued, path)
			return nil
		}
		a.stdout("%s delivered (while %s) input_seq=%d", path, r.DeliveredWhile, r.InputSeq)
		return nil
	})
}

type agentAdoptCmd struct {
	Target string `arg:"" help:"Unmanaged agent path (unmanaged/<session>/<pane>) or uuid."`
	Path   string `name:"path" required:"" help:"The managed path it gets (in your scope, like agent run --path)."`
}

// Run implements `orcr agent adopt` (docs/cli.md §5.26): the agent's pane in the user's
// herdr session is shut down and its conversation resumed in a managed pane.
func (c *agentAdoptCmd) Run(a *app) error {
	req := api.AdoptRequest{Target: c.Target, Path: c.Path}
	return request(a, api.AgentAdopt, req, func(r api.AdoptResult) error {
		a.stdout("%s adopted as %s (%s), resuming %s", r.FromPath, r.Agent.Path, r.Agent.Status, r.Resume)
		return nil
	})
}

type agentTokenCmd struct {
	Target string `arg:"" help:"Agent path or uuid."`
	Rotate bool   `help:"Issue a new token and revoke every older one."`
	Revoke bool   `help:"Revoke every token of the agent; issue none."`
}

// Run implements `orcr agent token` (docs/cli.md §5.27, docs/remote.md §3): the token is
// printed once, on stdout alone, so it can be captured; where to use it goes to stderr.
func (c *agentTokenCmd) Run(a *app) error {
	req := api.TokenRequest{Target: c.Target, Rotate: c.Rotate, Revoke: c.Revoke}
	return request(a, api.AgentToken, req, func(r api.TokenResult) error {
		if r.Token == nil {
			a.stdout("%s: %d token(s) revoked", r.Path, r.Revoked)
			return nil
		}
		a.stdout("%s", *r.Token)
		a.stderr("token for %s (stream: GET %s); shown once%s", r.Path, r.URLPath, revokedNote(r.Revoked))
		return nil
	})
}

func revokedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d older token(s) revoked", n)
}

type agentLogsCmd struct {
	Target       string `arg:"" help:"Agent path or uuid."`
	LastResponse bool   `help:"Only the final assistant message."`
	Tail         *uint  `help:"Only the last N entries."`
	Follow       bool   `help:"Keep printing new entries until the agent ends."`
	Screen       bool   `help:"The pane's screen instead of the transcript: live, or the last one kept of an ended agent."`
}

// Run implements `orcr agent logs` (docs/cli.md §5.4). --follow polls every 500 ms and
// prints new entries; it composes with --tail (the first batch is the last n entries)
// and stops after the poll that finds the agent ended (issue override). --follow is
// ignored with --last-response.
func (c *agentLogsCmd) Run(a *app) error {
	host, target := splitHost(c.Target)
	req := api.LogsRequest{Target: target, LastResponse: c.LastResponse, Screen: c.Screen}
	follow := c.Follow && !c.LastResponse && !c.Screen
	if c.Tail != nil && !follow {
		tail := int(*c.Tail)
		req.Tail = &tail
	}
	// fetch reads the logs: over the fleet for another host, else on the socket.
	var cl *socketapi.Client
	fetch := func() (api.LogsResult, json.RawMessage, error) { return invokeAt(a, host, api.AgentLogs, req) }
	if host == "" {
		var err error
		if cl, err = a.connect(); err != nil {
			return err
		}
		fetch = func() (api.LogsResult, json.RawMessage, error) {
			return socketapi.InvokeRaw(a.ctx, cl, api.AgentLogs, req)
		}
	}
	r, raw, err := fetch()
	if err != nil {
		return err
	}
	printed := len(r.Entries)
	if follow && c.Tail != nil && uint(len(r.Entries)) > *c.Tail {
		// The first batch is the last n entries; rebuild the result around them.
		r.Entries = r.Entries[uint(len(r.Entries))-*c.Tail:]
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err == nil {
			m["entries"] = bytes.TrimSuffix(marshal(r.Entries), []byte("\n"))
			raw = bytes.TrimSuffix(marshal(m), []byte("\n"))
		}
	}
	if a.json {
		a.printOK(raw)
	} else {
		a.printLogs(&r)
	}
	if !follow || r.Resolved == "latest_ended" {
		return nil
	}
	return a.poll(agentLogsPoll, func() (bool, error) {
		next, _, err := fetch()
		if cl != nil && socketapi.ServerGone(err) && a.ctx.Err() == nil {
			// Started again (or an error when none comes back); the next poll goes on
			// from the entries already printed.
			return false, cl.Reconnect(a.ctx, api.AgentLogs.Name, err)
		}
		if err != nil {
			return false, nil // transient errors are skipped
		}
		if len(next.Entries) > printed {
			fresh := next.Entries[printed:]
			printed = len(next.Entries)
			if a.json {
				a.printOKValue(map[string]any{"entries": fresh})
			} else {
				a.printLogs(&api.LogsResult{Entries: fresh})
			}
		}
		return next.Resolved == "latest_ended", nil
	})
}

// fromScreenNote says on stderr that an answer was read from the pane's screen, not a
// transcript (docs/providers.md §11.3).
func (a *app) fromScreenNote(path string, r api.Response) {
	if r.FromScreen {
		a.stderr("note: the answer of %s was read from its screen (its provider declares no transcript)", path)
	}
}

// agentLogsPoll is the `agent logs --follow` polling interval.
const agentLogsPoll = 500 * time.Millisecond

// printLogs renders an agent.logs result for humans (docs/cli.md §5.4).
func (a *app) printLogs(r *api.LogsResult) {
	if r.Resolved == "latest_ended" && a.env.IsTTY() {
		created := time.UnixMilli(r.CreatedAt).Local().Format("15:04")
		a.stderr("note: %s resolved to an ended agent created %s — use the uuid for a specific one", r.Path, created)
	}
	if r.Response != nil {
		a.stdout("%s", r.Response.Text)
		a.fromScreenNote(r.Path, *r.Response)
		return
	}
	if r.Screen != nil {
		if !r.Screen.Live && a.env.IsTTY() {
			a.stderr("note: the last screen orcr kept of %s, read %s", r.Path, time.UnixMilli(r.Screen.At).Local().Format("15:04:05"))
		}
		a.stdout("%s", strings.TrimRight(r.Screen.Text, " \n"))
		return
	}
	for _, e := range r.Entries {
		if e.Tool != "" {
			a.stdout("%s [%s] %s", e.Role, e.Kind, e.Tool)
		} else {
			a.stdout("%s [%s] %s", e.Role, e.Kind, e.Text)
		}
	}
}

type agentWaitCmd struct {
	Targets []string `arg:"" required:"" help:"Patterns, paths or uuids."`
	Timeout string   `help:"Give up after this duration (exit 3, not an error)."`
	Any     bool     `help:"Return as soon as one target settles; the rest show as pending."`
}

// Run implements `orcr agent wait` (docs/cli.md §5.5): prints the success result, then
// exits with the code of the wait rule (docs/cli.md §1.6). A server that goes away
// meanwhile is started again and the wait resumed with what is left of its timeout.
func (c *agentWaitCmd) Run(a *app) error {
	groups := byHost(c.Targets)
	if len(groups) > 1 {
		r, plain, err := c.waitAcross(a, groups)
		if err != nil {
			return err
		}
		return a.waitDone(bytes.TrimSuffix(marshal(r), []byte("\n")), waitAcrossLines(r), plain)
	}
	host := groups[0].host
	r, raw, err := waitOn(a.ctx, a, host, api.WaitRequest{Targets: groups[0].targets, Timeout: c.Timeout, Any: c.Any})
	if err != nil {
		return err
	}
	var lines []string
	for _, t := range waitLines(r) {
		lines = append(lines, qualify(host, t.Path)+"  "+t.Reason)
	}
	return a.waitDone(raw, lines, r)
}

// waitDone prints a wait's result (raw with --json, else lines) and exits with the code
// of the wait rule over r.
func (a *app) waitDone(raw json.RawMessage, lines []string, r api.WaitResult) error {
	if a.json {
		a.printOK(raw)
	} else {
		for _, l := range lines {
			a.stdout("%s", l)
		}
	}
	if code := waitExitCode(r); code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

// waitLines orders a wait's targets for the human output: by path, except that the
// target an any wait settled on comes first.
func waitLines(r api.WaitResult) []api.WaitTarget {
	targets := slices.Clone(r.Targets)
	first := func(t api.WaitTarget) bool { return r.FirstSettled != "" && t.UUID == r.FirstSettled }
	sort.SliceStable(targets, func(i, j int) bool {
		if first(targets[i]) != first(targets[j]) {
			return first(targets[i])
		}
		return targets[i].Path < targets[j].Path
	})
	return targets
}

// waitExitCode applies the agent wait rule of docs/cli.md §1.6 (first match wins). An any
// wait that settled exits as a wait for its first target alone would.
func waitExitCode(r api.WaitResult) int {
	if first, ok := r.First(); ok {
		r = api.WaitResult{Targets: []api.WaitTarget{first}, AllOK: first.OK}
	}
	if r.AllOK {
		return 0
	}
	for _, t := range r.Targets {
		if strings.HasPrefix(t.Reason, "blocked") {
			return 4
		}
	}
	for _, t := range r.Targets {
		if !t.OK && t.Reason != "wait_timeout" {
			return 5
		}
	}
	if r.TimedOut {
		return 3
	}
	return 5
}

type agentKillCmd struct {
	Targets []string `arg:"" required:"" help:"Patterns, paths or uuids."`
	Force   bool     `help:"Also kill unmanaged agents."`
	Yes     bool     `short:"y" help:"Do not ask for confirmation."`
}

// Run implements `orcr agent kill` (docs/cli.md §5.7), with the TTY confirmation of §1.4.
func (c *agentKillCmd) Run(a *app) error {
	groups := byHost(c.Targets)
	if len(groups) > 1 {
		return c.killAcross(a, groups)
	}
	host, targets := groups[0].host, groups[0].targets // kong requires one target at least
	req := api.KillRequest{Targets: targets, Force: c.Force}
	if a.confirms(c.Yes) {
		preview := req
		preview.Preview = true
		pv, _, err := invokeAt(a, host, api.AgentKill, preview)
		if err != nil {
			return err
		}
		a.stderr("Matched %d agent(s):", len(pv.Targets))
		for _, t := range pv.Targets {
			a.stderr("  %s [%s]", qualify(host, t.Path), t.Status)
		}
		if !a.ask(fmt.Sprintf("Kill these %d agent(s)?", len(pv.Targets))) {
			return nil
		}
	}
	a.progress = "killed"
	r, raw, err := invokeAt(a, host, api.AgentKill, req)
	if err != nil {
		return err
	}
	if a.json {
		a.printOK(raw)
	} else {
		for _, k := range r.Killed {
			a.stdout("killed %s", qualify(host, k.Path))
		}
		for _, s := range r.Skipped {
			a.stdout("skipped %s (%s)", qualify(host, s.Path), s.Reason)
		}
		if len(r.Killed) == 0 && len(r.Skipped) == 0 {
			a.stdout("no agents killed")
		}
	}
	if len(r.Killed) == 0 && len(r.Skipped) > 0 {
		return &ExitError{Code: 7}
	}
	return nil
}

type agentLsCmd struct {
	Pattern   string `arg:"" optional:"" help:"Pattern, path or uuid."`
	Agent     string `short:"a" help:"Only this provider."`
	Status    string `help:"Only this status (exact)."`
	Managed   bool   `help:"Only managed agents."`
	Unmanaged bool   `help:"Only unmanaged agents."`
	All       bool   `help:"Include ended agents."`
	Usage     bool   `help:"Add each agent's tokens and cost (the usage on its row)."`
	Fleet     bool   `help:"List the agents of every member of the fleet, with a HOST column (docs/fleet.md)."`
}

// Run implements `orcr agent ls` (docs/cli.md §5.8): a table sorted by path (the server's
// order), or the result envelope with --json.
func (c *agentLsCmd) Run(a *app) error {
	if c.Managed && c.Unmanaged {
		return wire.Invalid(wire.ReasonConflictingFlags, "--managed and --unmanaged are mutually exclusive")
	}
	req := api.LsRequest{Pattern: c.Pattern, Agent: c.Agent, Status: c.Status,
		Managed: c.Managed, Unmanaged: c.Unmanaged, All: c.All}
	if c.Fleet {
		return c.runFleet(a, req)
	}
	return request(a, api.AgentLs, req, func(r api.LsResult) error {
		others := a.unlistedPrefixes(r.Agents, c.listsEveryRow())
		table := renderLs(r.Agents, others, time.Now())
		if c.Usage && len(r.Agents) > 0 {
			table = withUsageColumns(table, r.Agents)
		}
		_, err := io.WriteString(a.env.Stdout, table)
		return err
	})
}

// renderLs renders the human `agent ls` table (docs/cli.md §5.8): PATH (40), UUID,
// STATUS (9; "working!" for a stalled turn), AGENT (8, "-" if none), SINCE (the time in
// the current status, right-aligned, 5); "no agents" when empty. When some row has a
// worktree, a last column WORKTREE follows SINCE (see [lsWorktree]); without one the
// table is exactly as before.
// The UUID column shows each row's shortest prefix of at least 8 characters, never
// ending in "-", that no other row's uuid and none of others starts with (others: the
// uuids, or unique prefixes, of agents the table does not list), as wide as the longest.
func renderLs(rows []api.AgentRow, others []string, now time.Time) string {
	if len(rows) == 0 {
		return "no agents\n"
	}
	uuids := make([]string, 0, len(rows)+len(others))
	for _, r := range rows {
		uuids = append(uuids, r.UUID)
	}
	ids := wire.ShortestUUIDPrefixes(append(uuids, others...))[:len(rows)]
	width := wire.MinUUIDPrefix
	for _, id := range ids {
		width = max(width, len(id))
	}
	worktrees := slices.ContainsFunc(rows, func(r api.AgentRow) bool { return r.Worktree != nil })
	var b strings.Builder
	fmt.Fprintf(&b, "%-40s %-*s %-9s %-8s %5s", "PATH", width, "UUID", "STATUS", "AGENT", "SINCE")
	if worktrees {
		b.WriteString(" WORKTREE")
	}
	b.WriteByte('\n')
	for i, r := range rows {
		agent := "-"
		if r.Agent != nil && *r.Agent != "" {
			agent = *r.Agent
		}
		basis := r.CreatedAt
		if r.Status != "queued" && r.Status != "starting" && r.LastStatusChangeAt != nil {
			basis = *r.LastStatusChangeAt
		}
		age := now.Sub(time.UnixMilli(basis))
		status := string(r.Status)
		if r.Stalled {
			status += "!" // the open turn is stalled (docs/lifecycle.md §10.7)
		}
		fmt.Fprintf(&b, "%-40s %-*s %-9s %-8s %5s", r.Path, width, ids[i], status, agent, formatAge(age))
		if worktrees {
			b.WriteString(" " + lsWorktree(r.Worktree))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// withUsageColumns appends TOKENS (input, output, cache writes and reads summed) and
// COST to each line of the `agent ls` table (docs/cli.md §5.8) from the usage on each
// row (docs/usage.md §4): "-" for an agent with no turn that reported usage, a cost
// marked * when some turn had no price.
func withUsageColumns(table string, rows []api.AgentRow) string {
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "%s %9s %10s\n", lines[0], "TOKENS", "COST")
	for i, r := range rows {
		tok, c := "-", "-"
		if u := r.Usage; u != nil {
			tok, c = tokens(u.Tokens), cost(api.UsageSum{CostUSD: u.CostUSD, UnpricedTurns: u.UnpricedTurns})
		}
		fmt.Fprintf(&b, "%s %9s %10s\n", lines[i+1], tok, c)
	}
	return b.String()
}

// lsWorktree is a row's WORKTREE cell: "-" for an agent without one, the branch while
// the worktree is ready (the agent runs in it), else the branch and the state, as in
// "orcr/review-one (kept)" (docs/lifecycle.md §8.4). The path is in --json.
func lsWorktree(w *api.AgentWorktree) string {
	switch {
	case w == nil:
		return "-"
	case w.State == "ready":
		return w.Branch
	default:
		return w.Branch + " (" + w.State + ")"
	}
}

// formatAge renders an age as Ns, Nm or NmSSs, Nh, Nd.
func formatAge(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		if s%60 == 0 {
			return fmt.Sprintf("%dm", s/60)
		}
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh", s/3600)
	default:
		return fmt.Sprintf("%dd", s/86400)
	}
}

// confirms reports whether a destructive verb must ask first (docs/cli.md §1.4): stdout is
// a TTY, --json is absent and -y was not given.
func (a *app) confirms(yes bool) bool {
	return !yes && !a.json && a.env.IsTTY()
}

// ask writes question + " [y/N]" to stderr and reads one line from stdin; anything but
// y/Y/yes prints "aborted". An interrupt while it waits for the answer returns false at
// once, without "aborted".
func (a *app) ask(question string) bool {
	fmt.Fprintf(a.env.Stderr, "%s [y/N] ", question)
	var line strings.Builder
	read := func() {
		buf := make([]byte, 1)
		for {
			n, err := a.env.Stdin.Read(buf)
			if n > 0 {
				if buf[0] == '\n' {
					break
				}
				line.WriteByte(buf[0])
			}
			if err != nil {
				break
			}
		}
	}
	if !a.interruptible(read) {
		return false // Run reports the interrupt
	}
	switch strings.TrimSpace(line.String()) {
	case "y", "Y", "yes":
		return true
	}
	a.stderr("aborted")
	return false
}
