package cli

import (
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api"
)

// `orcr budget ls` writes each unit as a person reads it: dollars, tokens, and a quota
// percent rule's used share of its window (docs/usage.md §8.4).
func TestRenderBudgetUnits(t *testing.T) {
	out := renderBudgets([]api.BudgetRow{
		{Budget: "fleet", Unit: api.BudgetUnitUSD, Spent: 1.25, Limit: 20, State: "ok", Paused: []string{}},
		{Budget: "night", Scope: "codex/ada@example.com#secondary@1796990400000", Unit: api.BudgetUnitPercent,
			Spent: 72.5, Limit: 70, State: "exceeded", Paused: []string{"nightly/r00001/x"}},
	})
	for _, want := range []string{"$1.25", "$20.00", "72.5%", "70.0%", "codex/ada@example.com#secondary@1796990400000", "nightly/r00001/x"} {
		if !strings.Contains(out, want) {
			t.Errorf("budget ls output lacks %q:\n%s", want, out)
		}
	}
}
