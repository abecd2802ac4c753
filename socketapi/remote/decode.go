package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// clientKeys lists, per client frame type, the keys it may carry besides "type".
var clientKeys = map[string][]string{
	TypeSubscribe: {"from_seq"},
	TypeInject:    {"text", "wake"},
	TypeCancel:    {"reason"},
	TypeApprove:   {"call_id", "reason"},
	TypeDeny:      {"call_id", "reason"},
	TypeSetModel:  {"role", "spec"},
	TypeSetPolicy: {"patterns"},
}

// DecodeClient decodes one client frame strictly (docs/remote.md §6). Anything but a
// frame of the closed set is refused with a [*FrameError] naming the problem, which the
// server answers as bad_frame:
//   - more than [MaxFrame] bytes, invalid UTF-8, or not exactly one JSON object (trailing
//     data after the object included);
//   - a key given twice, a missing, non-string or unknown "type", or a key the type does
//     not define (keys match exactly, case included);
//   - subscribe without "from_seq", or one that is not an integer literal ≥ 0 (1.5, 1e3
//     and "1" are refused);
//   - inject without a non-empty string "text" or without a boolean "wake" (wake has no
//     default: the sender says whether the text starts a turn);
//   - approve or deny without a non-empty string "call_id";
//   - set_model without non-empty strings "role" and "spec";
//   - set_policy without an array "patterns" of at most [MaxPatterns] strings of at most
//     [MaxPatternLength] characters each (the array may be empty, a pattern may be "");
//   - a "reason" (cancel, approve, deny) that is present but not a string; null is not a
//     string. An empty reason is the same as none.
func DecodeClient(data []byte) (ClientFrame, error) {
	if len(data) > MaxFrame {
		return nil, badFrame("frame is %d bytes; the limit is %d", len(data), MaxFrame)
	}
	obj, ferr := parseObject(data)
	if ferr != nil {
		return nil, ferr
	}
	typ, ferr := obj.frameType()
	if ferr != nil {
		return nil, ferr
	}
	allowed, ok := clientKeys[typ]
	if !ok {
		return nil, badFrame("unknown frame type %q", typ)
	}
	for _, k := range obj.keys {
		if k != "type" && !slices.Contains(allowed, k) {
			return nil, badFrame("%s: unknown key %q", typ, k)
		}
	}
	var f ClientFrame
	switch typ { // fields are read in order, so the first problem is the one reported
	case TypeSubscribe:
		f = Subscribe{FromSeq: obj.seq("from_seq")}
	case TypeInject:
		f = Inject{Text: obj.str("text", true), Wake: obj.boolean("wake")}
	case TypeCancel:
		f = Cancel{Reason: obj.reason()}
	case TypeApprove:
		f = Approve{CallID: obj.str("call_id", true), Reason: obj.reason()}
	case TypeDeny:
		f = Deny{CallID: obj.str("call_id", true), Reason: obj.reason()}
	case TypeSetModel:
		f = SetModel{Role: obj.str("role", true), Spec: obj.str("spec", true)}
	case TypeSetPolicy:
		f = SetPolicy{Patterns: obj.patterns("patterns")}
	}
	if obj.err != nil {
		return nil, obj.err
	}
	return f, nil
}

// DecodeServer decodes one server frame for a client. A frame with a "seq" key is an
// [Event]; any other is a protocol frame chosen by "type": [Hello], [ReplayTruncated],
// [ErrorFrame], or [UnknownFrame] for a type this build does not know. Unknown keys are
// ignored (new optional fields do not bump the protocol). The error is a [*FrameError]
// for a frame that is not one JSON object, or whose known fields have the wrong JSON
// types, or a protocol frame without a string "type".
func DecodeServer(data []byte) (ServerFrame, error) {
	obj, ferr := parseObject(data)
	if ferr != nil {
		return nil, ferr
	}
	if _, ok := obj.fields["seq"]; ok {
		obj.typ = "event"
		if obj.seq("seq"); obj.err != nil {
			return nil, obj.err
		}
		return unmarshalServer(data, &Event{}, obj.typ)
	}
	typ, ferr := obj.frameType()
	if ferr != nil {
		return nil, ferr
	}
	switch typ {
	case TypeHello:
		return unmarshalServer(data, &Hello{}, typ)
	case TypeReplayTruncated:
		return unmarshalServer(data, &ReplayTruncated{}, typ)
	case TypeError:
		return unmarshalServer(data, &ErrorFrame{}, typ)
	}
	return UnknownFrame{Type: typ, Raw: bytes.Clone(data)}, nil
}

