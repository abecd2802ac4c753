package cli

import (
	"sort"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/orcr-go/orcr/cmd/orcr/mcp"
	"github.com/orcr-go/orcr/socketapi/api"
)

// rootCmd is the command tree of docs/cli.md §1.1.
type rootCmd struct {
	JSON    bool             `name:"json" help:"Print exactly one JSON envelope line on stdout."`
	Version kong.VersionFlag `short:"V" help:"Print the version and exit."`

	Agent      agentCmd      `cmd:"" help:"Run, talk to, wait for and kill agents."`
	Loop       loopCmd       `cmd:"" help:"Durable cron and one-shot loops."`
	Server     serverCmd     `cmd:"" help:"Start, stop and inspect the orcr server."`
	API        apiCmd        `cmd:"" name:"api" help:"The socket API: schema and snapshot."`
	Scaffold   scaffoldCmd   `cmd:"" help:"Create a workflow project on the TypeScript (or Go) SDK."`
	Skill      skillCmd      `cmd:"" help:"The orchestratr skill that teaches coding agents to use orcr."`
	Top        topCmd        `cmd:"" help:"Full-screen live view of agents and loops."`
	Usage      usageCmd      `cmd:"" help:"Tokens and cost of completed turns, by agent, path, provider, model, loop or day."`
	Budget     budgetCmd     `cmd:"" help:"Budgets: what they spent, and extending one that paused its agents."`
	Provider   providerCmd   `cmd:"" help:"Providers: the built-in and declared ones, and a doctor for their contract."`
	Fleet      fleetCmd      `cmd:"" help:"The fleet through this server: its members, and a call on one of them."`
	Statusline statuslineCmd `cmd:"" help:"A claude status line: records the quota windows of the JSON on stdin, prints one line."`
	MCP        mcpCmd        `cmd:"" name:"mcp" help:"Serve orcr's verbs as MCP tools (stdio, or Streamable HTTP with --http)."`
	Dashboard  dashboardCmd  `cmd:"" help:"Print a one-time sign-in link for the web dashboard, or sign every browser out."`

	RunShim runShimCmd `cmd:"" name:"__run-shim" hidden:"" passthrough:"" help:"Internal: the process of a loop run."`
}

type agentCmd struct {
	Run    agentRunCmd    `cmd:"" help:"Start a managed agent (asynchronous)."`
	Ask    agentAskCmd    `cmd:"" help:"Start an agent, wait, and print its final response."`
	Send   agentSendCmd   `cmd:"" help:"Deliver a prompt to an existing agent."`
	Logs   agentLogsCmd   `cmd:"" help:"Read an agent's transcript or last response."`
	Wait   agentWaitCmd   `cmd:"" help:"Block until every target settles (with --any: the first one)."`
	Attach agentAttachCmd `cmd:"" help:"Attach the terminal to an agent's pane."`
	Kill   agentKillCmd   `cmd:"" help:"Kill agents."`
	Ls     agentLsCmd     `cmd:"" help:"List agents."`
	Adopt  agentAdoptCmd  `cmd:"" help:"Make an unmanaged agent managed, resuming its conversation."`
	Token  agentTokenCmd  `cmd:"" help:"Issue, rotate or revoke an agent's remote stream token."`
}

type loopCmd struct {
	Create loopCreateCmd `cmd:"" help:"Create a loop: loop create <name> \"<cron>\"|--once-at <time> -- <command…>."`
	Pause  loopPauseCmd  `cmd:"" help:"Pause loops."`
	Resume loopResumeCmd `cmd:"" help:"Resume loops."`
	Rm     loopRmCmd     `cmd:"" help:"Remove loops."`
	Ls     loopLsCmd     `cmd:"" help:"List loops."`
	Logs   loopLogsCmd   `cmd:"" help:"Read a loop's run output and orcr events."`
	Run    loopRunCmd    `cmd:"" help:"Manual runs of a loop."`
}

type loopRunCmd struct {
	Start loopRunStartCmd `cmd:"" help:"Start a manual run."`
	Stop  loopRunStopCmd  `cmd:"" help:"Stop runs."`
	Ls    loopRunLsCmd    `cmd:"" help:"List runs."`
}

type serverCmd struct {
	Start   serverStartCmd   `cmd:"" help:"Start the server (detached unless --foreground)."`
	Stop    serverStopCmd    `cmd:"" help:"Stop the server (never auto-starts)."`
	Restart serverRestartCmd `cmd:"" help:"Stop the server and start it again, reading config.json anew (agents keep running)."`
	Status  serverStatusCmd  `cmd:"" help:"Show server health."`
	Logs    serverLogsCmd    `cmd:"" help:"Print the server log."`
	Enable  serverEnableCmd  `cmd:"" help:"Start the server at login (systemd/launchd)."`
	Disable serverDisableCmd `cmd:"" help:"Remove the start-at-login unit."`
}

type apiCmd struct {
	Schema   apiSchemaCmd   `cmd:"" help:"Print the socket API schema (generated locally)."`
	Snapshot apiSnapshotCmd `cmd:"" help:"Print a consistent snapshot of agents, loops and queue."`
}

