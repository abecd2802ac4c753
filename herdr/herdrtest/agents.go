package herdrtest

import (
	"encoding/json"
	"errors"
	"time"
)

// sessionOnlySources are the official sources whose reports never change the state
// (docs/herdr.md §5.2); only their session reference is kept.
var sessionOnlySources = map[string]bool{
	"herdr:claude": true, "herdr:codex": true, "herdr:copilot": true, "herdr:devin": true,
	"herdr:droid": true, "herdr:qodercli": true, "herdr:cursor": true, "herdr:grok": true,
}

// lifecycleAgents are the agents whose official hook is the lifecycle authority.
var lifecycleAgents = map[string]bool{
	"pi": true, "omp": true, "kimi": true, "opencode": true, "kilo": true, "mastracode": true,
}

// canonicalAgent maps known aliases to herdr's canonical agent names.
func canonicalAgent(a string) string {
	switch a {
	case "claude-code", "claude_code":
		return "claude"
	case "antigravity", "antigravity_cli", "antigravity-cli":
		return "agy"
	}
	return a
}

// reportedAgent is the canonical name of the agent a report names; an empty one is
// invalid_agent.
func reportedAgent(a string) (string, error) {
	if agent := canonicalAgent(a); agent != "" {
		return agent, nil
	}
	return "", errf("invalid_agent", "agent must not be empty")
}

// officialSource reports whether source is herdr's own integration for agent.
func officialSource(source, agent string) bool {
	if agent == "agy" {
		return source == "herdr:antigravity_cli" || source == "herdr:agy"
	}
	return source == "herdr:"+agent
}

type reportAgentParams struct {
	PaneID           string  `json:"pane_id" req:"1"`
	Source           string  `json:"source" req:"1"`
	Agent            string  `json:"agent" req:"1"`
	State            string  `json:"state" req:"1" enum:"idle|working|blocked|unknown"`
	Message          *string `json:"message"`
	Seq              *uint64 `json:"seq"`
	AgentSessionID   *string `json:"agent_session_id"`
	AgentSessionPath *string `json:"agent_session_path"`
}

// acceptSeqLocked applies the per-source seq rule: a seq not greater than the last
// accepted one of the same source is ignored.
func acceptSeqLocked(p *pane, source string, seq *uint64) bool {
	if seq == nil {
		return true
	}
	if last, ok := p.sourceSeqs[source]; ok && *seq <= last {
		return false
	}
	p.sourceSeqs[source] = *seq
	return true
}

// onReport applies a report from source to the pane it names, with s.mu held, once
// the report passes the per-source seq rule; a stale report changes nothing. The
// answer is ok, or pane_not_found.
func (s *Session) onReport(paneID, source string, seq *uint64, apply func(pn *pane)) (any, error) {
	return onTarget(s, paneID, s.resolvePaneLocked, func(pn *pane) (any, error) {
		if acceptSeqLocked(pn, source, seq) {
			apply(pn)
		}
		return resultOK, nil
	})
}

func (s *Session) recordSessionLocked(p *pane, source, agent string, id, path *string) {
	if !officialSource(source, agent) {
		return
	}
	var info *AgentSessionInfo
	switch {
	case (agent == "pi" || agent == "omp") && deref(path) != "":
		info = &AgentSessionInfo{Source: source, Agent: agent, Kind: "path", Value: *path}
	case deref(id) != "":
		info = &AgentSessionInfo{Source: source, Agent: agent, Kind: "id", Value: *id}
	case deref(path) != "":
		info = &AgentSessionInfo{Source: source, Agent: agent, Kind: "path", Value: *path}
	}
	if info != nil {
		p.session = info
		p.revision++
	}
}

func (s *Session) hReportAgent(raw json.RawMessage) (any, error) {
	var p reportAgentParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	agent, err := reportedAgent(p.Agent)
	if err != nil {
		return nil, err
	}
	return s.onReport(p.PaneID, p.Source, p.Seq, func(pn *pane) {
		if reportConflictsLocked(pn, agent) {
			return // the pane's process is another agent
		}
		if sessionOnlySources[p.Source] {
			if pn.agent == "" {
				pn.agent = agent // stands in for process detection of the official agent
				pn.revision++
			}
			if pn.agent != agent {
				return // the pane hosts another agent
			}
			s.recordSessionLocked(pn, p.Source, agent, p.AgentSessionID, p.AgentSessionPath)
			return
		}
		if pn.agent != agent {
			pn.agent = agent
			pn.session = nil
			pn.revision++
		}
		pn.authority = p.Source
		pn.skipsScreen = officialSource(p.Source, agent) && lifecycleAgents[agent]
		pn.hookState, pn.hookAt = p.State, time.Now()
		s.applyDetectionLocked(pn)
		s.recordSessionLocked(pn, p.Source, agent, p.AgentSessionID, p.AgentSessionPath)
	})
}

type reportAgentSessionParams struct {
	PaneID             string  `json:"pane_id" req:"1"`
	Source             string  `json:"source" req:"1"`
	Agent              string  `json:"agent" req:"1"`
	AgentSessionID     *string `json:"agent_session_id"`
	AgentSessionPath   *string `json:"agent_session_path"`
	Seq                *uint64 `json:"seq"`
	SessionStartSource *string `json:"session_start_source"`
}

