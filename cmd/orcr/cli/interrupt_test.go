package cli_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/tests/poll"
)

// runInterrupted runs args in-process and, once ready reports true, cancels the
// invocation's context the way a SIGINT does through cli.NotifyContext. It returns the
// outcome and how long the invocation took to end after the interrupt.
func runInterrupted(t *testing.T, env cli.Env, out, errb *syncBuffer, ready func() bool, args ...string) (outcome, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan int, 1)
	go func() { done <- cli.Run(ctx, args, env) }()
	poll.Eventually(t, 10*time.Second, fmt.Sprintf("orcr %v to be ready", args), func() bool {
		select {
		case code := <-done:
			t.Fatalf("orcr %v ended before the interrupt: exit %d stdout %q stderr %q", args, code, out.String(), errb.String())
		default:
		}
		return ready()
	})
	at := time.Now()
	cancel(&cli.Interrupt{Signal: syscall.SIGINT})
	select {
	case code := <-done:
		return outcome{code, out.String(), errb.String()}, time.Since(at)
	case <-time.After(10 * time.Second):
		t.Fatalf("orcr %v did not end within 10s of the interrupt", args)
		return outcome{}, 0
	}
}

func TestInterruptedBlockingVerbs(t *testing.T) {
	t.Parallel()
	t.Run("agent ask", func(t *testing.T) {
		h := newHarness(t)
		asked := make(chan struct{}, 1)
		release := make(chan struct{})
		startFake(t, h.home, func(method string, _ map[string]any) (any, *wire.Error) {
			asked <- struct{}{}
			<-release // never answers while the test runs
			return nil, nil
		})
		t.Cleanup(func() { close(release) })
		var out, errb syncBuffer
		got, took := runInterrupted(t, h.env(&out, &errb), &out, &errb, func() bool { return len(asked) == 1 },
			"agent", "ask", "--name", "q", "-a", "mock", "-p", "hi")
		if got.code != 130 || got.stderr != "interrupted by SIGINT\n" || got.stdout != "" {
			t.Errorf("agent ask: got %+v, want exit 130 and `interrupted by SIGINT` on stderr", got)
		}
		if took > 2*time.Second {
			t.Errorf("agent ask ended %v after the interrupt", took)
		}
	})
	t.Run("agent ask --json", func(t *testing.T) {
		h := newHarness(t)
		asked := make(chan struct{}, 1)
		release := make(chan struct{})
		startFake(t, h.home, func(method string, _ map[string]any) (any, *wire.Error) {
			asked <- struct{}{}
			<-release
			return nil, nil
		})
		t.Cleanup(func() { close(release) })
		var out, errb syncBuffer
		got, _ := runInterrupted(t, h.env(&out, &errb), &out, &errb, func() bool { return len(asked) == 1 },
			"agent", "ask", "--name", "q", "-a", "mock", "-p", "hi", "--json")
		env := decodeEnvelope(t, got.stdout)
		if got.code != 130 || env.OK || env.Error.Cause() != wire.CauseInterrupted || strings.Contains(got.stdout, "timeout") {
			t.Errorf("agent ask --json: got %+v, want exit 130 and cause interrupted", got)
		}
	})
	t.Run("server logs --follow", func(t *testing.T) {
		h := newHarness(t)
		writeLog(t, h.home, "one\n")
		var out, errb syncBuffer
		got, _ := runInterrupted(t, h.env(&out, &errb), &out, &errb, func() bool { return out.String() != "" },
			"server", "logs", "--follow")
		if got.code != 130 || got.stdout != "one\n" || got.stderr != "interrupted by SIGINT\n" {
			t.Errorf("server logs --follow: got %+v, want exit 130 after the lines", got)
		}
	})
	t.Run("kill confirmation", func(t *testing.T) {
		h := newHarness(t)
		h.tty = true
		f := startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) {
			return map[string]any{"targets": []any{map[string]any{"path": "a/b", "status": "idle"}}}, nil
		})
		var out, errb syncBuffer
		env := h.env(&out, &errb)
		stdin, w := io.Pipe() // nobody answers the question
		t.Cleanup(func() { w.Close() })
		env.Stdin = stdin
		got, _ := runInterrupted(t, env, &out, &errb, func() bool { return strings.Contains(errb.String(), "[y/N]") },
			"agent", "kill", "a/b")
		if got.code != 130 || !strings.HasSuffix(got.stderr, "interrupted by SIGINT\n") {
			t.Errorf("kill at the prompt: got %+v, want exit 130", got)
		}
		if reqs := f.requests(); len(reqs) != 1 || reqs[0].Params["preview"] != true {
			t.Errorf("kill at the prompt sent %+v, want only the preview", reqs)
		}
	})
}

// The foreground server stops on SIGINT/SIGTERM as its normal way to end: that is a
// clean stop (exit 0), not an interrupt.
func TestForegroundServerSignalIsACleanStop(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	serving := make(chan struct{})
	h.serve = func(ctx context.Context, o cli.ServeOptions) (string, error) {
		close(serving)
		<-ctx.Done()
		return "started", nil
	}
	var out, errb syncBuffer
	got, _ := runInterrupted(t, h.env(&out, &errb), &out, &errb, func() bool {
		select {
		case <-serving:
			return true
		default:
			return false
		}
	}, "server", "start", "--foreground")
	if got.code != 0 || got.stdout != "server started\n" || got.stderr != "" {
		t.Errorf("server start --foreground: got %+v, want exit 0 and `server started`", got)
	}
}
