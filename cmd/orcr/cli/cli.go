// Package cli is the orcr command line: a kong command tree that is a thin layer over
// the socket client ([socketapi.Client]). Everything runs in-process against injected
// writers and environment, so tests drive it with buffers; cmd/orcr/main.go only wires
// the real process (os.Args, os.Stdout, the server entry point) into [Run].
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/config/service"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
)

// Version is what `orcr -V` prints after "orcr ".
const Version = api.Version

// ServeOptions is what `server start --foreground` hands to [Env.Serve].
type ServeOptions struct {
	// Home is the resolved orcr home.
	Home string
	// Getenv reads the CLI's environment.
	Getenv func(string) string
	// Warnf prints one config warning ("warning: <text>") on the CLI's stderr.
	Warnf func(format string, args ...any)
}

// Env is the process the CLI runs in. Every field has a usable default except Serve:
// nil Stdin reads nothing, nil writers discard, nil Getenv means os.Getenv and so on.
// Fields must not change while [Run] executes.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads one variable; nil means os.Getenv.
	Getenv func(string) string
	// Environ is the full environment handed to an auto-started server; nil means
	// os.Environ.
	Environ func() []string
	// Getwd is the working directory sent as cwd; nil means os.Getwd.
	Getwd func() (string, error)
	// IsTTY reports whether stdout is a terminal (docs/cli.md §1.4); nil checks whether
	// Stdout is an *os.File on a terminal.
	IsTTY func() bool
	// Spawn starts a detached `orcr server start --foreground` for home and returns
	// without waiting for it; nil re-executes os.Executable (see [SpawnDetached]).
	Spawn func(home string) error
	// Serve makes this process the server (`server start --foreground`); main wires it to
	// socketapi/server.Run. It returns server.OutcomeStarted or
	// server.OutcomeAlreadyRunning. nil → not_implemented.
	Serve func(ctx context.Context, opts ServeOptions) (outcome string, err error)
	// PID is the client_pid sent by `agent attach`; 0 means os.Getpid().
	PID int
	// GOOS chooses the service manager of `server enable` / `server disable` ("linux":
	// systemd, "darwin": launchd, anything else is unsupported_platform); "" means
	// runtime.GOOS.
	GOOS string
	// Executable is the orcr binary `server enable` writes into the unit; nil means
	// os.Executable.
	Executable func() (string, error)
	// Services runs the service-manager commands (systemctl, launchctl) of `server
	// enable` / `server disable`; nil runs them for real.
	Services service.Runner
	// SystemdRunDir is the directory that exists when systemd runs the machine; ""
	// means /run/systemd/system (service.Manager.SystemdRunDir).
	SystemdRunDir string

	// spawnDetached is the default Spawn, which also knows the child's pid and sees it
	// exit: `server start` compares the pid with the one that answers to tell a start
	// from a lost start race, and a child that fails to start is reported at once with
	// its own error (docs/protocol.md §1.7). A Spawn given by the caller has neither: its
	// start always counts as started, and a failure shows as the readiness timeout.
	spawnDetached func(home string) (socketapi.Spawned, error)
}

