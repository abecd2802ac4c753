package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// appServerWaitDelay bounds how long reaping waits for the child's stdout to close
// after it was killed (a grandchild may still hold it).
const appServerWaitDelay = time.Second

// RunAppServer is the real exchange behind [CodexCatalog.Run] (docs/providers.md §4.1): it
// starts argv in its own process group with stdin and stdout piped and stderr
// discarded, writes req, and reads stdout until a line answers model/list
// ([IsCodexAnswer]), the child exits, or ctx ends. The child's process group is then
// killed and the child reaped in every case. It returns everything read from stdout;
// the error is a spawn or write failure, ctx's error, or — when the child exited
// without answering — its exit status.
func RunAppServer(ctx context.Context, argv []string, req []byte) ([]byte, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty argv")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = appServerWaitDelay
	out := &answerWriter{answered: make(chan struct{})}
	cmd.Stdout = out // stderr stays nil: discarded
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	reap := func() error { cancel(); return <-waited }

	// A failed write means the server closed its stdin, typically by exiting — maybe
	// after it answered: what it printed decides, below.
	_, werr := stdin.Write(req)
	var runErr error
	select {
	case <-out.answered:
	case <-ctx.Done():
		runErr = ctx.Err()
	case runErr = <-waited:
		// Exited on its own; Wait has returned, so every byte was copied.
		if out.finish() {
			runErr = nil
		} else if runErr == nil {
			runErr = errors.New("codex app-server exited without answering model/list")
			if werr != nil {
				runErr = fmt.Errorf("codex app-server exited without answering model/list (writing the request: %w)", werr)
			}
		}
		return out.bytes(), runErr
	}
	reap()
	if out.isAnswered() {
		runErr = nil
	}
	return out.bytes(), runErr
}

// answerWriter collects stdout and closes answered once a complete line answers
// model/list. exec's copying goroutine writes; the caller reads.
type answerWriter struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	scanned  int // bytes of buf already checked line by line
	done     bool
	answered chan struct{}
}

func (w *answerWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for !w.done {
		rest := w.buf.Bytes()[w.scanned:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		if IsCodexAnswer(rest[:i]) {
			w.done = true
			close(w.answered)
		}
		w.scanned += i + 1
	}
	return len(p), nil
}

// finish checks an unterminated last line too and reports whether an answer was seen.
func (w *answerWriter) finish() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done && IsCodexAnswer(w.buf.Bytes()[w.scanned:]) {
		w.done = true
		close(w.answered)
	}
	return w.done
}

func (w *answerWriter) isAnswered() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

func (w *answerWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}
