package mcp_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/orcr-go/orcr/cmd/orcr/mcp"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

const (
	initLine        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"orcr-test","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// stdioExchange serves one stdio session on input (its end is the client closing stdin)
// and returns every line written to stdout, decoded; a line that is not a JSON object
// fails the test.
func stdioExchange(t *testing.T, o mcp.Options, input string) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	if err := mcp.ServeStdio(ctxFor(t, 20e9), o, strings.NewReader(input), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	var msgs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line %q is no JSON object: %v", line, err)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// byID indexes responses by their id's JSON text ("1", "\"a\"", "null" for the ones
// with a null id, which may repeat: the last wins, all are counted in nulls).
func byID(msgs []map[string]any) (map[string]map[string]any, []map[string]any) {
	ids := map[string]map[string]any{}
	var nulls []map[string]any
	for _, m := range msgs {
		id, ok := m["id"]
		if !ok {
			continue
		}
		if id == nil {
			nulls = append(nulls, m)
			continue
		}
		b, _ := json.Marshal(id)
		ids[string(b)] = m
	}
	return ids, nulls
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// A client that writes its requests and closes stdin gets an answer to every one of them
// before the session ends.
func TestStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	srv := sockettest.NewServer(t)
	input := strings.Join([]string{initLine, initializedLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"agent_ls","arguments":{"all":true}}}`,
	}, "\n") + "\n"
	ids, _ := byID(stdioExchange(t, options(t, srv.Home, "/", nil), input))
	for _, id := range []string{"1", "2", "3"} {
		if m, ok := ids[id]; !ok || m["result"] == nil {
			t.Errorf("request %s: answer %.200v, want a result (%d answers)", id, m, len(ids))
		}
	}
	if tools, _ := ids["2"]["result"].(map[string]any)["tools"].([]any); len(tools) != 11 {
		t.Errorf("tools/list before EOF: %d tools, want 11", len(tools))
	}
}

// A line that is no valid JSON-RPC message is answered with the JSON-RPC error of its
// kind — -32700 for what is not JSON, -32600 for JSON that is no request — with its id
// when it has a usable one, and the session goes on to answer what follows.
func TestStdioMalformedLinesKeepTheSession(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	bad := []struct {
		line string
		code float64
		id   string // the id the answer carries; "" for null
	}{
		{`this is not json`, -32700, ""},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/li`, -32700, ""},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":` + deep + `}`, -32700, ""},
		{`{"jsonrpc":"1.0","id":6,"method":"tools/list"}`, -32600, "6"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":[7],"method":"tools/list"}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":"eight","method":7}`, -32600, `"eight"`},
		{`[]`, -32600, ""},
		{`42`, -32600, ""},
		{`{"jsonrpc":"2.0","result":{}}`, -32600, ""},
	}
	lines := []string{initLine, initializedLine}
	for _, b := range bad {
		lines = append(lines, b.line, "")
	}
	// Valid messages the session has no use for are read and dropped, not fatal either:
	// an answer to a request never made, a notification of no known method.
	lines = append(lines, `{"jsonrpc":"2.0","id":77,"result":{}}`, `{"jsonrpc":"2.0","method":"notifications/nothing"}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	msgs := stdioExchange(t, options(t, sockettest.TempHome(t), "/", nil), strings.Join(lines, "\n")+"\n")
	ids, nulls := byID(msgs)
	wantNull := map[float64]int{}
	for _, b := range bad {
		if b.id == "" {
			wantNull[b.code]++
			continue
		}
		if got := errCode(ids[b.id]); got != b.code {
			t.Errorf("%.60q: answer %v, want error %v with id %s", b.line, ids[b.id], b.code, b.id)
		}
	}
	gotNull := map[float64]int{}
	for _, m := range nulls {
		gotNull[errCode(m)]++
	}
	for code, n := range wantNull {
		if gotNull[code] != n {
			t.Errorf("answers with a null id and error %v: %d, want %d (all: %v)", code, gotNull[code], n, nulls)
		}
	}
	if tools, _ := ids["9"]["result"].(map[string]any)["tools"].([]any); len(tools) != 11 {
		t.Errorf("tools/list after the malformed lines: %.200v, want its 11 tools", ids["9"])
	}
	if len(msgs) != len(bad)+2 {
		t.Errorf("%d lines on stdout, want %d: one per malformed line, initialize's and tools/list's", len(msgs), len(bad)+2)
	}
}

// Every line is either handed to the SDK as a message it decodes the same way, or
// answered with a JSON-RPC error of code -32700 or -32600 whose id is null, a string or
// a number; only a blank line gets neither.
func FuzzCheckLine(f *testing.F) {
	for _, s := range []string{initLine, initializedLine, "", " \r", "{", "[]", "[1]", "null", `"x"`, "1e999",
		`{"jsonrpc":"1.0","id":1,"method":"m"}`, `{"jsonrpc":"2.0","id":{},"method":"m"}`, `{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
		`{"jsonrpc":"2.0","id":"a","result":1}`, `{"jsonrpc":"2.0","id":null,"result":1}`, `{"jsonrpc":"2.0","method":"m"} x`,
		`{"jsonrpc":"2.0","id":-1,"method":"m","params":[` + strings.Repeat("[", 200) + `]}`, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"m\"}",
		"{\"jsonrpc\":\"1.0\",\"id\":\"\xff\",\"method\":\"m\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, reply := mcp.CheckLine(line)
		switch {
		case msg != nil && reply != nil:
			t.Fatalf("%q: both a message and a reply", line)
		case msg != nil:
			if _, err := jsonrpc.DecodeMessage(bytes.TrimRight(line, "\r")); err != nil {
				t.Fatalf("%q handed over, but the SDK refuses it: %v", line, err)
			}
		case reply != nil:
			var r struct {
				JSONRPC string
				ID      json.RawMessage
				Error   struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal(reply, &r); err != nil || bytes.ContainsAny(reply, "\n") || !utf8.Valid(reply) {
				t.Fatalf("%q: reply %q is no JSON line: %v", line, reply, err)
			}
			if r.JSONRPC != "2.0" || (r.Error.Code != -32700 && r.Error.Code != -32600) || r.Error.Message == "" {
				t.Fatalf("%q: reply %s, want a -32700 or -32600 error", line, reply)
			}
			if id := string(r.ID); id != "null" && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') {
				t.Fatalf("%q: reply id %s, want null, a string or a number", line, id)
			}
		default:
			if len(bytes.TrimSpace(line)) != 0 {
				t.Fatalf("%q: neither handed over nor answered", line)
			}
		}
	})
}
