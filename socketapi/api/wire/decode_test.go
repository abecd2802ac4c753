package wire_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// referenceDecode is the envelope decoder as it was before the in-place walk: a
// json.Decoder pass into a map of raw values, then one Unmarshal per field. The walk must
// read every frame the same way (sameDecode), except where this one strayed from
// docs/protocol.md §2.5: it let through what follows a complete object when that was not
// itself a JSON value (`{...}}`), and took `"method": null` for the method "".
func referenceDecode(frame []byte) (*wire.Request, *wire.Error) {
	var raw map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(frame))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil || raw == nil {
		return nil, wire.Invalid(wire.ReasonBadJSON, "request is not a JSON object")
	}
	if d.More() {
		return nil, wire.Invalid(wire.ReasonBadJSON, "request frame holds more than one JSON value")
	}
	var tok json.RawMessage
	if err := d.Decode(&tok); err == nil {
		return nil, wire.Invalid(wire.ReasonBadJSON, "request frame holds more than one JSON value")
	}
	req := &wire.Request{ID: wire.NullID(), Params: json.RawMessage("{}")}
	m, ok := raw["method"]
	if !ok || json.Unmarshal(m, &req.Method) != nil {
		return nil, wire.Invalid(wire.ReasonMissingMethod, "request has no string \"method\"")
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

// sameDecode fails t when DecodeRequest and referenceDecode read frame differently.
func sameDecode(t *testing.T, frame []byte) {
	t.Helper()
	got, gerr := wire.DecodeRequest(frame)
	want, werr := referenceDecode(frame)
	switch {
	case gerr != nil && werr != nil:
		if gerr.Reason() != werr.Reason() && (gerr.Reason() != wire.ReasonBadJSON || json.Valid(frame)) {
			t.Fatalf("%q: reason %s, the reference %s", frame, gerr.Reason(), werr.Reason())
		}
	case gerr != nil && gerr.Reason() == wire.ReasonMissingMethod && want.Method == "":
		// the reference took "method": null for the method ""
		var env map[string]json.RawMessage
		if json.Unmarshal(frame, &env) != nil || string(env["method"]) != "null" {
			t.Fatalf("%q: missing_method, the reference read method %q", frame, want.Method)
		}
	case gerr != nil:
		if gerr.Reason() != wire.ReasonBadJSON || json.Valid(frame) {
			t.Fatalf("%q: refused (%v) what the reference read as %+v", frame, gerr, want)
		}
	case werr != nil:
		t.Fatalf("%q: read as %+v, the reference refused it (%v)", frame, got, werr)
	default:
		if got.Method != want.Method || !bytes.Equal(got.ID, want.ID) || !bytes.Equal(got.Params, want.Params) ||
			got.Protocol != want.Protocol || got.HasProtocol != want.HasProtocol || got.Progress != want.Progress {
			t.Fatalf("%q:\n got  %+v (id %s, params %s)\n want %+v (id %s, params %s)",
				frame, got, got.ID, got.Params, want, want.ID, want.Params)
		}
	}
}

// Frames a client may send, and the odd ones: escaped keys, repeated keys (the last
// counts), values of every kind around the fields orcr reads, whitespace everywhere.
var decodeCases = []string{
	`{"protocol":1,"id":1,"method":"server.handshake","params":{}}`,
	` { "id" : "a b" , "method" : "agent.ls" , "params" : { "pattern" : "p/**" } } `,
	"{\n\t\"method\":\"m\",\r\n\"params\":null}",
	`{"method":"m","params":[1,"]",{"}":"{"}],"id":{"a":[{}]}}`,
	`{"\u006dethod":"m","pr\u006ftocol":2}`,
	`{"method":"a","method":"b","protocol":3,"protocol":"4","progress":true,"progress":false}`,
	`{"method":"a","method":5}`,
	`{"method":5,"method":"a"}`,
	`{"method":null}`,
	`{"method":"caf\u00e9 \"q\" \\"}`,
	"{\"method\":\"\xff\xfe\"}",
	"{\"method\":\"a\x7fb\"}",
	`{"method":"m","protocol":-1}`,
	`{"method":"m","protocol":1.0}`,
	`{"method":"m","protocol":1e3}`,
	`{"method":"m","protocol":9223372036854775807}`,
	`{"method":"m","protocol":9223372036854775808}`,
	`{"method":"m","protocol":000000000000000001}`,
	`{"method":"m","protocol":null,"progress":null}`,
	`{"method":"m","progress":"true","id":-0.5e-3}`,
	`{"method":"m","id":true,"params":false}`,
	`{"METHOD":"m"}`,
	`{}`, `[]`, `null`, `"method"`, `{"method":"m"} {}`, `{"method":"m"}}`, `{"method":"m"`, ``, ` `,
}

func TestDecodeRequestMatchesTheReference(t *testing.T) {
	for _, c := range decodeCases {
		sameDecode(t, []byte(c))
	}
}

// The id and params outlive the frame reader's buffer: they are the request's own.
func TestDecodeRequestOwnsItsBytes(t *testing.T) {
	frame := []byte(`{"id":"abc","method":"m","params":{"k":1}}`)
	req, err := wire.DecodeRequest(frame)
	if err != nil {
		t.Fatal(err)
	}
	for i := range frame {
		frame[i] = 'x'
	}
	if string(req.ID) != `"abc"` || string(req.Params) != `{"k":1}` || req.Method != "m" {
		t.Fatalf("after the frame's bytes changed: id %s, params %s, method %q", req.ID, req.Params, req.Method)
	}
}

// FuzzDecodeSameAsReference holds the in-place walk to the map-based reader on any bytes.
func FuzzDecodeSameAsReference(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, frame []byte) { sameDecode(t, frame) })
}

