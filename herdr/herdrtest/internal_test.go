package herdrtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEncodeID(t *testing.T) {
	for n, want := range map[uint64]string{1: "1", 9: "9", 10: "A", 31: "Z", 32: "0", 33: "11", 64: "10", 65: "21"} {
		if got := encodeID(n); got != want {
			t.Errorf("encodeID(%d) = %q, want %q", n, got, want)
		}
	}
}

func screenOf(t *testing.T, input string) []string {
	t.Helper()
	vt := newTerminal(5, 10, nil)
	vt.Write([]byte(input))
	var out []string
	for _, r := range vt.snapshot().screen {
		out = append(out, r.String())
	}
	return out
}

func TestTerminalBasics(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"text crlf", "ab\r\ncd", []string{"ab", "cd", "", "", ""}},
		{"backspace overwrite", "abc\bX", []string{"abX", "", "", "", ""}},
		{"cursor position", "\x1b[3;4Hx\x1b[1;1Hy", []string{"y", "", "   x", "", ""}},
		{"cursor moves", "\x1b[2B\x1b[3Cz\x1b[A\x1b[2Dw", []string{"", "  w", "   z", "", ""}},
		{"erase line", "hello\x1b[3D\x1b[K", []string{"he", "", "", "", ""}},
		{"erase display", "a\r\nb\r\nc\x1b[2J", []string{"", "", "", "", ""}},
		{"erase below", "aaa\r\nbbb\r\nccc\x1b[2;2H\x1b[J", []string{"aaa", "b", "", "", ""}},
		{"sgr ignored", "\x1b[1;31mred\x1b[0m", []string{"red", "", "", "", ""}},
		{"wrap", "0123456789ab", []string{"0123456789", "ab", "", "", ""}},
		{"scroll", "1\r\n2\r\n3\r\n4\r\n5\r\n6", []string{"2", "3", "4", "5", "6"}},
		{"osc title", "\x1b]0;title\x07t", []string{"t", "", "", "", ""}},
		{"alt screen", "main\x1b[?1049hALT\x1b[?1049l", []string{"main", "", "", "", ""}},
		{"insert delete chars", "abcd\x1b[1;2H\x1b[P\x1b[1;1H\x1b[@", []string{" acd", "", "", "", ""}},
		{"utf8", "h\xc3\xa9llo", []string{"héllo", "", "", "", ""}},
		{"tab", "a\tb", []string{"a       b", "", "", "", ""}},
		{"scroll region", "top\x1b[2;4r\x1b[4;1H1\r\n2\r\n3\r\n4", []string{"top", "2", "3", "4", ""}},
		{"bare lf", "a\nb", []string{"a", " b", "", "", ""}},
		{"reverse index", "\x1bMx\x1b[5;1Hbottom", []string{"x", "", "", "", "bottom"}},
	}
	for _, c := range cases {
		got := screenOf(t, c.in)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestTerminalScrollbackAndReads(t *testing.T) {
	vt := newTerminal(3, 5, nil)
	vt.Write([]byte("l1\r\nl2\r\nl3\r\nl4\r\nabcdefg"))
	snap := vt.snapshot()
	if got := joinRows(snap.screen); got != "l4\nabcde\nfg" {
		t.Fatalf("screen %q", got)
	}
	n := uint32(10)
	text, trunc := readPane(snap, "recent", &n)
	if text != "l1\nl2\nl3\nl4\nabcde\nfg\n" || trunc {
		t.Fatalf("recent %q %v", text, trunc)
	}
	text, _ = readPane(snap, "recent_unwrapped", &n)
	if text != "l1\nl2\nl3\nl4\nabcdefg" {
		t.Fatalf("recent_unwrapped %q", text)
	}
	two := uint32(2)
	if text, trunc = readPane(snap, "visible", &two); text != "abcde\nfg\n" || !trunc {
		t.Fatalf("visible lines=2 %q %v", text, trunc)
	}
	var replies [][]byte
	q := newTerminal(3, 5, func(b []byte) { replies = append(replies, b) })
	q.Write([]byte("ab\x1b[6n"))
	if len(replies) != 1 || string(replies[0]) != "\x1b[1;3R" {
		t.Fatalf("DSR reply %q", replies)
	}
	q.Write([]byte("\x1b[?2004h\x1b[?1h"))
	if b, a := q.modes(); !b || !a {
		t.Fatal("modes not tracked")
	}
}

func TestEncodeKeys(t *testing.T) {
	for name, want := range map[string]string{
		"Enter": "\r", "return": "\r", "Escape": "\x1b", "esc": "\x1b", "Tab": "\t", "shift+tab": "\x1b[Z",
		"Backspace": "\x7f", "bs": "\x7f", "C-c": "\x03", "c-c": "\x03", "ctrl+c": "\x03", "Control+D": "\x04",
		"Up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D", "space": " ", "f1": "\x1bOP",
		"a": "a", "A": "A", "shift+a": "A", "alt+x": "\x1bx", "minus": "-", "double_quote": "\"", "ctrl+left": "\x1b[1;5D",
	} {
		got, err := encodeKey(name, false)
		if err != nil || string(got) != want {
			t.Errorf("encodeKey(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	if got, _ := encodeKey("up", true); string(got) != "\x1bOA" {
		t.Errorf("app-cursor up = %q", got)
	}
	for _, bad := range []string{"home", "end", "delete", "pageup", "prefix+x", "", "hyper+a", "enterr"} {
		if _, err := encodeKey(bad, false); err == nil {
			t.Errorf("encodeKey(%q) accepted", bad)
		} else if err.Error() != "unsupported key "+bad {
			t.Errorf("message %q", err)
		}
	}
	if _, err := encodeKeys([]string{"a", "home"}, false); err == nil {
		t.Error("encodeKeys accepted a bad key")
	}
}

// FuzzRequest feeds arbitrary request lines to the dispatcher: it must never panic,
// and every answer must be a schema-valid success or error response.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		`{"id":"a","method":"ping","params":{}}`,
		`{"id":"a","method":"pane.get","params":{"pane_id":"w1:p1"}}`,
		`{"id":"a","method":"pane.read","params":{"pane_id":"w1:p1","source":"visible","lines":3}}`,
		`{"id":"a","method":"pane.move","params":{"pane_id":"w1:p1","destination":{"type":"new_tab"}}}`,
		`{"id":"a","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a","state":"idle","seq":1}}`,
		`{"id":"a","method":"agent.list","params":{}}`,
		`{"id":"a","method":"session.snapshot","params":{}}`,
		`{"id":"a","method":"notification.show","params":{"title":"t","sound":"done"}}`,
		`{"id":7,"method":"ping","params":{}}`,
		`{"id":"a","method":"nope","params":null}`,
		`{"id":"a","method":"pane.send_keys","params":{"pane_id":"x","keys":["C-c"]}}`,
		`[1,2]`, `null`, `"x"`, ``, "\x00\xff",
	} {
		f.Add([]byte(seed))
	}
	dir, err := os.MkdirTemp("", "hf")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	s, err := NewSession(Options{ConfigDir: filepath.Join(dir, "herdr"), Shell: "/bin/sh"}, "default")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	spawning := map[string]bool{"workspace.create": true, "tab.create": true, "layout.apply": true, "server.stop": true}
	f.Fuzz(func(t *testing.T, line []byte) {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		if env, err := parseEnvelope(line); err == nil && spawning[env.Method] {
			return // keep the fuzzer from starting processes
		}
		_, resp, _ := s.dispatch(line)
		if err := ValidateResponse(resp); err != nil {
			t.Fatalf("input %q: %v", line, err)
		}
		var m map[string]any
		if err := json.Unmarshal(resp, &m); err != nil {
			t.Fatal(err)
		}
		if _, isErr := m["error"]; !isErr && m["result"] == nil {
			t.Fatalf("neither result nor error: %s", resp)
		}
	})
}
