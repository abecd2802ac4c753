package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestFrameReaderLimits(t *testing.T) {
	exact := strings.Repeat("a", 64)
	tests := []struct {
		name  string
		in    string
		max   int
		want  []string
		final error
	}{
		{"two frames", "{\"a\":1}\n{\"b\":2}\n", 0, []string{`{"a":1}`, `{"b":2}`}, io.EOF},
		{"blank lines skipped", "\n  \n{}\n\t\n", 0, []string{`{}`}, io.EOF},
		{"exactly at cap", exact + "\n", 64, []string{exact}, io.EOF},
		{"one byte over cap", exact + "a\n", 64, nil, wire.ErrFrameTooLarge},
		{"truncated", "{\"a\":", 0, nil, wire.ErrTruncatedFrame},
		{"trailing blank without newline", "{}\n  ", 0, []string{`{}`}, io.EOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fr := wire.NewFrameReader(strings.NewReader(tc.in), tc.max)
			var got []string
			var err error
			for {
				var b []byte
				b, err = fr.Next()
				if err != nil {
					break
				}
				got = append(got, string(b))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("frames: got %q, want %q", got, tc.want)
			}
			if !errors.Is(err, tc.final) {
				t.Errorf("final error: got %v, want %v", err, tc.final)
			}
		})
	}
}

func TestFrameReaderCapIsEnforcedWhileReading(t *testing.T) {
	// A reader that would hand out 64 MiB never gets drained past the cap.
	var served int
	r := readerFunc(func(p []byte) (int, error) {
		for i := range p {
			p[i] = 'x'
		}
		served += len(p)
		return len(p), nil
	})
	fr := wire.NewFrameReader(r, 1<<20)
	if _, err := fr.Next(); !errors.Is(err, wire.ErrFrameTooLarge) {
		t.Fatalf("Next: got %v, want ErrFrameTooLarge", err)
	}
	if served > 2<<20 {
		t.Errorf("read %d bytes for a 1 MiB cap: the line was buffered past the limit", served)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name       string
		frame      string
		wantReason string
		wantID     string
		wantProto  int64
		wantHas    bool
		wantParams string
	}{
		{"full", `{"protocol":1,"id":7,"method":"m","params":{"a":1}}`, "", "7", 1, true, `{"a":1}`},
		{"string id and unknown fields", `{"protocol":1,"id":"x","method":"m","zzz":true}`, "", `"x"`, 1, true, `{}`},
		{"object id", `{"id":{"k":[1]},"method":"m"}`, "", `{"k":[1]}`, 0, false, `{}`},
		{"no id", `{"method":"m","protocol":1}`, "", "null", 1, true, `{}`},
		{"negative protocol reads 0", `{"method":"m","protocol":-3}`, "", "null", 0, true, `{}`},
		{"string protocol reads 0", `{"method":"m","protocol":"1"}`, "", "null", 0, true, `{}`},
		{"float protocol reads 0", `{"method":"m","protocol":1.5}`, "", "null", 0, true, `{}`},
		{"non-object params kept", `{"method":"m","params":5}`, "", "null", 0, false, `5`},
		{"null params", `{"method":"m","params":null}`, "", "null", 0, false, `{}`},
		{"not json", `{nope`, "bad_json", "", 0, false, ""},
		{"array", `[1,2]`, "bad_json", "", 0, false, ""},
		{"scalar", `42`, "bad_json", "", 0, false, ""},
		{"null", `null`, "bad_json", "", 0, false, ""},
		{"two values", `{"method":"m"} {"method":"n"}`, "bad_json", "", 0, false, ""},
		{"missing method", `{"id":1}`, "missing_method", "", 0, false, ""},
		{"method not string", `{"id":1,"method":5}`, "missing_method", "", 0, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := wire.DecodeRequest([]byte(tc.frame))
			if tc.wantReason != "" {
				if err == nil || err.Reason() != tc.wantReason || err.Code != wire.InvalidRequest {
					t.Fatalf("DecodeRequest(%s): got %v, want invalid_request %s", tc.frame, err, tc.wantReason)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeRequest(%s): %v", tc.frame, err)
			}
			if string(req.ID) != tc.wantID {
				t.Errorf("id: got %s, want %s", req.ID, tc.wantID)
			}
			if req.Protocol != tc.wantProto || req.HasProtocol != tc.wantHas {
				t.Errorf("protocol: got %d/%v, want %d/%v", req.Protocol, req.HasProtocol, tc.wantProto, tc.wantHas)
			}
			if string(req.Params) != tc.wantParams {
				t.Errorf("params: got %s, want %s", req.Params, tc.wantParams)
			}
		})
	}
}

func TestEncodeResponse(t *testing.T) {
	ok, _ := wire.EncodeResponse(json.RawMessage(`"a"`), nil, nil)
	if string(ok) != `{"id":"a","ok":true,"result":null}` {
		t.Errorf("success with nil result: got %s", ok)
	}
	e, _ := wire.EncodeResponse(nil, nil, wire.New(wire.NotFound, "gone"))
	if string(e) != `{"id":null,"ok":false,"error":{"code":"not_found","message":"gone"}}` {
		t.Errorf("error without details must omit details: got %s", e)
	}
	d, _ := wire.EncodeResponse(json.RawMessage(`3`), nil, wire.Invalid("bad_json", "x"))
	if !bytes.Contains(d, []byte(`"details":{"reason":"bad_json"}`)) {
		t.Errorf("details missing: %s", d)
	}
}

