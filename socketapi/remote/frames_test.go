package remote_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/remote"
)

// patterns returns n patterns of length runes each, in a two-byte character so a byte
// count would exceed the bound.
func patterns(n, length int) []string {
	p := make([]string, n)
	for i := range p {
		p[i] = strings.Repeat("é", length)
	}
	return p
}

func policyFrame(p []string) string {
	b, _ := json.Marshal(p)
	return `{"type":"set_policy","patterns":` + string(b) + `}`
}

// pad makes frame exactly size bytes long with trailing whitespace.
func pad(frame string, size int) string { return frame + strings.Repeat(" ", size-len(frame)) }

// decodes checks that decode accepts in as want, and returns what it decoded.
func decodes[F any](t *testing.T, decode func([]byte) (F, error), in string, want F) F {
	t.Helper()
	got, err := decode([]byte(in))
	if err != nil {
		t.Fatalf("decoding %.80s: %v", in, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoding %.80s (-want +got):\n%s", in, diff)
	}
	return got
}

func TestDecodeClientAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want remote.ClientFrame
	}{
		{"subscribe", `{"type":"subscribe","from_seq":0}`, remote.Subscribe{}},
		{"subscribe type last", `{"from_seq":42,"type":"subscribe"}`, remote.Subscribe{FromSeq: 42}},
		{"subscribe max", `{"type":"subscribe","from_seq":9223372036854775807}`, remote.Subscribe{FromSeq: 1<<63 - 1}},
		{"subscribe minus zero", `{"type":"subscribe","from_seq":-0}`, remote.Subscribe{}},
		{"whitespace", " \n{ \"type\" : \"subscribe\" ,\t\"from_seq\" : 7 }\r\n", remote.Subscribe{FromSeq: 7}},
		{"inject wake", `{"type":"inject","text":"hello","wake":true}`, remote.Inject{Text: "hello", Wake: true}},
		{"inject steer", `{"type":"inject","text":"and <more> \u00e9\n","wake":false}`, remote.Inject{Text: "and <more> é\n"}},
		{"inject blank text", `{"type":"inject","text":" ","wake":false}`, remote.Inject{Text: " "}},
		{"cancel", `{"type":"cancel"}`, remote.Cancel{}},
		{"cancel reason", `{"type":"cancel","reason":"user"}`, remote.Cancel{Reason: "user"}},
		{"cancel empty reason", `{"type":"cancel","reason":""}`, remote.Cancel{}},
		{"approve", `{"type":"approve","call_id":"toolu_1"}`, remote.Approve{CallID: "toolu_1"}},
		{"approve reason", `{"type":"approve","call_id":"c","reason":"ok"}`, remote.Approve{CallID: "c", Reason: "ok"}},
		{"deny", `{"type":"deny","call_id":"c"}`, remote.Deny{CallID: "c"}},
		{"deny reason", `{"type":"deny","reason":"no","call_id":"c"}`, remote.Deny{CallID: "c", Reason: "no"}},
		{"set_model", `{"type":"set_model","role":"main","spec":"anthropic/opus"}`, remote.SetModel{Role: "main", Spec: "anthropic/opus"}},
		{"set_policy empty", `{"type":"set_policy","patterns":[]}`, remote.SetPolicy{Patterns: []string{}}},
		{"set_policy", `{"type":"set_policy","patterns":["read_*",""," "]}`, remote.SetPolicy{Patterns: []string{"read_*", "", " "}}},
		{"set_policy at the bounds", policyFrame(patterns(128, 256)), remote.SetPolicy{Patterns: patterns(128, 256)}},
		{"frame of MaxFrame bytes", pad(`{"type":"cancel"}`, remote.MaxFrame), remote.Cancel{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decodes(t, remote.DecodeClient, tt.in, tt.want); got != nil && got.FrameType() != tt.want.FrameType() {
				t.Errorf("FrameType: got %q, want %q", got.FrameType(), tt.want.FrameType())
			}
		})
	}
}

