// Command orcr-mock-agent is the fake interactive coding agent behind orcr's
// test-only "mock" provider. herdr runs it in a pane's PTY like claude or
// codex; it draws a small TUI, takes prompts typed into it, pretends to work,
// writes a transcript and reports its state to herdr. See docs/providers.md §8.
//
// # Input
//
// stdin is put in raw mode when it is a terminal (echo off) and bracketed
// paste is enabled. A prompt is the text typed (or pasted) into the input box,
// submitted by Enter (\r or \n); text and Enter may arrive in separate writes
// (orcr's two-call delivery). Inside a bracketed paste, newlines are part of
// the prompt; a paste end marker outside a paste is ignored, like every other
// escape sequence. Backspace deletes, ^U clears the whole input box (its every
// line), other control bytes (^E among them) are ignored. Blank prompts are
// ignored; "/quit", ^D on an empty input box and the end of input stop the
// program (end of input and ^D first finish the prompts already queued;
// "/quit" interrupts the running turn). "/model <name>" switches the model (see
// "Model switch"). Prompts submitted while a turn runs are queued. A lone ESC
// byte (not the start of an escape sequence), or ^C with an empty input box,
// interrupts the running turn: the prompt and a partial response ending in the
// line "INTERRUPTED" (never "DONE") are written to the transcript at once and
// idle is reported. ESC while blocked (the block directive or knob) reports
// idle. While a permission prompt stands (see "Tool calls"), Enter on an empty
// input box approves and ESC denies instead.
//
// # Command line
//
//	orcr-mock-agent [--skip-permissions] [--resume <transcript path>]
//
// Each flag at most once, in either order; --resume=<path> is the same as
// --resume <path>. --resume continues the conversation of another mock's
// transcript.jsonl (orcr's mock provider passes it to resume a conversation,
// docs/providers.md §8). --skip-permissions is the mock's permission bypass: the
// tool calls of the tool= directive run at once instead of asking (see "Tool
// calls"); orcr passes it unless the agent runs with approvals. Any other command
// line, or --resume without a path, prints a usage line to stderr and exits with
// status 2 before anything else happens.
//
// # Start-up
//
// The data directory is $ORCR_AGENT_DATA_DIR (created if missing), else the
// current directory. At start the program opens mock.log there (its only log;
// herdr errors go there), writes mock_env.json (a JSON object of every ORCR_*
// and HERDR_* variable in its environment) and mock_cwd (its working directory, one
// line) and creates transcript.jsonl. With
// --resume it then, before the banner, appends every non-blank line of the
// named file to its own transcript.jsonl, verbatim and in one write, takes the
// session_id of the last copied entry that has one as its session id (unless
// ORCR_MOCK_SESSION_ID is set) and shows the line "resumed <n> entries from
// <path>"; a file it cannot read is shown ("cannot resume: <error>; starting a
// fresh session") and logged, and the program goes on as a fresh session. With
// ORCR_MOCK_NO_TRANSCRIPT nothing is copied, but the file is still read for the
// count and the session id; resuming from its own transcript copies nothing.
// Then it draws the banner, reports idle and, with ORCR_MOCK_SESSION_SOURCE,
// reports its session (see "herdr calls").
//
// # Environment knobs
//
//	ORCR_MOCK_TURN_MS              simulated work per turn, ms (default 0)
//	ORCR_MOCK_TOOL_GAPS            idle gaps per turn (default 0)
//	ORCR_MOCK_GAP_MS               length of one idle gap, ms (default 600)
//	ORCR_MOCK_BLOCK                report blocked instead of idle after each turn
//	ORCR_MOCK_NO_TRANSCRIPT        neither create nor write transcript.jsonl
//	ORCR_MOCK_ONCE                 exit after one turn
//	ORCR_MOCK_EXIT_AFTER           exit after N turns (0 = never)
//	ORCR_MOCK_BANNER               banner text (default "orcr-mock-agent ready")
//	ORCR_MOCK_DROP_FIRST_SENDS     silently discard the first N non-blank prompts
//	ORCR_MOCK_DROP_FIRST_ENTERS    ignore the first N Enters on a non-empty input box: the text stays there
//	ORCR_MOCK_DROP_TOUCHES         a dropped prompt or Enter touches the transcript (its mtime), like a resumed gemini writing its session file on its own
//	ORCR_MOCK_TAKE_TOUCHES         a taken prompt touches the transcript (its mtime) at once, its user line written only later, like qwen writing telemetry lines
//	ORCR_MOCK_DELAY_WORKING_MS     stay idle this long after a prompt before reporting working
//	ORCR_MOCK_NO_ECHO              never show a taken prompt ("> <prompt>"), like a TUI caught redrawing its screen as it takes one
//	ORCR_MOCK_START_DELAY_MS       after taking the terminal (raw mode), draw nothing and read nothing this long, like a TUI that boots slowly
//	ORCR_MOCK_BUSY_MS              after drawing its first screen, read no key this long (keys typed meanwhile are then processed back to back), like a TUI whose event loop is busy loading
//	ORCR_MOCK_FAST_RETURN_MS       an Enter processed less than this long after typed or pasted text inserts a newline instead of submitting, like gemini's and qwen's input
//	ORCR_MOCK_TEXT_BUSY_MS         after drawing the first text typed into an empty input box, read no key this long (keys typed meanwhile are then processed back to back), like a TUI busy as a prompt arrives
//	ORCR_MOCK_STALE_ENTER_MS       an Enter on the empty input box processed less than this long after an Enter that submitted submits that text again, like gemini, whose box empties only on its next render: two Enters read in one burst submit the prompt twice
//	ORCR_MOCK_START_FAIL           fail at start: after the start delay, show this text and exit with status 1, like a TUI that refuses to start
//	ORCR_MOCK_START_FAIL_MS        how long the failed start's text stays on screen before the exit (default 0)
//	ORCR_MOCK_LATE_BANNER          banner text that replaces the first banner ORCR_MOCK_LATE_BANNER_MS (default 1000) after it was drawn, like a TUI that draws its input box and asks a question a moment later
//	ORCR_MOCK_QUIT_DELAY_MS        after "/quit", show "quitting" and exit only this long later, like a TUI that saves its session on the way out; a signal meanwhile exits at once
//	ORCR_MOCK_LATE_TRANSCRIPT_MS   write the turn's transcript lines this long after reporting its final state
//	ORCR_MOCK_NO_REPORT            never contact herdr
//	ORCR_MOCK_HERDR_SOCKET         herdr socket (default $HERDR_SOCKET_PATH)
//	ORCR_MOCK_PANE_ID              pane id (default $HERDR_PANE_ID)
//	ORCR_MOCK_SESSION_ID           agent_session_id sent with reports (default "mock_session")
//	ORCR_MOCK_AGENT                agent label sent with reports (default "mock")
//	ORCR_MOCK_SOURCE               report source (default "orcr:mock"; an extension)
//	ORCR_MOCK_SESSION_SOURCE       source of one pane.report_agent_session at start, e.g. "herdr:mock" (default: none)
//
// Boolean knobs are on when set to anything but "", "0", "false" or "no".
// Numeric knobs that do not parse are logged and use their default.
//
// # Per-prompt directives
//
// Whitespace-separated tokens anywhere in a prompt, each with an optional
// leading '@', override the knobs for that turn: turn_ms=<n>, tool_gaps=<n>,
// gap_ms=<n>, block, say=<word> and write=<relpath>. tool=<name> (an extension)
// makes the turn call the tool name (see "Tool calls"). no_working (an extension)
// makes the turn report no state but its final one, so herdr never shows it
// working: a turn too short for any poll to see, made deterministic. digest (an
// extension) makes the response "bytes=<n> sha256=<hex>" of the prompt as
// submitted, so a test can check that a prompt of megabytes arrived whole; it
// wins over say=. The whole prompt, directives included, is what the transcript
// records.
//
// # A turn
//
// For each accepted prompt: show "> <prompt>" (unless ORCR_MOCK_NO_ECHO); wait ORCR_MOCK_DELAY_WORKING_MS
// (still idle); report working; tool_gaps times: sleep max(turn_ms, 150) ms,
// report idle, sleep gap_ms, report working (with no_working, none of these
// reports is made nor shown); with tool=, call the tool; sleep turn_ms; build
// the response "<say>\nDONE" or "RESPONSE: <prompt>\nDONE" (or the digest, or
// "DENIED: <name>\nDONE" when the tool was denied); append the user and
// assistant lines to the transcript (unless late; a tool turn's user line is
// already there, written with the call); write the response to
// <data dir>/<relpath> for write= (a relpath that is absolute or leaves the
// data dir is refused and logged); show the response; report blocked (block)
// or idle; for a late transcript, append the lines ORCR_MOCK_LATE_TRANSCRIPT_MS
// later (or as soon as anything else is appended or the program exits).
//
// # Tool calls
//
// A turn with tool=<name> calls that tool after its tool gaps: it appends the
// user line and an assistant tool_use line (id "toolu_mock_<hex>_<n>": <hex>
// random per process, so ids do not repeat across a --resume, and <n> counting
// the process's calls; input {"prompt": <the prompt>}) and shows "tool <name>
// (<id>)". With --skip-permissions the tool runs at once: a user tool_result
// line "ok: <name>" follows and the turn goes on. Without it the turn parks on a
// permission prompt: the dialog "Allow tool <name>? [Enter] yes  [Esc] no"
// appears above the input box and blocked is reported. Enter on an empty input
// box approves: the result "ok: <name>" is written, working reported and the
// turn finishes as usual. ESC denies: the result is the error "denied by user",
// working is reported and the turn finishes with the response
// "DENIED: <name>\nDONE" (it completes; it is not an interrupt). While the prompt
// stands, typing goes to the input box as ever, and Enter on a non-empty box
// submits it (a prompt is queued behind the parked turn, /quit quits). With
// deaf_ms=<n> (an extension) the prompt drops Enter and ESC for its first n ms, as a
// CLI that draws its dialog before it reads keys does; with call_late_ms=<n> the
// call's tool_use reaches the transcript n ms after the prompt stands (or with the
// next line written), as claude's did on a loaded machine. An
// interrupt (^C on an empty box, /quit, a signal) while parked answers the call
// with the error "interrupted by user" and ends the turn as interrupted. A
// process killed while parked leaves the tool_use without a result. no_working
// does not hide the prompt's blocked report nor the working after it.
//
// # Model switch
//
// "/model <name>" (the rest of the line, trimmed) records name as the model: it
// is shown on the status line ("[idle]  model <name>") and in the conversation
// ("model set to <name>"), written to mock.log, and appended to the transcript
// as a user text line of the command that also carries "model": <name> (never an
// assistant line, so it is not a response). No turn starts and idle is reported;
// the command does not count as a turn for ORCR_MOCK_EXIT_AFTER. Like a prompt it
// is queued behind a running turn. Without a name (or with a multi-line one) it
// shows "usage: /model <name>", changes nothing and reports idle.
//
// # Transcript format
//
// transcript.jsonl holds one JSON object per line, readable both by the claude
// transcript adapter (docs/providers.md §3.6) and directly as a §6.1 entry:
//
//	{"type":"user","role":"user","kind":"text","text":"say=hi",
//	 "timestamp":"2026-01-02T03:04:05.123456789Z","session_id":"mock_session",
//	 "message":{"role":"user","content":"say=hi"}}
//	{"type":"assistant","role":"assistant","kind":"text","text":"hi\nDONE",
//	 "timestamp":"…","session_id":"mock_session",
//	 "message":{"role":"assistant","content":"hi\nDONE"}}
//
// type and role are "user" or "assistant"; kind is "text", with text and
// message.content the same string, for every line but the tool lines; timestamp
// is RFC 3339 UTC with nanoseconds; session_id is omitted when empty; an
// interrupted turn's assistant line also has "interrupted":true; a /model line
// also has "model". A tool call and its result are, as claude writes them:
//
//	{"type":"assistant","role":"assistant","kind":"tool_use","text":"","tool":"Bash",
//	 "timestamp":"…","session_id":"…","message":{"role":"assistant","content":
//	 [{"type":"tool_use","id":"toolu_mock_1a2b3c4d_1","name":"Bash","input":{"prompt":"…"}}]}}
//	{"type":"user","role":"user","kind":"tool_result","text":"ok: Bash",
//	 "timestamp":"…","session_id":"…","message":{"role":"user","content":
//	 [{"type":"tool_result","tool_use_id":"toolu_mock_1a2b3c4d_1","content":"ok: Bash","is_error":false}]}}
//
// # herdr calls
//
// One request per Unix-socket connection with a 2 s deadline:
// pane.report_agent {pane_id, source, agent, state, agent_session_id} with
// state idle, working or blocked, and pane.release_agent {pane_id, source,
// agent} when the program exits. Reporting needs both a socket and a pane id.
// Failures are logged to mock.log and never stop the program.
//
// With ORCR_MOCK_SESSION_SOURCE set (and a transcript), right after the first
// idle report the program sends once pane.report_agent_session {pane_id,
// source: $ORCR_MOCK_SESSION_SOURCE, agent, agent_session_path: <absolute path
// of transcript.jsonl>}. herdr records agent_session only from an agent's
// official source, "herdr:<agent>" (docs/herdr.md §5.3; the stand-in,
// herdr/herdrtest, takes that for any agent name): with "herdr:mock" the pane
// gets agent_session {kind: "path", value: <that path>}, the pointer a user's
// claude or codex would have, which orcr resumes from. agent_session_id is
// deliberately not sent: given both, herdr keeps the id (kind "id"), and the
// mock resumes only from a path.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"
)