func (e *Env) defaults() {
	if e.Stdin == nil {
		e.Stdin = strings.NewReader("")
	}
	if e.Stdout == nil {
		e.Stdout = io.Discard
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	if e.Environ == nil {
		e.Environ = os.Environ
	}
	if e.Getwd == nil {
		e.Getwd = os.Getwd
	}
	if e.IsTTY == nil {
		out := e.Stdout
		e.IsTTY = func() bool {
			f, ok := out.(*os.File)
			return ok && term.IsTerminal(int(f.Fd()))
		}
	}
	if e.Spawn == nil {
		environ := e.Environ
		e.spawnDetached = func(home string) (socketapi.Spawned, error) { return SpawnDetached(home, environ()) }
		e.Spawn = func(home string) error { _, err := SpawnDetached(home, environ()); return err }
	}
	if e.PID == 0 {
		e.PID = os.Getpid()
	}
	if e.Executable == nil {
		e.Executable = os.Executable
	}
}

// exitRequest is panicked by kong's Exit hook (help, version) and recovered by Run, so
// tests never terminate the process.
type exitRequest struct{ code int }

// ExitError is returned by a command that printed its (successful) output but must exit
// with a non-zero code: `agent wait` (3/4/5) and `agent kill` (7).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// app is bound into every command's Run method.
type app struct {
	ctx  context.Context
	env  *Env
	json bool
	// passthrough is the argv after "--" of `loop create`.
	passthrough []string
	// hasDashDash reports whether argv contained the "--" of loop create.
	hasDashDash bool
	// ownsSignals is set by a command for which SIGINT/SIGTERM are an ordinary way to
	// end (the foreground server stops cleanly and exits 0), so Run does not report
	// them as an interrupt.
	ownsSignals bool
	// progress, when set by a bulk verb, asks its calls for progress frames and shows
	// them on stderr with this verb ("killed"; docs/cli.md §1.3).
	progress string
	// fleet is the connection to the fleet of a call to a host-qualified target, dialed
	// at its first use and closed when the invocation ends (fleethost.go).
	fleet *fleet.Member
	// home and loaded are the home and its config once prepareHomeConfig succeeded.
	home   string
	loaded *config.Config
}

// Run executes one orcr invocation with args (without the program name) and returns
// the process exit code (docs/cli.md §1.6). It never calls os.Exit. When ctx ends with an
// [*Interrupt] cause (see [NotifyContext]) the invocation reports it was interrupted
// and returns 128+signal, except for `server start --foreground`, for which a signal is
// the normal way to stop.
func Run(ctx context.Context, args []string, env Env) (code int) {
	env.defaults()
	a := &app{ctx: ctx, env: &env, json: jsonRequested(args)}
	defer a.closeFleet()
	args, a.passthrough, a.hasDashDash = splitLoopCreate(args)

	var root rootCmd
	parser, err := kong.New(&root,
		kong.Name("orcr"),
		kong.Description("Run AI coding agents inside herdr."),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(func(c int) { panic(exitRequest{c}) }),
		kong.Vars{"version": "orcr " + Version},
		kong.Bind(a),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		return a.fail(wire.Internal(wire.CauseCLI, "cannot build the command line: "+err.Error()))
	}
	markNotImplemented(parser.Model.Node)
	defer func() {
		if r := recover(); r != nil {
			er, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			code = er.code
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		return a.parseError(parser, args, err)
	}
	a.json = a.json || root.JSON
	err = kctx.Run()
	if in := interruptOf(ctx); in != nil && !a.ownsSignals {
		return a.interrupted(in)
	}
	if err != nil {
		return a.fail(err)
	}
	return 0
}

// jsonRequested reports whether an argv element is exactly "--json" (docs/cli.md §1.1), the
// rule that decides how parse errors are printed.
func jsonRequested(args []string) bool {
	for _, s := range args {
		if s == "--" {
			return false
		}
		if s == "--json" {
			return true
		}
	}
	return false
}

// splitLoopCreate cuts the command argv of `loop create … -- <command…>` off args, so
// kong never sees it (the cron positional would otherwise swallow its first word).
func splitLoopCreate(args []string) (rest, command []string, found bool) {
	var words []string
	for i, s := range args {
		if s == "--" {
			if len(words) >= 2 && words[0] == "loop" && words[1] == "create" {
				return args[:i:i], append([]string(nil), args[i+1:]...), true
			}
			return args, nil, false
		}
		if !strings.HasPrefix(s, "-") {
			words = append(words, s)
		}
	}
	return args, nil, false
}

// parseError maps a kong error: a branch command without its subcommand prints help
// and exits 0; anything else is invalid_request cli_parse (exit 1).
func (a *app) parseError(parser *kong.Kong, args []string, err error) int {
	var pe *kong.ParseError
	errors.As(err, &pe)
	if tctx, terr := kong.Trace(parser, args); terr == nil && tctx.Error == nil && missingSubcommand(tctx) {
		_ = tctx.PrintUsage(false)
		return 0
	}
	e := wire.Invalid(wire.ReasonCLIParse, err.Error()+a.loopCreateHint(args, err))
	if a.json {
		a.printError(e)
		return e.Code.Exit()
	}
	a.printError(e)
	if pe != nil && pe.Context != nil {
		pe.Context.Stdout = a.env.Stderr
		_ = pe.Context.PrintUsage(true)
	}
	return e.Code.Exit()
}

// loopCreateHint is the hint a `loop create` whose command came without "--" gets
// (docs/cli.md §5.9): kong sees the command's first word as a third positional.
func (a *app) loopCreateHint(args []string, err error) string {
	if a.hasDashDash || !strings.HasPrefix(err.Error(), "unexpected argument") {
		return ""
	}
	var words []string
	for _, s := range args {
		if !strings.HasPrefix(s, "-") {
			words = append(words, s)
		}
	}
	if len(words) < 2 || words[0] != "loop" || words[1] != "create" {
		return ""
	}
	return `; put the loop's command after --: orcr loop create <name> "<cron>" -- <command…>`
}

// missingSubcommand reports whether a cleanly traced argv stopped at the root or at a
// noun (a node whose children are commands), i.e. `orcr`, `orcr agent`, `orcr loop run`.
func missingSubcommand(ctx *kong.Context) bool {
	node := ctx.Selected()
	if node == nil {
		node = ctx.Model.Node
	}
	if node.Type != kong.ApplicationNode && node.Type != kong.CommandNode {
		return false
	}
	for _, c := range node.Children {
		if c.Type == kong.CommandNode {
			return true
		}
	}
	return false
}

// fail prints err (as an envelope with --json, else as an "error:" line on stderr) and
// returns its exit code.
func (a *app) fail(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	pe, ok := wire.As(err)
	if !ok {
		pe = wire.Internal(wire.CauseCLI, err.Error())
	}
	a.printError(pe)
	return pe.Code.Exit()
}

func (a *app) printError(e *wire.Error) {
	if a.json {
		env := struct {
			OK    bool        `json:"ok"`
			Error *wire.Error `json:"error"`
		}{false, e}
		a.writeJSONLine(env)
		return
	}
	details := ""
	if len(e.Details) > 0 {
		details = strings.TrimSuffix(string(marshal(e.Details)), "\n")
	}
	fmt.Fprintln(a.env.Stderr, e.HumanLine(details))
}

// marshal encodes v compactly without HTML escaping, with a trailing newline.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("cli: cannot encode %T: %v", v, err))
	}
	return b.Bytes()
}

