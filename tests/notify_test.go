package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/notify"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// Notifications through the real binary: a mock agent that blocks (the mock's block
// directive) is posted, signed, to a webhook and shown by the herdr stand-in (playing a
// herdr that shows toasts); `orcr server status` reports both targets delivered; a
// notify section with an error stops every verb with config_invalid (exit 2).
func TestNotifyEndToEnd(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	var mu sync.Mutex
	var docs []notify.Document
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !notify.Verify("e2e-secret", r.Header.Get(notify.HeaderTimestamp), body, r.Header.Get(notify.HeaderSignature)) {
			t.Errorf("webhook: bad signature")
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var d notify.Document
		json.Unmarshal(body, &d)
		mu.Lock()
		docs = append(docs, d)
		mu.Unlock()
	}))
	defer hook.Close()
	cfg := fmt.Sprintf(`{"notify": {
		"targets": {"hook": {"type": "webhook", "url": %q, "secret": "e2e-secret"}, "desk": {"type": "herdr"}},
		"rules": [{"events": ["blocked"], "paths": ["e2e/**"], "targets": ["hook", "desk"]}]}}`, hook.URL)
	sockettest.StandinOnly(t, "its toast log shows the herdr toasts")
	h, _ := herdrHome(t, cfg)
	toasts := filepath.Join(t.TempDir(), "toasts.jsonl")
	h.env = append(h.env, "HERDR_STANDIN_TOASTS=1", "HERDR_STANDIN_TOAST_LOG="+toasts)

	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "e2e/ask", "-p", "block")
	poll.Eventually(t, 30*time.Second, "e2e/ask to block", func() bool {
		rows := h.lsRows(t, "e2e/ask")
		return len(rows) == 1 && rows[0].Status == "blocked"
	})
	type target struct {
		Name      string `json:"name"`
		Delivered int64  `json:"delivered"`
		Pending   int64  `json:"pending"`
	}
	poll.Eventually(t, 15*time.Second, "both targets to deliver", func() bool {
		_, res, _ := h.jsonRun(t, "server.status", 0, "server", "status")
		b, _ := json.Marshal(res["notify"])
		var ts []target
		json.Unmarshal(b, &ts)
		return len(ts) == 2 && ts[0].Name == "desk" && ts[0].Delivered == 1 && ts[1].Name == "hook" && ts[1].Delivered == 1
	})
	r := h.run("server", "status")
	if !strings.Contains(r.stdout, "\n  notify\n    desk             herdr   pending=0 delivered=1 failed=0 dropped=0 next_attempt_at=-\n") {
		t.Errorf("server status: %s", r.stdout)
	}
	mu.Lock()
	if len(docs) != 1 || docs[0].Event != "blocked" || docs[0].Path != "e2e/ask" {
		t.Errorf("webhook documents: %+v", docs)
	}
	mu.Unlock()
	if b, _ := os.ReadFile(toasts); !strings.Contains(string(b), `"title":"orcr: blocked"`) || !strings.Contains(string(b), "e2e/ask is blocked") {
		t.Errorf("toasts shown: %q", b)
	}

	// A broken notify section: the CLI refuses before contacting the server.
	os.WriteFile(filepath.Join(h.dir, "config.json"), []byte(`{"notify": {"rules": [{"events": ["blocked"], "targets": ["nope"]}]}}`), 0o600)
	ok, _, e := h.jsonRun(t, "agent.ls", 2, "agent", "ls")
	if ok || e["code"] != "environment_error" || errDetail(e, "cause") != "config_invalid" ||
		e["message"] != "notify.rules[0].targets: no target `nope` in notify.targets" {
		t.Errorf("agent ls with a broken notify section: %v", e)
	}
}