// defaultBanner is printed at start unless ORCR_MOCK_BANNER is set.
const defaultBanner = "orcr-mock-agent ready"

// config is the knob set read from the environment.
type config struct {
	dataDir          string
	banner           string
	turnMS           int
	toolGaps         int
	gapMS            int
	block            bool
	noTranscript     bool
	exitAfter        int // 0 = never; ORCR_MOCK_ONCE makes it 1
	dropFirst        int
	dropTouches      bool // ORCR_MOCK_DROP_TOUCHES: a dropped prompt or Enter touches the transcript
	dropEnters       int  // ORCR_MOCK_DROP_FIRST_ENTERS: the first N Enters on a non-empty box are ignored
	takeTouches      bool // ORCR_MOCK_TAKE_TOUCHES: a taken prompt touches the transcript at once
	delayWorkingMS   int
	noEcho           bool
	startDelayMS     int
	busyMS           int    // ORCR_MOCK_BUSY_MS: after the first screen, read no key this long
	fastReturnMS     int    // ORCR_MOCK_FAST_RETURN_MS: an Enter this soon after text is a newline
	textBusyMS       int    // ORCR_MOCK_TEXT_BUSY_MS: after the first text in an empty box, read no key this long
	staleEnterMS     int    // ORCR_MOCK_STALE_ENTER_MS: an Enter this soon after a submit submits it again
	startFail        string // ORCR_MOCK_START_FAIL: the message of a start that fails; "" starts
	startFailMS      int
	lateBanner       string // ORCR_MOCK_LATE_BANNER: the banner that replaces the first one later
	lateBannerMS     int
	quitDelayMS      int
	lateTranscriptMS int
	noReport         bool
	socket           string
	paneID           string
	sessionID        string
	sessionIDSet     bool // ORCR_MOCK_SESSION_ID was set: a resume keeps sessionID
	agentName        string
	source           string
	sessionSource    string // ORCR_MOCK_SESSION_SOURCE; "" sends no session report
	resumeFrom       string // --resume <transcript path>; "" starts fresh
	skipPermissions  bool   // --skip-permissions: tool= calls run without a permission prompt
}

