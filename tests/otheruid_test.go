package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
)

// otherUIDs are the local users the second-uid test runs its client as: nobody, which
// every Linux has, and any of the others this machine has.
var otherUIDs = []string{"nobody", "cloudsdk"}

// probeOutcome is one line of tests/otheruid.
type probeOutcome struct {
	Err    string `json:"err"`
	Reply  string `json:"reply"`
	Status int    `json:"status"`
	Frame  string `json:"frame"`
	Bytes  int    `json:"bytes"`
}

// otherUIDClient builds tests/otheruid, and links the orcr binary, into a directory the
// other users can reach (0755: the test's homes stay 0700), and returns it.
func otherUIDClient(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ouid")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "otheruid"), "./otheruid")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tests/otheruid: %v\n%s", err, out)
	}
	if err := os.Link(bins.orcr, filepath.Join(dir, "orcr")); err != nil {
		b, err := os.ReadFile(bins.orcr)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "orcr"), b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// asUser runs name with args as the local user u, with a minimal environment plus env,
// and returns its stdout and exit code.
func asUser(t *testing.T, u *user.User, name string, env []string, args ...string) (string, int) {
	t.Helper()
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/"
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v as %s: %v", name, args, u.Username, err)
	}
	if stderr.Len() > 0 {
		t.Logf("%s %v as %s, stderr: %s", filepath.Base(name), args, u.Username, stderr.String())
	}
	return stdout.String(), code
}

// probe runs tests/otheruid as u and decodes its outcome.
func probe(t *testing.T, u *user.User, dir string, args ...string) probeOutcome {
	t.Helper()
	out, code := asUser(t, u, filepath.Join(dir, "otheruid"), nil, args...)
	var o probeOutcome
	if err := json.Unmarshal([]byte(out), &o); err != nil || code != 0 {
		t.Fatalf("otheruid %v as %s: exit %d, stdout %q: %v", args, u.Username, code, out, err)
	}
	return o
}

// serveMCPHTTP starts `orcr mcp --http 127.0.0.1:0` for h (as the user) and returns its
// endpoint URL; the process is stopped at cleanup.
func serveMCPHTTP(t *testing.T, h *home) string {
	t.Helper()
	cmd := exec.Command(bins.orcr, "mcp", "--http", "127.0.0.1:0")
	cmd.Env = h.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	addr := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if m := addr.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return m[1]
		}
	}
	t.Fatalf("orcr mcp --http printed no address (%v)", lines.Err())
	return ""
}

// initializeBody is MCP's initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"orcr-e2e","version":"0"}}}`

