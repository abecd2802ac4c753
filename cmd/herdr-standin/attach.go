package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/orcr-go/orcr/herdr/herdrtest"
)

// Detach key of an attach: ctrl+b, then q. herdr's own client detaches with that
// sequence (ctrl+b is its prefix key); that `terminal attach` and `agent attach` use the
// same key is the stand-in's assumption, which only a real herdr can confirm. After the
// prefix, a second ctrl+b sends one literal ctrl+b and any other key sends the prefix
// and the key.
const (
	detachPrefix = 0x02 // ctrl+b
	detachKey    = 'q'
)

// refuseAgentAttachEnv, when set to 1, makes `agent attach` refuse every target, as a
// herdr whose `agent attach` takes agent names only would: orcr then falls back to
// `terminal attach` (docs/decisions.md D6), which tests exercise with it.
const refuseAgentAttachEnv = "HERDR_STANDIN_REFUSE_AGENT_ATTACH"

// errDetached ends the input copy when the detach key was typed.
var errDetached = errors.New("detached")

// detachScanner finds the detach key in typed input, across reads.
type detachScanner struct{ prefix bool }

// scan returns the bytes of in to send to the pane and whether the detach key was
// typed (the bytes before it are returned, nothing after it).
func (d *detachScanner) scan(in []byte) (send []byte, detach bool) {
	for _, c := range in {
		if d.prefix {
			d.prefix = false
			switch c {
			case detachKey:
				return send, true
			case detachPrefix:
				send = append(send, detachPrefix)
			default:
				send = append(send, detachPrefix, c)
			}
			continue
		}
		if c == detachPrefix {
			d.prefix = true
			continue
		}
		send = append(send, c)
	}
	return send, false
}

// copyInput copies typed input to the attach (takeover) or drops it (observe) until the
// detach key (errDetached), the end of input (nil) or an error.
func copyInput(in io.Reader, out io.Writer, forward bool) error {
	var d detachScanner
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		send, detach := d.scan(buf[:n])
		if forward && len(send) > 0 {
			if _, werr := out.Write(send); werr != nil {
				return werr
			}
		}
		if detach {
			return errDetached
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// cmdAttach is `terminal attach <terminal_id> [--takeover]` and `agent attach
// <pane_id> [--takeover]`: it connects this terminal to the pane through the session's
// attach socket (herdrtest/attach.go) until the detach key, the end of stdin, the pane's
// exit or a takeover by another attach. stdin is put in raw mode when it is a terminal,
// and the pane is shown on the alternate screen, which is left again on detach.
//
// Exit status: 0 after a detach, the pane's exit or a takeover; 1 when the attach is
// refused or its connection is lost; 128+n after signal n (SIGINT, SIGTERM, SIGHUP).
func cmdAttach(kind, session string, args []string, stdout, stderr io.Writer) int {
	takeover, target := false, ""
	for _, a := range args {
		switch {
		case a == "--takeover":
			takeover = true
		case target == "" && len(a) > 0 && a[0] != '-':
			target = a
		default:
			fmt.Fprintf(stderr, "error: %s attach: unexpected argument %q\n", kind, a)
			return 2
		}
	}
	if target == "" {
		fmt.Fprintf(stderr, "error: %s attach needs a target\n", kind)
		return 2
	}
	if session == "" {
		session = os.Getenv("HERDR_SESSION")
	}
	if session == "" {
		session = "default"
	}
	if kind == "agent" && os.Getenv(refuseAgentAttachEnv) == "1" {
		fmt.Fprintf(stderr, "error: agent %s not found\n", target)
		return 1
	}
	conn, err := herdrtest.DialAttach(herdrtest.AttachSocketPath(herdrtest.ConfigDirFromEnv(), session),
		herdrtest.AttachRequest{Kind: kind, Target: target, Takeover: takeover})
	var ae *herdrtest.AttachError
	switch {
	case errors.As(err, &ae):
		fmt.Fprintf(stderr, "error: %s\n", ae.Message)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "error: session %s is not running (%v)\n", session, err)
		return 1
	}
	defer conn.Close()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	fd := int(os.Stdin.Fd())
	if term.IsTerminal(fd) {
		if st, err := term.MakeRaw(fd); err == nil {
			defer term.Restore(fd, st)
		}
	}
	io.WriteString(stdout, "\x1b[?1049h")
	type ending struct {
		reason string
		code   int
	}
	ends := make(chan ending, 2)
	go func() {
		reason, err := conn.Pump(stdout)
		if err != nil {
			ends <- ending{"connection lost: " + err.Error(), 1}
			return
		}
		code := 0
		if reason != "pane exited" && reason != "detached" {
			code = 1 // herdr 0.8.2 ends a taken-over attach with status 1 too
		}
		ends <- ending{reason, code}
	}()
	go func() {
		if err := copyInput(os.Stdin, conn, takeover); err != nil && !errors.Is(err, errDetached) {
			ends <- ending{"input failed: " + err.Error(), 1}
			return
		}
		ends <- ending{"detached", 0}
	}()
	var e ending
	select {
	case e = <-ends:
	case s := <-sigs:
		sig, _ := s.(syscall.Signal)
		e = ending{"signal " + sig.String(), 128 + int(sig)}
	}
	conn.Close()
	// Leave the alternate screen and the input modes the pane's program set.
	io.WriteString(stdout, "\x1b[?2004l\x1b[?1l\x1b[?1049l")
	if e.reason == "taken over" {
		// herdr 0.8.2's words for it (recorded by the live attach test).
		fmt.Fprintf(stderr, "herdr: server shut down: %s attach taken over\r\n", kind)
	} else {
		fmt.Fprintf(stderr, "[%s %s: %s]\r\n", kind, target, e.reason)
	}
	return e.code
}
