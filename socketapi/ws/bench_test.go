package ws_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// benchRig is a server with the remote listener and debug methods, no herdr.
func benchRig(b *testing.B, remoteJSON string) (*sockettest.Server, *socketapi.Client, string) {
	b.Helper()
	members := `"listen": "127.0.0.1:0"`
	if remoteJSON != "" {
		members += ", " + remoteJSON
	}
	srv := sockettest.NewServer(b, sockettest.WithConfig(`{"remote": {`+members+`}}`))
	return srv, &socketapi.Client{Socket: srv.Socket()}, "http://" + srv.RemoteAddr()
}

// benchAgent makes a debug row with n log entries (ended with end) and a token for it.
func benchAgent(b *testing.B, c *socketapi.Client, n int, end bool) (agent, tok string, tip int64) {
	b.Helper()
	ctx := context.Background()
	agent = uuid.Must(uuid.NewV7()).String()
	tip, err := debugLog(ctx, c, agent, "bench/"+agent[:8], n, end)
	if err != nil {
		b.Fatal(err)
	}
	res, err := c.Token(ctx, api.TokenRequest{Target: agent})
	if err != nil {
		b.Fatal(err)
	}
	return agent, *res.Token, tip
}

// readEvents reads events from c until seq tip.
func readEvents(b *testing.B, ctx context.Context, c *remote.Conn, tip int64) {
	for {
		f, err := c.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if e, ok := f.(remote.Event); ok && e.Seq == tip {
			return
		}
	}
}

// Replay throughput to one client: a subscribe from 0 over a 10,000-entry log (dial,
// hello, replay through the gate and the flow control, frames decoded by the Go
// client), against a bare coder/websocket server writing the same frames in a loop to
// the same client code in the same run. Aim: at least half the raw rate.
func BenchmarkReplayThroughput(b *testing.B) {
	const n = 10000
	_, c, base := benchRig(b, `"replay_limit": 20000`)
	agent, tok, tip := benchAgent(b, c, n, true)
	d := &remote.Dialer{}
	ctx := context.Background()

	// The same frames, as the server sends them.
	conn, err := d.Dial(ctx, base, agent, tok)
	if err != nil {
		b.Fatal(err)
	}
	conn.Subscribe(ctx, 0)
	var frames [][]byte
	for int64(len(frames)) <= tip {
		f, err := conn.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		e := f.(remote.Event)
		frames = append(frames, rawFrame(e))
	}
	conn.Close()
	raw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		hello, _ := remote.NewHello(agent, tip).MarshalJSON()
		ws.Write(r.Context(), websocket.MessageText, hello)
		if _, _, err := ws.Read(r.Context()); err != nil { // the subscribe
			return
		}
		for _, f := range frames {
			if err := ws.Write(r.Context(), websocket.MessageText, f); err != nil {
				return
			}
		}
		ws.Read(r.Context())
	}))
	defer raw.Close()

	var orcr, bare time.Duration
	for b.Loop() {
		start := time.Now()
		cc, err := d.Dial(ctx, base, agent, tok)
		if err != nil {
			b.Fatal(err)
		}
		cc.Subscribe(ctx, 0)
		readEvents(b, ctx, cc, tip)
		cc.Close()
		orcr += time.Since(start)

		start = time.Now()
		rc, err := d.Dial(ctx, raw.URL, agent, "x")
		if err != nil {
			b.Fatal(err)
		}
		rc.Subscribe(ctx, 0)
		readEvents(b, ctx, rc, tip)
		rc.Close()
		bare += time.Since(start)
	}
	events := float64(n+1) * float64(b.N)
	b.ReportMetric(events/orcr.Seconds(), "orcr-events/s")
	b.ReportMetric(events/bare.Seconds(), "raw-events/s")
	b.ReportMetric(bare.Seconds()/orcr.Seconds(), "ratio-vs-raw")
}

// rawFrame re-encodes an event as the server's envelope.
func rawFrame(e remote.Event) []byte {
	var sb strings.Builder
	sb.WriteString(`{"id":"` + e.ID + `","session_id":"` + e.SessionID + `","seq":`)
	sb.WriteString(itoa(e.Seq))
	sb.WriteString(`,"at":"` + e.At + `","type":"` + e.Type + `","payload":`)
	sb.Write(e.Payload)
	sb.WriteString("}")
	return []byte(sb.String())
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}

// Live-tail latency: from the commit of one change (a set_policy frame's policy/updated
// written through the store actor) to its frame at a stream client, against the same
// change's event reaching a bare events.subscribe subscriber on the Unix socket.
func BenchmarkLiveTailLatency(b *testing.B) {
	_, c, base := benchRig(b, "")
	agent, tok, _ := benchAgent(b, c, 1, false) // set_policy needs an agent that has not ended
	ctx := context.Background()
	snap, err := c.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": snap.SnapshotSeq})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	conn, err := (&remote.Dialer{}).Dial(ctx, base, agent, tok)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	conn.Subscribe(ctx, conn.Hello().LastSeq+1)
	var stream, bare time.Duration
	for b.Loop() {
		// The stream: commit to frame.
		start := time.Now()
		conn.SetPolicy(ctx, []string{"x"})
		for {
			f, err := conn.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := f.(remote.Event); ok {
				break
			}
		}
		stream += time.Since(start)

		// The bare subscriber: the same kind of write (one event through the store
		// actor) to its frame.
		start = time.Now()
		if err := c.Call(ctx, "__debug.emit_event", map[string]any{"kind": "debug.bench"}, nil); err != nil {
			b.Fatal(err)
		}
		if _, err := st.Next(); err != nil {
			b.Fatal(err)
		}
		bare += time.Since(start)
	}
	b.ReportMetric(float64(stream.Microseconds())/float64(b.N), "stream-µs/op")
	b.ReportMetric(float64(bare.Microseconds())/float64(b.N), "subscribe-µs/op")
	b.ReportMetric(stream.Seconds()/bare.Seconds(), "ratio-vs-subscribe")
}
