// Command herdr-standin answers the herdr CLI subcommands orcr runs, backed by the
// in-process server of package herdrtest. It is a test double for the real `herdr`
// binary, which cannot be installed on development machines.
//
// Supported invocations (global flags may appear before the subcommand):
//
//	herdr-standin --version | -V            prints "herdr <version>"
//	herdr-standin [--session N] server      runs session N ("default" without
//	                                         --session) in the foreground until
//	                                         SIGTERM/SIGINT or server.stop
//	herdr-standin session list [--json]
//	herdr-standin session stop N [--json]
//	herdr-standin session delete N [--json]
//	herdr-standin integration status
//	herdr-standin integration install qwen|opencode
//	                                         the stand-in's own session reporting
//	                                         for the real qwen and opencode (install.go)
//	herdr-standin api schema [--json]       prints the schema of the protocol it
//	                                         plays (20 unless told otherwise)
//	herdr-standin [--session N] terminal attach <terminal_id> [--takeover]
//	herdr-standin [--session N] agent attach <pane_id> [--takeover]
//	                                         connects this terminal to the pane
//	                                         until ctrl+b q (see attach.go)
//
// The config dir is $XDG_CONFIG_HOME/herdr, else $HOME/.config/herdr. Panes get
// HERDR_BIN_PATH = this binary's absolute path.
//
// Which herdr it plays comes from the environment (profile.go):
// HERDR_STANDIN_PROTOCOL (16, 20 or 22; default 20) is what ping reports and picks the
// schema `api schema` prints; HERDR_STANDIN_VERSION overrides the version (default
// 0.7.2, 0.8.2 or 0.9.0 by protocol); HERDR_STANDIN_COMPLETION_SEQ=0|1 turns
// completion_seq on agent rows off or on (default on from protocol 22);
// HERDR_STANDIN_SIZE=<cols>x<rows> is the headless size, which herdr's config sets
// (default 120x40, 80x24 for protocol 16; panes get 26 columns and a row less). The
// protocol-22 schema is orcr's construction, not herdr's file (herdr/herdrschema).
//
// `integration status` prints one line per target in herdr's IntegrationTarget
// order, targets spelled with dashes:
//
//	<target>: current (v<N>) (<path>)
//	<target>: outdated (v<N> < v<M>) (<path>)      version word "legacy" when the
//	                                               file carries no marker
//	<target>: not installed (<path>)
//
// A target counts as installed when its hook/plugin file exists at the path herdr's
// installer writes (honouring the same override variables, e.g. CLAUDE_CONFIG_DIR,
// CODEX_HOME); the installed version is the N of a "HERDR_INTEGRATION_VERSION=N"
// marker in that file. The "current" versions are the stand-in's assumption (see
// integration.go) and only a real herdr can confirm them.
//
// `terminal attach` and `agent attach` speak the stand-in's own attach protocol to the
// session server (herdr/herdrtest/attach.go), on the path of herdr's client socket:
// herdr's own client protocol is not documented. `agent attach` takes a pane's current
// id only (no agent names: the stand-in has none); HERDR_STANDIN_REFUSE_AGENT_ATTACH=1
// makes it refuse every target. Without --takeover the attach only observes: typed keys
// other than the detach key are dropped.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: herdr-standin [--session NAME] <server | session list|stop|delete | integration status | integration install qwen|opencode | api schema | terminal attach TERMINAL_ID [--takeover] | agent attach PANE_ID [--takeover]> [--json]`

func run(args []string, stdout, stderr io.Writer) int {
	prof, err := envProfile()
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 2
	}
	session := ""
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--version" || a == "-V":
			fmt.Fprintf(stdout, "herdr %s\n", prof.version)
			return 0
		case a == "--session":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, "error: --session needs a value")
				return 2
			}
			i++
			session = args[i]
		case len(a) > len("--session=") && a[:len("--session=")] == "--session=":
			session = a[len("--session="):]
		default:
			rest = append(rest, a)
		}
	}
	jsonOut := false
	var words []string
	for _, a := range rest {
		if a == "--json" {
			jsonOut = true
			continue
		}
		words = append(words, a)
	}
	if len(words) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch words[0] {
	case "server":
		return cmdServer(session, prof, stderr)
	case "session":
		if len(words) < 2 {
			break
		}
		switch words[1] {
		case "list":
			return cmdSessionList(jsonOut, stdout)
		case "stop", "delete":
			if len(words) < 3 {
				fmt.Fprintf(stderr, "error: session %s needs a session name\n", words[1])
				return 2
			}
			if words[1] == "stop" {
				return cmdSessionStop(words[2], jsonOut, stdout, stderr)
			}
			return cmdSessionDelete(words[2], jsonOut, stdout, stderr)
		}
	case "integration":
		if len(words) >= 2 && words[1] == "status" {
			return cmdIntegrationStatus(prof.protocol, stdout)
		}
		if len(words) == 3 && words[1] == "install" {
			return cmdIntegrationInstall(words[2], stdout, stderr)
		}
	case "api":
		if len(words) >= 2 && words[1] == "schema" {
			return cmdAPISchema(prof, stdout)
		}
	case "terminal", "agent":
		if len(words) >= 2 && words[1] == "attach" {
			return cmdAttach(words[0], session, words[2:], stdout, stderr)
		}
	}
	fmt.Fprintln(stderr, usage)
	return 2
}
