package herdr

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestParseSessionList(t *testing.T) {
	out := `{"sessions":[{"name":"default","default":true,"running":true,"socket_path":"/c/herdr.sock","session_dir":"/c"},
 {"name":"orcr","default":false,"running":false,"socket_path":"/c/sessions/orcr/herdr.sock","session_dir":"/c/sessions/orcr","extra":1}]}` + "\n"
	rows, err := ParseSessionList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []SessionInfo{
		{Name: "default", Default: true, Running: true, SocketPath: "/c/herdr.sock", SessionDir: "/c"},
		{Name: "orcr", SocketPath: "/c/sessions/orcr/herdr.sock", SessionDir: "/c/sessions/orcr"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("ParseSessionList: got %+v, want %+v", rows, want)
	}
	for _, bad := range []string{"", "{}", `{"sessions":[{"name":""}]}`, "nope"} {
		if _, err := ParseSessionList([]byte(bad)); err == nil {
			t.Errorf("ParseSessionList(%q): no error", bad)
		}
	}
}

func FuzzParseSessionList(f *testing.F) {
	f.Add([]byte(`{"sessions":[{"name":"default","default":true,"running":true,"socket_path":"/c/herdr.sock","session_dir":"/c"}]}`))
	f.Add([]byte(`{"sessions":null}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, err := ParseSessionList(in)
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Name == "" || r.SocketPath == "" {
				t.Fatalf("accepted a row without name/socket: %+v", r)
			}
		}
	})
}

const integrationSample = `pi: not installed (/home/u/.pi/agent/extensions/herdr-agent-state.ts)
claude: current (v3) (/home/u/.claude/hooks/herdr-agent-state.sh)
codex: outdated (v1 < v2) (/home/u/.codex/herdr-agent-state.sh)
antigravity-cli: current (legacy) (/home/u/.gemini/antigravity/hooks.json)
grok: needs repair (v1) (/home/u/.grok/hooks/herdr-agent-state.sh)
`

func TestParseIntegrationStatus(t *testing.T) {
	got, err := ParseIntegrationStatus([]byte(integrationSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []IntegrationState{
		{Target: "pi", State: "not_installed", Path: "/home/u/.pi/agent/extensions/herdr-agent-state.ts"},
		{Target: "claude", State: "current", Version: "v3", Path: "/home/u/.claude/hooks/herdr-agent-state.sh", Installed: true},
		{Target: "codex", State: "outdated", Version: "v1", Latest: "v2", Path: "/home/u/.codex/herdr-agent-state.sh", Installed: true},
		{Target: "antigravity-cli", State: "current", Version: "legacy", Path: "/home/u/.gemini/antigravity/hooks.json", Installed: true},
		// herdr 0.8.2 printed this for a current grok hook without its hooks/herdr.json
		{Target: "grok", State: "needs_repair", Version: "v1", Path: "/home/u/.grok/hooks/herdr-agent-state.sh"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseIntegrationStatus:\n got %+v\nwant %+v", got, want)
	}
	if _, err := ParseIntegrationStatus([]byte("claude installed\n")); err == nil {
		t.Error("ParseIntegrationStatus(garbage): no error")
	}
}

func FuzzParseIntegrationStatus(f *testing.F) {
	f.Add([]byte(integrationSample))
	f.Add([]byte("x: outdated (legacy < v2) (/p (q))\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		st, err := ParseIntegrationStatus(in)
		if err != nil {
			return
		}
		for _, s := range st {
			if s.Target == "" || (s.State != "current" && s.State != "outdated" && s.State != "needs_repair" && s.State != "not_installed") {
				t.Fatalf("bad row %+v", s)
			}
			if s.Installed != (s.State == "current" || s.State == "outdated") {
				t.Fatalf("installed flag wrong: %+v", s)
			}
		}
	})
}

func TestFindBinary(t *testing.T) {
	dir := shortDir(t)
	exe := filepath.Join(dir, "herdr")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("x"), 0o644)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	if got, err := FindBinary("", env(map[string]string{"PATH": "/nonexistent:" + dir})); err != nil || got != exe {
		t.Errorf("PATH: got %q %v, want %q", got, err, exe)
	}
	if got, err := FindBinary(exe, env(map[string]string{"ORCR_HERDR_BIN": plain})); err != nil || got != exe {
		t.Errorf("config wins: got %q %v", got, err)
	}
	if _, err := FindBinary("", env(map[string]string{"ORCR_HERDR_BIN": plain, "PATH": dir})); !wire.Is(err, wire.EnvironmentError, wire.CauseHerdrMissing) {
		t.Errorf("non-executable env: got %v, want herdr_missing", err)
	}
	// Executable bits on a file the kernel cannot run (text without #!, like a
	// /etc/hostname mode 0755) are no program: exec would fail with ENOEXEC.
	text := filepath.Join(dir, "text")
	os.WriteFile(text, []byte("localhost\n"), 0o755)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o755)
	for _, bin := range []string{text, empty} {
		if _, err := FindBinary(bin, env(nil)); !wire.Is(err, wire.EnvironmentError, wire.CauseHerdrMissing) || !strings.Contains(err.Error(), "not a program") {
			t.Errorf("FindBinary(%s): got %v, want herdr_missing saying it is not a program", bin, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := FindBinary(self, env(nil)); err != nil || got != self {
		t.Errorf("FindBinary(an ELF program): got %q %v", got, err)
	}
	_, err = FindBinary("", env(map[string]string{"PATH": "/nonexistent"}))
	if !wire.Is(err, wire.EnvironmentError, wire.CauseHerdrMissing) || !strings.Contains(err.Error(), "install herdr") {
		t.Errorf("missing: got %v, want herdr_missing with install pointer", err)
	}
}

func TestAttachCommand(t *testing.T) {
	p, fb := AttachCommand("/bin/herdr", "orcr", "w1:p2", "term_9")
	if strings.Join(p, " ") != "/bin/herdr --session orcr agent attach w1:p2" ||
		strings.Join(fb, " ") != "/bin/herdr --session orcr terminal attach term_9" {
		t.Errorf("AttachCommand: got %v / %v", p, fb)
	}
	p, fb = AttachCommand("/bin/herdr", "orcr", "", "term_9")
	if strings.Join(p, " ") != "/bin/herdr --session orcr terminal attach term_9" || fb != nil {
		t.Errorf("AttachCommand without pane: got %v / %v", p, fb)
	}
}

func TestDirSessions(t *testing.T) {
	dir := shortDir(t)
	os.MkdirAll(filepath.Join(dir, "sessions", "zeta"), 0o700)
	os.MkdirAll(filepath.Join(dir, "sessions", "alpha"), 0o700)
	os.MkdirAll(filepath.Join(dir, "sessions", "bad name"), 0o700)
	rows, err := DirSessions(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
		if r.Running {
			t.Errorf("%s: running without a socket", r.Name)
		}
	}
	if strings.Join(names, ",") != "default,alpha,zeta" {
		t.Errorf("DirSessions: got %v", names)
	}
	if rows[1].SocketPath != filepath.Join(dir, "sessions", "alpha", "herdr.sock") {
		t.Errorf("socket path: got %s", rows[1].SocketPath)
	}
}
