// Command otheruid is the client the second-uid tests (tests/otheruid_test.go) run as
// another local user against a server's listening faces. It makes one attempt and
// prints what came of it as one JSON line on stdout, exit 0 whatever the answer:
//
//	otheruid unix PATH       connect to a Unix socket and send server.handshake:
//	                         {"err": …} or {"reply": first line}
//	otheruid http METHOD URL [BODY]
//	                         a request with BODY (default {}) as JSON: {"status": code}
//	otheruid ws URL          a WebSocket upgrade: {"status": code} when refused,
//	                         else {"frame": the first frame's text}
//	otheruid read PATH       read a file: {"err": …} or {"bytes": n}
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/coder/websocket"
)

type outcome struct {
	Err    string `json:"err,omitempty"`
	Reply  string `json:"reply,omitempty"`
	Status int    `json:"status,omitempty"`
	Frame  string `json:"frame,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: otheruid unix PATH | http METHOD URL [BODY] | ws URL | read PATH")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var o outcome
	switch os.Args[1] {
	case "unix":
		o = unixProbe(ctx, os.Args[2])
	case "http":
		body := "{}"
		if len(os.Args) > 4 {
			body = os.Args[4]
		}
		o = httpProbe(ctx, os.Args[2], os.Args[3], body)
	case "ws":
		o = wsProbe(ctx, os.Args[2])
	case "read":
		b, err := os.ReadFile(os.Args[2])
		o = outcome{Bytes: len(b)}
		if err != nil {
			o = outcome{Err: err.Error()}
		}
	default:
		fmt.Fprintln(os.Stderr, "otheruid: unknown probe", os.Args[1])
		os.Exit(2)
	}
	json.NewEncoder(os.Stdout).Encode(o)
}

func unixProbe(ctx context.Context, path string) outcome {
	c, err := (&net.Dialer{}).DialContext(ctx, "unix", path)
	if err != nil {
		return outcome{Err: err.Error()}
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(`{"protocol":1,"id":1,"method":"server.handshake","params":{}}` + "\n")); err != nil {
		return outcome{Err: err.Error()}
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if line == "" && err != nil {
		return outcome{Err: err.Error()}
	}
	return outcome{Reply: strings.TrimSpace(line)}
}

func httpProbe(ctx context.Context, method, url, body string) outcome {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return outcome{Err: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return outcome{Err: err.Error()}
	}
	resp.Body.Close()
	return outcome{Status: resp.StatusCode}
}

func wsProbe(ctx context.Context, url string) outcome {
	c, resp, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		if resp != nil {
			return outcome{Status: resp.StatusCode}
		}
		return outcome{Err: err.Error()}
	}
	defer c.CloseNow()
	_, data, err := c.Read(ctx)
	if err != nil {
		return outcome{Err: err.Error()}
	}
	return outcome{Frame: string(data)}
}
