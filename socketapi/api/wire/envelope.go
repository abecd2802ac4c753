package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Protocol is the orcr socket protocol version this build speaks.
const Protocol = 1

// Request is a decoded request envelope. ID is the raw JSON id (null when absent).
type Request struct {
	// Protocol is the declared version; 0 when absent, non-integer or negative.
	Protocol int64
	// HasProtocol reports whether the frame carried a "protocol" field at all (a
	// non-integer value still declares protocol 0).
	HasProtocol bool
	ID          json.RawMessage
	Method      string
	// Params is the raw params value; "{}" when absent.
	Params json.RawMessage
	// Progress is true when the envelope asked for progress frames
	// (`"progress": true`, docs/protocol.md §2.7); any other value is false.
	Progress bool
}

var nullID = json.RawMessage("null")

// UnsupportedVersion is the error for a request that declares another protocol than
// [Protocol] (docs/protocol.md §3): environment_error unsupported_version.
func UnsupportedVersion(declared int64) *Error {
	return Env(CauseUnsupportedVersion,
		"client declared socket protocol "+strconv.FormatInt(declared, 10)+" but this orcr server speaks "+strconv.Itoa(Protocol),
		"declared_protocol", declared, "server_protocol", Protocol)
}

// NullID is the id used for replies to frames whose id could not be read.
func NullID() json.RawMessage { return nullID }

// DecodeRequest parses one frame into a Request. A frame that is not a JSON object is
// bad_json; a missing or non-string method is missing_method. Both errors carry no id.
// Unknown top-level fields are ignored.
func DecodeRequest(frame []byte) (*Request, *Error) {
	var raw map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(frame))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil || raw == nil {
		return nil, Invalid(ReasonBadJSON, "request is not a JSON object")
	}
	if d.More() {
		return nil, Invalid(ReasonBadJSON, "request frame holds more than one JSON value")
	}
	var tok json.RawMessage
	if err := d.Decode(&tok); err == nil {
		return nil, Invalid(ReasonBadJSON, "request frame holds more than one JSON value")
	}
	req := &Request{ID: nullID, Params: json.RawMessage("{}")}
	m, ok := raw["method"]
	if !ok || json.Unmarshal(m, &req.Method) != nil {
		return nil, Invalid(ReasonMissingMethod, "request has no string \"method\"")
	}
	if id, ok := raw["id"]; ok {
		req.ID = id
	}
	if p, ok := raw["protocol"]; ok {
		req.HasProtocol = true
		var n json.Number
		if len(p) > 0 && p[0] != '"' && json.Unmarshal(p, &n) == nil {
			if v, err := n.Int64(); err == nil && v > 0 {
				req.Protocol = v
			}
		}
	}
	if p, ok := raw["progress"]; ok {
		_ = json.Unmarshal(p, &req.Progress)
	}
	if p, ok := raw["params"]; ok && !bytes.Equal(bytes.TrimSpace(p), []byte("null")) {
		req.Params = p
	}
	return req, nil
}

// Response is a response envelope as written on the wire.
type Response struct {
	ID     json.RawMessage `json:"id"`
	OK     bool            `json:"ok"`
	Result any             `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// okResponse keeps "result" even when it is null.
type okResponse struct {
	ID     json.RawMessage `json:"id"`
	OK     bool            `json:"ok"`
	Result any             `json:"result"`
}

// EncodeResponse renders a response frame (without the trailing newline). A nil err
// makes a success envelope. The id is echoed as given unless it is not valid UTF-8 (see
// [echoID]), so every frame written is valid UTF-8 JSON.
func EncodeResponse(id json.RawMessage, result any, err *Error) ([]byte, error) {
	id = echoID(id)
	if err != nil {
		return json.Marshal(Response{ID: id, OK: false, Error: err})
	}
	return json.Marshal(okResponse{ID: id, OK: true, Result: result})
}

// echoID returns the id to echo for a request id (docs/protocol.md §2.3): null when
// absent, the raw value when it is valid UTF-8, else the value decoded and encoded again,
// which replaces every invalid byte with U+FFFD (a raw echo would make the whole reply
// invalid UTF-8). Numbers keep their digits.
func echoID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return nullID
	}
	if utf8.Valid(id) {
		return id
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(id))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nullID
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nullID
	}
	return b
}

// EventFrame is a subscription frame. Seq is 0 for control frames.
type EventFrame struct {
	Subscription int64           `json:"subscription"`
	Seq          int64           `json:"seq"`
	Event        json.RawMessage `json:"event"`
}

// ReplyFrame is what a client reads: either a response (ID/OK set) or an event frame
// (Subscription set).
type ReplyFrame struct {
	ID           json.RawMessage `json:"id,omitempty"`
	OK           *bool           `json:"ok,omitempty"`
	Result       json.RawMessage `json:"result,omitempty"`
	Error        *Error          `json:"error,omitempty"`
	Subscription *int64          `json:"subscription,omitempty"`
	Seq          int64           `json:"seq,omitempty"`
	Event        json.RawMessage `json:"event,omitempty"`
}

// IsEvent reports whether the frame is a subscription event frame.
func (f *ReplyFrame) IsEvent() bool { return f.Subscription != nil && f.OK == nil }

// Err returns the frame's error as a Go error (nil for success). Unknown codes map to
// server_error; a missing message becomes "server error" (the reference client rule).
func (f *ReplyFrame) Err() *Error {
	if f.OK != nil && *f.OK {
		return nil
	}
	e := f.Error
	if e == nil {
		return New(ServerError, "server error")
	}
	if !e.Code.Known() {
		e.Code = ServerError
	}
	if e.Message == "" {
		e.Message = "server error"
	}
	return e
}
