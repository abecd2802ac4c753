package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/orcr-go/orcr/socketapi/api"
)

type budgetCmd struct {
	Ls     budgetLsCmd     `cmd:"" help:"List every budget with what it spent, its limit and its state."`
	Extend budgetExtendCmd `cmd:"" help:"Raise a budget's limit; its paused agents get their queued sends."`
}

type budgetLsCmd struct{}

// Run implements `orcr budget ls` (docs/cli.md §5.31, docs/usage.md §7.4).
func (c *budgetLsCmd) Run(a *app) error {
	return request(a, api.BudgetLs, api.BudgetLsRequest{}, func(r api.BudgetLsResult) error {
		_, err := io.WriteString(a.env.Stdout, renderBudgets(r.Budgets))
		return err
	})
}

type budgetExtendCmd struct {
	Target string `arg:"" help:"A budget (a config rule, run:<path>) or an agent paused on one."`
	By     string `required:"" help:"How much to add, in the budget's unit: 1usd, 100k."`
}

// Run implements `orcr budget extend` (docs/cli.md §5.32, docs/usage.md §7.4).
func (c *budgetExtendCmd) Run(a *app) error {
	req := api.BudgetExtendRequest{Target: c.Target, By: c.By}
	return request(a, api.BudgetExtend, req, func(r api.BudgetExtendResult) error {
		b := r.Budget
		a.stdout("%s %s: spent %s of %s (%s)", b.Budget, budgetScope(b), budgetFigure(b.Unit, b.Spent),
			budgetFigure(b.Unit, b.Limit), b.State)
		for _, p := range r.Resumed {
			a.stdout("%s resumed", p)
		}
		return nil
	})
}

// budgetScope is a row's scope as the table shows it: the agent's path, the day, or total.
func budgetScope(b api.BudgetRow) string {
	switch {
	case b.Path != "":
		return b.Path
	case b.Scope != "":
		return b.Scope
	}
	return "total"
}

// budgetFigure writes an amount: $1.25, 12,000 tokens as 12000, a quota window's used
// share as 72.5%.
func budgetFigure(unit string, v float64) string {
	switch unit {
	case api.BudgetUnitUSD:
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	case api.BudgetUnitPercent:
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// renderBudgets renders `orcr budget ls`: one row per budget scope under a header.
func renderBudgets(rows []api.BudgetRow) string {
	if len(rows) == 0 {
		return "no budgets\n"
	}
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUDGET\tSCOPE\tUNIT\tSPENT\tLIMIT\tSTATE\tPAUSED")
	for _, b := range rows {
		paused := strings.Join(b.Paused, ",")
		if paused == "" {
			paused = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", b.Budget, budgetScope(b), b.Unit, budgetFigure(b.Unit, b.Spent),
			budgetFigure(b.Unit, b.Limit), b.State, paused)
	}
	tw.Flush()
	return sb.String()
}
