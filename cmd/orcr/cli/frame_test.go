package cli_test

import (
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// A prompt too large for one frame is refused by the client before it is sent, as
// invalid_request frame_too_large with the limit, not reported as an unreachable
// server (docs/protocol.md §1.9).
func TestOversizedPromptIsFrameTooLarge(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	h := newHarness(t)
	h.vars["ORCR_HOME"] = srv.Home
	h.stdin = strings.Repeat("x", 17<<20)

	got := h.run(t, "--json", "agent", "send", "w1", "-p", "-")
	env := decodeEnvelope(t, got.stdout)
	if got.code != 1 || env.Error == nil || env.Error.Code != wire.InvalidRequest || env.Error.Reason() != "frame_too_large" {
		t.Fatalf("orcr agent send with 17 MiB on stdin: got exit %d %.300s, want 1 invalid_request frame_too_large", got.code, got.stdout)
	}
	d := env.Error.Details
	if d["limit_bytes"] != float64(wire.MaxFrame) {
		t.Errorf("details.limit_bytes: got %v, want %d", d["limit_bytes"], wire.MaxFrame)
	}
	if n, _ := d["frame_bytes"].(float64); n <= 17<<20 {
		t.Errorf("details.frame_bytes: got %v, want the frame's size (more than the prompt's %d bytes)", d["frame_bytes"], 17<<20)
	}

	got = h.run(t, "agent", "send", "w1", "-p", "-")
	if !strings.HasPrefix(got.stderr, "error: invalid_request: request frame of ") || !strings.Contains(got.stderr, `"limit_bytes":16777216`) {
		t.Errorf("human: got %q, want an invalid_request line naming the limit", got.stderr)
	}
}
