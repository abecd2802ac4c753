package fleet

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// An answer larger than the NATS server's max_payload goes back in parts
// (docs/fleet.md §4.8): messages to the caller's inbox in order, each with the header
// ChunkHeader "<i>/<n>" (1-based). An answer that fits is one plain message, as before.
const ChunkHeader = "Orcr-Chunk"

// chunkRoom is what a part leaves of max_payload for its headers.
const chunkRoom = 1 << 10

// Bounds a caller puts on an answer in parts: its count and its whole size.
const (
	maxChunks     = 1 << 12
	maxReplyBytes = 256 << 20
)

// respond answers msg with reply: one message when it fits in the connection's
// max_payload, else the parts of [ChunkHeader].
func respond(nc *nats.Conn, msg *nats.Msg, reply []byte) error {
	limit := int(nc.MaxPayload()) - chunkRoom
	if len(reply) <= limit || limit <= 0 {
		return msg.Respond(reply)
	}
	n := (len(reply) + limit - 1) / limit
	for i := range n {
		part := nats.NewMsg(msg.Reply)
		part.Header.Set(ChunkHeader, strconv.Itoa(i+1)+"/"+strconv.Itoa(n))
		part.Data = reply[i*limit : min(len(reply), (i+1)*limit)]
		if err := nc.PublishMsg(part); err != nil {
			return err
		}
	}
	return nil
}

// nextMsg is sub's next message within ctx and, when idle is above zero, within idle.
func nextMsg(ctx context.Context, sub *nats.Subscription, idle time.Duration) (*nats.Msg, error) {
	if idle > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, idle, fmt.Errorf("no answer and no progress for %s", idle))
		defer cancel()
		msg, err := sub.NextMsgWithContext(ctx)
		if err != nil && context.Cause(ctx) != nil && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return msg, err
	}
	return sub.NextMsgWithContext(ctx)
}

// chunkOf reads a message's part header: i and n (1 and 1 for a message without one);
// ok false for a header that does not parse or is out of bounds.
func chunkOf(msg *nats.Msg) (i, n int, ok bool) {
	h := msg.Header.Get(ChunkHeader)
	if h == "" {
		return 1, 1, true
	}
	a, b, found := strings.Cut(h, "/")
	if !found {
		return 0, 0, false
	}
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || n < 1 || n > maxChunks || i < 1 || i > n {
		return 0, 0, false
	}
	return i, n, true
}

// request sends frame to host's API subject with a reply inbox of its own and reads
// the answer, joining its parts. A frame over max_payload is refused before it is sent
// (invalid_request frame_too_large); no answer in ctx, or nobody serving the subject, is
// fleet_unreachable. Progress frames ([ProgressHeader]) go to ctx's progress reporter
// (wire.ReportProgress); with idle above zero each message, a progress frame included,
// must come within idle of the one before.
func (m *Member) request(ctx context.Context, host string, frame []byte, idle time.Duration) ([]byte, *wire.Error) {
	// MaxPayload is 0 before a first connection: nothing is known to refuse then.
	if limit := m.nc.MaxPayload(); limit > 0 && int64(len(frame)) > limit {
		return nil, wire.Invalid(wire.ReasonFrameTooLarge,
			fmt.Sprintf("the request is %d bytes, more than the %d the fleet's NATS server takes in one message (its max_payload)", len(frame), limit),
			"limit_bytes", limit, "frame_bytes", len(frame), "host", host)
	}
	inbox := m.nc.NewInbox()
	sub, err := m.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, unreachable(host, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := m.nc.PublishRequest(APISubject(host, m.Host), inbox, frame); err != nil {
		return nil, unreachable(host, err)
	}
	var buf bytes.Buffer
	for want, n := 1, 1; want <= n; want++ {
		msg, err := nextMsg(ctx, sub, idle)
		if err != nil {
			return nil, unreachable(host, err)
		}
		if p := msg.Header.Get(ProgressHeader); p != "" {
			a, b, _ := strings.Cut(p, "/")
			done, err1 := strconv.Atoi(a)
			total, err2 := strconv.Atoi(b)
			if err1 == nil && err2 == nil {
				wire.ReportProgress(ctx, done, total)
			}
			want--
			continue
		}
		if len(msg.Data) == 0 && msg.Header.Get("Status") == "503" { // the NATS server's "no responders"
			return nil, unreachable(host, nats.ErrNoResponders)
		}
		i, total, ok := chunkOf(msg)
		if !ok || i != want || want > 1 && total != n {
			return nil, wire.Internal(wire.CauseDecode, "fleet: the parts of "+host+"'s answer came out of order")
		}
		n = total
		if buf.Len()+len(msg.Data) > maxReplyBytes {
			return nil, wire.Internal(wire.CauseDecode, fmt.Sprintf("fleet: %s's answer is larger than %d bytes", host, maxReplyBytes))
		}
		buf.Write(msg.Data)
	}
	return buf.Bytes(), nil
}
