package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// Submit confirmation for real providers (docs/lifecycle.md §9.2): a claude TUI that drops
// the first submitted prompt still gets it — the confirmation loop sees the text gone
// without the agent working and types it again.
func TestSubmitConfirmationRetypesDroppedPrompt(t *testing.T) {
	t.Parallel()
	bin, claude := fakeClaude(t)
	// The fake claude drops its first prompt.
	script := "#!/bin/sh\nORCR_MOCK_DROP_FIRST_SENDS=1 exec " + sockettest.BuildBinaries(t).MockAgent + "\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	srv := sockettest.NewServer(t, append([]sockettest.Option{sockettest.WithHerdr(t)}, claude...)...)
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "sub/one", "agent": "claude", "prompt": "say=delivered_after_all"})
	if err != nil {
		t.Fatalf("agent.run claude: %v", err)
	}
	dataDir := filepath.Join(srv.Home, "data", "sub", "one", a.UUID)
	var b []byte
	poll.Eventually(t, 40*time.Second, "the dropped prompt re-delivered", func() bool {
		b, _ = os.ReadFile(filepath.Join(dataDir, "transcript.jsonl"))
		return strings.Contains(string(b), `delivered_after_all\nDONE`)
	}, func() string {
		log, _ := os.ReadFile(filepath.Join(dataDir, "mock.log"))
		return fmt.Sprintf("transcript %q, mock log %q", b, log)
	})
	log, _ := os.ReadFile(filepath.Join(dataDir, "mock.log"))
	if !strings.Contains(string(log), "dropped send 1/1") {
		t.Errorf("the fake claude did not drop the first send (mock log %q): the test proves nothing", log)
	}
	// One prompt, typed twice: still one turn.
	rows := ls(t, c, map[string]any{"pattern": a.UUID})
	if rows[0].Status != "working" && rows[0].Status != "idle" {
		t.Errorf("status %s", rows[0].Status)
	}
}
