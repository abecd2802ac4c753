package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// The part header of an answer in parts comes from a peer: any value gives either a
// part within the bounds or a refusal, never a count a caller would wait for forever or
// allocate for.
func FuzzChunkHeader(f *testing.F) {
	for _, s := range []string{"", "1/1", "2/3", "0/1", "3/2", "1/4097", "1/-1", "x/y", "1/", "/1", "01/02", "+1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		msg := nats.NewMsg("_INBOX.x")
		if h != "" {
			msg.Header.Set(ChunkHeader, h)
		}
		i, n, ok := chunkOf(msg)
		if ok && (i < 1 || i > n || n > maxChunks) {
			t.Fatalf("header %q: part %d of %d accepted", h, i, n)
		}
		if !ok && (i != 0 || n != 0) {
			t.Fatalf("header %q refused with %d/%d", h, i, n)
		}
	})
}

// A seen view that does not fit in one message is cut to fit, in tree order, and
// marked truncated; one that fits is left whole.
func TestSeenValue(t *testing.T) {
	var rows []api.AgentRow
	for i := range 500 {
		rows = append(rows, api.AgentRow{UUID: fmt.Sprintf("0190a000-0000-7000-8000-%012d", i), Path: fmt.Sprintf("p/a%03d", i), Status: api.StatusIdle})
	}
	whole, err := seenValue(Seen{Host: "web", Agents: rows}, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{len(whole), len(whole) / 3, 4 << 10, 60} {
		b, err := seenValue(Seen{Host: "web", Agents: rows}, limit)
		if err != nil {
			t.Fatal(err)
		}
		var got Seen
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		switch {
		case len(b) > limit:
			t.Errorf("limit %d: %d bytes", limit, len(b))
		case limit == len(whole) && (got.Truncated || len(got.Agents) != len(rows)):
			t.Errorf("a view that fits was cut to %d rows (truncated %v)", len(got.Agents), got.Truncated)
		case limit < len(whole) && (!got.Truncated || len(got.Agents) >= len(rows) || len(got.Agents) > 0 && got.Agents[0].Path != "p/a000"):
			t.Errorf("limit %d: %d rows, truncated %v", limit, len(got.Agents), got.Truncated)
		case limit == 4<<10 && len(got.Agents) < 10:
			t.Errorf("limit %d kept only %d rows", limit, len(got.Agents))
		}
	}
}

// A member whose fleet never answered yet knows no max_payload: a call from it is
// fleet_unreachable, never refused as too large.
func TestCallBeforeFirstConnection(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "nats://" + l.Addr().String()
	l.Close() // nobody listens there
	m, err := Connect(config.Fleet{Host: "web"}, url, "token", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, werr := m.Call(ctx, "gpu1", "agent.ls", map[string]any{}); werr == nil || werr.Cause() != wire.CauseFleetUnreachable {
		t.Fatalf("a call before the first connection: %v, want fleet_unreachable", werr)
	}
}
