package config

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/api/wire/pathglob"
)

// DefaultWarnAt is a rule's warn_at when it names none.
const DefaultWarnAt = 0.8

// BudgetRule is one entry of the `budgets` section (docs/usage.md §8.1). The match keys
// all hold for a turn the rule counts; none = the whole fleet.
type BudgetRule struct {
	Name string
	// Path is a whole-segment pattern (docs/cli.md §3.5) the agent's path matches
	// ("" = any).
	Path     string
	Provider string // "" = any
	Loop     string // the loop whose run started the agent ("" = any)
	Limit    api.BudgetLimit
	Per      string  // one of api.BudgetScopes
	WarnAt   float64 // 0 < WarnAt <= 1
	// Interrupt cuts the running turns of the other agents the rule counts when a turn
	// brings it to its limit (docs/usage.md §8.3); per day or total only.
	Interrupt bool
	// Window is the quota window (api.BudgetWindows) a percent limit watches: the
	// window of the provider's account each agent the rule counts runs under
	// (docs/usage.md §8.1); "" for a cost or token limit.
	Window string
}

var budgetKeys = []string{"path", "provider", "loop", "limit", "per", "warn_at", "interrupt", "window"}

// budgets reads the budgets section: rule name → {path?, provider?, loop?, limit, per?,
// warn_at?, interrupt?}; per defaults to total, warn_at to 0.8, interrupt to false.
func (l *loader) budgets(obj map[string]any) error {
	for _, name := range sortedKeys(obj) {
		field := "budgets." + name
		if !pathglob.ValidSegment(name) {
			return invalid("`" + field + "`: a budget name is one path segment (letters, digits, `-`, `_`, `.`)")
		}
		entry, err := object(obj[name], field)
		if err != nil {
			return err
		}
		l.unknown(field, entry, budgetKeys)
		r := BudgetRule{Name: name, Per: api.BudgetTotal, WarnAt: DefaultWarnAt}
		for _, k := range []struct {
			key string
			dst *string
		}{{"path", &r.Path}, {"provider", &r.Provider}, {"loop", &r.Loop}, {"per", &r.Per}, {"window", &r.Window}} {
			if _, _, err := stringKeyInto(entry, k.key, field+"."+k.key, k.dst); err != nil {
				return err
			}
		}
		if r.Path != "" {
			if _, err := pathglob.Compile("", r.Path); err != nil {
				msg := err.Error()
				if pe, ok := wire.As(err); ok {
					msg = pe.Message
				}
				return invalid("`" + field + ".path`: " + msg)
			}
		}
		if !slices.Contains(api.BudgetScopes, r.Per) {
			return invalid("`" + field + ".per` must be one of " + strings.Join(api.BudgetScopes, ", ") + " (got " + strconv.Quote(r.Per) + ")")
		}
		lim, ok := entry["limit"].(string)
		if !ok {
			return invalid("`" + field + ".limit` is required: a cost (\"2usd\"), a token count (\"500k\") or a quota percent (\"90%\") with its window")
		}
		if r.Limit, err = api.ParseBudget(lim); err != nil {
			return invalid("`" + field + ".limit`: " + err.(*wire.Error).Message)
		}
		if err := quotaRule(field, entry, r); err != nil {
			return err
		}
		if v, present := entry["warn_at"]; present {
			num, isNum := v.(json.Number)
			f, perr := strconv.ParseFloat(string(num), 64)
			if !isNum || perr != nil || f <= 0 || f > 1 {
				return invalid("`" + field + ".warn_at` must be a fraction above 0 and at most 1 (0.8 = at 80% of the limit)")
			}
			r.WarnAt = f
		}
		if r.Interrupt, _, err = boolKey(entry, "interrupt", field+".interrupt"); err != nil {
			return err
		}
		if r.Interrupt && (r.Per == api.BudgetPerAgent || r.Per == api.BudgetPerTurn) {
			// The turn that reaches a per agent or per turn limit is the only turn it
			// counts, and it has completed: there is nothing running to cut.
			return invalid("`" + field + ".interrupt` needs per day or total: a per " + r.Per +
				" budget counts one agent's turns, and the turn that reaches its limit has completed")
		}
		l.cfg.Budgets = append(l.cfg.Budgets, r)
	}
	return nil
}

// stringKeyInto reads obj[key] as a string into dst when present.
func stringKeyInto(obj map[string]any, key, field string, dst *string) (string, bool, error) {
	s, ok, err := stringKey(obj, key, field)
	if err == nil && ok {
		*dst = s
	}
	return s, ok, err
}

// quotaRule checks the keys of a rule whose limit is a quota window's used share
// (docs/usage.md §8.1): it needs a window, its scope is that window's period (no
// `per`), and it cuts nothing (no `interrupt`); a window with another limit is refused.
func quotaRule(field string, entry map[string]any, r BudgetRule) error {
	if !r.Limit.IsPercent() {
		if r.Window != "" {
			return invalid("`" + field + ".window` needs a quota percent limit (\"90%\")")
		}
		return nil
	}
	if !slices.Contains(api.BudgetWindows, r.Window) {
		return invalid("`" + field + ".window` must be one of " + strings.Join(api.BudgetWindows, ", ") +
			" with a quota percent limit (got " + strconv.Quote(r.Window) + ")")
	}
	if _, ok := entry["per"]; ok {
		return invalid("`" + field + ".per`: a quota percent budget counts the window's period, not a per")
	}
	if _, ok := entry["interrupt"]; ok {
		return invalid("`" + field + ".interrupt`: a quota percent budget pauses at turn boundaries only")
	}
	return nil
}