func TestExitCodes(t *testing.T) {
	want := map[wire.Code]int{"not_found": 6, "invalid_request": 1, "state_conflict": 7, "blocked": 4,
		"timeout": 3, "integration_missing": 2, "transcript_unavailable": 1, "environment_error": 2, "server_error": 1}
	if len(wire.Codes) != 9 {
		t.Fatalf("got %d codes, want 9", len(wire.Codes))
	}
	for c, exit := range want {
		if got := c.Exit(); got != exit {
			t.Errorf("%s.Exit(): got %d, want %d", c, got, exit)
		}
	}
	if got := wire.Code("bogus").Exit(); got != 1 {
		t.Errorf("unknown code exit: got %d, want 1", got)
	}
}

// An id holding invalid UTF-8 is echoed with U+FFFD in place of the bad bytes; a valid
// id is echoed as sent (docs/protocol.md §2.3).
func TestEncodeResponseID(t *testing.T) {
	tests := []struct {
		name, id, want string
	}{
		{"absent", ``, `null`},
		{"number keeps its digits", `12345678901234567890`, `12345678901234567890`},
		{"valid string verbatim", `"h\u00e9 \ud83d\ude00 é"`, `"h\u00e9 \ud83d\ude00 é"`},
		{"invalid string byte", "\"a\xffb\"", "\"a\ufffdb\""},
		{"invalid bytes in an object", "{\"k\xc3\":[1,\"\xe2\x82\"]}", "{\"k\ufffd\":[1,\"\ufffd\ufffd\"]}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := wire.EncodeResponse(json.RawMessage(tc.id), nil, nil)
			if err != nil {
				t.Fatalf("EncodeResponse(id %q): %v", tc.id, err)
			}
			var env struct{ ID json.RawMessage }
			if err := json.Unmarshal(out, &env); err != nil || !utf8.Valid(out) {
				t.Fatalf("EncodeResponse(id %q) = %q: not valid UTF-8 JSON (%v)", tc.id, out, err)
			}
			if got := string(env.ID); got != tc.want {
				t.Errorf("EncodeResponse(id %q): id got %s, want %s", tc.id, got, tc.want)
			}
		})
	}
}

// FuzzDecode feeds arbitrary bytes through the frame reader and the envelope decoder:
// neither may panic, every frame respects the cap, and every decoded request or error
// re-encodes as a response envelope that is valid UTF-8 and valid JSON, whatever bytes
// the id, method or params held.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"protocol":1,"id":1,"method":"server.handshake","params":{}}` + "\n",
		`{"id":"x","method":"events.subscribe","params":{"since_seq":"3"}}` + "\n\n",
		"{nope\n[1]\n{\"method\":5}\n",
		`{"method":"m","protocol":1e400}` + "\n",
		"\xff\xfe{\"method\":\"\\ud800\"}\n",
		`{"method":"m","id":{"a":[1,{"b":null}]},"params":[]}`,
		"{\"protocol\":1,\"id\":\"\xff\xfe\",\"method\":\"server.handshake\"}\n",
		"{\"id\":{\"\xc3\":[\"\xe2\x82\"]},\"method\":\"m\"}\n",
		"{\"protocol\":1,\"id\":1,\"method\":\"agent.\xff\"}\n",
		"{\"protocol\":1,\"id\":2,\"method\":\"agent.ls\",\"params\":{\"pattern\":\"\xed\xa0\x80\"}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := wire.NewFrameReader(bytes.NewReader(data), 4096)
		for {
			line, err := fr.Next()
			if err != nil {
				return
			}
			if len(line) > 4096 {
				t.Fatalf("frame of %d bytes passed a 4096-byte cap", len(line))
			}
			req, perr := wire.DecodeRequest(line)
			var out []byte
			if perr != nil {
				if perr.Code != wire.InvalidRequest {
					t.Fatalf("decode error code %s", perr.Code)
				}
				out, _ = wire.EncodeResponse(nil, nil, perr)
			} else {
				if req.Protocol < 0 || req.Method == "" && !strings.Contains(string(line), `"method"`) {
					t.Fatalf("bad decode of %q: %+v", line, req)
				}
				out, err = wire.EncodeResponse(req.ID, map[string]any{"m": req.Method}, nil)
				if err != nil {
					t.Fatalf("re-encode with id %s: %v", req.ID, err)
				}
			}
			if !utf8.Valid(out) || !json.Valid(out) {
				t.Fatalf("response %q to %q is not valid UTF-8 JSON", out, line)
			}
			var v map[string]any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("response %s is not a JSON object: %v", out, err)
			}
		}
	})
}

// Only `"progress": true` asks for progress frames; a request without it, or with any
// other value, asks for none (docs/protocol.md §2.7).
func TestDecodeRequestProgress(t *testing.T) {
	for frame, want := range map[string]bool{
		`{"method":"agent.kill","progress":true}`:   true,
		`{"method":"agent.kill"}`:                   false,
		`{"method":"agent.kill","progress":false}`:  false,
		`{"method":"agent.kill","progress":"true"}`: false,
		`{"method":"agent.kill","progress":1}`:      false,
		`{"method":"agent.kill","progress":null}`:   false,
	} {
		req, err := wire.DecodeRequest([]byte(frame))
		if err != nil {
			t.Fatalf("%s: %v", frame, err)
		}
		if req.Progress != want {
			t.Errorf("%s: progress %v, want %v", frame, req.Progress, want)
		}
	}
}

// ReportProgress reaches the reporter of its context, and is a no-op without one.
func TestReportProgress(t *testing.T) {
	wire.ReportProgress(t.Context(), 1, 2) // no reporter: nothing happens
	var got []wire.Progress
	ctx := wire.WithProgress(t.Context(), func(p wire.Progress) { got = append(got, p) })
	wire.ReportProgress(ctx, 3, 10)
	if len(got) != 1 || got[0] != (wire.Progress{Done: 3, Total: 10}) {
		t.Errorf("reported %+v, want [{3 10}]", got)
	}
}
