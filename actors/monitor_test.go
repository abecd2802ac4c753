package actors

import (
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr"
)

// The monitor passes herdr's completion_seq on for panes it matched by terminal id, and
// a change of the count alone is a change worth a report; a pane matched by pane id only
// (herdr lists another terminal there) carries none.
func TestMonitorDiffCompletionSeq(t *testing.T) {
	m := newMonitorState()
	m.track(TrackPane{UUID: "a", Terminal: "term_a", Pane: "w1:p1"})
	m.track(TrackPane{UUID: "b", Terminal: "term_b", Pane: "w1:p2"})
	n := func(v uint64) *uint64 { return &v }
	row := func(term, pane string, st herdr.Status, seq *uint64) herdr.AgentInfo {
		return herdr.AgentInfo{TerminalID: term, PaneID: pane, AgentStatus: st, CompletionSeq: seq}
	}
	type want struct {
		uuid string
		seq  *uint64
	}
	check := func(what string, list []herdr.AgentInfo, wants ...want) {
		t.Helper()
		got := m.diff(list, time.Now())
		if len(got) != len(wants) {
			t.Fatalf("%s: %d reports %+v, want %d", what, len(got), got, len(wants))
		}
		for i, w := range wants {
			g := got[i]
			if g.UUID != w.uuid || (g.CompletionSeq == nil) != (w.seq == nil) || (w.seq != nil && *g.CompletionSeq != *w.seq) {
				t.Errorf("%s: report %d: got %s seq %v, want %s seq %v", what, i, g.UUID, g.CompletionSeq, w.uuid, w.seq)
			}
		}
	}
	check("first poll", []herdr.AgentInfo{row("term_a", "w1:p1", herdr.StatusIdle, n(2)), row("term_other", "w1:p2", herdr.StatusIdle, n(7))},
		want{"a", n(2)}, want{"b", nil})
	check("nothing changed", []herdr.AgentInfo{row("term_a", "w1:p1", herdr.StatusIdle, n(2)), row("term_other", "w1:p2", herdr.StatusIdle, n(8))})
	check("only the count moved", []herdr.AgentInfo{row("term_a", "w1:p1", herdr.StatusIdle, n(3))}, want{"a", n(3)})
	check("herdr stopped reporting it", []herdr.AgentInfo{row("term_a", "w1:p1", herdr.StatusIdle, nil)}, want{"a", nil})
}

// An agent herdr listed and then stops listing is reported missing once (a hint for a
// reconcile pass), not at every poll after, and not before herdr ever listed it (a
// spawn whose agent has not reported yet).
func TestMonitorUnlisted(t *testing.T) {
	m := newMonitorState()
	m.track(TrackPane{UUID: "a", Terminal: "term_a", Pane: "w1:p1"})
	m.track(TrackPane{UUID: "b", Terminal: "term_b", Pane: "w1:p2"})
	a := herdr.AgentInfo{TerminalID: "term_a", PaneID: "w1:p1", AgentStatus: herdr.StatusIdle}
	b := herdr.AgentInfo{TerminalID: "term_b", PaneID: "w1:p2", AgentStatus: herdr.StatusIdle}
	steps := []struct {
		what string
		list []herdr.AgentInfo
		gone bool
	}{
		{"b not listed yet", []herdr.AgentInfo{a}, false},
		{"both listed", []herdr.AgentInfo{a, b}, false},
		{"a gone", []herdr.AgentInfo{b}, true},
		{"a still gone", []herdr.AgentInfo{b}, false},
		{"a back", []herdr.AgentInfo{a, b}, false},
		{"both gone", nil, true},
	}
	for _, s := range steps {
		m.diff(s.list, time.Now())
		if got := m.unlisted(); got != s.gone {
			t.Errorf("%s: unlisted %v, want %v", s.what, got, s.gone)
		}
	}
}
