package mcp_test

import (
	"context"
	"fmt"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/orcr-go/orcr/cmd/orcr/mcp"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// BenchmarkToolCall measures an agent_ls tool call through the MCP face (the SDK's own
// client on an in-memory transport, JSON-RPC both ways, the face's socket call, the
// structured result decoded by the client) against the same agent.ls called with the
// Go SDK over the Unix socket in the same run, on a server holding 0 and 10 agents,
// and reports the ratio: what the MCP layer adds to a call.
func BenchmarkToolCall(b *testing.B) {
	srv := sockettest.NewServer(b)
	c := &socketapi.Client{Socket: srv.Socket()}
	cs := connect(b, mcp.Options{Client: &socketapi.Client{Socket: srv.Socket()}})
	ctx := context.Background()
	have := 0
	for _, agents := range []int{0, 10} {
		for ; have < agents; have++ {
			p := map[string]any{"uuid": fmt.Sprintf("0190b000-0000-7000-8000-%012d", have), "path": fmt.Sprintf("bench/a%03d", have), "status": "idle"}
			if err := c.Call(ctx, "__debug.set_agent", p, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) {
			socket := func() error {
				r, err := c.Ls(ctx, api.LsRequest{All: true})
				if err == nil && len(r.Agents) != agents {
					err = fmt.Errorf("ls: %d agents", len(r.Agents))
				}
				return err
			}
			params := &sdk.CallToolParams{Name: "agent_ls", Arguments: map[string]any{"all": true}}
			tool := func() error {
				r, err := cs.CallTool(ctx, params)
				if err == nil && r.IsError {
					err = fmt.Errorf("agent_ls: %v", r.StructuredContent)
				}
				if m, _ := r.StructuredContent.(map[string]any); err == nil && len(m["agents"].([]any)) != agents {
					err = fmt.Errorf("agent_ls: %v", m)
				}
				return err
			}
			sockettest.CompareCalls(b, "socket", socket, "mcp", tool)
		})
	}
}
