package cli_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// Human server status: the reason herdr is unreachable, and only the integrations orcr
// supports unless --all; --json is the result as the server sent it.
func TestServerStatusHerdrErrorAndIntegrations(t *testing.T) {
	t.Parallel()
	const status = `{"version":"0.1.0","protocol":1,"socket":"/h/orcr.sock","store":"/h/orcr.db",
 "herdr":{"bin":null,"reachable":false,"version":null,"protocol":null,"socket":null,"session":"orcr","session_running":false,
  "error":{"code":"environment_error","message":"herdr was not found on PATH; install herdr","details":{"cause":"herdr_missing","origin":"PATH"}}},
 "integrations":{"claude":{"orcr":true,"herdr":false},"codex":{"orcr":true,"herdr":false},"pi":{"orcr":false,"herdr":false},"grok":{"orcr":false,"herdr":true}},
 "counts":{},"drift":{},"loops_firing":false,"loops":[]}`
	h := newHarness(t)
	startFake(t, h.home, func(string, map[string]any) (any, *wire.Error) { return json.RawMessage(status), nil })
	// From the herdr line on (the lines above it are TestServerStatus's).
	head := `  herdr     reachable=false session="orcr" running=false
    herdr unreachable: herdr was not found on PATH; install herdr
  counts    live=null queued=null starting=null blocked=null stalled=null unmanaged=null unmarked_panes=null unknown_marked_panes=null
  drift     lost=null repaired=null
  remote    off (remote.listen is not set)
  integrations
    claude   orcr=ok herdr=missing
    codex    orcr=ok herdr=missing
`
	tail := "  loops     firing_durable=false\n  notify    (none)\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"server", "status"}, head + "    (2 more that orcr does not support: --all lists them)\n" + tail},
		{[]string{"server", "status", "--all"}, head[:strings.Index(head, "    codex")] +
			"    codex    orcr=ok herdr=missing\n    grok     orcr=missing herdr=ok\n    pi       orcr=missing herdr=missing\n" + tail},
	} {
		got := h.run(t, tc.args...)
		_, fromHerdr, _ := strings.Cut(got.stdout, "\"/h/orcr.db\"\n")
		if diff := cmp.Diff(tc.want, fromHerdr); got.code != 0 || diff != "" {
			t.Errorf("orcr %v: exit %d (-want +got):\n%s", tc.args, got.code, diff)
		}
	}
	for _, args := range [][]string{{"server", "status", "--json"}, {"server", "status", "--all", "--json"}} {
		env := decodeEnvelope(t, h.run(t, args...).stdout)
		var got, want any
		_ = json.Unmarshal(env.Result, &got)
		_ = json.Unmarshal([]byte(status), &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("orcr %v: the result is not the server's (-want +got):\n%s", args, diff)
		}
	}
}

// herdrStatusJSON runs `server status --json` and decodes the herdr object and the number of
// integrations.
func herdrStatusJSON(t *testing.T, h *harness) (herdr struct {
	Reachable bool        `json:"reachable"`
	Error     *wire.Error `json:"error"`
}, integrations int) {
	t.Helper()
	got := h.run(t, "server", "status", "--json")
	var res struct {
		Herdr        json.RawMessage            `json:"herdr"`
		Integrations map[string]json.RawMessage `json:"integrations"`
	}
	if err := json.Unmarshal(decodeEnvelope(t, got.stdout).Result, &res); err != nil {
		t.Fatalf("server status --json: %v", err)
	}
	if err := json.Unmarshal(res.Herdr, &herdr); err != nil {
		t.Fatalf("server status --json herdr: %v", err)
	}
	return herdr, len(res.Integrations)
}

// Against a real server with no herdr anywhere, the human status names the cause.
func TestServerStatusNoHerdrRealServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sockettest.NewServer(t, sockettest.WithHome(h.home))
	got := h.run(t, "server", "status")
	want := "\n    herdr unreachable: herdr was not found on PATH; install herdr (https://github.com/herdrdev/herdr) and put it on PATH, or set herdr.bin / ORCR_HERDR_BIN\n"
	if got.code != 0 || !strings.Contains(got.stdout, "herdr     reachable=false") || !strings.Contains(got.stdout, want) {
		t.Errorf("server status: exit %d stdout %q, want the line %q", got.code, got.stdout, want)
	}
	hd, _ := herdrStatusJSON(t, h)
	if hd.Reachable || hd.Error == nil || hd.Error.Code != wire.EnvironmentError || hd.Error.Cause() != "herdr_missing" {
		t.Errorf("server status --json herdr: got %+v, want unreachable with herdr_missing", hd)
	}
}

// Against a real server on the herdr stand-in, the human status lists orcr's built-in
// providers (docs/providers.md §12) and counts the rest; --all lists all of them.
func TestServerStatusIntegrationsRealServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sockettest.NewServer(t, sockettest.WithHome(h.home), sockettest.WithHerdr(t))
	hd, n := herdrStatusJSON(t, h)
	if !hd.Reachable || hd.Error != nil || n < 3 {
		t.Fatalf("server status --json: herdr %+v with %d integrations, want reachable, no error, the stand-in's targets", hd, n)
	}
	lines := func(out string) []string {
		var ls []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, " orcr=") {
				ls = append(ls, strings.Fields(l)[0])
			}
		}
		return ls
	}
	got := h.run(t, "server", "status")
	builtins := []string{"claude", "codex", "gemini", "opencode", "pi", "qwen"}
	if diff := cmp.Diff(builtins, lines(got.stdout)); diff != "" || strings.Contains(got.stdout, "herdr error") {
		t.Errorf("server status integrations (-want +got):\n%s\n%s", diff, got.stdout)
	}
	// gemini needs no herdr integration (docs/providers.md §12.2): none is missing.
	if !strings.Contains(got.stdout, "    gemini   orcr=ok herdr=not needed\n") {
		t.Errorf("server status: gemini's line should say herdr=not needed:\n%s", got.stdout)
	}
	if more := "(" + strconv.Itoa(n-len(builtins)) + " more that orcr does not support: --all lists them)"; !strings.Contains(got.stdout, more) {
		t.Errorf("server status: no %q in\n%s", more, got.stdout)
	}
	if all := lines(h.run(t, "server", "status", "--all").stdout); len(all) != n {
		t.Errorf("server status --all: %d integrations %v, want all %d", len(all), all, n)
	}
}
