package launcher

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		file string
		note string
		hold time.Duration
		argv []string
		err  string
	}{
		{args: []string{"--status-file", "/d/f", "--", "claude", "--x"}, file: "/d/f", hold: HoldMax, argv: []string{"claude", "--x"}},
		{args: []string{"--status-file=/d/f", "-hold", "500ms", "claude"}, file: "/d/f", hold: 500 * time.Millisecond, argv: []string{"claude"}},
		{args: []string{"-status-file", "/d/f", "--hold=0s", "--", "--weird-argv0"}, file: "/d/f", argv: []string{"--weird-argv0"}},
		{args: []string{"--status-file", "/d/f"}, err: "usage"},
		{args: []string{"--", "claude"}, err: "usage"},
		{args: []string{"--status-file"}, err: "needs a value"},
		{args: []string{"--status-file", "/d/f", "--hold", "soon", "--", "x"}, err: "not a duration"},
		{args: []string{"--status-file", "/d/f", "--hold", "-1s", "--", "x"}, err: "not a duration"},
		{args: []string{"--status", "/d/f", "--", "x"}, err: "unknown flag"},
		{args: []string{"--status-file", "/d/f", "--exit-note", "/n/u", "--", "x"}, file: "/d/f", note: "/n/u", hold: HoldMax, argv: []string{"x"}},
		{args: []string{"--status-file", "/d/f", "--exit-note"}, err: "needs a value"},
		{args: nil, err: "usage"},
	} {
		file, note, hold, argv, err := parseArgs(c.args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseArgs(%q) error %v, want one saying %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || file != c.file || note != c.note || hold != c.hold || !slices.Equal(argv, c.argv) {
			t.Errorf("parseArgs(%q) = %q, %q, %s, %q, %v; want %q, %q, %s, %q", c.args, file, note, hold, argv, err, c.file, c.note, c.hold, c.argv)
		}
	}
}

// The status file is the JSON package paneexec reads: {"code"} or {"signal"}, and "at".
func TestStatusFileJSON(t *testing.T) {
	at := time.UnixMilli(1_765_000_000_123)
	for _, c := range []struct {
		e    exit
		want string
		code int
	}{
		{exit{code: 0, at: at}, `{"code":0,"at":1765000000123}`, 0},
		{exit{code: 3, at: at}, `{"code":3,"at":1765000000123}`, 3},
		{exit{signal: syscall.SIGSEGV, at: at}, `{"signal":"SIGSEGV","at":1765000000123}`, 128 + 11},
		{exit{signal: syscall.Signal(40), at: at}, `{"signal":"signal 40","at":1765000000123}`, 128 + 40},
	} {
		got := c.e.json()
		if string(got) != c.want+"\n" {
			t.Errorf("json of %+v = %q, want %q", c.e, got, c.want+"\n")
		}
		if !json.Valid(got) {
			t.Errorf("%q is not JSON", got)
		}
		if code := c.e.exitCode(); code != c.code {
			t.Errorf("exitCode of %+v = %d, want %d", c.e, code, c.code)
		}
	}
}

// SignalName names every signal as golang.org/x/sys/unix does.
func TestSignalName(t *testing.T) {
	for s := syscall.Signal(1); s < 32; s++ {
		want := unix.SignalName(s)
		if want == "" {
			continue // a number with no signal on this platform
		}
		if got := SignalName(s); got != want {
			t.Errorf("SignalName(%d) = %q, want %q", s, got, want)
		}
	}
}

func TestLookPath(t *testing.T) {
	dir, dir2 := t.TempDir(), t.TempDir()
	t.Setenv("PATH", "/nonexistent:"+dir+":"+dir2+":/bin:/usr/bin")
	// A file that is not executable is passed over for the next folder's.
	if err := os.WriteFile(dir+"/prov", []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir2+"/prov", []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := lookPath("prov"); err != nil || p != dir2+"/prov" {
		t.Errorf("lookPath(prov) = %q, %v; want the executable one, %s/prov", p, err, dir2)
	}
	if p, err := lookPath("sh"); err != nil || !strings.HasSuffix(p, "/sh") {
		t.Errorf("lookPath(sh) = %q, %v; want a shell from $PATH", p, err)
	}
	t.Setenv("PATH", "/nonexistent::"+dir2)
	if p, err := lookPath("prov"); err != nil || p != dir2+"/prov" {
		t.Errorf("lookPath(prov) past an empty entry = %q, %v", p, err)
	}
	if p, err := lookPath("./here/x"); err != nil || p != "./here/x" {
		t.Errorf("lookPath(./here/x) = %q, %v; want it as it is", p, err)
	}
	if _, err := lookPath("no-such-provider-0"); err == nil || !strings.Contains(err.Error(), `"no-such-provider-0": executable file not found in $PATH`) {
		t.Errorf("lookPath of a missing command: %v", err)
	}
}

func TestItoa(t *testing.T) {
	for _, n := range []int64{0, 7, -7, 10, 1_765_000_000_123, -9_223_372_036_854_775_808, 9_223_372_036_854_775_807} {
		if got, want := itoa(n), strconv.FormatInt(n, 10); got != want {
			t.Errorf("itoa(%d) = %q, want %q", n, got, want)
		}
	}
}
