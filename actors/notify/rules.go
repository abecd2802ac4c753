// Package notify holds the pure half of orcr's notifications (docs/notify.md): which
// stored events notify whom ([Rules]), the document a delivery sends ([Body]), the
// webhook signature ([Sign]), the retry decision ([Decide]), and the three senders
// (webhook, command, herdr) that perform one attempt. The notifier actors
// (actors/notify_actor.go) read events, enqueue deliveries and schedule attempts; they do
// the I/O this package decides.
package notify

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire/pathglob"
	"github.com/orcr-go/orcr/store"
)

// Rule event names (config.NotifyEvents) and the stored events they come from
// (docs/notify.md §3).
const (
	EventBlocked       = "blocked"         // agent.status_changed {status: blocked}
	EventLost          = "lost"            // agent.status_changed {status: lost}
	EventStalled       = "stalled"         // agent.stalled {stalled: true}
	EventLoopRunFailed = "loop_run.failed" // loop_run.ended {status: failed | timeout}
	EventEnded         = "ended"           // agent.ended
	EventBudgetWarned  = "budget.warned"   // budget.warned
	EventBudgetPaused  = "budget.exceeded" // budget.exceeded: the agent paused (docs/usage.md §8.3)
	EventQuotaWarned   = "quota.warned"    // quota.warned: a quota window at quota.warn_at (docs/usage.md §7.2)
)

// Occurrence is a stored event seen as a notification: its rule event name, the path it
// concerns and a one-line summary.
type Occurrence struct {
	Event   string
	Path    string
	Ref     string // the agent's or run's uuid
	Summary string
}

// Classify maps a stored event to its occurrence; false for every event no rule can name
// (or whose payload does not decode into its type).
func Classify(ev store.Event) (Occurrence, bool) {
	p, err := api.DecodeEvent(ev.Kind, ev.Payload)
	if err != nil {
		return Occurrence{}, false
	}
	o := Occurrence{Ref: ev.Ref}
	switch p := p.(type) {
	case *api.AgentStatusChanged:
		o.Path = p.Agent.Path
		switch p.Status {
		case api.StatusBlocked:
			kind := cmp.Or(p.BlockedKind, deref(p.Agent.BlockedKind), "unknown") // else the row after the change
			o.Event, o.Summary = EventBlocked, fmt.Sprintf("%s is blocked (%s)", o.Path, kind)
		case api.StatusLost:
			o.Event, o.Summary = EventLost, o.Path+" is lost"
		default:
			return Occurrence{}, false
		}
	case *api.AgentStalled:
		if !p.Stalled {
			return Occurrence{}, false
		}
		o.Path = p.Agent.Path
		o.Event, o.Summary = EventStalled, o.Path+" stalled: no progress"
	case *api.AgentEnded:
		o.Path = p.Agent.Path
		o.Event, o.Summary = EventEnded, fmt.Sprintf("%s ended (%s)", o.Path, cmp.Or(deref(p.ExitReason), "unknown"))
	case *api.BudgetWarned:
		o.Path = p.Agent.Path
		o.Event, o.Summary = EventBudgetWarned, fmt.Sprintf("%s: budget %s at %s of %s %s", o.Path, p.Budget,
			budgetFigure(p.Spent), budgetFigure(p.Limit), p.Unit)
	case *api.BudgetExceeded:
		o.Path = p.Agent.Path
		o.Event, o.Summary = EventBudgetPaused, fmt.Sprintf("%s paused: budget %s spent %s of %s %s (orcr budget extend %s --by …)",
			o.Path, p.Budget, budgetFigure(p.Spent), budgetFigure(p.Limit), p.Unit, o.Path)
	case *api.QuotaWarned:
		o.Path = p.Provider // no agent's: the window is the provider's account's
		o.Event, o.Summary = EventQuotaWarned, fmt.Sprintf("%s quota window %s %.0f%% used (quota.warn_at %.0f%%)",
			p.Provider, p.Window, p.UsedPercent, p.WarnAt*100)
		if p.ResetsAt > 0 {
			o.Summary += ", resets " + time.UnixMilli(p.ResetsAt).UTC().Format(time.RFC3339)
		}
	case *api.LoopRunEnded:
		if p.Status != store.RunFailed && p.Status != store.RunTimeout {
			return Occurrence{}, false
		}
		o.Path = p.Run.Path
		o.Event, o.Summary = EventLoopRunFailed, fmt.Sprintf("loop run %s %s", o.Path, p.Status)
	}
	if o.Path == "" || o.Event == "" {
		return Occurrence{}, false
	}
	return o, true
}

// budgetFigure writes a budget amount without trailing zeros.
func budgetFigure(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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
