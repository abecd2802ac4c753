package api

import (
	"math"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// The scopes of a budget rule (docs/usage.md §8.1): what one amount is spent by.
const (
	BudgetPerAgent = "agent" // each matching agent has the whole limit
	BudgetPerDay   = "day"   // the matching turns of one local day share it
	BudgetTotal    = "total" // every matching turn ever shares it
	BudgetPerTurn  = "turn"  // each matching turn has the whole limit
)

// BudgetScopes are the values of a budget rule's `per`.
var BudgetScopes = []string{BudgetPerTurn, BudgetPerAgent, BudgetPerDay, BudgetTotal}

// The states of a budget's scope (docs/usage.md §8.3).
const (
	BudgetStateOK       = "ok"
	BudgetStateWarned   = "warned"
	BudgetStateExceeded = "exceeded"
)

// The quota windows a budget rule with a percent limit watches (docs/usage.md §8.1):
// the 5-hour window (codex's primary, claude's five_hour) and the 7-day one (codex's
// secondary, claude's seven_day).
const (
	BudgetWindow5h = "5h"
	BudgetWindow7d = "7d"
)

// BudgetWindows are the values of a budget rule's `window`.
var BudgetWindows = []string{BudgetWindow5h, BudgetWindow7d}

// BudgetLimit is an amount of a budget (docs/usage.md §8): a cost in millionths of a US
// dollar, a count of non-cached tokens (input, output with reasoning, cache writes) or
// a used share of a quota window in hundredths of a percent (a rule's `90%`); exactly
// one is above zero.
type BudgetLimit struct {
	CostMicros   int64
	Tokens       int64
	Centipercent int64
}

// IsCost reports whether l counts dollars.
func (l BudgetLimit) IsCost() bool { return l.CostMicros > 0 }

// IsPercent reports whether l is a used share of a quota window.
func (l BudgetLimit) IsPercent() bool { return l.Centipercent > 0 }

// Unit is l's unit on the wire: usd, tokens or percent.
func (l BudgetLimit) Unit() string {
	switch {
	case l.IsCost():
		return BudgetUnitUSD
	case l.IsPercent():
		return BudgetUnitPercent
	}
	return BudgetUnitTokens
}

// String writes l as [ParseBudget] reads it: "2.5usd", "500000", "90%".
func (l BudgetLimit) String() string {
	if l.IsCost() {
		return strconv.FormatFloat(float64(l.CostMicros)/1e6, 'f', -1, 64) + "usd"
	}
	if l.IsPercent() {
		return strconv.FormatFloat(float64(l.Centipercent)/100, 'f', -1, 64) + "%"
	}
	return strconv.FormatInt(l.Tokens, 10)
}

// maxBudget bounds either amount (a trillion dollars or tokens).
const maxBudget = 1e12

// ParseBudget reads a budget amount: a cost `2usd`, `0.25usd`, `$3`, a token count
// `500k`, `1.5m`, `20000` (k = thousand, m = million) or a quota window's used share
// `90%` (above 0, at most 100; a rule's limit with its `window`, or an extension of
// one). Anything else, zero or a negative amount is invalid_request invalid_budget.
func ParseBudget(s string) (BudgetLimit, error) {
	bad := func() (BudgetLimit, error) {
		return BudgetLimit{}, wire.Invalid(wire.ReasonInvalidBudget, "budget "+strconv.Quote(s)+
			" is neither a cost (2usd, 0.5usd), a token count (500k, 1.5m, 20000) nor a quota percent (90%)", "value", s)
	}
	t := strings.ToLower(strings.TrimSpace(s))
	cost, percent, mult := false, false, 1.0
	switch {
	case strings.HasSuffix(t, "%"):
		percent, t = true, strings.TrimSuffix(t, "%")
	case strings.HasSuffix(t, "usd"):
		cost, t = true, strings.TrimSuffix(t, "usd")
	case strings.HasPrefix(t, "$"):
		cost, t = true, strings.TrimPrefix(t, "$")
	case strings.HasSuffix(t, "k"):
		mult, t = 1e3, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1e6, strings.TrimSuffix(t, "m")
	}
	if t == "" || strings.ContainsAny(t, "+-eEinfINFxX_ ") {
		return bad()
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || f*mult > maxBudget {
		return bad()
	}
	if percent {
		c := int64(math.Round(f * 100))
		if c <= 0 || c > 10000 {
			return bad()
		}
		return BudgetLimit{Centipercent: c}, nil
	}
	if cost {
		c := int64(math.Round(f * 1e6))
		if c <= 0 {
			return bad()
		}
		return BudgetLimit{CostMicros: c}, nil
	}
	n := int64(math.Round(f * mult))
	if n <= 0 {
		return bad()
	}
	return BudgetLimit{Tokens: n}, nil
}

// QueuedBudget is agent.send's queued when a budget paused the agent.
const QueuedBudget = "budget"

// The units of a budget on the wire.
const (
	BudgetUnitUSD     = "usd"
	BudgetUnitTokens  = "tokens"
	BudgetUnitPercent = "percent" // a quota window's used share (docs/usage.md §8.1)
)

// BudgetEvent is what the budget events say of a budget's scope: its name (a config
// rule, or run:<path> for agent run --budget), the scope (a per-agent rule: the agent's
// uuid; per day: the local day YYYY-MM-DD; else ""), the unit and the amounts in it.
type BudgetEvent struct {
	Budget string  `json:"budget"`
	Scope  string  `json:"scope"`
	Unit   string  `json:"unit"`
	Spent  float64 `json:"spent"`
	Limit  float64 `json:"limit"`
}

// BudgetWarned: a turn of the agent brought a budget's scope to its warn_at
// (docs/usage.md §8.3).
type BudgetWarned struct {
	AgentHead
	BudgetEvent
}

// BudgetExceeded: a turn of the agent found a budget's scope at its limit; the agent is
// paused at this turn boundary and its sends wait in its inbox (docs/usage.md §8.3).
// Interrupted: another agent's turn reached the limit of an interrupt rule and this
// agent's running turn was cut.
type BudgetExceeded struct {
	AgentHead
	BudgetEvent
	Interrupted bool `json:"interrupted,omitempty"`
}

// BudgetExtended: budget extend raised a scope's limit; state is the scope's state after.
type BudgetExtended struct {
	BudgetEvent
	State string `json:"state"`
}

// BudgetResumed: an extension lifted the agent's budget pause; what waits in its inbox
// is delivered.
type BudgetResumed struct {
	AgentHead
	Budget string `json:"budget"`
	Scope  string `json:"scope"`
}

func (BudgetWarned) EventKind() string   { return "budget.warned" }
func (BudgetExceeded) EventKind() string { return "budget.exceeded" }
func (BudgetExtended) EventKind() string { return "budget.extended" }
func (BudgetResumed) EventKind() string  { return "budget.resumed" }

// BudgetRow is one budget scope of budget.ls.
type BudgetRow struct {
	// The budget: a config rule's name, or run:<path>.
	Budget string `json:"budget"`
	// The scope: a per-agent rule's agent uuid, a per-day rule's local day, else "".
	Scope string `json:"scope"`
	// The agent of a per-agent scope or of a run budget ("" = none).
	Path string `json:"path,omitempty"`
	// usd, tokens (non-cached: input, output, cache writes) or percent (a quota window's
	// used share, docs/usage.md §8.1).
	Unit string `json:"unit"`
	// Spent and Limit (extensions included) in Unit.
	Spent  float64 `json:"spent"`
	Limit  float64 `json:"limit"`
	WarnAt float64 `json:"warn_at"`
	// ok, warned or exceeded.
	State string `json:"state"`
	// The paths of the agents this budget paused.
	Paused []string `json:"paused"`
}

// BudgetLsRequest is budget.ls's params.
type BudgetLsRequest struct{}

// BudgetLsResult is budget.ls's result.
type BudgetLsResult struct {
	Budgets []BudgetRow `json:"budgets"`
}

// BudgetExtendRequest is budget.extend's params.
type BudgetExtendRequest struct {
	Caller
	// A budget name (a config rule, or run:<path>) or an agent (path in the caller's
	// scope, or uuid): then the budget that paused it.
	Target string `json:"target"`
	// The amount to add, in the budget's unit: 1usd, 100k.
	By string `json:"by"`
}

// BudgetExtendResult is budget.extend's result: the scope after, and the paths of the
// agents it resumed.
type BudgetExtendResult struct {
	Budget  BudgetRow `json:"budget"`
	Resumed []string  `json:"resumed"`
}
