package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/config/service/servicetest"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// shortHome returns a fresh home under the system temp dir whose socket path stays
// well below the ~104-byte limit of Unix socket paths.
func shortHome(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "c")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

type syncBuffer = sockettest.SyncBuffer

type outcome struct {
	code           int
	stdout, stderr string
}

// harness runs the CLI in-process with an isolated environment.
type harness struct {
	home  string
	vars  map[string]string
	stdin string
	tty   bool
	spawn func(home string) error
	serve func(ctx context.Context, o cli.ServeOptions) (string, error)
	// goos, exe and services are what `server enable` / `disable` see: the platform
	// ("" = this one), the orcr binary, and the recorder of the service-manager
	// commands, which never run for real in these tests.
	goos     string
	exe      string
	services *servicetest.Recorder
	// runDir stands for /run/systemd/system: a test on a machine systemd runs makes it.
	runDir string
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	home := shortHome(t)
	return &harness{
		home: home,
		vars: map[string]string{"ORCR_HOME": home, "HOME": home},
		spawn: func(string) error {
			return errors.New("spawning a server is disabled in this test")
		},
		exe:      "/opt/orcr/bin/orcr",
		services: &servicetest.Recorder{},
		runDir:   filepath.Join(home, "no-systemd"), // systemd runs no test's machine unless it says so
	}
}

func (h *harness) env(stdout, stderr *syncBuffer) cli.Env {
	return cli.Env{
		Stdin:   strings.NewReader(h.stdin),
		Stdout:  stdout,
		Stderr:  stderr,
		Getenv:  func(k string) string { return h.vars[k] },
		Environ: func() []string { return nil },
		Getwd:   func() (string, error) { return "/work/dir", nil },
		IsTTY:   func() bool { return h.tty },
		Spawn:   h.spawn,
		Serve:   h.serve,
		PID:     4242,
		GOOS:    h.goos,
		Executable: func() (string, error) {
			return h.exe, nil
		},
		Services:      h.services,
		SystemdRunDir: h.runDir,
	}
}

func (h *harness) run(t testing.TB, args ...string) outcome {
	t.Helper()
	return h.runCtx(t, context.Background(), args...)
}

func (h *harness) runCtx(t testing.TB, ctx context.Context, args ...string) outcome {
	t.Helper()
	var out, errb syncBuffer
	code := cli.Run(ctx, args, h.env(&out, &errb))
	return outcome{code, out.String(), errb.String()}
}

// envelope decodes the single JSON line printed on stdout.
type envelope struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *wire.Error     `json:"error"`
}

func decodeEnvelope(t testing.TB, stdout string) envelope {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout is not exactly one line: %q", stdout)
	}
	var e envelope
	if err := json.Unmarshal([]byte(stdout), &e); err != nil {
		t.Fatalf("stdout is not a JSON envelope: %v: %q", err, stdout)
	}
	return e
}

// request is one request received by a fakeServer.
type request struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params"`
}

// fakeServer is a real Unix-socket server at <home>/orcr.sock that answers
// server.handshake itself and every other method through answer.
type fakeServer struct {
	ln     net.Listener
	answer func(method string, params map[string]any) (any, *wire.Error)
	// before, when set, runs before a non-handshake answer is written, with a writer
	// of frames on the same connection (progress frames).
	before func(method string, id json.RawMessage, progress bool, write func(frame any))

	mu   sync.Mutex
	reqs []request
	wg   sync.WaitGroup
}

func startFake(t testing.TB, home string, answer func(method string, params map[string]any) (any, *wire.Error)) *fakeServer {
	t.Helper()
	return startFakeWith(t, home, answer, nil)
}

// startFakeWith is startFake with a before hook ([fakeServer.before]).
func startFakeWith(t testing.TB, home string, answer func(method string, params map[string]any) (any, *wire.Error),
	before func(method string, id json.RawMessage, progress bool, write func(frame any))) *fakeServer {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(home, "orcr.sock"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{ln: ln, answer: answer, before: before}
	f.wg.Add(1)
	go f.serve()
	t.Cleanup(f.close)
	return f
}

func (f *fakeServer) close() {
	f.ln.Close()
	f.wg.Wait()
}

func (f *fakeServer) serve() {
	defer f.wg.Done()
	for {
		conn, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer conn.Close()
			f.handle(conn)
		}()
	}
}

func (f *fakeServer) handle(conn net.Conn) {
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var req struct {
			ID       json.RawMessage `json:"id"`
			Method   string          `json:"method"`
			Params   map[string]any  `json:"params"`
			Progress bool            `json:"progress"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return
		}
		var result any
		var werr *wire.Error
		if req.Method == "server.handshake" {
			result = map[string]any{"pid": 1, "protocol": 1, "store": "/x/orcr.db", "ready": true}
		} else {
			f.mu.Lock()
			f.reqs = append(f.reqs, request{req.Method, req.Params})
			f.mu.Unlock()
			if f.before != nil {
				f.before(req.Method, req.ID, req.Progress, func(frame any) {
					b, _ := json.Marshal(frame)
					_, _ = conn.Write(append(b, '\n'))
				})
			}
			if f.answer != nil {
				result, werr = f.answer(req.Method, req.Params)
			} else {
				result = map[string]any{}
			}
		}
		resp := map[string]any{"id": req.ID, "ok": werr == nil}
		if werr != nil {
			resp["error"] = werr
		} else {
			resp["result"] = result
		}
		b, _ := json.Marshal(resp)
		if _, err := conn.Write(append(b, '\n')); err != nil {
			return
		}
	}
}

// requests returns the non-handshake requests received so far.
func (f *fakeServer) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}
