package herdrtest_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/tests/poll"
)

var reqSeq atomic.Int64

// start runs a fixture whose every response is validated against the schema.
func start(t *testing.T, sessions ...string) *herdrtest.Fixture {
	t.Helper()
	return startWith(t, herdrtest.Options{}, sessions...)
}

// startWith is start with options (Shell and OnResponse are set here).
func startWith(t *testing.T, opts herdrtest.Options, sessions ...string) *herdrtest.Fixture {
	t.Helper()
	opts.Shell = "/bin/sh"
	opts.OnResponse = func(method string, raw []byte) {
		if err := validateResponse(raw); err != nil {
			t.Errorf("method %q: %v", method, err)
		}
	}
	return herdrtest.Start(t, opts, sessions...)
}

// roundTrip sends one raw line and returns the answer line (without newline) or an
// error when the server closed without answering.
func roundTrip(sock string, line []byte) ([]byte, error) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(line); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	resp, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("no answer: %w (got %q)", err, resp)
	}
	return resp[:len(resp)-1], nil
}

type response struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rpc sends a schema-valid request and decodes the answer.
func rpc(t *testing.T, sock, method string, params any) response {
	t.Helper()
	id := fmt.Sprintf("test:%d", reqSeq.Add(1))
	line, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	if err := validateRequest(line); err != nil {
		t.Fatalf("test sent an invalid request: %v", err)
	}
	raw, err := roundTrip(sock, append(line, '\n'))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if err := validateResponse(raw); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Error == nil && r.ID != id {
		t.Fatalf("%s: id %q echoed as %q", method, id, r.ID)
	}
	return r
}

// call expects success and decodes result into a generic map.
func call(t *testing.T, sock, method string, params any) map[string]any {
	t.Helper()
	r := rpc(t, sock, method, params)
	if r.Error != nil {
		t.Fatalf("%s(%v): error %s: %s", method, params, r.Error.Code, r.Error.Message)
	}
	var m map[string]any
	if err := json.Unmarshal(r.Result, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// callErr expects an error and returns its code.
func callErr(t *testing.T, sock, method string, params any) string {
	t.Helper()
	r := rpc(t, sock, method, params)
	if r.Error == nil {
		t.Fatalf("%s(%v): expected an error, got %s", method, params, r.Result)
	}
	return r.Error.Code
}

// obj walks a decoded JSON value by keys.
func obj(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any, path ...string) string {
	s, _ := obj(v, path...).(string)
	return s
}

func readVisible(t *testing.T, sock, pane string) string {
	t.Helper()
	return str(call(t, sock, "pane.read", map[string]any{"pane_id": pane, "source": "visible"}), "read", "text")
}

func waitScreen(t *testing.T, sock, pane, want string) string {
	t.Helper()
	var text string
	poll.Eventually(t, 10*time.Second, fmt.Sprintf("%q on pane %s", want, pane), func() bool {
		text = readVisible(t, sock, pane)
		return strings.Contains(text, want)
	}, func() string { return fmt.Sprintf("%q", text) })
	return text
}

// spawn creates a workspace labelled label (closing its root shell is left to the
// caller) and runs argv in a new tab via layout.apply; it returns workspace and pane ids.
func spawn(t *testing.T, sock, wsID string, argv []string, env map[string]string, label string) string {
	t.Helper()
	node := map[string]any{"type": "pane", "command": argv, "label": label}
	if env != nil {
		node["env"] = env
	}
	res := call(t, sock, "layout.apply", map[string]any{"workspace_id": wsID, "tab_label": label, "root": node})
	if got := str(res, "type"); got != "layout_apply" {
		t.Fatalf("layout.apply type %q", got)
	}
	return str(res, "layout", "root", "pane_id")
}

func createWorkspace(t *testing.T, sock, label string) (wsID, rootPane string) {
	t.Helper()
	res := call(t, sock, "workspace.create", map[string]any{"label": label, "cwd": "/"})
	return str(res, "workspace", "workspace_id"), str(res, "root_pane", "pane_id")
}