// unmarshalServer decodes data into *p and returns the value.
func unmarshalServer[T ServerFrame](data []byte, p *T, what string) (ServerFrame, error) {
	if err := json.Unmarshal(data, p); err != nil {
		return nil, badFrame("%s: %v", what, err)
	}
	return *p, nil
}

// object is one parsed JSON object: its keys in frame order and their raw values. The
// field readers record the first problem in err and return zero values after it.
type object struct {
	keys   []string
	fields map[string]json.RawMessage
	typ    string
	err    *FrameError
}

// parseObject reads data as exactly one JSON object with distinct keys.
func parseObject(data []byte) (*object, *FrameError) {
	if !utf8.Valid(data) {
		return nil, badFrame("frame is not valid UTF-8")
	}
	notObject := badFrame("frame is not a JSON object")
	d := json.NewDecoder(bytes.NewReader(data))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	obj := &object{fields: map[string]json.RawMessage{}}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, notObject
		}
		key := tok.(string) // inside an object the decoder only yields string keys
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, notObject
		}
		if _, dup := obj.fields[key]; dup {
			return nil, badFrame("key %q appears twice", key)
		}
		obj.keys = append(obj.keys, key)
		obj.fields[key] = bytes.TrimSpace(v)
	}
	if _, err := d.Token(); err != nil { // the closing brace
		return nil, notObject
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, badFrame("trailing data after the frame's object")
	}
	return obj, nil
}

// frameType reads the "type" key, which must be a string.
func (o *object) frameType() (string, *FrameError) {
	raw, ok := o.fields["type"]
	if !ok {
		return "", badFrame(`frame has no "type"`)
	}
	if raw[0] != '"' {
		return "", badFrame(`"type" must be a string`)
	}
	_ = json.Unmarshal(raw, &o.typ) // a valid JSON string always decodes
	return o.typ, nil
}

func (o *object) fail(format string, args ...any) {
	if o.err == nil {
		o.err = badFrame(o.typ+": "+format, args...)
	}
}

// get returns key's raw value; a missing key is a problem when required.
func (o *object) get(key string, required bool) (json.RawMessage, bool) {
	if o.err != nil {
		return nil, false
	}
	raw, ok := o.fields[key]
	if !ok && required {
		o.fail("%q is required", key)
	}
	return raw, ok
}

// str reads a string; required strings must also be non-empty.
func (o *object) str(key string, required bool) string {
	raw, ok := o.get(key, required)
	if !ok {
		return ""
	}
	if raw[0] != '"' {
		o.fail("%q must be a string", key)
		return ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	if required && s == "" {
		o.fail("%q must not be empty", key)
	}
	return s
}

// reason reads the optional "reason" string.
func (o *object) reason() string { return o.str("reason", false) }

// boolean reads a required true or false.
func (o *object) boolean(key string) bool {
	raw, ok := o.get(key, true)
	if !ok {
		return false
	}
	switch string(raw) {
	case "true":
		return true
	case "false":
		return false
	}
	o.fail("%q must be true or false", key)
	return false
}

// seq reads a required integer literal ≥ 0 that fits an int64.
func (o *object) seq(key string) int64 {
	raw, ok := o.get(key, true)
	if !ok {
		return 0
	}
	if (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) || bytes.ContainsAny(raw, ".eE") {
		o.fail("%q must be an integer", key)
		return 0
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	switch {
	case err != nil:
		o.fail("%q is out of range", key)
	case n < 0:
		o.fail("%q must be 0 or more", key)
	}
	return n
}

// patterns reads a required array of bounded strings.
func (o *object) patterns(key string) []string {
	raw, ok := o.get(key, true)
	if !ok {
		return nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		o.fail("%q must be an array of strings", key)
		return nil
	}
	if len(items) > MaxPatterns {
		o.fail("%q holds %d patterns; the limit is %d", key, len(items), MaxPatterns)
		return nil
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		item = bytes.TrimSpace(item)
		var s string
		if item[0] != '"' || json.Unmarshal(item, &s) != nil {
			o.fail("%q[%d] must be a string", key, i)
			return nil
		}
		if n := utf8.RuneCountInString(s); n > MaxPatternLength {
			o.fail("%q[%d] is %d characters; the limit is %d", key, i, n, MaxPatternLength)
			return nil
		}
		out = append(out, s)
	}
	return out
}
