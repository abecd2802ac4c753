package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

type logsResult struct {
	UUID     string `json:"uuid"`
	Resolved string `json:"resolved"`
	Entries  []struct {
		Role string `json:"role"`
		Kind string `json:"kind"`
		Text string `json:"text"`
	} `json:"entries"`
	Response *struct {
		Text  string `json:"text"`
		Final bool   `json:"final"`
	} `json:"response"`
}

// agent.logs reads the mock's transcript; --last-response returns the turn's answer.
func TestLogsAfterTurns(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "l/one", "prompt": "say=first turn_ms=200"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, a.UUID, "idle")
	var last logsResult
	if err := c.Call(context.Background(), "agent.logs", map[string]any{"target": "l/one", "last_response": true}, &last); err != nil {
		t.Fatalf("logs --last-response: %v", err)
	}
	if last.Response == nil || last.Response.Text != "first\nDONE" || !last.Response.Final || last.Resolved != "active" {
		t.Errorf("last response: got %+v", last)
	}
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": "l/one", "prompt": "say=second turn_ms=200"}, nil); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, a.UUID, "idle")
	var all logsResult
	if err := c.Call(context.Background(), "agent.logs", map[string]any{"target": "l/one"}, &all); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, e := range all.Entries {
		roles = append(roles, e.Role+":"+e.Text)
	}
	want := []string{"user:say=first turn_ms=200", "assistant:first\nDONE", "user:say=second turn_ms=200", "assistant:second\nDONE"}
	if len(roles) != len(want) {
		t.Fatalf("entries: got %q, want %q", roles, want)
	}
	for i := range want {
		if roles[i] != want[i] {
			t.Errorf("entry %d: got %q, want %q", i, roles[i], want[i])
		}
	}
	var tail logsResult
	if err := c.Call(context.Background(), "agent.logs", map[string]any{"target": "l/one", "tail": 1}, &tail); err != nil {
		t.Fatal(err)
	}
	if len(tail.Entries) != 1 || tail.Entries[0].Text != "second\nDONE" {
		t.Errorf("tail 1: got %+v", tail.Entries)
	}
	if err := c.Call(context.Background(), "agent.logs", map[string]any{"target": "l/none"}, nil); !wire.Is(err, wire.NotFound, "") {
		t.Errorf("logs of an unknown target: got %v, want not_found", err)
	}
}

// Acceptance 7 of the completion issue: with the mock's late-transcript knob (it reports
// idle before it writes its answer), ask returns the complete final answer, and the pane
// is closed only after the answer was readable.
func TestAskWaitsForTheTranscript(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithEnv("ORCR_MOCK_LATE_TRANSCRIPT_MS", "1500"))
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": 0})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var res struct {
		UUID     string `json:"uuid"`
		Path     string `json:"path"`
		Response struct {
			Text  string `json:"text"`
			Final bool   `json:"final"`
		} `json:"response"`
	}
	if err := c.Call(ctx, "agent.ask", map[string]any{"path": "q/one", "agent": "mock", "prompt": "say=answer turn_ms=200"}, &res); err != nil {
		t.Fatalf("ask: %v", err)
	}
	if res.Response.Text != "answer\nDONE" || !res.Response.Final {
		t.Errorf("ask response: got %+v", res.Response)
	}
	// The event order proves the pane was closed after the response was captured.
	order := map[string]int64{}
	for order["agent.ended"] == 0 {
		f, err := st.Next()
		if err != nil {
			t.Fatalf("event stream: %v (seen %v)", err, order)
		}
		var ev struct {
			Kind string `json:"kind"`
			UUID string `json:"uuid"`
		}
		json.Unmarshal(f.Event, &ev)
		if ev.UUID == res.UUID && order[ev.Kind] == 0 {
			order[ev.Kind] = f.Seq
		}
	}
	if !(order["agent.response_captured"] > 0 && order["agent.response_captured"] < order["agent.close_requested"] &&
		order["agent.close_requested"] < order["agent.ended"]) {
		t.Errorf("event order: got %v, want response_captured < close_requested < ended", order)
	}
	rows := ls(t, c, map[string]any{"pattern": res.UUID})
	if rows[0].Status != "ended" || rows[0].ExitReason != "completed" {
		t.Errorf("after ask: %+v, want ended/completed", rows[0])
	}
}

// A shutdown's grace ends when the provider exits (docs/lifecycle.md §15.2): with a
// grace of two minutes, the mock's `/quit` still ends an ask's agent at once, because
// the pane is gone as soon as the mock is. Sleeping the whole grace would run the ask
// past the call's deadline.
func TestAskTeardownEndsWhenTheProviderExits(t *testing.T) {
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"integrations": {"mock": {"shutdown_grace_ms": 120000}}}`))
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var res struct {
		UUID     string `json:"uuid"`
		Response struct {
			Text string `json:"text"`
		} `json:"response"`
	}
	if err := c.Call(ctx, "agent.ask", map[string]any{"path": "q/exit", "agent": "mock", "prompt": "say=bye"}, &res); err != nil {
		t.Fatalf("ask: %v", err)
	}
	if res.Response.Text != "bye\nDONE" {
		t.Errorf("ask response: got %+v", res.Response)
	}
	if rows := ls(t, c, map[string]any{"pattern": res.UUID}); rows[0].Status != "ended" || rows[0].ExitReason != "completed" {
		t.Errorf("after ask: %+v, want ended/completed", rows[0])
	}
}