// loadConfig reads the knobs through getenv, logging values it rejects.
func loadConfig(getenv func(string) string, logf func(string, ...any)) config {
	intKnob := func(name string, def, max int) int {
		v := getenv(name)
		if v == "" {
			return def
		}
		n, ok := parseCount(strings.TrimSpace(v), max)
		if !ok {
			logf("ignoring %s=%q: not a non-negative integer", name, v)
			return def
		}
		return n
	}
	boolKnob := func(name string) bool {
		switch strings.ToLower(strings.TrimSpace(getenv(name))) {
		case "", "0", "false", "no":
			return false
		}
		return true
	}
	orDefault := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	c := config{
		dataDir:          getenv("ORCR_AGENT_DATA_DIR"),
		banner:           orDefault(getenv("ORCR_MOCK_BANNER"), defaultBanner),
		turnMS:           intKnob("ORCR_MOCK_TURN_MS", 0, maxDirectiveMS),
		toolGaps:         intKnob("ORCR_MOCK_TOOL_GAPS", 0, maxToolGaps),
		gapMS:            intKnob("ORCR_MOCK_GAP_MS", 600, maxDirectiveMS),
		block:            boolKnob("ORCR_MOCK_BLOCK"),
		noTranscript:     boolKnob("ORCR_MOCK_NO_TRANSCRIPT"),
		exitAfter:        intKnob("ORCR_MOCK_EXIT_AFTER", 0, 1<<31-1),
		dropFirst:        intKnob("ORCR_MOCK_DROP_FIRST_SENDS", 0, 1<<31-1),
		dropTouches:      boolKnob("ORCR_MOCK_DROP_TOUCHES"),
		dropEnters:       intKnob("ORCR_MOCK_DROP_FIRST_ENTERS", 0, 1<<31-1),
		takeTouches:      boolKnob("ORCR_MOCK_TAKE_TOUCHES"),
		delayWorkingMS:   intKnob("ORCR_MOCK_DELAY_WORKING_MS", 0, maxDirectiveMS),
		noEcho:           boolKnob("ORCR_MOCK_NO_ECHO"),
		startDelayMS:     intKnob("ORCR_MOCK_START_DELAY_MS", 0, maxDirectiveMS),
		busyMS:           intKnob("ORCR_MOCK_BUSY_MS", 0, maxDirectiveMS),
		fastReturnMS:     intKnob("ORCR_MOCK_FAST_RETURN_MS", 0, maxDirectiveMS),
		textBusyMS:       intKnob("ORCR_MOCK_TEXT_BUSY_MS", 0, maxDirectiveMS),
		staleEnterMS:     intKnob("ORCR_MOCK_STALE_ENTER_MS", 0, maxDirectiveMS),
		startFail:        getenv("ORCR_MOCK_START_FAIL"),
		startFailMS:      intKnob("ORCR_MOCK_START_FAIL_MS", 0, maxDirectiveMS),
		lateBanner:       getenv("ORCR_MOCK_LATE_BANNER"),
		lateBannerMS:     intKnob("ORCR_MOCK_LATE_BANNER_MS", 1000, maxDirectiveMS),
		quitDelayMS:      intKnob("ORCR_MOCK_QUIT_DELAY_MS", 0, maxDirectiveMS),
		lateTranscriptMS: intKnob("ORCR_MOCK_LATE_TRANSCRIPT_MS", 0, maxDirectiveMS),
		noReport:         boolKnob("ORCR_MOCK_NO_REPORT"),
		socket:           orDefault(getenv("ORCR_MOCK_HERDR_SOCKET"), getenv("HERDR_SOCKET_PATH")),
		paneID:           orDefault(getenv("ORCR_MOCK_PANE_ID"), getenv("HERDR_PANE_ID")),
		sessionID:        orDefault(getenv("ORCR_MOCK_SESSION_ID"), "mock_session"),
		sessionIDSet:     getenv("ORCR_MOCK_SESSION_ID") != "",
		agentName:        orDefault(getenv("ORCR_MOCK_AGENT"), "mock"),
		source:           orDefault(getenv("ORCR_MOCK_SOURCE"), "orcr:mock"),
		sessionSource:    getenv("ORCR_MOCK_SESSION_SOURCE"),
	}
	if boolKnob("ORCR_MOCK_ONCE") && (c.exitAfter == 0 || c.exitAfter > 1) {
		c.exitAfter = 1
	}
	return c
}

