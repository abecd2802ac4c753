package api

import (
	"math"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// BudgetLimit is an amount of a budget (docs/usage.md §7): a cost in millionths of a US
// dollar or a count of non-cached tokens (input, output with reasoning, cache writes);
// exactly one is above zero.
type BudgetLimit struct {
	CostMicros int64
	Tokens     int64
}

// IsCost reports whether l counts dollars.
func (l BudgetLimit) IsCost() bool { return l.CostMicros > 0 }

// String writes l as [ParseBudget] reads it: "2.5usd", "500000".
func (l BudgetLimit) String() string {
	if l.IsCost() {
		return strconv.FormatFloat(float64(l.CostMicros)/1e6, 'f', -1, 64) + "usd"
	}
	return strconv.FormatInt(l.Tokens, 10)
}

// maxBudget bounds either amount (a trillion dollars or tokens).
const maxBudget = 1e12

// ParseBudget reads a budget amount: a cost `2usd`, `0.25usd`, `$3` or a token count
// `500k`, `1.5m`, `20000` (k = thousand, m = million). Anything else, zero or a negative
// amount is invalid_request invalid_budget.
func ParseBudget(s string) (BudgetLimit, error) {
	bad := func() (BudgetLimit, error) {
		return BudgetLimit{}, wire.Invalid(wire.ReasonInvalidBudget, "budget "+strconv.Quote(s)+
			" is neither a cost (2usd, 0.5usd) nor a token count (500k, 1.5m, 20000)", "value", s)
	}
	t := strings.ToLower(strings.TrimSpace(s))
	cost, mult := false, 1.0
	switch {
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