// mcpInitialize posts MCP's initialize to endpoint as the test's own user, with token
// as the bearer credential, and returns the HTTP status.
func mcpInitialize(t *testing.T, endpoint, token string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Every listening face refuses a local user who is not the server's: the Unix socket
// (behind the 0700 home, by its own 0600 mode where its path is reachable, and by the
// peer's uid where that mode was loosened too), the
// remote listener's stream, the dashboard's feed and actions, and `orcr mcp --http`;
// nor can that user get a credential — the CLI refuses the home, and the store is
// unreadable. The same faces answer the user with a credential, so every refusal is one.
// A client runs as another uid only when the test runs as root (as in CI, where a skip
// would hide a failure).
func TestOtherUIDIsRefusedByEveryFace(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs the tests as root, which this test needs to run a client as another uid")
		}
		t.Skip("running a client as another local user needs root; CI runs this test as root")
	}
	var others []*user.User
	for _, name := range otherUIDs {
		if u, err := user.Lookup(name); err == nil && u.Uid != "0" {
			others = append(others, u)
		}
	}
	if len(others) == 0 {
		t.Fatalf("none of the users %v exists", otherUIDs)
	}
	dir := otherUIDClient(t)

	h, _ := herdrHome(t, `{"remote": {"listen": "127.0.0.1:0"}}`)
	h.lsRows(t) // starts the server
	base := remoteBase(t, h)
	wsBase := "ws" + strings.TrimPrefix(base, "http")
	endpoint := serveMCPHTTP(t, h)
	token := strings.TrimSpace(h.run("mcp", "token").stdout)
	if code := mcpInitialize(t, endpoint, token); code != http.StatusOK {
		t.Fatalf("orcr mcp --http with the user's token: HTTP %d, want 200", code)
	}
	sock := filepath.Join(h.dir, "orcr.sock")
	// A path to the socket outside the 0700 home (a hard link in a directory anyone can
	// search), so that the socket's own mode is what stands in the way.
	exposed, err := os.MkdirTemp("", "osock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(exposed) })
	os.Chmod(exposed, 0o755)
	link := filepath.Join(exposed, "orcr.sock")
	if err := os.Link(sock, link); err != nil {
		t.Fatal(err)
	}
	if o := probe(t, &user.User{Uid: "0", Gid: "0", Username: "root"}, dir, "unix", link); !strings.Contains(o.Reply, `"ok":true`) {
		t.Fatalf("the socket through the link, as the user: %+v, want the handshake's answer", o)
	}

	for _, u := range others {
		t.Run(u.Username, func(t *testing.T) {
			refusedErr := func(what string, o probeOutcome) {
				t.Helper()
				if !strings.Contains(o.Err, "permission denied") {
					t.Errorf("%s as %s: %+v, want permission denied", what, u.Username, o)
				}
			}
			refusedErr("the socket", probe(t, u, dir, "unix", sock))
			refusedErr("the socket through a reachable path", probe(t, u, dir, "unix", link))
			refusedErr("reading the store", probe(t, u, dir, "read", filepath.Join(h.dir, "orcr.db")))
			// With the socket's mode loosened as well, the server refuses the peer itself:
			// the connection is closed unanswered.
			if err := os.Chmod(link, 0o666); err != nil {
				t.Fatal(err)
			}
			o := probe(t, u, dir, "unix", link)
			os.Chmod(link, 0o600)
			if o.Reply != "" || o.Err == "" || strings.Contains(o.Err, "permission denied") {
				t.Errorf("the socket with mode 0666 as %s: %+v, want the connection closed unanswered", u.Username, o)
			}

			// The remote stream: any agent id, no token (the door checks the token first).
			if o := probe(t, u, dir, "ws", wsBase+"/agents/"+uuid.NewString()+"/ws"); !strings.Contains(o.Frame, `"unauthorized"`) && o.Status != http.StatusUnauthorized {
				t.Errorf("the remote stream as %s: %+v, want unauthorized", u.Username, o)
			}
			// The dashboard: the fleet feed and the actions without a session.
			if o := probe(t, u, dir, "ws", wsBase+"/dashboard/ws"); !strings.Contains(o.Frame, `"unauthorized"`) && o.Status != http.StatusUnauthorized {
				t.Errorf("the dashboard feed as %s: %+v, want unauthorized", u.Username, o)
			}
			for _, action := range []string{"send", "kill", "extend", "quota", "fleet", "logs"} {
				if o := probe(t, u, dir, "http", "POST", base+"/dashboard/api/"+action); o.Status != http.StatusUnauthorized && o.Status != http.StatusForbidden {
					t.Errorf("the dashboard's %s as %s: %+v, want 401 or 403", action, u.Username, o)
				}
			}
			// MCP over HTTP: initialize without a token.
			if o := probe(t, u, dir, "http", "POST", endpoint, initializeBody); o.Status != http.StatusUnauthorized {
				t.Errorf("orcr mcp --http as %s: %+v, want 401", u.Username, o)
			}
			// The CLI: no token can be minted, no agent listed.
			for _, args := range [][]string{{"mcp", "token"}, {"agent", "ls", "--json"}} {
				out, code := asUser(t, u, filepath.Join(dir, "orcr"), []string{"ORCR_HOME=" + h.dir}, args...)
				if code == 0 || strings.Contains(out, token) || regexp.MustCompile(`^[A-Za-z0-9_-]{43}\s*$`).MatchString(out) {
					t.Errorf("orcr %v as %s: exit %d, stdout %q; want a refusal", args, u.Username, code, out)
				}
			}
		})
	}
	if code := mcpInitialize(t, endpoint, token); code != http.StatusOK {
		t.Errorf("orcr mcp --http with the user's token after the probes: HTTP %d, want 200", code)
	}
}
