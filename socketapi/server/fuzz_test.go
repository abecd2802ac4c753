package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// sideEffects are the methods the fuzz target never sends: they would stop the shared
// server or create agents and so change what later inputs see.
var sideEffects = map[string]bool{"server.stop": true, "agent.run": true, "agent.ask": true, "agent.kill": true}

// FuzzReplyFramesAreUTF8JSON sends arbitrary bytes as request frames to a real server
// and checks that every frame it writes back is valid UTF-8 and valid JSON, whatever the
// id, the method or the params held (docs/protocol.md §2.1, §2.3): ids are echoed, and
// error messages and details repeat method names and params.
func FuzzReplyFramesAreUTF8JSON(f *testing.F) {
	for _, s := range []string{
		`{"protocol":1,"id":1,"method":"server.handshake"}`,
		"{\"protocol\":1,\"id\":\"\xff\xfe\",\"method\":\"server.handshake\"}",
		"{\"protocol\":1,\"id\":{\"k\xc3\":[1,\"\xe2\x82\"]},\"method\":\"agent.fly\"}",
		"{\"protocol\":2,\"id\":\"\xed\xa0\x80\",\"method\":\"server.handshake\"}",
		"{\"protocol\":1,\"id\":3,\"method\":\"agent.\xff\xfe\"}",
		"{\"protocol\":1,\"id\":\"\xc0\",\"method\":\"loop.\xc0ls\"}",
		"{\"protocol\":1,\"id\":4,\"method\":\"agent.ls\",\"params\":{\"pattern\":\"review/\xff\"}}",
		"{\"protocol\":1,\"id\":5,\"method\":\"agent.send\",\"params\":{\"target\":\"0190\xff-abcd0000\",\"prompt\":\"\xff\"}}",
		"{\"protocol\":1,\"id\":6,\"method\":\"agent.wait\",\"params\":{\"targets\":[\"a/\xe2\x82\"],\"timeout\":\"\xff\"}}",
		"{\"id\":\"\xf0\x9f\",\"method\":5}\n\xff\xfe\n{\"protocol\":1,\"id\":[\"\xff\"],\"method\":\"api.snapshot\"}",
	} {
		f.Add([]byte(s))
	}
	srv := sockettest.NewServer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := 0
		fr := wire.NewFrameReader(bytes.NewReader(append(bytes.Clone(data), '\n')), 0)
		for {
			line, err := fr.Next()
			if err != nil {
				break
			}
			frames++
			if req, perr := wire.DecodeRequest(line); perr == nil &&
				(sideEffects[req.Method] || strings.HasPrefix(req.Method, "__debug.")) {
				t.Skip("method with side effects")
			}
		}
		c, err := net.Dial("unix", srv.Socket())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// A last handshake makes sure at least one answer comes; every frame gets exactly
		// one response.
		in := append(append(bytes.Clone(data), '\n'), `{"protocol":1,"id":"last","method":"server.handshake"}`+"\n"...)
		go c.Write(in)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		replies := wire.NewFrameReader(c, 0)
		for responses := 0; responses < frames+1; {
			out, err := replies.Next()
			if errors.Is(err, io.EOF) {
				return // the server closed the connection after a framing error
			}
			if err != nil {
				t.Fatalf("after %d of %d responses to %q: %v", responses, frames+1, data, err)
			}
			if !utf8.Valid(out) || !json.Valid(out) {
				t.Fatalf("reply %q to %q is not valid UTF-8 JSON", out, data)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatalf("reply %q is not a JSON object: %v", out, err)
			}
			if _, ok := m["ok"]; ok {
				responses++
			}
		}
	})
}
