package herdrtest

import "time"

// watchAgent is a pane's detection loop (detector.go): it runs until the pane's
// process has exited or the session closes.
func (s *Session) watchAgent(p *pane) {
	pid := p.cmd.Process.Pid
	w := &agentWatch{started: time.Now()}
	var lastText string
	timer := time.NewTimer(detectTick)
	defer timer.Stop()
	for {
		select {
		case <-p.exited:
			return
		case <-s.done:
			return
		case <-timer.C:
		}
		now := time.Now()
		text := p.vt.detectionText()
		changed := text != lastText
		lastText = text
		if pgid := foregroundGroup(pid); w.dueProbe(pgid, changed, now) {
			agent, pgid, own := probeAgent(pid)
			switch w.observeProbe(agent, pgid, own, now) {
			case identityNew:
				p.vt.clearAgentOSC()
				s.onDetected(p, func(pn *pane) { s.agentAppearedLocked(pn, w.agent) })
			case identityExited:
				s.onDetected(p, func(pn *pane) { s.screenStateLocked(pn, w.pub) })
			case identityGone:
				s.onDetected(p, s.agentGoneLocked)
			}
		}
		if w.agent != "" {
			title, progress := p.vt.agentOSC()
			d := DetectAgentScreen(w.agent, Screen{Text: text, Title: title, Progress: progress})
			if w.observeScreen(d, now) {
				s.onDetected(p, func(pn *pane) { s.screenStateLocked(pn, w.pub) })
			}
		}
		timer.Reset(w.pace())
	}
}

// onDetected applies a detection result to p under s.mu, unless the pane is gone.
func (s *Session) onDetected(p *pane, apply func(pn *pane)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || p.tab == nil || s.findLeaf(p) == nil {
		return
	}
	apply(p)
}

// agentAppearedLocked records that process detection found agent in pn: the pane is
// that agent's, in state unknown until its screen has been read. A custom reporter
// that named another known agent loses its authority.
func (s *Session) agentAppearedLocked(pn *pane, agent string) {
	pn.detAgent, pn.detState, pn.detBlocker, pn.detAt = agent, StatusUnknown, false, time.Now()
	s.dropConflictingAuthorityLocked(pn)
	s.applyDetectionLocked(pn)
}

// screenStateLocked records the state the screen rules published for pn.
func (s *Session) screenStateLocked(pn *pane, pub published) {
	pn.detState, pn.detBlocker, pn.detAt = pub.state, pub.visibleBlocker, time.Now()
	s.dropConflictingAuthorityLocked(pn)
	s.applyDetectionLocked(pn)
}

// agentGoneLocked records that the detected agent has left pn: without a custom
// reporter the pane is a plain pane again.
func (s *Session) agentGoneLocked(pn *pane) {
	pn.detAgent, pn.detState, pn.detBlocker = "", StatusUnknown, false
	if pn.authority == "" && pn.agent != "" {
		s.clearAgentLocked(pn)
	}
}

// dropConflictingAuthorityLocked ends the authority of a custom reporter whose agent is
// a known agent other than the detected one (docs/herdr.md §5.2).
func (s *Session) dropConflictingAuthorityLocked(pn *pane) {
	if pn.authority == "" || pn.detAgent == "" {
		return
	}
	if a := knownAgent(pn.agent); a != "" && a != pn.detAgent {
		pn.authority, pn.skipsScreen, pn.hookState = "", false, ""
	}
}

// applyDetectionLocked sets pn's label and state from the custom reporter and the
// detected agent: a reporter's state wins, except that a blocker the screen visibly
// shows for the same agent, seen no earlier than the report, reads blocked (unless the
// reporter is a lifecycle integration); without a reporter the screen's state holds.
func (s *Session) applyDetectionLocked(pn *pane) {
	if pn.authority != "" {
		state := pn.hookState
		if pn.detBlocker && pn.detState == StatusBlocked && canonicalAgent(pn.agent) == pn.detAgent &&
			!pn.detAt.Before(pn.hookAt) && state != StatusBlocked && !pn.skipsScreen {
			state = StatusBlocked
		}
		s.setStatusLocked(pn, state)
		return
	}
	if pn.detAgent == "" {
		return
	}
	if pn.agent != pn.detAgent {
		pn.agent = pn.detAgent
		pn.revision++
	}
	s.setStatusLocked(pn, pn.detState)
}

// reportConflictsLocked reports whether a report for agent must be ignored because
// process detection found a different known agent in pn.
func reportConflictsLocked(pn *pane, agent string) bool {
	a := knownAgent(agent)
	return a != "" && pn.detAgent != "" && a != pn.detAgent
}
