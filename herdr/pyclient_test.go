package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrtest"
)

// envPyClient names a Python with PyPI's herdr-client installed (.ci/run makes one).
const envPyClient = "ORCR_TEST_HERDR_CLIENT_PYTHON"

// TestThirdPartyClientDrivesStandin drives the stand-in through herdr-client, a
// Python client of herdr's socket API written by someone else (docs/herdr.md §12.2),
// for every method orcr uses: each answer must be one the client accepts, with the
// result type the method has, and a missing pane must come back as herdr's typed
// error. A shape the client rejects is a stand-in defect.
func TestThirdPartyClientDrivesStandin(t *testing.T) {
	py := os.Getenv(envPyClient)
	if py == "" {
		if os.Getenv("CI") != "" {
			t.Fatal(envPyClient + " is not set: .ci/run installs herdr-client into a venv and sets it")
		}
		t.Skip("no herdr-client: set " + envPyClient + " to a Python 3.13 with PyPI's herdr-client installed")
	}
	var log wireLog
	f := herdrtest.Start(t, log.options(), "orcr")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "testdata/herdr_client_check.py", f.Sessions["orcr"].SocketPath())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("herdr_client_check.py: %v\n%s\n%s", err, out, stderr.String())
	}
	want := []struct{ method, typ, code string }{
		{"ping", "pong", ""}, {"workspace.create", "workspace_created", ""}, {"workspace.list", "workspace_list", ""},
		{"layout.apply", "layout_apply", ""}, {"pane.get", "pane_info", ""}, {"pane.list", "pane_list", ""},
		{"pane.send_text", "ok", ""}, {"pane.send_keys", "ok", ""}, {"pane.read", "pane_read", ""},
		{"pane.report_agent", "ok", ""}, {"agent.list", "agent_list", ""},
		{"notification.show", "notification_show", ""}, {"pane.move", "pane_move", ""},
		{"pane.close", "ok", ""}, {"pane.get", "", "pane_not_found"},
	}
	type line struct {
		Method      string `json:"method"`
		Type        string `json:"type"`
		Error       string `json:"error"`
		ClientError string `json:"client_error"`
		Screen      string `json:"screen"`
	}
	var got []line
	screen := ""
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var x line
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if x.ClientError != "" {
			t.Errorf("herdr-client rejected the stand-in's answer to %s: %s", x.Method, x.ClientError)
		}
		switch {
		case x.Method == "":
			screen = x.Screen
		case x.Method == "pane.read" && len(got) > 0 && got[len(got)-1].Method == "pane.read":
		default:
			got = append(got, x)
		}
	}
	if !strings.Contains(screen, "ready-py") || strings.Count(screen, "hello-py") < 2 {
		t.Errorf("the pane's screen %q lacks the banner or the echoed line typed through the client", screen)
	}
	if len(got) != len(want) {
		t.Fatalf("calls %+v, want %d", got, len(want))
	}
	for i, w := range want {
		if got[i].Method != w.method || got[i].Type != w.typ || got[i].Error != w.code {
			t.Errorf("call %d: %+v, want %s type %q error %q", i, got[i], w.method, w.typ, w.code)
		}
	}
	// What the client sent must be herdr's protocol too.
	reqSchema, _, _ := schemas(t, 20)
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, raw := range log.requests {
		if err := validate(t, reqSchema, raw); err != nil {
			t.Errorf("herdr-client sent %s, which the schema refuses: %v", raw, err)
		}
	}
}
