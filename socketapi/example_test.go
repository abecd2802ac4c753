package socketapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// sandbox starts a throwaway orcr server (the herdr stand-in, the mock provider, a
// temporary home) and returns a client of it and the func that removes it all. Real code
// uses the zero Client or FromEnv instead.
func sandbox() (*socketapi.Client, func()) {
	srv, stop := sandboxServer()
	return &socketapi.Client{Socket: srv.Socket()}, stop
}

func sandboxServer() (*sockettest.Server, func()) {
	srv, stop, err := sockettest.Sandbox(sockettest.WithConfig(fastTurns))
	if err != nil {
		panic(err)
	}
	return srv, stop
}

// setenv sets the variables of kv (key, value, key, value, …) and returns the func that
// puts the old values back.
func setenv(kv ...string) (restore func()) {
	var undo []func()
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i]
		if old, ok := os.LookupEnv(k); ok {
			undo = append(undo, func() { os.Setenv(k, old) })
		} else {
			undo = append(undo, func() { os.Unsetenv(k) })
		}
		os.Setenv(k, kv[i+1])
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}

// The zero Client talks to the server of the home ORCR_HOME names (~/.orcr when unset).
func ExampleClient() {
	srv, stop := sandboxServer()
	defer stop()
	defer setenv("ORCR_HOME", srv.Home)()

	var c socketapi.Client
	h, err := c.Handshake(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ready:", h.Ready, "protocol:", h.Protocol)
	// Output: ready: true protocol: 1
}

func ExampleClient_Handshake() {
	c, stop := sandbox()
	defer stop()

	h, err := c.Handshake(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ready:", h.Ready, "protocol:", h.Protocol)
	// Output: ready: true protocol: 1
}

func ExampleClient_Status() {
	c, stop := sandbox()
	defer stop()

	st, err := c.Status(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("herdr reachable:", st.Herdr.Reachable)
	fmt.Println("live agents:", st.Counts["live"])
	// Output:
	// herdr reachable: true
	// live agents: 0
}

func ExampleClient_Schema() {
	c, stop := sandbox()
	defer stop()

	doc, err := c.Schema(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	var schema struct {
		Methods map[string]struct {
			Summary     string `json:"summary"`
			Implemented bool   `json:"implemented"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(doc, &schema); err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"agent.run", "loop.logs"} {
		m := schema.Methods[name]
		fmt.Printf("%s: %s (implemented: %v)\n", name, m.Summary, m.Implemented)
	}
	// Output:
	// agent.run: enqueue a managed agent at a path (implemented: true)
	// loop.logs: read a loop's run output and orcr events (implemented: true)
}

func ExampleClient_Snapshot() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	if _, err := c.Run(ctx, api.RunRequest{Path: "review/one", Agent: "mock"}); err != nil {
		fmt.Println(err)
		return
	}
	snap, err := c.Snapshot(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range snap.Agents {
		fmt.Println(a.Path)
	}
	fmt.Println("loops:", len(snap.Loops))
	// Output:
	// review/one
	// loops: 0
}

func ExampleClient_Run() {
	c, stop := sandbox()
	defer stop()

	// The sandbox runs the mock provider; its prompt says what it answers.
	res, err := c.Run(context.Background(), api.RunRequest{
		Path: "review/worker", Agent: "mock", Prompt: "say=hello",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Agent.Path, res.Agent.Agent, "managed:", res.Agent.Managed)
	// Output: review/worker mock managed: true
}

func ExampleClient_Ask() {
	c, stop := sandbox()
	defer stop()

	res, err := c.Ask(context.Background(), api.AskRequest{
		Path: "review/question", Agent: "mock", Prompt: "say=forty_two",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Path)
	fmt.Println(res.Response.Text)
	// Output:
	// review/question
	// forty_two
	// DONE
}

func ExampleClient_Send() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	c.Run(ctx, api.RunRequest{Path: "review/chat", Agent: "mock", Prompt: "say=first"})
	c.Wait(ctx, api.WaitRequest{Targets: []string{"review/chat"}})
	sent, err := c.Send(ctx, api.SendRequest{Target: "review/chat", Prompt: "say=second"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("turn", sent.InputSeq, "delivered while", sent.DeliveredWhile)
	c.Wait(ctx, api.WaitRequest{Targets: []string{"review/chat"}})
	last, err := c.Logs(ctx, api.LogsRequest{Target: "review/chat", LastResponse: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", last.Response.Text)
	// Output:
	// turn 2 delivered while idle
	// "second\nDONE"
}

func ExampleClient_Logs() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	c.Run(ctx, api.RunRequest{Path: "review/logged", Agent: "mock", Prompt: "say=done"})
	c.Wait(ctx, api.WaitRequest{Targets: []string{"review/logged"}})
	logs, err := c.Logs(ctx, api.LogsRequest{Target: "review/logged"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range logs.Entries {
		fmt.Printf("%s: %q\n", e.Role, e.Text)
	}
	// Output:
	// user: "say=done"
	// assistant: "done\nDONE"
}

func ExampleClient_Wait() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	for _, p := range []string{"review/a", "review/b"} {
		c.Run(ctx, api.RunRequest{Path: p, Agent: "mock", Prompt: "say=ok"})
	}
	res, err := c.Wait(ctx, api.WaitRequest{Targets: []string{"review/*"}, Timeout: "1m"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range res.Targets {
		fmt.Println(t.Path, t.Status, t.Reason, "next:", t.Next.Command)
	}
	fmt.Println("all ok:", res.AllOK)
	// Output:
	// review/a idle turn_complete next: orcr agent logs review/a --last-response
	// review/b idle turn_complete next: orcr agent logs review/b --last-response
	// all ok: true
}

func ExampleClient_Kill() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	c.Run(ctx, api.RunRequest{Path: "review/doomed", Agent: "mock"})
	preview, err := c.Kill(ctx, api.KillRequest{Targets: []string{"review/*"}, Preview: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range preview.Targets {
		fmt.Println("would kill", t.Path)
	}
	res, err := c.Kill(ctx, api.KillRequest{Targets: []string{"review/*"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range res.Killed {
		fmt.Println("killed", k.Path)
	}
	fmt.Println("all killed:", res.AllKilled)
	// Output:
	// would kill review/doomed
	// killed review/doomed
	// all killed: true
}

func ExampleClient_Ls() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	for _, p := range []string{"review/b", "review/a", "other/c"} {
		c.Run(ctx, api.RunRequest{Path: p, Agent: "mock"})
	}
	res, err := c.Ls(ctx, api.LsRequest{Pattern: "review/*"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Agents {
		fmt.Println(a.Path, *a.Agent)
	}
	// Output:
	// review/a mock
	// review/b mock
}

// An attach takes a lease (the GC leaves the agent alone while it is renewed), runs the
// returned herdr command on a terminal, and releases the lease afterwards.
func ExampleClient_AttachPrepare() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	c.Run(ctx, api.RunRequest{Path: "review/a", Agent: "mock", Prompt: "say=ok"})
	c.Wait(ctx, api.WaitRequest{Targets: []string{"review/a"}, Timeout: "1m"})
	lease, err := c.AttachPrepare(ctx, api.AttachPrepareRequest{Target: "review/a", Takeover: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	// command: <herdr> --session orcr agent attach <pane id> --takeover
	fmt.Println(lease.Path, lease.TTLMS, lease.Command[1:5], lease.Command[6:])
	hb, _ := c.AttachHeartbeat(ctx, lease.LeaseID)
	fmt.Println("renewed:", hb.OK)
	rel, _ := c.AttachRelease(ctx, lease.LeaseID)
	fmt.Println("released:", rel.Released)
	// Output:
	// review/a 30000 [--session orcr agent attach] [--takeover]
	// renewed: true
	// released: true
}

// A lease that is no longer stored (released, or expired and deleted) is not an error.
func ExampleClient_AttachRelease() {
	c, stop := sandbox()
	defer stop()

	res, err := c.AttachRelease(context.Background(), "0190a000-0000-4000-8000-000000000000")
	fmt.Println(res.Released, err)
	// Output: false <nil>
}

func ExampleClient_LoopLogs() {
	c, stop := sandbox()
	defer stop()

	_, err := c.LoopLogs(context.Background(), api.LoopLogsRequest{Name: "nightly"})
	var e *api.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Message)
	}
	// Output: not_found no loop named nightly
}

func ExampleClient_Stop() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	res, err := c.Stop(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status)
	// The server stops once it has answered; agent panes keep running.
	for range 250 {
		if _, err := c.Handshake(ctx); api.IsCode(err, api.CodeEnvironmentError) {
			fmt.Println("server gone")
			break
		}
		time.Sleep(20 * time.Millisecond) // an Example has no t for poll.Eventually: 250 tries pace a 5 s bound
	}
	// Output:
	// stopping
	// server gone
}

func ExampleClient_Watch() {
	c, stop := sandbox()
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var uuid string
	for m, err := range c.Watch(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if m.Event.Kind == "" { // the first step: the snapshot alone
			fmt.Println("agents at first:", m.Len())
			res, err := c.Run(ctx, api.RunRequest{Path: "review/watched", Agent: "mock", Prompt: "say=hi"})
			if err != nil {
				fmt.Println(err)
				return
			}
			uuid = res.Agent.UUID
			continue
		}
		if a, ok := m.Agent(uuid); ok && a.Status == api.StatusIdle {
			fmt.Println(a.Path, a.Status)
			break // ends the watch and closes its connection
		}
	}
	// Output:
	// agents at first: 0
	// review/watched idle
}

func ExampleClient_FollowLogs() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	c.Run(ctx, api.RunRequest{Path: "review/followed", Agent: "mock", Prompt: "say=streamed"})
	for e, err := range c.FollowLogs(ctx, api.LogsRequest{Target: "review/followed"}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %q\n", e.Role, e.Text)
		if e.Role == "assistant" {
			break // the agent is still alive: only breaking (or ctx) ends the loop
		}
	}
	// Output:
	// user: "say=streamed"
	// assistant: "streamed\nDONE"
}

func ExampleClient_Scope() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	team, err := c.Scope("team")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"lead", "helper"} {
		res, err := team.Run(ctx, api.RunRequest{Name: name, Agent: "mock"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("created", res.Agent.Path)
	}
	c.Run(ctx, api.RunRequest{Path: "elsewhere", Agent: "mock"})
	ls, _ := team.Ls(ctx, api.LsRequest{}) // an empty pattern lists the scope
	for _, a := range ls.Agents {
		fmt.Println("in scope:", a.Path)
	}
	abs, _ := team.Scope("/ops") // a leading / starts again from the root
	fmt.Println("scope:", abs.CurrentScope())
	_, err = team.Scope("Bad")
	fmt.Println(api.IsCode(err, api.CodeInvalidRequest))
	// Output:
	// created team/lead
	// created team/helper
	// in scope: team/helper
	// in scope: team/lead
	// scope: ops
	// true
}

// Code running in an agent pane (or a loop run) gets a client that speaks for it: the
// agents it creates are its children, next to it.
func ExampleFromEnv() {
	srv, stop := sandboxServer()
	defer stop()
	ctx := context.Background()
	parent, err := (&socketapi.Client{Socket: srv.Socket()}).Run(ctx,
		api.RunRequest{Path: "review/lead", Agent: "mock"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// What orcr sets in the pane of review/lead:
	defer setenv("ORCR_HOME", srv.Home, "ORCR_ID", parent.Agent.UUID, "ORCR_PATH", "review/lead",
		"ORCR_AGENT_DATA_DIR", parent.Agent.DataDir)()

	c := socketapi.FromEnv()
	l := c.Lineage()
	fmt.Println(l.Kind, l.Path, "scope:", l.Scope)
	res, err := c.Run(ctx, api.RunRequest{Name: "helper", Agent: "mock"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Agent.Path, "parent:", res.Agent.ParentPath)
	// Output:
	// agent review/lead scope: review
	// review/helper parent: review/lead
}

func ExampleFromGetenv() {
	env := map[string]string{ // the environment of a loop run's command
		"ORCR_HOME":          "/srv/orcr",
		"ORCR_ID":            "01a2317a-0d7a-72bd-90b9-96b320701cba",
		"ORCR_PATH":          "nightly/r82c9s",
		"ORCR_LOOP_DATA_DIR": "/srv/orcr/data/nightly",
	}
	c := socketapi.FromGetenv(func(k string) string { return env[k] })
	l := c.Lineage()
	fmt.Println(l.Kind, "scope:", l.Scope)
	fmt.Println(c.Socket)
	// Output:
	// loop_run scope: nightly/r82c9s
	// /srv/orcr/orcr.sock
}

// Invoke calls any method of the table with its typed request and result.
func ExampleInvoke() {
	c, stop := sandbox()
	defer stop()
	ctx := context.Background()

	run, err := socketapi.Invoke(ctx, c, api.AgentRun, api.RunRequest{Path: "review/typed", Agent: "mock"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ls, err := socketapi.Invoke(ctx, c, api.AgentLs, api.LsRequest{Pattern: run.Agent.UUID})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(api.AgentLs.Name, len(ls.Agents), ls.Agents[0].Path)
	// Output: agent.ls 1 review/typed
}

func ExampleInvokeRaw() {
	c, stop := sandbox()
	defer stop()

	_, raw, err := socketapi.InvokeRaw(context.Background(), c, api.AgentLs, api.LsRequest{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(raw))
	// Output: {"agents":[]}
}

func ExampleClient_Call() {
	c, stop := sandbox()
	defer stop()

	var res struct {
		Ready bool `json:"ready"`
	}
	if err := c.Call(context.Background(), "server.handshake", nil, &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ready:", res.Ready)
	// Output: ready: true
}

func ExampleClient_errors() {
	c, stop := sandbox()
	defer stop()

	_, err := c.Logs(context.Background(), api.LogsRequest{Target: "no/such"})
	fmt.Println(api.IsCode(err, api.CodeNotFound))
	var e *api.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Details["target"])
	}
	// Output:
	// true
	// not_found no/such
}
