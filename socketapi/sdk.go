package socketapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Invoke calls method m of the table with req on a fresh connection and returns its
// typed result. The client's caller identity fills a request's empty caller_id and
// caller_path, and a scoped client composes the request's paths first (see
// [Client.Scope]). Every typed method of Client is Invoke with its table entry.
func Invoke[Req, Res any](ctx context.Context, c *Client, m *api.Method[Req, Res], req Req) (Res, error) {
	var reply struct {
		OK     *bool       `json:"ok"`
		Result Res         `json:"result"`
		Error  *wire.Error `json:"error"`
	}
	line, err := c.invokeLine(ctx, m.Name, m.Unbounded, &req)
	if err != nil {
		return reply.Result, err
	}
	// One pass: the envelope and the typed result together.
	if err := json.Unmarshal(line, &reply); err != nil {
		var zero Res
		if rf := (wire.ReplyFrame{}); json.Unmarshal(line, &rf) == nil && rf.Err() != nil {
			return zero, rf.Err()
		}
		return zero, wire.Internal(wire.CauseDecode, "cannot decode the result of "+m.Name+": "+err.Error())
	}
	if e := (&wire.ReplyFrame{OK: reply.OK, Error: reply.Error}).Err(); e != nil {
		var zero Res
		return zero, e
	}
	return reply.Result, nil
}

// InvokeRaw is [Invoke] that also returns the result exactly as the server sent it
// (the CLI prints that with --json).
func InvokeRaw[Req, Res any](ctx context.Context, c *Client, m *api.Method[Req, Res], req Req) (Res, json.RawMessage, error) {
	var res Res
	line, err := c.invokeLine(ctx, m.Name, m.Unbounded, &req)
	if err != nil {
		return res, nil, err
	}
	var rf wire.ReplyFrame
	if err := json.Unmarshal(line, &rf); err != nil {
		return res, nil, wire.Internal(wire.CauseDecode, "cannot decode server reply: "+err.Error())
	}
	if e := rf.Err(); e != nil {
		return res, nil, e
	}
	if len(rf.Result) > 0 {
		if err := json.Unmarshal(rf.Result, &res); err != nil {
			return res, rf.Result, wire.Internal(wire.CauseDecode, "cannot decode the result of "+m.Name+": "+err.Error())
		}
	}
	return res, rf.Result, nil
}

// invokeLine prepares req (a pointer to a request value) and exchanges it.
func (c *Client) invokeLine(ctx context.Context, method string, unbounded bool, req any) ([]byte, error) {
	if err := c.prepare(req); err != nil {
		return nil, err
	}
	return c.exchange(ctx, unbounded, method, req)
}

// Handshake calls server.handshake, the readiness probe. A server speaking another
// protocol is environment_error unsupported_version.
func (c *Client) Handshake(ctx context.Context) (api.Handshake, error) {
	h, err := Invoke(ctx, c, api.ServerHandshake, api.NoParams{})
	if err == nil && h.Protocol != wire.Protocol {
		return h, wire.Env(wire.CauseUnsupportedVersion,
			"server speaks protocol "+itoa(int64(h.Protocol))+", this client speaks "+itoa(wire.Protocol),
			"declared_protocol", wire.Protocol, "server_protocol", h.Protocol)
	}
	return h, err
}

// Status calls server.status.
func (c *Client) Status(ctx context.Context) (api.StatusResult, error) {
	return Invoke(ctx, c, api.ServerStatus, api.NoParams{})
}

// Stop calls server.stop: the server answers, then stops; agent panes keep running.
func (c *Client) Stop(ctx context.Context) (api.StopResult, error) {
	return Invoke(ctx, c, api.ServerStop, api.NoParams{})
}

// Schema calls api.schema and returns the schema document.
func (c *Client) Schema(ctx context.Context) (json.RawMessage, error) {
	return Invoke(ctx, c, api.APISchema, api.NoParams{})
}

// Snapshot calls api.snapshot: agents, loops and queue at one event cursor.
func (c *Client) Snapshot(ctx context.Context) (api.Snapshot, error) {
	return Invoke(ctx, c, api.APISnapshot, api.NoParams{})
}

// Run calls agent.run: it enqueues a managed agent and returns at once.
func (c *Client) Run(ctx context.Context, req api.RunRequest) (api.RunResult, error) {
	return Invoke(ctx, c, api.AgentRun, req)
}

// Ask asks an agent: run with gc immediate, wait, and return the final response. It
// holds the connection until the server decides (no client call timeout). It rides over
// a server restart ([AskRaw]).
func (c *Client) Ask(ctx context.Context, req api.AskRequest) (api.AskResult, error) {
	res, _, err := AskRaw(ctx, c, req)
	return res, err
}

