package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Proto is the protocol version this package speaks, sent as hello.proto
// (docs/remote.md §9).
const Proto = 1

// MaxFrame is the largest client frame accepted, in bytes: 1 MiB. [DecodeClient] refuses
// a larger frame as bad_frame; the server keeps the connection open (docs/remote.md §4).
const MaxFrame = 1 << 20

// Code is the code of an error frame (docs/remote.md §8).
type Code string

// The error codes of protocol 1.
const (
	Unauthorized Code = "unauthorized" // bad, missing or revoked token; closes
	Superseded   Code = "superseded"   // a newer connection took over the agent; closes
	Lagged       Code = "lagged"       // the outbound queue overflowed; closes
	BadFrame     Code = "bad_frame"    // an unparseable or invalid client frame; stays open
	NotRunning   Code = "not_running"  // cancel with no running turn, inject to an ended agent; stays open
	StaleCall    Code = "stale_call"   // approve/deny of a call with no standing request; stays open
	Unsupported  Code = "unsupported"  // approve/deny where approvals are not mounted; stays open
	Internal     Code = "internal"     // the server failed serving the connection; closes
)

// Codes lists the error codes of protocol 1 in the order of docs/remote.md §8.
var Codes = []Code{Unauthorized, Superseded, Lagged, BadFrame, NotRunning, StaleCall, Unsupported, Internal}

// Known reports whether c is one of [Codes].
func (c Code) Known() bool {
	for _, k := range Codes {
		if k == c {
			return true
		}
	}
	return false
}

// Closes reports whether the server closes the connection after an error frame with
// code c: true for unauthorized, superseded, lagged and internal; false for the codes
// that answer one frame and keep the connection open, and for codes this build does not
// know.
func (c Code) Closes() bool {
	switch c {
	case Unauthorized, Superseded, Lagged, Internal:
		return true
	}
	return false
}

// Frame type names, the "type" of every protocol frame and client frame.
const (
	TypeHello           = "hello"
	TypeReplayTruncated = "replay_truncated"
	TypeError           = "error"

	TypeSubscribe = "subscribe"
	TypeInject    = "inject"
	TypeCancel    = "cancel"
	TypeApprove   = "approve"
	TypeDeny      = "deny"
	TypeSetModel  = "set_model"
	TypeSetPolicy = "set_policy"
)

// Policy bounds of set_policy (docs/remote.md §6).
const (
	MaxPatterns      = 128 // patterns in one set_policy
	MaxPatternLength = 256 // characters (Unicode code points) in one pattern
)

// ServerFrame is one decoded server frame: an [Event], or one of the protocol frames
// [Hello], [ReplayTruncated] and [ErrorFrame], or an [UnknownFrame] for a protocol frame
// type this build does not know. Callers tell them apart with a type switch on the
// value types.
type ServerFrame interface{ isServerFrame() }

// ClientFrame is one frame of the closed client set: [Subscribe], [Inject], [Cancel],
// [Approve], [Deny], [SetModel] or [SetPolicy], always as values. json.Marshal encodes
// each with its "type" first.
type ClientFrame interface {
	json.Marshaler
	// FrameType is the frame's "type" on the wire.
	FrameType() string
	isClientFrame()
}

