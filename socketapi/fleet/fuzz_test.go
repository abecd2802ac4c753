package fleet_test

import (
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
)

// A request frame from any client of the fleet gets one response frame, valid UTF-8
// JSON with ok false (invalid_request, or environment_error for another protocol), and
// never reaches the facade while nothing is allowed.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{``, `{}`, `[]`, `{"method":"agent.ls"}`, `{"protocol":1,"id":"\xff","method":"agent.kill","params":{}}`,
		`{"protocol":1,"id":1,"method":"agent.fly"}`, `{"method":7}`, `{"method":"agent.ls"} {}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		out := fleet.Handle(context.Background(), nil, fleet.Caller{Host: "web", From: "hub", Policy: "fleet.allow"}, frame)
		if !utf8.Valid(out) {
			t.Fatalf("reply %q is not UTF-8", out)
		}
		res, werr := fleet.DecodeReply(out)
		if werr == nil || res != nil || (werr.Code != wire.InvalidRequest && werr.Cause() != wire.CauseUnsupportedVersion) {
			t.Fatalf("reply %s: want an invalid_request error", out)
		}
	})
}

// A member's reply, whatever a peer sent, is a result or a typed error.
func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{`{"id":1,"ok":true,"result":{"agents":[]}}`, `{"id":1,"ok":false,"error":{"code":"nope"}}`,
		`{"ok":false}`, `[]`, `{"ok":"yes"}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, werr := fleet.DecodeReply(data)
		if werr != nil {
			if !werr.Code.Known() || werr.Message == "" {
				t.Fatalf("DecodeReply(%q): error %+v", data, werr)
			}
			return
		}
		if len(res) > 0 && !json.Valid(res) {
			t.Fatalf("DecodeReply(%q): result %q", data, res)
		}
	})
}

// A stream message, whatever a member published, decodes to a valid event or an error.
func FuzzDecodeEventMsg(f *testing.F) {
	for _, s := range []string{`{"host":"web","seq":1,"ts":5,"event":{"kind":"agent.created"}}`, `{"host":"Web","seq":1,"event":{}}`,
		`{"host":"web","seq":0,"event":{}}`, `{"host":"web","seq":2,"event":[]}`, `null`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := fleet.DecodeEventMsg(data)
		if err != nil {
			return
		}
		if m.Seq < 1 || m.Host == "" || len(m.Event) == 0 || m.Event[0] != '{' {
			t.Fatalf("DecodeEventMsg(%q) = %+v", data, m)
		}
	})
}
