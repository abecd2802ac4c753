package socketapi_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// rawCall is the baseline: what any client must do for one call — dial, write the
// request frame, read the reply line — with no encoding or decoding of Go values.
func rawCall(socket string, frame []byte) error {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write(frame); err != nil {
		return err
	}
	_, err = bufio.NewReader(c).ReadBytes('\n')
	return err
}

// BenchmarkTypedCall measures the typed SDK calls Ls and Snapshot (a fresh connection,
// the request encoded from its Go type, the result decoded into its Go type) against a
// raw socket round trip of the same request frame in the same run, on a server holding
// 0, 10 and 100 agents, and reports the ratio (aim: under 1.10). The raw side decodes
// nothing, so the ratio grows with the result: it is encoding/json's decoding of the
// rows (about 105 MB/s), which every client of the socket pays in some form.
func BenchmarkTypedCall(b *testing.B) {
	srv := sockettest.NewServer(b)
	c := &socketapi.Client{Socket: srv.Socket()}
	ctx := context.Background()
	have := 0
	for _, agents := range []int{0, 10, 100} {
		for ; have < agents; have++ {
			p := map[string]any{"uuid": fmt.Sprintf("0190b000-0000-7000-8000-%012d", have), "path": fmt.Sprintf("bench/a%03d", have), "status": "idle"}
			if err := c.Call(ctx, "__debug.set_agent", p, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) { benchTyped(b, srv.Socket(), c, agents) })
	}
}

func benchTyped(b *testing.B, socket string, c *socketapi.Client, agents int) {
	ctx := context.Background()
	cases := []struct {
		name  string
		frame string
		typed func() error
	}{
		{"Ls", `{"protocol":1,"id":1,"method":"agent.ls","params":{"all":true}}`, func() error {
			r, err := c.Ls(ctx, api.LsRequest{All: true})
			if err == nil && len(r.Agents) != agents {
				err = fmt.Errorf("ls: %d agents", len(r.Agents))
			}
			return err
		}},
		{"Snapshot", `{"protocol":1,"id":1,"method":"api.snapshot"}`, func() error {
			s, err := c.Snapshot(ctx)
			if err == nil && len(s.Agents) != agents {
				err = fmt.Errorf("snapshot: %d agents", len(s.Agents))
			}
			return err
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			frame := []byte(tc.frame + "\n")
			sockettest.CompareCalls(b, "raw", func() error { return rawCall(socket, frame) }, "typed", tc.typed)
		})
	}
}