// AskRaw is [Client.Ask] that also returns the result as the server sent it. It runs the
// agent first (agent.run) and then calls agent.ask with resume set to the acknowledged
// agent, so that a server going away before the answer only makes it ask again about
// that same agent, with what is left of its timeout ([Resuming]): it never starts a
// second one. An agent.run cut off before its answer is server_unreachable like any
// call. A request with Resume already set, or whose timeout does not parse (the
// server's refusal comes first, as agent.ask's), is sent as it is.
func AskRaw(ctx context.Context, c *Client, req api.AskRequest) (api.AskResult, json.RawMessage, error) {
	type reply struct {
		res api.AskResult
		raw json.RawMessage
	}
	ask := func(req api.AskRequest) (reply, error) {
		res, raw, err := InvokeRaw(ctx, c, api.AgentAsk, req)
		return reply{res, raw}, err
	}
	start := time.Now()
	if req.Resume == "" {
		if _, err := config.ParseDuration(req.Timeout); req.Timeout != "" && err != nil {
			r, err := ask(req)
			return r.res, r.raw, err
		}
		run, err := c.Run(ctx, req.Run())
		if err != nil {
			return api.AskResult{}, nil, err
		}
		if run.Agent.UUID == "" {
			return api.AskResult{}, nil, wire.Internal(wire.CauseDecode, "agent.run answered without an agent")
		}
		req = req.Resumed(run.Agent.UUID)
	}
	r, err := Resuming(ctx, c, api.AgentAsk.Name, func(attempt int) (reply, error) {
		if attempt > 0 {
			again := req
			again.Timeout = Remaining(req.Timeout, time.Since(start))
			return ask(again)
		}
		return ask(req)
	})
	return r.res, r.raw, err
}

// Send calls agent.send: it delivers a prompt to an existing agent.
func (c *Client) Send(ctx context.Context, req api.SendRequest) (api.SendResult, error) {
	return Invoke(ctx, c, api.AgentSend, req)
}

// Adopt calls agent.adopt: the unmanaged agent target becomes a managed agent at path,
// its conversation resumed in orcr's own herdr session.
func (c *Client) Adopt(ctx context.Context, req api.AdoptRequest) (api.AdoptResult, error) {
	return Invoke(ctx, c, api.AgentAdopt, req)
}

// Token issues, rotates or revokes an agent's remote stream token (agent.token,
// docs/remote.md §3). The token is in the result this once.
func (c *Client) Token(ctx context.Context, req api.TokenRequest) (api.TokenResult, error) {
	return Invoke(ctx, c, api.AgentToken, req)
}

// DashboardLogin issues a one-time sign-in link for the web dashboard, or with Revoke
// signs every browser out (dashboard.login, docs/dashboard.md §2).
func (c *Client) DashboardLogin(ctx context.Context, req api.DashboardLoginRequest) (api.DashboardLoginResult, error) {
	return Invoke(ctx, c, api.DashboardLogin, req)
}

// MCPToken issues, rotates or revokes the bearer token of `orcr mcp --http` (mcp.token,
// docs/mcp.md §1.1). The token is in the result this once.
func (c *Client) MCPToken(ctx context.Context, req api.MCPTokenRequest) (api.MCPTokenResult, error) {
	return Invoke(ctx, c, api.MCPToken, req)
}

// MCPAuth checks a bearer token presented to `orcr mcp --http` (mcp.auth, docs/mcp.md
// §1.1).
func (c *Client) MCPAuth(ctx context.Context, req api.MCPAuthRequest) (api.MCPAuthResult, error) {
	return Invoke(ctx, c, api.MCPAuth, req)
}

// Logs calls agent.logs: the agent's transcript entries, or its final response.
func (c *Client) Logs(ctx context.Context, req api.LogsRequest) (api.LogsResult, error) {
	return Invoke(ctx, c, api.AgentLogs, req)
}

// Wait calls agent.wait: it blocks until every target settles, or with req.Any until the
// first one does ([api.WaitResult.First] names it), or until the request's timeout passes,
// which is a result with TimedOut, not an error. A server that goes away meanwhile does
// not end it: the wait is sent again to the server that answers next, with what is left
// of its timeout ([Resuming]).
func (c *Client) Wait(ctx context.Context, req api.WaitRequest) (api.WaitResult, error) {
	start := time.Now()
	return Resuming(ctx, c, api.AgentWait.Name, func(attempt int) (api.WaitResult, error) {
		if attempt > 0 {
			again := req
			again.Timeout = Remaining(req.Timeout, time.Since(start))
			return Invoke(ctx, c, api.AgentWait, again)
		}
		return Invoke(ctx, c, api.AgentWait, req)
	})
}

// Kill calls agent.kill (with Preview: only says what it would kill).
func (c *Client) Kill(ctx context.Context, req api.KillRequest) (api.KillResult, error) {
	return Invoke(ctx, c, api.AgentKill, req)
}

// Ls calls agent.ls: agent rows in tree order.
func (c *Client) Ls(ctx context.Context, req api.LsRequest) (api.LsResult, error) {
	return Invoke(ctx, c, api.AgentLs, req)
}

