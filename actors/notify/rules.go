// Package notify holds the pure half of orcr's notifications (docs/notify.md): which
// stored events notify whom ([Rules]), the document a delivery sends ([Body]), the
// webhook signature ([Sign]), the retry decision ([Decide]), and the three senders
// (webhook, command, herdr) that perform one attempt. The notifier actors
// (actors/notifier.go) read events, enqueue deliveries and schedule attempts; they do
// the I/O this package decides.
package notify

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire/pathglob"
	"github.com/orcr-go/orcr/store"
)

// Rule event names (config.NotifyEvents) and the stored events they come from
// (docs/notify.md §3).
const (
	EventBlocked       = "blocked"         // agent.status_changed {status: blocked}
	EventLost          = "lost"            // agent.status_changed {status: lost}
	EventStalled       = "stalled"         // agent.stalled (unless stalled: false)
	EventLoopRunFailed = "loop_run.failed" // loop_run.ended {status: failed | timeout}
	EventEnded         = "ended"           // agent.ended
)

// Occurrence is a stored event seen as a notification: its rule event name, the path it
// concerns and a one-line summary.
type Occurrence struct {
	Event   string
	Path    string
	Ref     string // the agent's or run's uuid
	Summary string
}

// payload is the part of an event payload classification reads.
type payload struct {
	Status      string `json:"status"`
	BlockedKind string `json:"blocked_kind"`
	ExitReason  string `json:"exit_reason"`
	Stalled     *bool  `json:"stalled"`
	Agent       *struct {
		Path        string `json:"path"`
		BlockedKind string `json:"blocked_kind"`
	} `json:"agent"`
	Run *struct {
		Path   string `json:"path"`
		Status string `json:"status"`
	} `json:"run"`
}

// Classify maps a stored event to its occurrence; false for every event no rule can name.
func Classify(ev store.Event) (Occurrence, bool) {
	switch ev.Kind {
	case "agent.status_changed", "agent.ended", "agent.stalled", "loop_run.ended":
	default:
		return Occurrence{}, false
	}
	var p payload
	if json.Unmarshal(ev.Payload, &p) != nil {
		return Occurrence{}, false
	}
	o := Occurrence{Ref: ev.Ref}
	if p.Agent != nil {
		o.Path = p.Agent.Path
	}
	switch {
	case ev.Kind == "agent.status_changed" && p.Status == "blocked":
		kind := p.BlockedKind
		if kind == "" && p.Agent != nil {
			kind = p.Agent.BlockedKind // the row after the change
		}
		if kind == "" {
			kind = "unknown"
		}
		o.Event, o.Summary = EventBlocked, fmt.Sprintf("%s is blocked (%s)", o.Path, kind)
	case ev.Kind == "agent.status_changed" && p.Status == "lost":
		o.Event, o.Summary = EventLost, o.Path+" is lost"
	case ev.Kind == "agent.stalled" && (p.Stalled == nil || *p.Stalled):
		o.Event, o.Summary = EventStalled, o.Path+" stalled: no progress"
	case ev.Kind == "agent.ended":
		reason := p.ExitReason
		if reason == "" {
			reason = "unknown"
		}
		o.Event, o.Summary = EventEnded, fmt.Sprintf("%s ended (%s)", o.Path, reason)
	case ev.Kind == "loop_run.ended" && p.Run != nil && (p.Status == "failed" || p.Status == "timeout"):
		o.Path = p.Run.Path
		o.Event, o.Summary = EventLoopRunFailed, fmt.Sprintf("loop run %s %s", o.Path, p.Status)
	default:
		return Occurrence{}, false
	}
	if o.Path == "" {
		return Occurrence{}, false
	}
	return o, true
}

// Rules are the compiled notify rules.
type Rules struct {
	rules []rule
}

type rule struct {
	events   []string
	patterns []*pathglob.Pattern // none = every path
	targets  []string
}

// Compile compiles the rules of n (already validated by config.Load; an invalid pattern
// is still an error here).
func Compile(n config.Notify) (*Rules, error) {
	rs := &Rules{}
	for _, r := range n.Rules {
		c := rule{events: r.Events, targets: r.Targets}
		for _, p := range r.Paths {
			pat, err := pathglob.Compile("", p)
			if err != nil {
				return nil, err
			}
			c.patterns = append(c.patterns, pat)
		}
		rs.rules = append(rs.rules, c)
	}
	return rs, nil
}

// Targets returns the targets o goes to: the union over every rule naming its event
// with a pattern matching its path (or no pattern), in the order rules name them, each
// once.
func (rs *Rules) Targets(o Occurrence) []string {
	var out []string
	for _, r := range rs.rules {
		if !slices.Contains(r.events, o.Event) || !r.matches(o.Path) {
			continue
		}
		for _, t := range r.targets {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func (r rule) matches(path string) bool {
	if len(r.patterns) == 0 {
		return true
	}
	return slices.ContainsFunc(r.patterns, func(p *pathglob.Pattern) bool { return p.Match(path) })
}

// Document is the JSON a delivery sends (docs/notify.md §4): the same bytes on every
// attempt.
type Document struct {
	DeliveryID string          `json:"delivery_id"`
	Event      string          `json:"event"`
	Path       string          `json:"path"`
	RefUUID    string          `json:"ref_uuid,omitempty"`
	Summary    string          `json:"summary"`
	Seq        int64           `json:"seq"`
	TS         int64           `json:"ts"`
	Target     string          `json:"target"`
	Data       json.RawMessage `json:"data"` // the event as events.subscribe frames it
}

// Body builds the document of o for target from ev.
func Body(id, target string, o Occurrence, ev store.Event) []byte {
	b, err := json.Marshal(Document{DeliveryID: id, Event: o.Event, Path: o.Path, RefUUID: o.Ref, Summary: o.Summary,
		Seq: ev.Seq, TS: ev.TS, Target: target, Data: ev.Frame()})
	if err != nil { // unreachable: every field marshals
		panic(err)
	}
	return b
}