// envDump returns every ORCR_* and HERDR_* variable of environ.
func envDump(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (strings.HasPrefix(k, "ORCR_") || strings.HasPrefix(k, "HERDR_")) {
			m[k] = v
		}
	}
	return m
}

// usage is printed to stderr for a command line the program does not take.
const usage = "usage: orcr-mock-agent [--skip-permissions] [--resume <transcript path>]\n" +
	"       orcr-mock-agent " + ClaudeSessionHook + "   (a claude hook: reports the session to herdr)\n" +
	"       orcr-mock-agent " + CodexSessionHook + "    (a codex hook: reports the session to herdr)\n"

// cmdLine is what the command line asks for.
type cmdLine struct {
	resumeFrom      string // --resume <path>; "" starts fresh
	skipPermissions bool   // --skip-permissions: tool calls run without asking
}

// parseArgs reads the command line (without the program name): at most one
// "--skip-permissions" and at most one "--resume <path>" (also "--resume=<path>",
// the path not empty), in either order. The word after "--resume" is its path,
// whatever it looks like.
func parseArgs(args []string) (cmdLine, error) {
	var c cmdLine
	resume := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--skip-permissions" && !c.skipPermissions:
			c.skipPermissions = true
		case a == "--resume" && !resume:
			resume = true
			if i+1 < len(args) {
				i++
				c.resumeFrom = args[i]
			}
		case strings.HasPrefix(a, "--resume=") && !resume:
			resume = true
			c.resumeFrom = strings.TrimPrefix(a, "--resume=")
		default:
			return cmdLine{}, fmt.Errorf("unexpected arguments %q", args)
		}
	}
	if resume && c.resumeFrom == "" {
		return cmdLine{}, errors.New("--resume needs a transcript path")
	}
	return c, nil
}