// AttachPrepare calls agent.attach.prepare: it takes an attach lease and returns the
// herdr command to run (and its fallback, docs/decisions.md D6).
func (c *Client) AttachPrepare(ctx context.Context, req api.AttachPrepareRequest) (api.AttachPrepareResult, error) {
	return Invoke(ctx, c, api.AgentAttachPrepare, req)
}

// AttachHeartbeat calls agent.attach.heartbeat: it extends the lease (OK is false when
// the lease is no longer stored).
func (c *Client) AttachHeartbeat(ctx context.Context, leaseID string) (api.HeartbeatResult, error) {
	return Invoke(ctx, c, api.AgentAttachHeartbeat, api.LeaseRequest{LeaseID: leaseID})
}

// AttachRelease calls agent.attach.release (Released is false when the lease was
// already gone).
func (c *Client) AttachRelease(ctx context.Context, leaseID string) (api.ReleaseResult, error) {
	return Invoke(ctx, c, api.AgentAttachRelease, api.LeaseRequest{LeaseID: leaseID})
}

// LoopCreate calls loop.create: a durable cron (or one-shot) loop for a command.
func (c *Client) LoopCreate(ctx context.Context, req api.LoopCreateRequest) (api.LoopResult, error) {
	return Invoke(ctx, c, api.LoopCreate, req)
}

// LoopPause calls loop.pause.
func (c *Client) LoopPause(ctx context.Context, names ...string) (api.LoopUpdateResult, error) {
	return Invoke(ctx, c, api.LoopPause, api.LoopNamesRequest{Names: names})
}

// LoopResume calls loop.resume.
func (c *Client) LoopResume(ctx context.Context, names ...string) (api.LoopUpdateResult, error) {
	return Invoke(ctx, c, api.LoopResume, api.LoopNamesRequest{Names: names})
}

// LoopRm calls loop.rm (with KillActive it waits until the active runs are stopped).
func (c *Client) LoopRm(ctx context.Context, req api.LoopRmRequest) (api.LoopRmResult, error) {
	return Invoke(ctx, c, api.LoopRm, req)
}

// LoopLs calls loop.ls.
func (c *Client) LoopLs(ctx context.Context, req api.LoopLsRequest) (api.LoopLsResult, error) {
	return Invoke(ctx, c, api.LoopLs, req)
}

// LoopLogs calls loop.logs.
func (c *Client) LoopLogs(ctx context.Context, req api.LoopLogsRequest) (api.LoopLogsResult, error) {
	return Invoke(ctx, c, api.LoopLogs, req)
}

// LoopRunStart calls loop.run.start: a manual run of the loop.
func (c *Client) LoopRunStart(ctx context.Context, name string) (api.LoopRunResult, error) {
	return Invoke(ctx, c, api.LoopRunStart, api.LoopRunRequest{Name: name})
}

// LoopRunStop calls loop.run.stop; it returns when the runs are stopped.
func (c *Client) LoopRunStop(ctx context.Context, req api.LoopRunStopRequest) (api.LoopRunStopResult, error) {
	return Invoke(ctx, c, api.LoopRunStop, req)
}

// Usage calls usage.report (docs/usage.md §4).
func (c *Client) Usage(ctx context.Context, req api.UsageRequest) (api.UsageResult, error) {
	return Invoke(ctx, c, api.UsageReport, req)
}

// BudgetLs calls budget.ls (docs/usage.md §7.4).
func (c *Client) BudgetLs(ctx context.Context) (api.BudgetLsResult, error) {
	return Invoke(ctx, c, api.BudgetLs, api.BudgetLsRequest{})
}

// BudgetExtend calls budget.extend (docs/usage.md §7.4).
func (c *Client) BudgetExtend(ctx context.Context, req api.BudgetExtendRequest) (api.BudgetExtendResult, error) {
	return Invoke(ctx, c, api.BudgetExtend, req)
}

// QuotaRecord calls quota.record (docs/usage.md §7.1): what `orcr statusline` sends.
func (c *Client) QuotaRecord(ctx context.Context, req api.QuotaRecordRequest) (api.QuotaRecordResult, error) {
	return Invoke(ctx, c, api.QuotaRecord, req)
}

// LoopRunLs calls loop.run.ls.
func (c *Client) LoopRunLs(ctx context.Context, req api.LoopRunLsRequest) (api.LoopRunLsResult, error) {
	return Invoke(ctx, c, api.LoopRunLs, req)
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// ProviderLs calls provider.ls (docs/protocol.md §5.37).
func (c *Client) ProviderLs(ctx context.Context) (api.ProviderLsResult, error) {
	return Invoke(ctx, c, api.ProviderLs, api.ProviderLsRequest{})
}

// ProviderCheck calls provider.check (docs/protocol.md §5.38).
func (c *Client) ProviderCheck(ctx context.Context, req api.ProviderCheckRequest) (api.ProviderCheckResult, error) {
	return Invoke(ctx, c, api.ProviderCheck, req)
}