func (a *app) writeJSONLine(v any) {
	_, _ = a.env.Stdout.Write(marshal(v))
}

// printOK prints the success envelope {"ok":true,"result":<raw>} on one line.
func (a *app) printOK(raw json.RawMessage) {
	var b bytes.Buffer
	b.WriteString(`{"ok":true,"result":`)
	if len(bytes.TrimSpace(raw)) == 0 {
		b.WriteString("null")
	} else if err := json.Compact(&b, raw); err != nil {
		b.Write(bytes.TrimSpace(raw))
	}
	b.WriteString("}\n")
	_, _ = a.env.Stdout.Write(b.Bytes())
}

// printOKValue is printOK for a locally built result.
func (a *app) printOKValue(v any) {
	a.printOK(bytes.TrimSuffix(marshal(v), []byte("\n")))
}

// stdout prints one human line.
func (a *app) stdout(format string, args ...any) { fmt.Fprintf(a.env.Stdout, format+"\n", args...) }

// stderr prints one line of hints, notes or warnings.
func (a *app) stderr(format string, args ...any) { fmt.Fprintf(a.env.Stderr, format+"\n", args...) }

// pretty prints raw indented with two spaces.
func (a *app) pretty(raw json.RawMessage) error {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		b.Reset()
		b.Write(raw)
	}
	b.WriteByte('\n')
	_, err := a.env.Stdout.Write(b.Bytes())
	return err
}

// notImplemented is the error of verbs whose feature has not landed yet.
func notImplemented(verb string) error {
	return wire.Invalid(wire.ReasonNotImplemented, "orcr "+verb+" is not implemented yet", "verb", verb)
}
