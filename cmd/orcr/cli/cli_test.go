package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, args := range [][]string{{"-V"}, {"--version"}} {
		got := h.run(t, args...)
		if got.code != 0 || got.stdout != "orcr 0.1.0\n" {
			t.Errorf("orcr %v: got exit %d stdout %q, want 0 %q", args, got.code, got.stdout, "orcr 0.1.0\n")
		}
	}
	for _, args := range [][]string{
		{}, {"--help"}, {"-h"}, {"agent"}, {"loop", "run"}, {"server"}, {"agent", "run", "--help"},
		{"--json", "api"},
	} {
		got := h.run(t, args...)
		if got.code != 0 {
			t.Errorf("orcr %v: got exit %d, want 0 (stderr %q)", args, got.code, got.stderr)
		}
		if !strings.Contains(got.stdout, "Usage: orcr") {
			t.Errorf("orcr %v: stdout has no usage: %q", args, got.stdout)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct {
		name string
		args []string
	}{
		{"unknown flag", []string{"agent", "ls", "--bogus"}},
		{"unknown command", []string{"frobnicate"}},
		{"missing required arg", []string{"agent", "wait"}},
		{"bad enum", []string{"agent", "run", "--name", "x", "--gc", "sometimes"}},
		{"non-numeric", []string{"server", "logs", "--tail", "many"}},
		{"negative tail", []string{"server", "logs", "--tail", "-1"}},
		{"json is not a short flag", []string{"-j", "api", "schema"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := h.run(t, tc.args...)
			if got.code != 1 {
				t.Errorf("exit: got %d, want 1", got.code)
			}
			if got.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", got.stdout)
			}
			if !strings.HasPrefix(got.stderr, "error: invalid_request: ") || !strings.Contains(got.stderr, `({"reason":"cli_parse"})`) {
				t.Errorf("stderr: got %q, want an invalid_request cli_parse line", got.stderr)
			}

			for _, pos := range []int{0, len(tc.args)} {
				args := append(append(append([]string(nil), tc.args[:pos]...), "--json"), tc.args[pos:]...)
				got := h.run(t, args...)
				if got.code != 1 {
					t.Errorf("%v: exit: got %d, want 1", args, got.code)
				}
				env := decodeEnvelope(t, got.stdout)
				if env.OK || env.Error == nil || env.Error.Code != wire.InvalidRequest || env.Error.Reason() != "cli_parse" {
					t.Errorf("%v: got envelope %s, want invalid_request cli_parse", args, got.stdout)
				}
				if got.stderr != "" {
					t.Errorf("%v: stderr: got %q, want nothing", args, got.stderr)
				}
			}
		})
	}
}

func TestJSONAnywhere(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	want := h.run(t, "--json", "api", "schema")
	if want.code != 0 {
		t.Fatalf("exit %d: %s", want.code, want.stderr)
	}
	for _, args := range [][]string{{"api", "--json", "schema"}, {"api", "schema", "--json"}} {
		got := h.run(t, args...)
		if got != want {
			t.Errorf("orcr %v: got %+v, want the same output as --json first", args, got)
		}
	}
}

func TestAPISchema(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// api schema never touches the home.
	h.vars["ORCR_HOME"] = filepath.Join(h.home, "never")

	got := h.run(t, "api", "schema")
	if got.code != 0 || got.stdout != string(api.SchemaJSON()) {
		t.Errorf("api schema: got exit %d and %d bytes, want 0 and the pretty schema", got.code, len(got.stdout))
	}

	got = h.run(t, "api", "schema", "--json")
	env := decodeEnvelope(t, got.stdout)
	var doc, want any
	if err := json.Unmarshal(env.Result, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(api.SchemaJSON(), &want); err != nil {
		t.Fatal(err)
	}
	if !env.OK || got.code != 0 {
		t.Errorf("api schema --json: got ok=%v exit %d, want ok and 0", env.OK, got.code)
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("api schema --json result (-want +got):\n%s", diff)
	}

	out := filepath.Join(h.home, "schema.json")
	got = h.run(t, "api", "schema", "--output", out)
	if got.code != 0 || got.stdout != "" || got.stderr != "wrote schema to "+out+"\n" {
		t.Errorf("api schema --output: got %+v", got)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != string(api.SchemaJSON()) {
		t.Errorf("api schema --output: file content differs (err %v)", err)
	}

	got = h.run(t, "--json", "api", "schema", "--output", out)
	if want := `{"ok":true,"result":{"written":"` + out + `"}}` + "\n"; got.stdout != want || got.code != 0 {
		t.Errorf("api schema --output --json: got %q exit %d, want %q", got.stdout, got.code, want)
	}

	got = h.run(t, "--json", "api", "schema", "--output", filepath.Join(h.home, "no", "such", "dir", "s.json"))
	env = decodeEnvelope(t, got.stdout)
	if got.code != 2 || env.Error == nil || env.Error.Code != wire.EnvironmentError {
		t.Errorf("api schema --output <unwritable>: got %q exit %d, want environment_error exit 2", got.stdout, got.code)
	}
	if _, err := os.Stat(filepath.Join(h.home, "never")); err == nil {
		t.Errorf("api schema created the home")
	}
}

// orcr top refuses what it cannot do before it touches the server: --json (it is a
// terminal UI), both ownership flags, and a stdout that is no terminal.
func TestTopRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, c := range []struct {
		args       []string
		code       int
		errCode    string
		reasonWant string
	}{
		{[]string{"--json", "top"}, 1, "invalid_request", "json_not_supported"},
		{[]string{"--json", "top", "--managed", "--unmanaged"}, 1, "invalid_request", "conflicting_flags"},
	} {
		got := h.run(t, c.args...)
		env := decodeEnvelope(t, got.stdout)
		if got.code != c.code || env.Error == nil || string(env.Error.Code) != c.errCode || env.Error.Reason() != c.reasonWant {
			t.Errorf("orcr %v: got %q exit %d, want %s %s exit %d", c.args, got.stdout, got.code, c.errCode, c.reasonWant, c.code)
		}
	}
	got := h.run(t, "top")
	if got.code != 2 || !strings.Contains(got.stderr, "needs a terminal") {
		t.Errorf("orcr top without a terminal: exit %d stderr %q, want environment_error exit 2", got.code, got.stderr)
	}
}

// orcr mcp refuses --json (stdout is the MCP transport) and a non-loopback --http
// address, before it serves anything.
func TestMCPRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	got := h.run(t, "--json", "mcp")
	if env := decodeEnvelope(t, got.stdout); got.code != 1 || env.Error == nil || env.Error.Reason() != "json_not_supported" {
		t.Errorf("orcr --json mcp: got %q exit %d, want invalid_request json_not_supported exit 1", got.stdout, got.code)
	}
	got = h.run(t, "mcp", "--http", "0.0.0.0:0")
	if got.code != 1 || got.stdout != "" || !strings.Contains(got.stderr, "invalid_request") || !strings.Contains(got.stderr, "not_loopback") {
		t.Errorf("orcr mcp --http 0.0.0.0:0: got stdout %q stderr %q exit %d, want invalid_request not_loopback on stderr, exit 1",
			got.stdout, got.stderr, got.code)
	}
}