// main runs the mock agent and exits with its status.
func main() {
	os.Exit(run(os.Args[1:]))
}

// run is the whole program; it returns the exit code: 2 for a bad command line, 1 for a
// start that fails (ORCR_MOCK_START_FAIL), else 0.
func run(args []string) int {
	if len(args) == 1 && args[0] == ClaudeSessionHook {
		return claudeSessionHook(os.Stdin, os.Getenv, log.New(os.Stderr, "orcr-mock-agent: ", 0))
	}
	if len(args) == 1 && args[0] == CodexSessionHook {
		return codexSessionHook(os.Stdin, os.Getenv, log.New(os.Stderr, "orcr-mock-agent: ", 0))
	}
	cl, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "orcr-mock-agent: %v\n%s", err, usage)
		return 2
	}
	logger := log.New(io.Discard, "", log.LstdFlags|log.Lmicroseconds)
	dataDir := os.Getenv("ORCR_AGENT_DATA_DIR")
	if dataDir == "" {
		dataDir = "."
	}
	if err := os.MkdirAll(dataDir, 0o755); err == nil {
		if f, err := os.OpenFile(filepath.Join(dataDir, "mock.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			defer f.Close()
			logger.SetOutput(f)
		}
	}
	cfg := loadConfig(os.Getenv, logger.Printf)
	cfg.dataDir = dataDir
	cfg.resumeFrom = cl.resumeFrom
	cfg.skipPermissions = cl.skipPermissions
	logger.Printf("start pid=%d data_dir=%s resume=%q skip_permissions=%v", os.Getpid(), dataDir, cl.resumeFrom, cl.skipPermissions)

	if b, err := json.MarshalIndent(envDump(os.Environ()), "", "  "); err == nil {
		if err := os.WriteFile(filepath.Join(dataDir, "mock_env.json"), append(b, '\n'), 0o644); err != nil {
			logger.Printf("mock_env.json: %v", err)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if err := os.WriteFile(filepath.Join(dataDir, "mock_cwd"), []byte(wd+"\n"), 0o644); err != nil {
			logger.Printf("mock_cwd: %v", err)
		}
	}

	stdinFD := int(os.Stdin.Fd())
	if term.IsTerminal(stdinFD) {
		if old, err := term.MakeRaw(stdinFD); err != nil {
			logger.Printf("raw mode: %v", err)
		} else {
			defer term.Restore(stdinFD, old)
		}
	}
	// What is typed meanwhile waits in the terminal and is read in one go afterwards.
	time.Sleep(time.Duration(cfg.startDelayMS) * time.Millisecond)
	if cfg.startFail != "" {
		return failStart(cfg, logger)
	}
	stdoutFD := int(os.Stdout.Fd())
	io.WriteString(os.Stdout, "\x1b[?2004h") // enable bracketed paste
	defer io.WriteString(os.Stdout, "\x1b[?2004l\r\n")

	a := newAgent(cfg, logger, os.Stdout, func() (int, int) {
		c, r, err := term.GetSize(stdoutFD)
		if err != nil {
			return 0, 0
		}
		return c, r
	})
	a.start()

	chunks := make(chan inputChunk, 16)
	go readInput(os.Stdin, chunks)
	go a.ui(&decoder{in: chunks})

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGWINCH)
	go func() {
		for s := range sigs {
			if s == syscall.SIGWINCH {
				a.scr.redraw()
				continue
			}
			a.signalOnce.Do(func() { close(a.signalled) })
			a.shutdown("signal " + s.String())
		}
	}()

	a.work()
	a.lingerAfterQuit()
	a.finish()
	return 0
}

