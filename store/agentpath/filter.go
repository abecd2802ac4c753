package agentpath

import "github.com/orcr-go/orcr/store"

// Filter is the row predicate of agent.ls (docs/protocol.md §5.17) compiled from a
// [ListFilter] whose Pattern is a selector (the uuid form is resolved before, by [List]
// or by the client). [List] narrows candidates in SQL and then keeps exactly the rows
// Keep accepts; orcr top applies the same Keep to the rows of its watch, so its tree
// holds exactly the agents `agent ls` lists for the same query (docs/cli.md §5.25).
type Filter struct {
	pattern            *Pattern
	agent, status      string
	managed, unmanaged bool
	all                bool
}

// CompileFilter compiles f under scope (see [CompilePattern] for the errors). An empty
// Pattern keeps every path.
func CompileFilter(scope string, f ListFilter) (*Filter, error) {
	out := &Filter{agent: f.Agent, status: f.Status, managed: f.Managed, unmanaged: f.Unmanaged, all: f.All}
	if f.Pattern != "" {
		p, err := CompilePattern(scope, f.Pattern)
		if err != nil {
			return nil, err
		}
		out.pattern = p
	}
	return out, nil
}

// Pattern returns the compiled pattern (nil when the filter has none).
func (f *Filter) Pattern() *Pattern { return f.pattern }

// Keep reports whether r passes: not ended unless All; provider and status exact;
// Managed xor Unmanaged filters ownership (both or neither = no filter); the pattern
// matches the whole path.
func (f *Filter) Keep(r store.AgentRow) bool {
	switch {
	case !f.all && r.Status == store.StatusEnded:
		return false
	case f.agent != "" && (r.Agent == nil || *r.Agent != f.agent):
		return false
	case f.status != "" && string(r.Status) != f.status:
		return false
	case f.managed != f.unmanaged && r.Managed != f.managed:
		return false
	case f.pattern != nil && !f.pattern.Match(r.Path):
		return false
	}
	return true
}