func TestDecodeClientRefuses(t *testing.T) {
	big := pad(`{"type":"cancel"}`, remote.MaxFrame+1)
	tests := []struct {
		name, in, want string
	}{
		{"over MaxFrame", big, "frame is 1048577 bytes; the limit is 1048576"},
		{"invalid UTF-8", "{\"type\":\"inject\",\"text\":\"\xff\",\"wake\":true}", "frame is not valid UTF-8"},
		{"empty", ``, "frame is not a JSON object"},
		{"null", `null`, "frame is not a JSON object"},
		{"array", `[{"type":"cancel"}]`, "frame is not a JSON object"},
		{"string", `"cancel"`, "frame is not a JSON object"},
		{"unterminated", `{"type":"cancel"`, "frame is not a JSON object"},
		{"bad value", `{"type":"cancel","reason":tru}`, "frame is not a JSON object"},
		{"two objects", `{"type":"cancel"}{"type":"cancel"}`, "trailing data after the frame's object"},
		{"trailing garbage", `{"type":"cancel"} x`, "trailing data after the frame's object"},
		{"trailing brace", `{"type":"cancel"}}`, "trailing data after the frame's object"},
		{"duplicate key", `{"type":"subscribe","from_seq":1,"from_seq":2}`, `key "from_seq" appears twice`},
		{"duplicate type", `{"type":"cancel","type":"cancel"}`, `key "type" appears twice`},
		{"no type", `{"from_seq":0}`, `frame has no "type"`},
		{"type not a string", `{"type":7}`, `"type" must be a string`},
		{"type null", `{"type":null}`, `"type" must be a string`},
		{"unknown type", `{"type":"resume"}`, `unknown frame type "resume"`},
		{"type case", `{"type":"Subscribe","from_seq":0}`, `unknown frame type "Subscribe"`},
		{"server frame type", `{"type":"hello","proto":1}`, `unknown frame type "hello"`},
		{"unknown key", `{"type":"cancel","reason":"a","force":true}`, `cancel: unknown key "force"`},
		{"key case", `{"type":"subscribe","FROM_SEQ":1}`, `subscribe: unknown key "FROM_SEQ"`},
		{"key of another type", `{"type":"cancel","call_id":"c"}`, `cancel: unknown key "call_id"`},
		{"subscribe no from_seq", `{"type":"subscribe"}`, `subscribe: "from_seq" is required`},
		{"from_seq fraction", `{"type":"subscribe","from_seq":1.5}`, `subscribe: "from_seq" must be an integer`},
		{"from_seq 1.0", `{"type":"subscribe","from_seq":1.0}`, `subscribe: "from_seq" must be an integer`},
		{"from_seq exponent", `{"type":"subscribe","from_seq":1e3}`, `subscribe: "from_seq" must be an integer`},
		{"from_seq string", `{"type":"subscribe","from_seq":"1"}`, `subscribe: "from_seq" must be an integer`},
		{"from_seq null", `{"type":"subscribe","from_seq":null}`, `subscribe: "from_seq" must be an integer`},
		{"from_seq bool", `{"type":"subscribe","from_seq":true}`, `subscribe: "from_seq" must be an integer`},
		{"from_seq negative", `{"type":"subscribe","from_seq":-1}`, `subscribe: "from_seq" must be 0 or more`},
		{"from_seq overflow", `{"type":"subscribe","from_seq":9223372036854775808}`, `subscribe: "from_seq" is out of range`},
		{"inject no text", `{"type":"inject","wake":true}`, `inject: "text" is required`},
		{"inject empty text", `{"type":"inject","text":"","wake":true}`, `inject: "text" must not be empty`},
		{"inject text number", `{"type":"inject","text":5,"wake":true}`, `inject: "text" must be a string`},
		{"inject no wake", `{"type":"inject","text":"hi"}`, `inject: "wake" is required`},
		{"inject wake string", `{"type":"inject","text":"hi","wake":"true"}`, `inject: "wake" must be true or false`},
		{"inject wake null", `{"type":"inject","text":"hi","wake":null}`, `inject: "wake" must be true or false`},
		{"inject wake number", `{"type":"inject","text":"hi","wake":1}`, `inject: "wake" must be true or false`},
		{"inject first problem", `{"type":"inject","wake":1,"text":""}`, `inject: "text" must not be empty`},
		{"cancel reason null", `{"type":"cancel","reason":null}`, `cancel: "reason" must be a string`},
		{"cancel reason number", `{"type":"cancel","reason":5}`, `cancel: "reason" must be a string`},
		{"approve no call_id", `{"type":"approve"}`, `approve: "call_id" is required`},
		{"approve empty call_id", `{"type":"approve","call_id":""}`, `approve: "call_id" must not be empty`},
		{"approve call_id number", `{"type":"approve","call_id":5}`, `approve: "call_id" must be a string`},
		{"approve reason array", `{"type":"approve","call_id":"c","reason":[]}`, `approve: "reason" must be a string`},
		{"deny no call_id", `{"type":"deny","reason":"x"}`, `deny: "call_id" is required`},
		{"deny reason object", `{"type":"deny","call_id":"c","reason":{}}`, `deny: "reason" must be a string`},
		{"set_model no role", `{"type":"set_model","spec":"a/b"}`, `set_model: "role" is required`},
		{"set_model empty role", `{"type":"set_model","role":"","spec":"a/b"}`, `set_model: "role" must not be empty`},
		{"set_model no spec", `{"type":"set_model","role":"main"}`, `set_model: "spec" is required`},
		{"set_model spec number", `{"type":"set_model","role":"main","spec":1}`, `set_model: "spec" must be a string`},
		{"set_policy no patterns", `{"type":"set_policy"}`, `set_policy: "patterns" is required`},
		{"set_policy null", `{"type":"set_policy","patterns":null}`, `set_policy: "patterns" must be an array of strings`},
		{"set_policy string", `{"type":"set_policy","patterns":"read_*"}`, `set_policy: "patterns" must be an array of strings`},
		{"set_policy object", `{"type":"set_policy","patterns":{}}`, `set_policy: "patterns" must be an array of strings`},
		{"set_policy number item", `{"type":"set_policy","patterns":["a",1]}`, `set_policy: "patterns"[1] must be a string`},
		{"set_policy null item", `{"type":"set_policy","patterns":[null]}`, `set_policy: "patterns"[0] must be a string`},
		{"set_policy too many", policyFrame(patterns(129, 1)), `set_policy: "patterns" holds 129 patterns; the limit is 128`},
		{"set_policy too long", policyFrame(append(patterns(2, 1), strings.Repeat("é", 257))), `set_policy: "patterns"[2] is 257 characters; the limit is 256`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := remote.DecodeClient([]byte(tt.in))
			fe, ok := errors.AsType[*remote.FrameError](err)
			if !ok {
				t.Fatalf("DecodeClient: got %v, %v; want a *FrameError", f, err)
			}
			if fe.Message != tt.want {
				t.Errorf("message: got %q, want %q", fe.Message, tt.want)
			}
			if got := fe.Frame(); got != (remote.ErrorFrame{Code: remote.BadFrame, Message: tt.want}) {
				t.Errorf("Frame: got %+v", got)
			}
		})
	}
}