func (s *Session) hReportAgentSession(raw json.RawMessage) (any, error) {
	var p reportAgentSessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	agent, err := reportedAgent(p.Agent)
	if err != nil {
		return nil, err
	}
	return s.onReport(p.PaneID, p.Source, p.Seq, func(pn *pane) {
		if reportConflictsLocked(pn, agent) {
			return
		}
		if pn.agent == "" && officialSource(p.Source, agent) {
			pn.agent = agent
		}
		s.recordSessionLocked(pn, p.Source, agent, p.AgentSessionID, p.AgentSessionPath)
	})
}

type releaseAgentParams struct {
	PaneID string  `json:"pane_id" req:"1"`
	Source string  `json:"source" req:"1"`
	Agent  string  `json:"agent" req:"1"`
	Seq    *uint64 `json:"seq"`
}

// clearAgentLocked ends a reporter's authority: the pane stops being an agent pane,
// unless process detection found an agent in it; that agent's screen state holds
// then, and so does a session reference another source reported.
func (s *Session) clearAgentLocked(pn *pane) {
	if pn.detAgent != "" {
		if pn.session != nil && pn.session.Source == pn.authority {
			pn.session = nil
		}
		pn.authority, pn.skipsScreen, pn.hookState = "", false, ""
		pn.revision++
		s.applyDetectionLocked(pn)
		return
	}
	s.setStatusLocked(pn, StatusUnknown)
	pn.agent, pn.authority, pn.session, pn.skipsScreen, pn.hookState = "", "", nil, false, ""
	pn.revision++
}

func (s *Session) hReleaseAgent(raw json.RawMessage) (any, error) {
	var p releaseAgentParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return s.onReport(p.PaneID, p.Source, p.Seq, func(pn *pane) {
		if pn.authority == p.Source && pn.agent == canonicalAgent(p.Agent) {
			s.clearAgentLocked(pn)
		}
	})
}

type clearAuthorityParams struct {
	PaneID string  `json:"pane_id" req:"1"`
	Source *string `json:"source"`
	Seq    *uint64 `json:"seq"`
}

func (s *Session) hClearAgentAuthority(raw json.RawMessage) (any, error) {
	var p clearAuthorityParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.PaneID, s.resolvePaneLocked, func(pn *pane) (any, error) {
		if p.Source != nil && !acceptSeqLocked(pn, *p.Source, p.Seq) {
			return resultOK, nil
		}
		if pn.authority != "" && (p.Source == nil || *p.Source == pn.authority) {
			s.clearAgentLocked(pn)
		}
		return resultOK, nil
	})
}

type agentListResult struct {
	Type   string      `json:"type"`
	Agents []agentInfo `json:"agents"`
}

func (s *Session) hAgentList(raw json.RawMessage) (any, error) {
	if err := decodeParams(raw, &emptyParams{}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []agentInfo{}
	for _, pn := range s.allPanes() {
		if pn.agent != "" {
			out = append(out, s.agentInfo(pn))
		}
	}
	return agentListResult{Type: "agent_list", Agents: out}, nil
}

type agentTarget struct {
	Target string `json:"target" req:"1"`
}

type agentInfoResult struct {
	Type  string    `json:"type"`
	Agent agentInfo `json:"agent"`
}

func (s *Session) hAgentGet(raw json.RawMessage) (any, error) {
	var p agentTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Agent names are only set by agent.start, which the stand-in does not implement;
	// so the only targets are current pane ids (aliases are not accepted).
	pn := s.paneByIDLocked(p.Target)
	if pn == nil || pn.agent == "" {
		return nil, errf("agent_not_found", "agent %s not found", p.Target)
	}
	return agentInfoResult{Type: "agent_info", Agent: s.agentInfo(pn)}, nil
}

// ---- test seams ----

// ErrPaneNotFound is returned by test seams for an unknown pane or terminal id.
var ErrPaneNotFound = errors.New("herdrtest: pane not found")

func (s *Session) lookupLocked(id string) *pane {
	if p, err := s.resolvePaneLocked(id); err == nil {
		return p
	}
	return s.paneByTerminalLocked(id)
}

// SetAgentStatus stands in for herdr's process and screen detection: it makes the
// pane (by pane id, former pane id or terminal id) an agent pane labelled agent with
// status idle, working, blocked, unknown or done (done = idle and unseen). The §5.1
// seen rule applies to the transition. An empty agent turns the pane back into a
// plain pane.
func (s *Session) SetAgentStatus(paneOrTerminalID, agent, status string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	pn := s.lookupLocked(paneOrTerminalID)
	if pn == nil {
		return ErrPaneNotFound
	}
	if agent == "" {
		s.clearAgentLocked(pn)
		return nil
	}
	switch status {
	case StatusIdle, StatusWorking, StatusBlocked, StatusUnknown, StatusDone:
	default:
		return errors.New("herdrtest: invalid status " + status)
	}
	if pn.agent != canonicalAgent(agent) {
		pn.agent = canonicalAgent(agent)
		pn.revision++
	}
	if status == StatusDone {
		s.setStatusLocked(pn, StatusIdle)
		pn.seen = false
		return nil
	}
	s.setStatusLocked(pn, status)
	return nil
}

// SetAgentSession sets a pane's agent_session directly, as an installed official
// integration would; nil clears it.
func (s *Session) SetAgentSession(paneOrTerminalID string, info *AgentSessionInfo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	pn := s.lookupLocked(paneOrTerminalID)
	if pn == nil {
		return ErrPaneNotFound
	}
	if info != nil {
		cp := *info
		info = &cp
	}
	pn.session = info
	pn.revision++
	return nil
}

// Panes returns every pane in workspace, tab and layout order.
func (s *Session) Panes() []PaneInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PaneInfo
	for _, pn := range s.allPanes() {
		out = append(out, s.paneInfo(pn))
	}
	return out
}