// Event is one entry of an agent's durable session log, serialized as-is
// (docs/remote.md §5). Seq is per agent, starts at 0 and is gapless; At is UTC ISO 8601
// with microseconds; Type is the event kind ("turn/start", …) and Payload its object.
type Event struct {
	ID        string          `json:"id"`
	SessionID string          `json:"session_id"`
	Seq       int64           `json:"seq"`
	At        string          `json:"at"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// Hello is the first frame of every authorized connection:
// {"type":"hello","proto":1,"session_id":…,"last_seq":…}. LastSeq is the highest seq in
// the log when the connection opened.
type Hello struct {
	Proto     int    `json:"proto"`
	SessionID string `json:"session_id"`
	LastSeq   int64  `json:"last_seq"`
}

// NewHello returns the hello frame of protocol [Proto].
func NewHello(sessionID string, lastSeq int64) Hello {
	return Hello{Proto: Proto, SessionID: sessionID, LastSeq: lastSeq}
}

// ReplayTruncated says a subscribe reached further back than the server's replay limit:
// the replay begins at FromSeq instead of RequestedFromSeq, and the events in
// [RequestedFromSeq, FromSeq) will not come over this connection. It precedes the
// window's first event.
type ReplayTruncated struct {
	RequestedFromSeq int64 `json:"requested_from_seq"`
	FromSeq          int64 `json:"from_seq"`
}

// ErrorFrame is {"type":"error","code":…,"message":…}. Code.Closes tells whether the
// server closes the connection after it.
type ErrorFrame struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// Err returns the frame as a Go error.
func (f ErrorFrame) Err() *Error { return &Error{Code: f.Code, Message: f.Message} }

// UnknownFrame is a protocol frame (no "seq") whose type this build does not know; Raw
// is the whole frame. Clients skip it, so a later server may add frame types.
type UnknownFrame struct {
	Type string
	Raw  json.RawMessage
}

// Subscribe asks for the log from FromSeq (inclusive), replayed and then tailed live.
type Subscribe struct {
	FromSeq int64 `json:"from_seq"`
}

// Inject sends Text to the agent. Wake starts a turn on an idle agent; without it, or
// on a busy agent, the text waits in the agent's inbox for the next step.
type Inject struct {
	Text string `json:"text"`
	Wake bool   `json:"wake"`
}

// Cancel asks for a cooperative stop of the running turn. An empty Reason is sent as
// no reason.
type Cancel struct {
	Reason string `json:"reason,omitempty"`
}

// Approve resolves the parked tool call CallID as approved.
type Approve struct {
	CallID string `json:"call_id"`
	Reason string `json:"reason,omitempty"`
}

// Deny resolves the parked tool call CallID as denied.
type Deny struct {
	CallID string `json:"call_id"`
	Reason string `json:"reason,omitempty"`
}

// SetModel repoints model role Role ("main", …) at provider model spec Spec.
type SetModel struct {
	Role string `json:"role"`
	Spec string `json:"spec"`
}

// SetPolicy replaces the agent's tool allow list with Patterns (fnmatch globs over tool
// names). A nil Patterns is sent as [], an empty list.
type SetPolicy struct {
	Patterns []string `json:"patterns"`
}

func (Event) isServerFrame()           {}
func (Hello) isServerFrame()           {}
func (ReplayTruncated) isServerFrame() {}
func (ErrorFrame) isServerFrame()      {}
func (UnknownFrame) isServerFrame()    {}

func (Subscribe) isClientFrame() {}
func (Inject) isClientFrame()    {}
func (Cancel) isClientFrame()    {}
func (Approve) isClientFrame()   {}
func (Deny) isClientFrame()      {}
func (SetModel) isClientFrame()  {}
func (SetPolicy) isClientFrame() {}

// FrameType returns "hello".
func (Hello) FrameType() string { return TypeHello }

// FrameType returns "replay_truncated".
func (ReplayTruncated) FrameType() string { return TypeReplayTruncated }

// FrameType returns "error".
func (ErrorFrame) FrameType() string { return TypeError }

// FrameType returns "subscribe".
func (Subscribe) FrameType() string { return TypeSubscribe }

// FrameType returns "inject".
func (Inject) FrameType() string { return TypeInject }

// FrameType returns "cancel".
func (Cancel) FrameType() string { return TypeCancel }

// FrameType returns "approve".
func (Approve) FrameType() string { return TypeApprove }

// FrameType returns "deny".
func (Deny) FrameType() string { return TypeDeny }

// FrameType returns "set_model".
func (SetModel) FrameType() string { return TypeSetModel }

// FrameType returns "set_policy".
func (SetPolicy) FrameType() string { return TypeSetPolicy }

// The encoders below write "type" first, then the fields in declaration order. Each
// converts to a local type without methods so the struct's own fields are encoded.

// MarshalJSON encodes {"type":"hello","proto":…,"session_id":…,"last_seq":…}.
func (f Hello) MarshalJSON() ([]byte, error) {
	type plain Hello
	return typed(TypeHello, plain(f))
}

// MarshalJSON encodes {"type":"replay_truncated","requested_from_seq":…,"from_seq":…}.
func (f ReplayTruncated) MarshalJSON() ([]byte, error) {
	type plain ReplayTruncated
	return typed(TypeReplayTruncated, plain(f))
}

// MarshalJSON encodes {"type":"error","code":…,"message":…}.
func (f ErrorFrame) MarshalJSON() ([]byte, error) {
	type plain ErrorFrame
	return typed(TypeError, plain(f))
}

// MarshalJSON encodes {"type":"subscribe","from_seq":…}.
func (f Subscribe) MarshalJSON() ([]byte, error) {
	type plain Subscribe
	return typed(TypeSubscribe, plain(f))
}

// MarshalJSON encodes {"type":"inject","text":…,"wake":…}.
func (f Inject) MarshalJSON() ([]byte, error) {
	type plain Inject
	return typed(TypeInject, plain(f))
}

// MarshalJSON encodes {"type":"cancel"} or {"type":"cancel","reason":…}.
func (f Cancel) MarshalJSON() ([]byte, error) {
	type plain Cancel
	return typed(TypeCancel, plain(f))
}

// MarshalJSON encodes {"type":"approve","call_id":…} with "reason" when set.
func (f Approve) MarshalJSON() ([]byte, error) {
	type plain Approve
	return typed(TypeApprove, plain(f))
}

// MarshalJSON encodes {"type":"deny","call_id":…} with "reason" when set.
func (f Deny) MarshalJSON() ([]byte, error) {
	type plain Deny
	return typed(TypeDeny, plain(f))
}

// MarshalJSON encodes {"type":"set_model","role":…,"spec":…}.
func (f SetModel) MarshalJSON() ([]byte, error) {
	type plain SetModel
	return typed(TypeSetModel, plain(f))
}

// MarshalJSON encodes {"type":"set_policy","patterns":[…]}; nil patterns encode as [].
func (f SetPolicy) MarshalJSON() ([]byte, error) {
	if f.Patterns == nil {
		f.Patterns = []string{}
	}
	type plain SetPolicy
	return typed(TypeSetPolicy, plain(f))
}

// typed encodes the struct v as an object whose first key is "type". HTML characters are
// not escaped, so a frame never grows past what its text needs.
func typed(typ string, v any) ([]byte, error) {
	body, err := encode(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"type":%q`, typ) // frame type names are plain ASCII
	if len(body) > 2 {
		b.WriteByte(',')
	}
	b.Write(body[1:])
	return b.Bytes(), nil
}

// encode is json.Marshal without HTML escaping and without the trailing newline.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
