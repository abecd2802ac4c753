package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/tests/poll"
)

var standinBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hbin")
	if err != nil {
		panic(err)
	}
	standinBin = filepath.Join(dir, "herdr")
	out, err := exec.Command("go", "build", "-o", standinBin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build herdr-standin: %v\n%s", err, out)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// herdrCmd runs the stand-in with the given extra environment, playing its default
// herdr unless env says otherwise (whatever the test process's environment says).
func herdrCmd(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(standinBin, args...)
	cmd.Env = append(os.Environ(), "HERDR_STANDIN_PROTOCOL=", "HERDR_STANDIN_VERSION=", "HERDR_STANDIN_COMPLETION_SEQ=")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func runHerdr(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := herdrCmd(env, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String() + errb.String(), code
}

type listOut struct {
	Sessions []herdrtest.SessionRow `json:"sessions"`
}

func sessionList(t *testing.T, env []string) listOut {
	t.Helper()
	out, code := runHerdr(t, env, "session", "list", "--json")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("session list: %d %q", code, out)
	}
	var l listOut
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		t.Fatalf("session list json: %v: %s", err, out)
	}
	return l
}

func TestSessionListInProcess(t *testing.T) {
	f := herdrtest.Start(t, validatingOpts(t), "orcr", "b")
	// A session directory with no server, and a stale socket file.
	os.MkdirAll(herdrtest.SessionDir(f.ConfigDir, "a"), 0o700)
	ln, err := net.Listen("unix", herdrtest.SocketPath(f.ConfigDir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	os.MkdirAll(filepath.Join(f.ConfigDir, "sessions", "bad name"), 0o700)

	l := sessionList(t, f.Env())
	var got []string
	for _, r := range l.Sessions {
		got = append(got, fmt.Sprintf("%s:%v:%v", r.Name, r.Default, r.Running))
	}
	if want := "default:true:false a:false:false b:false:true orcr:false:true"; strings.Join(got, " ") != want {
		t.Fatalf("rows %v, want %s", got, want)
	}
	if l.Sessions[0].SocketPath != f.ConfigDir+"/herdr.sock" || l.Sessions[0].SessionDir != f.ConfigDir ||
		l.Sessions[3].SocketPath != f.ConfigDir+"/sessions/orcr/herdr.sock" || l.Sessions[3].SessionDir != f.ConfigDir+"/sessions/orcr" {
		t.Fatalf("paths: %+v", l.Sessions)
	}
}

func rawCall(sock, line string) (map[string]any, error) { return rawCallAt(20, sock, line) }

// rawCallAt sends one request line and validates it and the answer against the schema
// fixture of protocol p.
func rawCallAt(p int, sock, line string) (map[string]any, error) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte(line + "\n"))
	b, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if err := herdrtest.ValidateRequestAt(p, []byte(line)); err != nil {
		return nil, err
	}
	if err := herdrtest.ValidateResponseAt(p, b[:len(b)-1]); err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

func TestServerSubprocessLifecycle(t *testing.T) {
	xdg, err := os.MkdirTemp("", "h")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(xdg)
	env := []string{"XDG_CONFIG_HOME=" + xdg, "HERDR_SESSION=", "HERDR_SOCKET_PATH="}
	cdir := filepath.Join(xdg, "herdr")

	srv := herdrCmd(env, "--session", "orcr", "server")
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	defer func() {
		srv.Process.Kill()
	}()

	var l listOut
	poll.Eventually(t, 10*time.Second, "the server to run", func() bool {
		l = sessionList(t, env)
		return len(l.Sessions) == 2 && l.Sessions[1].Running
	}, func() string { return fmt.Sprintf("sessions %+v; stderr %s", l, srvErr.String()) })
	row := l.Sessions[1]
	if row.Name != "orcr" || row.SocketPath != filepath.Join(cdir, "sessions/orcr/herdr.sock") {
		t.Fatalf("row %+v", row)
	}
	m, err := rawCall(row.SocketPath, `{"id":"p","method":"ping","params":{}}`)
	if err != nil || m["id"] != "p" {
		t.Fatalf("ping: %v %v", m, err)
	}
	// Panes see the stand-in as HERDR_BIN_PATH and the session name.
	m, err = rawCall(row.SocketPath, `{"id":"w","method":"workspace.create","params":{"label":"x"}}`)
	if err != nil || m["error"] != nil {
		t.Fatalf("workspace.create: %v %v", m, err)
	}
	ws := m["result"].(map[string]any)["workspace"].(map[string]any)["workspace_id"].(string)
	line := fmt.Sprintf(`{"id":"l","method":"layout.apply","params":{"workspace_id":%q,"root":{"type":"pane","command":["/bin/sh","-c","echo \"bin=$HERDR_BIN_PATH\"; echo \"ses=$HERDR_SESSION\"; exec cat"]}}}`, ws)
	m, err = rawCall(row.SocketPath, line)
	if err != nil || m["error"] != nil {
		t.Fatalf("layout.apply: %v %v", m, err)
	}
	pane := m["result"].(map[string]any)["layout"].(map[string]any)["root"].(map[string]any)["pane_id"].(string)
	var text string
	poll.Eventually(t, 10*time.Second, "the pane to print its herdr environment", func() bool {
		m, err = rawCall(row.SocketPath, fmt.Sprintf(`{"id":"r","method":"pane.read","params":{"pane_id":%q,"source":"recent_unwrapped"}}`, pane))
		text, _ = m["result"].(map[string]any)["read"].(map[string]any)["text"].(string)
		return strings.Contains(text, "bin="+standinBin) && strings.Contains(text, "ses=orcr")
	}, func() string { return fmt.Sprintf("pane shows %q (%v)", text, err) })
	// A second server on the same session refuses to start.
	if out, code := runHerdr(t, env, "--session", "orcr", "server"); code == 0 {
		t.Fatalf("second server started: %s", out)
	}

	out, code := runHerdr(t, env, "session", "stop", "orcr", "--json")
	if code != 0 {
		t.Fatalf("session stop: %d %s", code, out)
	}
	var stopped struct {
		Stopped bool                 `json:"stopped"`
		Session herdrtest.SessionRow `json:"session"`
	}
	if err := json.Unmarshal([]byte(out), &stopped); err != nil || !stopped.Stopped || stopped.Session.Name != "orcr" || stopped.Session.Running {
		t.Fatalf("stop output %q: %v", out, err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("server process did not exit after session stop")
	}
	if _, err := os.Stat(row.SocketPath); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
	if out, code := runHerdr(t, env, "session", "stop", "orcr"); code == 0 {
		t.Fatalf("stopping a stopped session succeeded: %s", out)
	}
	if out, code := runHerdr(t, env, "session", "delete", "default", "--json"); code == 0 {
		t.Fatalf("default deleted: %s", out)
	}
	out, code = runHerdr(t, env, "session", "delete", "orcr", "--json")
	if code != 0 || !strings.Contains(out, `"deleted":true`) || !strings.Contains(out, `"name":"orcr"`) {
		t.Fatalf("delete: %d %s", code, out)
	}
	if l := sessionList(t, env); len(l.Sessions) != 1 {
		t.Fatalf("deleted session still listed: %+v", l)
	}
}

func TestDeleteRefusesRunning(t *testing.T) {
	f := herdrtest.Start(t, validatingOpts(t), "live")
	if out, code := runHerdr(t, f.Env(), "session", "delete", "live"); code == 0 {
		t.Fatalf("running session deleted: %s", out)
	}
	if _, err := os.Stat(herdrtest.SessionDir(f.ConfigDir, "live")); err != nil {
		t.Fatal(err)
	}
}

func TestServerStopsOnSIGTERM(t *testing.T) {
	xdg, err := os.MkdirTemp("", "h")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(xdg)
	env := []string{"XDG_CONFIG_HOME=" + xdg, "HERDR_SESSION=", "HERDR_SOCKET_PATH="}
	srv := herdrCmd(env, "server")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(xdg, "herdr", "herdr.sock")
	t.Cleanup(func() { srv.Process.Kill() }) // when it never came up or never stopped
	poll.Eventually(t, 10*time.Second, "the default session to come up", func() bool { return herdrtest.SocketAnswers(sock) })
	srv.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		srv.Process.Kill()
		t.Fatal("server ignored SIGINT")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket left: %v", err)
	}
}

func TestAPISchemaAndVersion(t *testing.T) {
	out, code := runHerdr(t, nil, "api", "schema", "--json")
	if code != 0 || strings.TrimSpace(out) != strings.TrimSpace(string(herdrschema.Protocol20)) {
		t.Fatalf("api schema: code %d, %d bytes", code, len(out))
	}
	out, code = runHerdr(t, nil, "--version")
	if code != 0 || out != "herdr 0.8.2\n" {
		t.Fatalf("version: %q", out)
	}
	out, code = runHerdr(t, []string{"XDG_CONFIG_HOME=" + t.TempDir()}, "terminal", "attach", "term_1")
	if code != 1 || !strings.Contains(out, "session default is not running") {
		t.Fatalf("attach with no server: %d %q", code, out)
	}
}

func TestIntegrationStatus(t *testing.T) {
	home := t.TempDir()
	hook := filepath.Join(home, ".claude", "hooks", "herdr-agent-state.sh")
	os.MkdirAll(filepath.Dir(hook), 0o755)
	os.WriteFile(hook, []byte("#!/bin/sh\n# HERDR_INTEGRATION_ID=claude\n# HERDR_INTEGRATION_VERSION=11\n"), 0o755)
	codexHome := filepath.Join(home, "cx")
	os.MkdirAll(codexHome, 0o755)
	os.WriteFile(filepath.Join(codexHome, "herdr-agent-state.sh"), []byte("#!/bin/sh\n# HERDR_INTEGRATION_VERSION=3\n"), 0o755)
	os.MkdirAll(filepath.Join(home, ".pi/agent/extensions"), 0o755)
	os.WriteFile(filepath.Join(home, ".pi/agent/extensions/herdr-agent-state.ts"), []byte("// old\n"), 0o644)
	env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "CLAUDE_CONFIG_DIR=", "PI_CODING_AGENT_DIR=", "XDG_CONFIG_HOME="}
	out, code := runHerdr(t, env, "integration", "status")
	if code != 0 {
		t.Fatalf("integration status: %d %s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 17 {
		t.Fatalf("%d lines: %s", len(lines), out)
	}
	want := map[string]string{
		"claude": "claude: current (v11) (" + hook + ")",
		"codex":  "codex: outdated (v3 < v8) (" + filepath.Join(codexHome, "herdr-agent-state.sh") + ")",
		"pi":     "pi: outdated (legacy < v8) (" + filepath.Join(home, ".pi/agent/extensions/herdr-agent-state.ts") + ")",
		"droid":  "droid: not installed (" + filepath.Join(home, ".factory/hooks/herdr-agent-state.sh") + ")",
	}
	found := 0
	for _, l := range lines {
		name, _, _ := strings.Cut(l, ":")
		if w, ok := want[name]; ok {
			found++
			if l != w {
				t.Errorf("got %q, want %q", l, w)
			}
		}
	}
	if found != len(want) || !strings.HasPrefix(lines[15], "antigravity-cli: ") {
		t.Fatalf("lines: %s", out)
	}
}

func validatingOpts(t *testing.T) herdrtest.Options {
	return herdrtest.Options{OnResponse: func(method string, raw []byte) {
		if err := herdrtest.ValidateResponse(raw); err != nil {
			t.Errorf("%s: %v", method, err)
		}
	}}
}

// `integration install qwen|opencode` as herdr 0.8.2 answers it (its messages are in
// herdr/testdata/live/0.8.2/integrations.json): refused while the agent's config dir is
// missing, then the files at herdr's paths, reported current by `integration status`,
// qwen's hook added to settings.json beside what was there, once however often it runs.
func TestIntegrationInstall(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME="}
	if out, code := runHerdr(t, env, "integration", "install", "qwen"); code != 1 ||
		!strings.Contains(out, "qwen code config directory not found at "+filepath.Join(home, ".qwen")) {
		t.Fatalf("install qwen without ~/.qwen: %d %q", code, out)
	}
	os.MkdirAll(filepath.Join(home, ".qwen"), 0o755)
	os.MkdirAll(filepath.Join(home, ".config", "opencode"), 0o755)
	os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte(`{"ui": {"theme": "x"}}`), 0o644)
	hook := filepath.Join(home, ".qwen", "hooks", "herdr-agent-session.sh")
	plugin := filepath.Join(home, ".config", "opencode", "plugins", "herdr-agent-state.js")
	for range 2 {
		out, code := runHerdr(t, env, "integration", "install", "qwen")
		if want := "installed qwen integration hook to " + hook + "\nensured qwen settings at " + filepath.Join(home, ".qwen", "settings.json") + "\n"; code != 0 || out != want {
			t.Fatalf("install qwen: %d %q, want %q", code, out, want)
		}
		out, code = runHerdr(t, env, "integration", "install", "opencode")
		if want := "installed opencode integration plugin to " + plugin + "\n"; code != 0 || out != want {
			t.Fatalf("install opencode: %d %q, want %q", code, out, want)
		}
	}
	var settings struct {
		UI    map[string]any `json:"ui"`
		Hooks struct {
			SessionStart []struct {
				Hooks []struct{ Command string } `json:"hooks"`
			} `json:"SessionStart"`
		} `json:"hooks"`
	}
	b, _ := os.ReadFile(filepath.Join(home, ".qwen", "settings.json"))
	if err := json.Unmarshal(b, &settings); err != nil || settings.UI["theme"] != "x" || len(settings.Hooks.SessionStart) != 1 ||
		len(settings.Hooks.SessionStart[0].Hooks) != 1 || !strings.Contains(settings.Hooks.SessionStart[0].Hooks[0].Command, hook) {
		t.Errorf("qwen settings after two installs: %s (%v)", b, err)
	}
	out, _ := runHerdr(t, env, "integration", "status")
	for _, want := range []string{"qwen: current (v1) (" + hook + ")", "opencode: current (v10) (" + plugin + ")"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("integration status lacks %q:\n%s", want, out)
		}
	}
	if out, code := runHerdr(t, env, "integration", "install", "droid"); code != 1 {
		t.Errorf("install droid: %d %q, want refused", code, out)
	}
}