// verbMethods maps every CLI verb that talks to the server to the socket methods it
// sends (the CLI coverage test checks it against api.Methods and the kong tree).
var verbMethods = map[string][]string{
	"agent run":      {"agent.run"},
	"agent ask":      {"agent.ask"},
	"agent send":     {"agent.send"},
	"agent logs":     {"agent.logs"},
	"agent wait":     {"agent.wait"},
	"agent attach":   {"agent.attach.prepare", "agent.attach.heartbeat", "agent.attach.release"},
	"agent kill":     {"agent.kill"},
	"agent ls":       {"agent.ls"},
	"usage":          {"usage.report"},
	"budget ls":      {"budget.ls"},
	"budget extend":  {"budget.extend"},
	"provider ls":    {"provider.ls"},
	"provider check": {"provider.check"},
	"fleet members":  {"fleet.members"},
	"fleet call":     {"fleet.call"},
	"fleet events":   {"fleet.events"},
	"fleet token":    {"fleet.token"},
	"agent adopt":    {"agent.adopt"},
	"agent token":    {"agent.token"},
	"dashboard":      {"dashboard.login"},
	"loop create":    {"loop.create"},
	"loop pause":     {"loop.pause"},
	"loop resume":    {"loop.resume"},
	"loop rm":        {"loop.rm", "loop.run.ls"},
	"loop ls":        {"loop.ls"},
	"loop logs":      {"loop.logs"},
	"loop run start": {"loop.run.start"},
	"loop run stop":  {"loop.run.stop", "loop.run.ls"},
	"loop run ls":    {"loop.run.ls"},
	"server start":   {"server.handshake"},
	"server stop":    {"server.handshake", "server.stop"},
	"server restart": {"server.handshake", "server.stop"},
	"server status":  {"server.status"},
	"api snapshot":   {"api.snapshot"},
	"top":            {"watch.open", "events.subscribe", "server.status", "agent.ls", "agent.send", "agent.kill", "agent.wait", "agent.logs", "fleet.members", "fleet.call"},
	"mcp serve":      append([]string{"server.handshake", "mcp.auth"}, mcp.Methods()...),
	"mcp token":      {"mcp.token"},
	"statusline":     {"quota.record"},
}

// localVerbs never talk to the server (docs/cli.md §1.3). `api schema` is generated locally
// although the server also answers api.schema.
var localVerbs = map[string]bool{
	"server logs":    true,
	"server enable":  true,
	"server disable": true,
	"api schema":     true,
	"scaffold":       true,
	"skill install":  true,
	"skill show":     true,
}

// pendingClientVerbs are the verbs whose missing part is in the CLI itself: they answer
// not_implemented without asking the server (docs/cli.md §1.1).
var pendingClientVerbs = map[string]bool{}

// notImplementedVerb reports whether verb answers not_implemented: it is one of
// [pendingClientVerbs], or a method of api.Methods behind it has not landed.
func notImplementedVerb(verb string) bool {
	if pendingClientVerbs[verb] {
		return true
	}
	for _, spec := range api.Methods {
		if m := spec.Info(); m.CLI == verb && !m.Implemented() {
			return true
		}
	}
	return false
}

// notImplementedHelp is appended to the help line of a command that is not implemented.
const notImplementedHelp = " (not implemented yet)"

// markNotImplemented appends [notImplementedHelp] to the help of every command below n
// that [notImplementedVerb] reports, and of every noun all of whose commands are such,
// so `--help` tells a newcomer what will only answer not_implemented. It reports whether
// n itself was marked.
func markNotImplemented(n *kong.Node) bool {
	var children []*kong.Node
	for _, c := range n.Children {
		if c.Type == kong.CommandNode {
			children = append(children, c)
		}
	}
	marked := n.Type == kong.CommandNode
	if len(children) == 0 {
		marked = marked && notImplementedVerb(verbOf(n))
	}
	for _, c := range children {
		marked = markNotImplemented(c) && marked
	}
	if marked {
		n.Help += notImplementedHelp
	}
	return marked
}

// verbMethodsCopy returns a copy of the verb → socket methods table.
func verbMethodsCopy() map[string][]string {
	out := make(map[string][]string, len(verbMethods))
	for k, v := range verbMethods {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// localVerbList returns the verbs that never contact the server, sorted.
func localVerbList() []string {
	out := make([]string, 0, len(localVerbs))
	for k := range localVerbs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// verbs returns every leaf command of the kong tree as its space-separated path
// ("agent run", "loop run stop", "top"), sorted. Hidden commands (`__run-shim`) are
// internal to orcr and not verbs.
func verbs() []string {
	var root rootCmd
	k, err := kong.New(&root, kong.Name("orcr"), kong.Vars{"version": "orcr " + Version})
	if err != nil {
		panic(err)
	}
	var out []string
	for _, n := range k.Model.Leaves(true) {
		out = append(out, verbOf(n))
	}
	sort.Strings(out)
	return out
}

// verbOf is the space-separated command path of n below the root.
func verbOf(n *kong.Node) string {
	var parts []string
	for ; n != nil && n.Type == kong.CommandNode; n = n.Parent {
		parts = append([]string{n.Name}, parts...)
	}
	return strings.Join(parts, " ")
}
