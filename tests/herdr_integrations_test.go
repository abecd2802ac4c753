package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// integrationsRecord is what a real herdr answered in [TestHerdrIntegrationsLive],
// written with ORCR_TEST_HERDR_RECORD=1 to herdr/testdata/live/<version>/integrations.json
// for the stand-in's replay (herdr's TestStandinReplaysIntegrations): the output of
// `herdr integration install claude|codex`, `integration status` after it, and the
// agent.list result with the real claude and codex in their panes. The private home is
// written as <HOME>, herdr's config dir as <C>, the rest of $XDG_CONFIG_HOME as <XDG>,
// the agents' working directory as <WORK>.
type integrationsRecord struct {
	Version           string            `json:"version"`
	Install           map[string]string `json:"install"`
	IntegrationStatus string            `json:"integration_status"`
	AgentList         json.RawMessage   `json:"agent_list"`
}

// TestHerdrIntegrationsLive: with a real herdr ($ORCR_TEST_HERDR_BIN) and the real
// claude and codex, herdr's own integrations replace the mock binary's session hooks
// (docs/herdr.md §12.1): `herdr integration install claude|codex` in the test's private
// homes, then `orcr agent run` of each against the model stand-in; herdr's agent rows
// carry the agent_session its hooks reported, orcr records that pointer on the row, and
// `agent wait` / `agent logs --last-response` read the turn from the transcript it
// names.
func TestHerdrIntegrationsLive(t *testing.T) {
	bin := sockettest.RequireLiveHerdr(t)
	model := startModel(t)
	var rec integrationsRecord
	rec.Install = map[string]string{}
	// Every target herdr lists is installed, its directory made first (as if its agent
	// were installed), so that the record has each one's current version; claude's and
	// codex's must install.
	install := func(h *home) {
		_, rows := integrationStatus(t, h, bin)
		for _, r := range rows {
			mustMkdir(t, filepath.Dir(r.Path), 0o700)
			out, err := herdrCLI(h, bin, "integration", "install", r.Target)
			switch {
			case err == nil:
				rec.Install[r.Target] = out
			case r.Target == provider.Claude || r.Target == provider.Codex:
				t.Fatalf("herdr integration install %s: %v\n%s", r.Target, err, out)
			default:
				t.Logf("herdr integration install %s: %v\n%s", r.Target, err, out)
			}
		}
	}
	h, sock, work := realHomeWith(t, `{"timings": {"max_starting": "90s"}}`, model, install)
	status, rows := integrationStatus(t, h, bin)
	for _, r := range rows {
		if _, ok := rec.Install[r.Target]; ok && r.State != "current" {
			t.Errorf("after install: %+v, want current", r)
		}
	}
	rec.IntegrationStatus = status

	name := map[string]string{provider.Claude: "hi/cl", provider.Codex: "hi/cx"}
	start := time.Now()
	for _, p := range []string{provider.Claude, provider.Codex} {
		runAgent(t, h, "-a", p, "--path", name[p], "--cwd", work, "-p", "say="+p+"-via-herdr")
	}
	for _, p := range []string{provider.Claude, provider.Codex} {
		waitTurn(t, h, name[p])
		t.Logf("%s: turn complete %s after the runs", p, time.Since(start).Round(time.Millisecond))
		if got, want := lastResponse(t, h, name[p]), p+"-via-herdr\n"; got != want {
			t.Errorf("%s: last response %q, want %q", p, got, want)
		}
		wantPromptOnce(t, h, model, apiOf(p), "say="+p+"-via-herdr")
	}

	// herdr's rows: each pane shows its agent with the session its hook reported, and
	// orcr's row holds the same pointer.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := (&herdr.Client{Socket: sock}).Call(ctx, "agent.list", map[string]any{}, "agent_list")
	if err != nil {
		t.Fatalf("agent.list: %v", err)
	}
	var list struct {
		Agents []herdr.AgentInfo `json:"agents"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{provider.Claude, provider.Codex} {
		row := h.lsRows(t, name[p])[0]
		var got *herdr.AgentSession
		for _, a := range list.Agents {
			if row.PaneID != nil && a.PaneID == *row.PaneID {
				if a.Agent != p {
					t.Errorf("%s: herdr shows agent %q on its pane", p, a.Agent)
				}
				got = a.AgentSession
			}
		}
		if got == nil || got.Source != "herdr:"+p || got.Agent != p || got.Value == "" {
			t.Errorf("%s: herdr's agent_session %+v, want one from herdr:%s", p, got, p)
			continue
		}
		kind, value := storedSession(t, h, row.UUID)
		if kind != got.Kind || value != got.Value {
			t.Errorf("%s: orcr recorded agent_session %s %q, herdr reports %s %q", p, kind, value, got.Kind, got.Value)
		}
	}

	if os.Getenv("ORCR_TEST_HERDR_RECORD") != "1" {
		return
	}
	version, err := herdrCLI(h, bin, "--version")
	if err != nil {
		t.Fatal(err)
	}
	rec.Version = strings.TrimSpace(version)
	xdg := h.envValue("XDG_CONFIG_HOME")
	paths := strings.NewReplacer(filepath.Join(xdg, "herdr"), "<C>", xdg, "<XDG>", h.envValue("HOME"), "<HOME>", work, "<WORK>")
	rec.IntegrationStatus = paths.Replace(rec.IntegrationStatus)
	for p, out := range rec.Install {
		rec.Install[p] = paths.Replace(out)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.Marshal(v)
	rec.AgentList = json.RawMessage(paths.Replace(string(pretty)))
	dir := filepath.Join("..", "herdr", "testdata", "live", strings.TrimPrefix(rec.Version, "herdr "))
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "integrations.json"), string(b)+"\n")
	t.Logf("recorded %s", dir)
}

// herdrCLI runs the herdr binary bin with h's environment (its private homes and herdr
// config dir) and returns its output.
func herdrCLI(h *home, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = h.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// integrationStatus is `herdr integration status` of bin in h's environment, as
// printed and parsed.
func integrationStatus(t *testing.T, h *home, bin string) (string, []herdr.IntegrationState) {
	t.Helper()
	out, err := herdrCLI(h, bin, "integration", "status")
	if err != nil {
		t.Fatalf("herdr integration status: %v\n%s", err, out)
	}
	rows, err := herdr.ParseIntegrationStatus([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	return out, rows
}

// storedSession is the agent_session orcr recorded on the row of agent uid.
func storedSession(t *testing.T, h *home, uid string) (kind, value string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.dir, "orcr.db")+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT COALESCE(agent_session_kind, ''), COALESCE(agent_session_value, '') FROM agents WHERE uuid = ?`, uid).
		Scan(&kind, &value); err != nil {
		t.Fatalf("the row of %s: %v", uid, err)
	}
	return kind, value
}