// roundTrip checks that f encodes as want and decodes back to f.
func roundTrip[F any](t *testing.T, decode func([]byte) (F, error), f F, want string) {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("json.Marshal(%#v): got %s, want %s", f, b, want)
	}
	decodes(t, decode, string(b), f)
}

// Client frames encode with "type" first, and decode back.
func TestEncodeClient(t *testing.T) {
	tests := []struct {
		f    remote.ClientFrame
		want string
	}{
		{remote.Subscribe{FromSeq: 5}, `{"type":"subscribe","from_seq":5}`},
		{remote.Inject{Text: "hi", Wake: true}, `{"type":"inject","text":"hi","wake":true}`},
		{remote.Inject{Text: "hi"}, `{"type":"inject","text":"hi","wake":false}`},
		{remote.Cancel{}, `{"type":"cancel"}`},
		{remote.Cancel{Reason: "user"}, `{"type":"cancel","reason":"user"}`},
		{remote.Approve{CallID: "c1"}, `{"type":"approve","call_id":"c1"}`},
		{remote.Approve{CallID: "c1", Reason: "ok"}, `{"type":"approve","call_id":"c1","reason":"ok"}`},
		{remote.Deny{CallID: "c1", Reason: "no"}, `{"type":"deny","call_id":"c1","reason":"no"}`},
		{remote.SetModel{Role: "main", Spec: "p/m"}, `{"type":"set_model","role":"main","spec":"p/m"}`},
		{remote.SetPolicy{Patterns: []string{}}, `{"type":"set_policy","patterns":[]}`},
		{remote.SetPolicy{Patterns: []string{"a*"}}, `{"type":"set_policy","patterns":["a*"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) { roundTrip(t, remote.DecodeClient, tt.f, tt.want) })
	}
	if b, _ := json.Marshal(remote.SetPolicy{}); string(b) != `{"type":"set_policy","patterns":[]}` {
		t.Errorf("SetPolicy with nil patterns: got %s", b)
	}
}

// The server's frames encode exactly as the contract's examples, and decode back.
func TestServerFrames(t *testing.T) {
	tests := []struct {
		f    remote.ServerFrame
		want string
	}{
		{remote.NewHello("s1", 41), `{"type":"hello","proto":1,"session_id":"s1","last_seq":41}`},
		{remote.ReplayTruncated{RequestedFromSeq: 0, FromSeq: 5001}, `{"type":"replay_truncated","requested_from_seq":0,"from_seq":5001}`},
		{remote.ErrorFrame{Code: remote.Unauthorized, Message: "bad token"}, `{"type":"error","code":"unauthorized","message":"bad token"}`},
		{remote.Event{ID: "5f2c...", SessionID: "s1", Seq: 7, At: "2026-08-18T04:10:11.123456Z", Type: "assistant/chunk",
			Payload: json.RawMessage(`{"text":"22C"}`)},
			`{"id":"5f2c...","session_id":"s1","seq":7,"at":"2026-08-18T04:10:11.123456Z","type":"assistant/chunk","payload":{"text":"22C"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) { roundTrip(t, remote.DecodeServer, tt.f, tt.want) })
	}
}

func TestDecodeServer(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want remote.ServerFrame
	}{
		{"seq decides", `{"seq":3,"type":"hello","payload":{}}`, remote.Event{Seq: 3, Type: "hello", Payload: json.RawMessage(`{}`)}},
		{"event extra key", `{"seq":0,"type":"session/created","payload":null,"v":2}`,
			remote.Event{Type: "session/created", Payload: json.RawMessage(`null`)}},
		{"hello extra key", `{"type":"hello","proto":1,"session_id":"s","last_seq":0,"x":1}`, remote.Hello{Proto: 1, SessionID: "s"}},
		{"unknown protocol frame", `{"type":"goodbye","in":5}`, remote.UnknownFrame{Type: "goodbye", Raw: json.RawMessage(`{"type":"goodbye","in":5}`)}},
		{"error of a later code", `{"type":"error","code":"throttled","message":"m"}`, remote.ErrorFrame{Code: "throttled", Message: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { decodes(t, remote.DecodeServer, tt.in, tt.want) })
	}
	for _, in := range []string{
		`[]`, `{"type":"hello"} {}`, `{"proto":1}`, `{"type":1}`, `{"seq":"7"}`, `{"seq":1.5}`, `{"seq":null}`,
		`{"seq":-1}`, `{"seq":1,"payload":nul}`, `{"seq":1,"id":5}`, `{"type":"hello","last_seq":"x"}`,
		`{"type":"replay_truncated","from_seq":true}`, `{"type":"error","code":5}`,
	} {
		if f, err := remote.DecodeServer([]byte(in)); err == nil {
			t.Errorf("DecodeServer(%s): got %#v, want an error", in, f)
		}
	}
}

func TestCodes(t *testing.T) {
	closes := map[remote.Code]bool{remote.Unauthorized: true, remote.Superseded: true, remote.Lagged: true, remote.Internal: true}
	if len(remote.Codes) != 8 {
		t.Errorf("Codes: got %d codes, want 8", len(remote.Codes))
	}
	for _, c := range remote.Codes {
		if !c.Known() {
			t.Errorf("%s.Known(): got false", c)
		}
		if c.Closes() != closes[c] {
			t.Errorf("%s.Closes(): got %v, want %v", c, c.Closes(), closes[c])
		}
	}
	if c := remote.Code("throttled"); c.Known() || c.Closes() {
		t.Errorf("an unknown code: got Known %v, Closes %v; want false, false", c.Known(), c.Closes())
	}
	err := error(remote.ErrorFrame{Code: remote.Lagged, Message: "slow"}.Err())
	if !remote.IsCode(err, remote.Lagged) || remote.IsCode(err, remote.Internal) || err.Error() != "remote: lagged: slow" {
		t.Errorf("ErrorFrame.Err: got %v", err)
	}
}

// FuzzDecodeClient: DecodeClient never panics, refuses only with a *FrameError that has
// a message, and whatever it accepts re-encodes to a frame that decodes the same.
func FuzzDecodeClient(f *testing.F) {
	for _, s := range []string{
		`{"type":"subscribe","from_seq":0}`, `{"type":"inject","text":"hi","wake":true}`, `{"type":"cancel"}`,
		`{"type":"cancel","reason":""}`, `{"type":"approve","call_id":"c","reason":"r"}`, `{"type":"deny","call_id":"c"}`,
		`{"type":"set_model","role":"main","spec":"a/b"}`, `{"type":"set_policy","patterns":["a*","\u00e9"]}`,
		`{"type":"subscribe","from_seq":1.5}`, `{"type":"subscribe","from_seq":-0}`, `{"type":"x"}`, `{}`, `[]`,
		`{"type":"cancel"} {}`, `{"type":"inject","text":"\ud800","wake":false}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := remote.DecodeClient(data)
		if err != nil {
			fe, ok := errors.AsType[*remote.FrameError](err)
			if !ok || fe.Message == "" {
				t.Fatalf("DecodeClient(%q): got %v, want a *FrameError with a message", data, err)
			}
			return
		}
		b, err := json.Marshal(fr)
		if err != nil {
			t.Fatalf("json.Marshal(%#v): %v", fr, err)
		}
		again, err := remote.DecodeClient(b)
		if err != nil {
			t.Fatalf("%q decoded to %#v, which encodes to %s, refused: %v", data, fr, b, err)
		}
		if diff := cmp.Diff(fr, again); diff != "" {
			t.Fatalf("%q: re-decoded frame differs (-first +again):\n%s", data, diff)
		}
	})
}