// BenchmarkDecodeRequest: a handshake frame and an agent.send frame, each decoded by
// DecodeRequest and by the reference reader in the same run; the ratio is printed.
func BenchmarkDecodeRequest(b *testing.B) {
	frames := map[string][]byte{
		"handshake": []byte(`{"protocol":1,"id":1,"method":"server.handshake","params":{"client":"orcr-go","version":"0.1.0"}}`),
		"send":      []byte(`{"protocol":1,"id":42,"method":"agent.send","params":{"target":"proj/feature/worker-1","text":"run the tests and fix what fails, then say done","wait":true}}`),
	}
	for name, frame := range frames {
		b.Run(name, func(b *testing.B) {
			var walk, ref float64
			b.Run("walk", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, _ = wire.DecodeRequest(frame)
				}
				walk = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			})
			b.Run("reference", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, _ = referenceDecode(frame)
				}
				ref = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			})
			if ref > 0 {
				b.Logf("%s: %.0f ns walk, %.0f ns reference: ratio %.2f", name, walk, ref, walk/ref)
			}
		})
	}
}

// What docs/protocol.md §2.5 refuses: a method that is not a string (null included) is
// missing_method; anything after the one object is bad_json.
func TestDecodeRequestRefuses(t *testing.T) {
	for frame, reason := range map[string]string{
		`{"method":null}`:           wire.ReasonMissingMethod,
		`{"method":1}`:              wire.ReasonMissingMethod,
		`{"Method":"m"}`:            wire.ReasonMissingMethod,
		`{"method":"m"}}`:           wire.ReasonBadJSON,
		`{"method":"m"}]`:           wire.ReasonBadJSON,
		`{"method":"m"} {"a":1}`:    wire.ReasonBadJSON,
		`[{"method":"m"}]`:          wire.ReasonBadJSON,
		"{\"method\":\"m\"}\x00":    wire.ReasonBadJSON,
		`{"method":"m","id":1,}`:    wire.ReasonBadJSON,
		`{"method":"m","id":01}`:    wire.ReasonBadJSON,
		`{"method":"m" "id":1}`:     wire.ReasonBadJSON,
		`{"method":"m","params":{}`: wire.ReasonBadJSON,
	} {
		if _, err := wire.DecodeRequest([]byte(frame)); err == nil || err.Reason() != reason {
			t.Errorf("%q: got %v, want reason %s", frame, err, reason)
		}
	}
}
