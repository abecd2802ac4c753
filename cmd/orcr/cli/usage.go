package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/orcr-go/orcr/cmd/orcr/top"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

type usageCmd struct {
	By    string `help:"Group by agent, path, provider, model, loop or day (default: the totals alone)."`
	Depth int    `help:"With --by path: how many leading path segments a group keeps." default:"1"`
	Since string `help:"Only turns completed since: a duration back from now (90m, 24h, 7d), today, or a date (2026-12-01) or time (RFC 3339)."`
	Path  string `help:"Only the agents at this path and under it."`
	Quota bool   `help:"Show the quota windows each provider last reported (used percent, reset) instead of the usage table."`
}

// Run implements `orcr usage` (docs/cli.md §5.30, docs/usage.md §4): what completed turns
// used and cost, as a table, or usage.report's result with --json.
func (c *usageCmd) Run(a *app) error {
	since, err := parseSince(c.Since, time.Now())
	if err != nil {
		return err
	}
	req := api.UsageRequest{By: c.By, Depth: c.Depth, Since: since, Path: c.Path, Quota: c.Quota}
	return request(a, api.UsageReport, req, func(r api.UsageResult) error {
		out := renderUsage(r)
		if c.Quota {
			out = renderQuota(r.Quota, time.Now())
		}
		_, err := io.WriteString(a.env.Stdout, out)
		return err
	})
}

// parseSince reads --since (docs/cli.md §5.30) as unix ms: "" is 0 (all), a duration
// (s, m, h, d, w) counts back from now, "today" is the local midnight, a date its local
// midnight, an RFC 3339 time itself. Anything else is invalid_request bad_since.
func parseSince(s string, now time.Time) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if s == "today" {
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location()).UnixMilli(), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, now.Location()); err == nil {
		return t.UnixMilli(), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil && t.Year() >= 1970 && t.Year() < 10000 {
		return t.UnixMilli(), nil
	}
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if unit, ok := units[s[len(s)-1]]; ok {
		n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
		if err == nil && n > 0 && n <= int64(100*365*24*time.Hour/unit) {
			return now.Add(-time.Duration(n) * unit).UnixMilli(), nil
		}
	}
	return 0, wire.Invalid(wire.ReasonBadSince, fmt.Sprintf("--since %q is not a duration (24h, 7d), today, a date (2006-01-02) or an RFC 3339 time", s),
		"value", s)
}

// renderUsage renders `orcr usage` (docs/cli.md §5.30): one row per group under a header
// naming the grouping, then TOTAL; a cost with turns of unpriced models is marked * and
// explained below the table.
func renderUsage(r api.UsageResult) string {
	var b strings.Builder
	key := strings.ToUpper(r.By)
	if key == "" {
		key = "USAGE"
	}
	width := len("TOTAL")
	label := func(row api.UsageRow) string {
		switch {
		case r.By == "agent":
			return row.Path
		case row.Key == "":
			return "-"
		}
		return row.Key
	}
	for _, row := range r.Rows {
		width = max(width, len(label(row)))
	}
	width = max(width, len(key))
	line := func(name string, s api.UsageSum) {
		fmt.Fprintf(&b, "%-*s %6d %9s %9s %10s %11s %9s %10s\n", width, name, s.Turns, tokens(s.InputTokens),
			tokens(s.OutputTokens), tokens(s.CacheReadTokens), tokens(s.CacheWriteTokens), tokens(s.ReasoningTokens), cost(s))
	}
	fmt.Fprintf(&b, "%-*s %6s %9s %9s %10s %11s %9s %10s\n", width, key, "TURNS", "INPUT", "OUTPUT", "CACHE_READ",
		"CACHE_WRITE", "REASONING", "COST")
	for _, row := range r.Rows {
		line(label(row), row.UsageSum)
	}
	line("TOTAL", r.Total)
	if r.Total.UnpricedTurns > 0 {
		fmt.Fprintf(&b, "* %d turns of models without a price (%s): their tokens are counted, their cost is not (config prices)\n",
			r.Total.UnpricedTurns, strings.Join(quoteEmpty(r.UnpricedModels), ", "))
	}
	return b.String()
}

func quoteEmpty(models []string) []string {
	out := make([]string, len(models))
	for i, m := range models {
		if out[i] = m; m == "" {
			out[i] = "no model named"
		}
	}
	return out
}

// tokens renders a token count: exact below 10,000, then k and M with one decimal.
func tokens(n int64) string {
	switch {
	case n < 10000:
		return strconv.FormatInt(n, 10)
	case n < 1000000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
}

// cost renders a cost in dollars (four decimals below a cent), * when turns of models
// without a price are left out of it.
func cost(s api.UsageSum) string {
	c := fmt.Sprintf("$%.2f", s.CostUSD)
	if s.CostUSD > 0 && s.CostUSD < 0.01 {
		c = fmt.Sprintf("$%.4f", s.CostUSD)
	}
	if s.UnpricedTurns > 0 {
		c += "*"
	}
	return c
}

// renderQuota renders `orcr usage --quota` (docs/cli.md §5.30): one row per quota window
// a provider last reported, with its reset in local time and how long ago orcr read it.
func renderQuota(ws []api.QuotaWindow, now time.Time) string {
	if len(ws) == 0 {
		return "no quota window reported yet (codex reports them in its token_count events, docs/usage.md §7)\n"
	}
	var b strings.Builder
	width := len("PROVIDER")
	for _, w := range ws {
		width = max(width, len(quotaName(w)))
	}
	fmt.Fprintf(&b, "%-*s %-10s %6s %-6s %8s %-19s %s\n", width, "PROVIDER", "WINDOW", "USED", "STATE", "LENGTH", "RESETS", "OBSERVED")
	for _, w := range ws {
		w = w.Judge(now.UnixMilli(), 0, 0)
		length := "-"
		if w.WindowMinutes > 0 {
			length = (time.Duration(w.WindowMinutes) * time.Minute).String()
		}
		fmt.Fprintf(&b, "%-*s %-10s %6s %-6s %8s %-19s %s ago\n", width, quotaName(w), w.Window, usedPercent(w.UsedPercent), w.State,
			length, resetsAt(w.ResetsAt), now.Sub(time.UnixMilli(w.ObservedAt)).Round(time.Second))
	}
	return b.String()
}

// quotaName is a window's provider, with its account when it names one (as top names it).
func quotaName(w api.QuotaWindow) string { return top.QuotaName(w) }

func usedPercent(p float64) string { return strconv.FormatFloat(p, 'f', 1, 64) + "%" }

// resetsAt renders a reset time in local time, "-" when none was reported.
func resetsAt(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).Local().Format("2006-01-02 15:04:05")
}