// failStart is a start that fails (ORCR_MOCK_START_FAIL): the message is shown, stays
// on screen for ORCR_MOCK_START_FAIL_MS, and the program exits with status 1 without
// ever reporting to herdr, as a provider that refuses to start does.
func failStart(cfg config, logger *log.Logger) int {
	logger.Printf("start fails: %q (exit in %d ms)", cfg.startFail, cfg.startFailMS)
	io.WriteString(os.Stdout, strings.ReplaceAll(cfg.startFail, "\n", "\r\n")+"\r\n")
	time.Sleep(time.Duration(cfg.startFailMS) * time.Millisecond)
	return 1
}

// readInput forwards reads from r as chunks; the last chunk carries the
// error that ended reading.
func readInput(r io.Reader, out chan<- inputChunk) {
	for {
		buf := make([]byte, 4096)
		n, err := r.Read(buf)
		if n > 0 || err != nil {
			out <- inputChunk{data: buf[:n], err: err}
		}
		if err != nil {
			return
		}
	}
}

// itemKind is the kind of a work-queue item.
type itemKind int

const (
	itemPrompt  itemKind = iota // run a turn
	itemEOF                     // input ended: stop after the items before it
	itemUnblock                 // ESC while blocked: report idle
	itemModel                   // "/model <name>": record the model, report idle
)

