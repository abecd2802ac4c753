package socketapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// cannedServer answers every request on a real Unix socket with reply, as one line.
func cannedServer(t *testing.T, reply string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if _, err := bufio.NewReader(c).ReadBytes('\n'); err == nil {
				_, _ = c.Write([]byte(reply + "\n"))
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return sock
}

// A call's reply decodes into the caller's result; an error frame is the error and
// leaves the result alone; a result of the wrong shape is a decode error naming the
// method, and a reply that is not JSON one naming the reply.
func TestCallDecodesTheReply(t *testing.T) {
	ctx := context.Background()
	call := func(reply string, result any) error {
		c := &socketapi.Client{Socket: cannedServer(t, reply)}
		return c.Call(ctx, "agent.ls", map[string]any{"all": true}, result)
	}

	var ls api.LsResult
	if err := call(`{"id":1,"ok":true,"result":{"agents":[{"uuid":"u1","path":"a/b","status":"idle"}]}}`, &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Agents) != 1 || ls.Agents[0].Path != "a/b" || ls.Agents[0].Status != "idle" {
		t.Errorf("decoded %+v", ls)
	}
	var raw json.RawMessage
	if err := call(`{"id":1,"ok":true,"result":{"x":[1, 2]}}`, &raw); err != nil || string(raw) != `{"x":[1, 2]}` {
		t.Errorf("raw result %s, %v", raw, err)
	}
	if err := call(`{"id":1,"ok":true,"result":{"x":1}}`, nil); err != nil {
		t.Errorf("a nil result: %v", err)
	}

	kept := api.LsResult{Agents: []api.AgentRow{{Path: "kept"}}}
	err := call(`{"id":1,"ok":false,"error":{"code":"not_found","message":"no agent matches x","details":{"target":"x"}}}`, &kept)
	if !wire.Is(err, wire.NotFound, "") || !strings.Contains(err.Error(), "no agent matches x") {
		t.Errorf("an error frame: %v, want not_found", err)
	}
	if len(kept.Agents) != 1 || kept.Agents[0].Path != "kept" {
		t.Errorf("an error frame changed the result: %+v", kept)
	}
	if err := call(`{"id":1,"ok":false}`, &ls); !wire.Is(err, wire.ServerError, "") {
		t.Errorf("an error frame with no error: %v, want server_error", err)
	}

	err = call(`{"id":1,"ok":true,"result":{"agents":"many"}}`, &ls)
	if !wire.Is(err, wire.ServerError, wire.CauseDecode) || !strings.Contains(err.Error(), "cannot decode result of agent.ls") {
		t.Errorf("a result of the wrong shape: %v, want a decode error naming agent.ls", err)
	}
	err = call(`{"id":1,"ok":tru`, &ls)
	if !wire.Is(err, wire.ServerError, wire.CauseDecode) || !strings.Contains(err.Error(), "cannot decode server reply") {
		t.Errorf("a reply that is not JSON: %v, want a decode error naming the reply", err)
	}
}
