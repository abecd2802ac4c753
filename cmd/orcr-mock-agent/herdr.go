package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"strconv"
	"sync/atomic"
	"time"
)

// herdrTimeout bounds one whole herdr call: connect, write, read.
const herdrTimeout = 2 * time.Second

// reporter sends agent state reports to herdr over its Unix socket. A nil or
// disabled reporter does nothing. Failures are logged and otherwise ignored:
// the TUI must keep working without herdr.
type reporter struct {
	socket    string
	paneID    string
	source    string
	agent     string
	sessionID string
	logf      *log.Logger
	seq       atomic.Uint64 // request id counter, not the herdr "seq" field
}

// herdrRequest is the request envelope: one JSON line per connection.
type herdrRequest struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// herdrResponse is the response envelope.
type herdrResponse struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// reportAgentParams are the params of pane.report_agent. The herdr seq field
// is deliberately never sent: a restarted mock in the same pane would start
// again at a low seq and herdr would ignore its reports.
type reportAgentParams struct {
	PaneID         string `json:"pane_id"`
	Source         string `json:"source"`
	Agent          string `json:"agent"`
	State          string `json:"state"`
	AgentSessionID string `json:"agent_session_id,omitempty"`
}

// reportSessionParams are the params of pane.report_agent_session. Only the path is
// sent: herdr (and its stand-in) prefers agent_session_id when both are given, and the
// point of the report is a pointer of kind "path" to the transcript.
type reportSessionParams struct {
	PaneID           string `json:"pane_id"`
	Source           string `json:"source"`
	Agent            string `json:"agent"`
	AgentSessionPath string `json:"agent_session_path"`
}

// releaseAgentParams are the params of pane.release_agent.
type releaseAgentParams struct {
	PaneID string `json:"pane_id"`
	Source string `json:"source"`
	Agent  string `json:"agent"`
}

// enabled reports whether r would contact herdr at all.
func (r *reporter) enabled() bool {
	return r != nil && r.socket != "" && r.paneID != ""
}

// report sends pane.report_agent with the given state ("idle", "working",
// "blocked" or "unknown").
func (r *reporter) report(state string) {
	if !r.enabled() {
		return
	}
	r.call("pane.report_agent", reportAgentParams{
		PaneID:         r.paneID,
		Source:         r.source,
		Agent:          r.agent,
		State:          state,
		AgentSessionID: r.sessionID,
	})
}

// reportSession sends pane.report_agent_session from source with the transcript
// path, so that herdr records agent_session {kind: "path", value: path} for the pane
// when source is the agent's official one ("herdr:<agent>").
func (r *reporter) reportSession(source, path string) {
	if !r.enabled() {
		return
	}
	r.call("pane.report_agent_session", reportSessionParams{
		PaneID:           r.paneID,
		Source:           source,
		Agent:            r.agent,
		AgentSessionPath: path,
	})
}

// release sends pane.release_agent, ending this source's authority over the
// pane's agent state.
func (r *reporter) release() {
	if !r.enabled() {
		return
	}
	r.call("pane.release_agent", releaseAgentParams{
		PaneID: r.paneID,
		Source: r.source,
		Agent:  r.agent,
	})
}

// call performs one request on its own connection and logs any failure.
func (r *reporter) call(method string, params any) {
	id := "orcr-mock:" + strconv.FormatUint(r.seq.Add(1), 10)
	err := herdrCall(r.socket, herdrRequest{ID: id, Method: method, Params: params})
	if err != nil {
		r.logf.Printf("herdr %s: %v", method, err)
		return
	}
	r.logf.Printf("herdr %s ok %s", method, describeParams(params))
}

// describeParams renders params for the log.
func describeParams(params any) string {
	b, _ := json.Marshal(params)
	return string(b)
}

// herdrCall dials socket, writes req as one line, reads one response line
// and checks it for an error envelope. The whole exchange is bounded by
// herdrTimeout.
func herdrCall(socket string, req herdrRequest) error {
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("unix", socket, herdrTimeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(herdrTimeout)); err != nil {
		return err
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return err
	}
	respLine, err := bufio.NewReaderSize(conn, 4096).ReadBytes('\n')
	if err != nil && len(respLine) == 0 {
		return fmt.Errorf("reading response: %w", err)
	}
	var resp herdrResponse
	if err := json.Unmarshal(respLine, &resp); err != nil {
		return fmt.Errorf("decoding response: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("herdr error %s: %s", resp.Error.Code, resp.Error.Message)
	}
	if resp.Result == nil {
		return errors.New("response has neither result nor error")
	}
	return nil
}
