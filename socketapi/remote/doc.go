// Package remote is orcr's remote stream on the wire: the frames both sides exchange
// over the one WebSocket per agent at GET /agents/{agent_id}/ws (docs/remote.md). The
// server imports it for the frames; it imports nothing of orcr's store or actors.
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
package remote
