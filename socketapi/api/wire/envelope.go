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
// Unknown top-level fields are ignored; of a field given twice the last counts.
//
// The frame is checked once ([json.Valid]) and its top-level members are then walked in
// place: a request costs one copy of the frame (the reader reuses its buffer; the id and
// params are slices of the copy) and no reflection unless a member needs unescaping
// (docs/protocol.md §2).
func DecodeRequest(frame []byte) (*Request, *Error) {
	if !json.Valid(frame) {
		var v json.RawMessage
		if json.NewDecoder(bytes.NewReader(frame)).Decode(&v) == nil {
			return nil, Invalid(ReasonBadJSON, "request frame holds more than one JSON value")
		}
		return nil, Invalid(ReasonBadJSON, "request is not a JSON object")
	}
	b := bytes.Clone(frame)
	i := skipSpace(b, 0)
	if b[i] != '{' {
		return nil, Invalid(ReasonBadJSON, "request is not a JSON object")
	}
	var method, id, protocol, progress, params []byte
	for i = skipSpace(b, i+1); b[i] != '}'; {
		kEnd := stringEnd(b, i)
		key := b[i+1 : kEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			_ = json.Unmarshal(b[i:kEnd], &k)
			key = []byte(k)
		}
		i = skipSpace(b, skipSpace(b, kEnd)+1) // past the colon
		vEnd := valueEnd(b, i)
		switch v := b[i:vEnd:vEnd]; string(key) {
		case "method":
			method = v
		case "id":
			id = v
		case "protocol":
			protocol = v
		case "progress":
			progress = v
		case "params":
			params = v
		}
		if i = skipSpace(b, vEnd); b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	req := &Request{ID: nullID, Params: json.RawMessage("{}")}
	switch {
	case plainString(method):
		req.Method = string(method[1 : len(method)-1])
	case len(method) == 0 || method[0] != '"' || json.Unmarshal(method, &req.Method) != nil: // absent, not a string (null included)
		return nil, Invalid(ReasonMissingMethod, "request has no string \"method\"")
	}
	if id != nil {
		req.ID = id
	}
	if protocol != nil {
		req.HasProtocol = true
		req.Protocol = positiveInt(protocol)
	}
	req.Progress = string(progress) == "true"
	if params != nil && string(params) != "null" {
		req.Params = params
	}
	return req, nil
}

// positiveInt is a protocol field's value: the integer it holds when that is > 0, else 0
// (a string, a fraction, a negative number or one out of range declares protocol 0).
func positiveInt(v []byte) int64 {
	if len(v) <= 18 && digitsOnly(v) {
		n, _ := strconv.ParseInt(string(v), 10, 64)
		return n
	}
	var n json.Number
	if v[0] != '"' && json.Unmarshal(v, &n) == nil {
		if x, err := n.Int64(); err == nil && x > 0 {
			return x
		}
	}
	return 0
}

func digitsOnly(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(v) > 0
}

// plainString reports whether a JSON value is a string of printable ASCII without escapes,
// whose bytes between the quotes are its value.
func plainString(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// The walkers below read a frame [json.Valid] accepted, so they trust its syntax.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that opens at b[i].
func stringEnd(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
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
