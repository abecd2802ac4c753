package agentpath

import (
	"context"
	"strings"

	"github.com/orcr-go/orcr/store"
)

// ListFilter holds the agent.ls filters (docs/protocol.md §5.17). Empty strings mean absent.
type ListFilter struct {
	Pattern   string `json:"pattern,omitempty"`   // selector or uuid; joined under the caller's scope
	Agent     string `json:"agent,omitempty"`     // exact provider
	Status    string `json:"status,omitempty"`    // exact status, not validated
	Managed   bool   `json:"managed,omitempty"`   // managed only (unless Unmanaged too)
	Unmanaged bool   `json:"unmanaged,omitempty"` // unmanaged only (unless Managed too)
	All       bool   `json:"all,omitempty"`       // include ended rows
}

// List returns the agent.ls rows for f, ordered by path, then created_at (then uuid).
//
// A Pattern containing "-", or of ≥ 8 hex digits when no row (active or ended) has that
// scope-joined path, is a uuid / uuid prefix: the one matching row is returned whatever
// the other filters say (ended rows included), else not_found {target} (with candidates
// when ambiguous). Any other Pattern is compiled with [CompilePattern] under the caller's
// scope and matched anchored (a wildcard-free pattern names exactly one path; every row
// at it passes). No Pattern = every row.
//
// The other filters combine: not ended unless All; Agent and Status exact; Managed xor
// Unmanaged filters ownership (both or neither = no filter). Status "ended" without All
// therefore lists nothing.
func List(ctx context.Context, q store.Querier, caller Caller, f ListFilter) ([]store.AgentRow, error) {
	scope := caller.scope()
	if f.Pattern != "" {
		useUUID := strings.Contains(f.Pattern, "-")
		if !useUUID && isHexWord(f.Pattern) {
			var n int
			err := q.QueryRowContext(ctx, `SELECT count(*) FROM agents WHERE path = ?`, Join(scope, f.Pattern)).Scan(&n)
			if err != nil {
				return nil, sqlErr("look up path", err)
			}
			useUUID = n == 0
		}
		if useUUID {
			r, err := uniqueUUID(ctx, q, f.Pattern, "")
			if err != nil {
				return nil, err
			}
			return []store.AgentRow{r}, nil
		}
	}
	keep, err := CompileFilter(scope, f)
	if err != nil {
		return nil, err
	}

	// SQL only narrows the candidates (the index on status, the pattern's literal
	// prefix); keep.Keep is the rule.
	cond := `1`
	if !f.All {
		cond = condActive
	}
	var rows []store.AgentRow
	if p := keep.Pattern(); p != nil {
		rows, err = matchRows(ctx, q, p, cond)
	} else {
		rows, err = store.QueryAgents(ctx, q, `WHERE `+cond+` ORDER BY a.path, a.created_at, a.uuid`)
	}
	if err != nil {
		return nil, err
	}
	out := rows[:0]
	for _, r := range rows {
		if keep.Keep(r) {
			out = append(out, r)
		}
	}
	return out, nil
}
