package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/tests/poll"
)

func TestLoadProfile(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want profile
		err  bool
	}{
		{nil, profile{protocol: 20, version: "0.8.2"}, false},
		{map[string]string{"HERDR_STANDIN_PROTOCOL": "22"}, profile{protocol: 22, version: "0.9.0", completionSeq: true}, false},
		{map[string]string{"HERDR_STANDIN_PROTOCOL": "16"}, profile{protocol: 16, version: "0.7.2"}, false},
		{map[string]string{"HERDR_STANDIN_PROTOCOL": "22", "HERDR_STANDIN_COMPLETION_SEQ": "0"}, profile{protocol: 22, version: "0.9.0"}, false},
		{map[string]string{"HERDR_STANDIN_COMPLETION_SEQ": "1", "HERDR_STANDIN_VERSION": "x"}, profile{protocol: 20, version: "x", completionSeq: true}, false},
		{map[string]string{"HERDR_STANDIN_PROTOCOL": "21"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_PROTOCOL": "twenty"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_COMPLETION_SEQ": "yes"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_TOASTS": "1", "HERDR_STANDIN_TOAST_LOG": "/t"}, profile{protocol: 20, version: "0.8.2", toasts: true, toastLog: "/t"}, false},
		{map[string]string{"HERDR_STANDIN_TOASTS": "on"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_DETECT": "0"}, profile{protocol: 20, version: "0.8.2", noDetection: true}, false},
		{map[string]string{"HERDR_STANDIN_DETECT": "1"}, profile{protocol: 20, version: "0.8.2"}, false},
		{map[string]string{"HERDR_STANDIN_DETECT": "no"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_SIZE": "200x50"}, profile{protocol: 20, version: "0.8.2", size: herdrtest.Size{Cols: 200, Rows: 50}}, false},
		{map[string]string{"HERDR_STANDIN_SIZE": "64x40"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_SIZE": "120"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_LATE": "layout.apply=3s,pane.list=250ms"}, profile{protocol: 20, version: "0.8.2",
			late: map[string]time.Duration{"layout.apply": 3 * time.Second, "pane.list": 250 * time.Millisecond}}, false},
		{map[string]string{"HERDR_STANDIN_LATE": "layout.apply"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_LATE": "=3s"}, profile{}, true},
		{map[string]string{"HERDR_STANDIN_LATE": "layout.apply=soon"}, profile{}, true},
	}
	for _, tt := range tests {
		got, err := loadProfile(func(k string) string { return tt.env[k] })
		if (err != nil) != tt.err || (!tt.err && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("loadProfile(%v): got %+v, %v; want %+v (error %v)", tt.env, got, err, tt.want, tt.err)
		}
	}
}

func TestAPISchemaAndVersionProtocol22(t *testing.T) {
	env := []string{"HERDR_STANDIN_PROTOCOL=22"}
	out, code := runHerdr(t, env, "api", "schema", "--json")
	if code != 0 || strings.TrimSpace(out) != strings.TrimSpace(string(herdrschema.Protocol22)) {
		t.Fatalf("api schema at 22: code %d, %d bytes", code, len(out))
	}
	if out, code = runHerdr(t, env, "--version"); code != 0 || out != "herdr 0.9.0\n" {
		t.Fatalf("version at 22: %q", out)
	}
	if out, code = runHerdr(t, []string{"HERDR_STANDIN_PROTOCOL=99"}, "--version"); code != 2 || !strings.Contains(out, "HERDR_STANDIN_PROTOCOL") {
		t.Fatalf("unknown protocol: exit %d %q, want 2 and the variable named", code, out)
	}
}

// TestServerPlaysProtocol22: a server started with the knob pings protocol 22 and its
// agent rows carry completion_seq; every answer validates against the 22 fixture.
func TestServerPlaysProtocol22(t *testing.T) {
	xdg, err := os.MkdirTemp("", "h")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(xdg)
	env := []string{"XDG_CONFIG_HOME=" + xdg, "HERDR_SESSION=", "HERDR_SOCKET_PATH=", "HERDR_STANDIN_PROTOCOL=22"}
	srv := herdrCmd(env, "server")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	sock := filepath.Join(xdg, "herdr", "herdr.sock")
	poll.Eventually(t, 10*time.Second, "the server to come up", func() bool { return herdrtest.SocketAnswers(sock) })
	call := func(line string) map[string]any {
		t.Helper()
		m, err := rawCallAt(22, sock, line)
		if err != nil || m["error"] != nil {
			t.Fatalf("%s: %v %v", line, m, err)
		}
		return m["result"].(map[string]any)
	}
	if pong := call(`{"id":"p","method":"ping","params":{}}`); pong["protocol"] != 22.0 || pong["version"] != "0.9.0" {
		t.Fatalf("pong: %v", pong)
	}
	ws := call(`{"id":"w","method":"workspace.create","params":{"label":"x"}}`)["workspace"].(map[string]any)["workspace_id"].(string)
	pane := call(fmt.Sprintf(`{"id":"l","method":"layout.apply","params":{"workspace_id":%q,"root":{"type":"pane","command":["/bin/cat"]}}}`, ws))["layout"].(map[string]any)["root"].(map[string]any)["pane_id"].(string)
	for i, state := range []string{"working", "idle"} {
		call(fmt.Sprintf(`{"id":"r","method":"pane.report_agent","params":{"pane_id":%q,"source":"orcr:mock","agent":"mock","state":%q,"seq":%d}}`, pane, state, i+1))
	}
	agents := call(`{"id":"a","method":"agent.list","params":{}}`)["agents"].([]any)
	if len(agents) != 1 || agents[0].(map[string]any)["completion_seq"] != 1.0 {
		b, _ := json.Marshal(agents)
		t.Fatalf("agent.list after working → idle: %s, want one row with completion_seq 1", b)
	}
	if out, code := runHerdr(t, env, "session", "stop", "default"); code != 0 {
		t.Fatalf("session stop: %d %s", code, out)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit")
	}
}
