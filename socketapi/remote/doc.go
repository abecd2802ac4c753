// Package remote is orcr's remote stream on the wire: the frames both sides exchange
// over the one WebSocket per agent at GET /agents/{agent_id}/ws, and the Go client of
// that stream (docs/remote.md). The server imports it for the frames; it imports nothing
// of orcr's store or actors.
//
// # Frames
//
// Every frame, in both directions, is one JSON object in one text frame.
//
// The server sends two families, told apart by the "seq" key. A session event ([Event])
// always has it: it is one entry of the agent's durable session log, serialized as-is
// ({"id","session_id","seq","at","type","payload"}). A protocol frame never has it and
// is chosen by "type": [Hello] once on connect, [ReplayTruncated] before a capped
// replay, and [ErrorFrame] with one of the [Codes]. [Code.Closes] says which codes end
// the connection (unauthorized, superseded, lagged, internal) and which answer one frame
// and leave it open (bad_frame, not_running, stale_call, unsupported). [DecodeServer]
// decodes either family for a client, leniently: unknown keys are ignored and an
// unknown protocol frame type is an [UnknownFrame], so a later server can add optional
// fields and frames.
//
// The client sends one of a closed set: [Subscribe], [Inject], [Cancel], [Approve],
// [Deny], [SetModel] and [SetPolicy] (the [ClientFrame] values). json.Marshal encodes
// each with its "type" first. [DecodeClient] decodes them for the server, strictly:
// frames over [MaxFrame], invalid UTF-8, anything but one JSON object, repeated keys,
// unknown types, unknown keys, wrong JSON types and missing or empty required fields
// are refused with a [*FrameError], whose message the server sends back in a bad_frame
// error frame ([FrameError.Frame]). The rules that are choices rather than the
// contract's words: inject's "wake" is required (no default), from_seq must be an
// integer literal (1.0 and 1e3 are refused like 1.5 and "1"), a present "reason" must
// be a string and an empty one means none, and pattern lengths count Unicode code
// points. DecodeClient's comment lists every rule.
//
// # The client
//
// [Dialer.Dial] opens a connection with a bearer token and returns it once the hello
// frame has arrived; an unauthorized answer is an [*Error] with code unauthorized. A
// [Conn] reads in the background, so the server's heartbeat pings are answered while
// the caller is busy; [Conn.Next] hands over the frames in order. The typed write
// methods ([Conn.Subscribe], [Conn.Inject], …) check a frame with DecodeClient before
// sending it, so they never send what the server would refuse; [Conn.WriteRaw] sends
// anything, for tests.
//
// # Stream: resume and discard
//
// [Dialer.Stream] is the resumable reader most callers want:
//
//	for ev, err := range d.Stream(ctx, "https://orcr.example:7443", agentID, token, 0) {
//		if t, ok := errors.AsType[*remote.Truncated](err); ok {
//			log.Printf("history before %d is not replayed", t.FromSeq)
//			continue
//		}
//		if err != nil {
//			return err
//		}
//		record(ev)
//	}
//
// It yields each event exactly once, in seq order. After a resubscribe, frames of the
// replaced subscription can still be in flight, so on each subscription Stream discards
// events until the first one it expects arrives (seq == from_seq), and drops any event
// it has already yielded. A replay capped by the server's replay limit is reported as
// a [*Truncated] error value and the stream continues from the window's start. On
// lagged, internal or a dropped connection it re-dials with jittered, bounded backoff
// and subscribes from the seq after the last event it yielded; unauthorized and
// superseded end the iteration with an [*Error]. A [SessionEnded] event, the last of
// every log, ends it without an error: the agent ended, its tokens were revoked, and the
// server closes the connection normally after it. The agent keeps running whatever
// happens to the socket: a dropped connection never cancels a turn.
package remote