// workItem is what the input side hands to the worker.
type workItem struct {
	kind itemKind
	text string
}

// agent is the running mock: the input side (ui) feeds prompts to a single
// worker (work) that runs turns one at a time; all herdr reports after start
// come from the worker, so they are sent in order.
type agent struct {
	cfg config
	log *log.Logger
	scr *screen
	rep *reporter
	tr  *transcript

	queue    chan workItem
	quit     chan struct{}
	quitOnce sync.Once
	// signalled is closed by the first terminating signal: a quit delay ends there.
	signalled  chan struct{}
	signalOnce sync.Once

	mu      sync.Mutex
	cancel  context.CancelFunc // cancels the running turn; nil between turns
	blocked bool               // last reported state was blocked
	// quitByLine: "/quit" stopped the program (ORCR_MOCK_QUIT_DELAY_MS applies).
	quitByLine bool
	permit     chan bool // takes the verdict while a permission prompt stands; else nil
	deafUntil  time.Time // the standing prompt drops Enter and ESC until then (deaf_ms)

	// Worker-side state, touched only by the worker.
	toolPrefix string // random per process, so tool-call ids differ across a --resume
	toolCalls  int    // tool calls made so far

	// Input-side state, touched only by ui.
	input      []rune
	dropped    int
	enterDrops int // Enters dropped so far (ORCR_MOCK_DROP_FIRST_ENTERS)
}

// newAgent builds the agent; it writes the screen to out.
func newAgent(cfg config, logger *log.Logger, out io.Writer, size func() (int, int)) *agent {
	a := &agent{
		cfg:        cfg,
		log:        logger,
		scr:        &screen{out: out, size: size},
		queue:      make(chan workItem, 1024),
		quit:       make(chan struct{}),
		signalled:  make(chan struct{}),
		toolPrefix: randomHex(4),
	}
	if !cfg.noReport && cfg.socket != "" && cfg.paneID != "" {
		a.rep = &reporter{
			socket:    cfg.socket,
			paneID:    cfg.paneID,
			source:    cfg.source,
			agent:     cfg.agentName,
			sessionID: cfg.sessionID,
			logf:      logger,
		}
	} else {
		logger.Printf("herdr reporting disabled (no_report=%v socket=%q pane=%q)", cfg.noReport, cfg.socket, cfg.paneID)
	}
	tpath := ""
	if !cfg.noTranscript {
		tpath = filepath.Join(cfg.dataDir, "transcript.jsonl")
		if abs, err := filepath.Abs(tpath); err == nil {
			tpath = abs // what the session report names
		}
	}
	a.tr = &transcript{path: tpath, logf: logger.Printf}
	return a
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
