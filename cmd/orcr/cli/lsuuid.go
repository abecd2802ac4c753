package cli

import (
	"strings"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// listsEveryRow reports whether the listing holds every agent row, ended ones included:
// --all and no filter.
func (c *agentLsCmd) listsEveryRow() bool {
	return c.All && c.Pattern == "" && c.Agent == "" && c.Status == "" && c.Managed == c.Unmanaged
}

// unlistedPrefixes returns the unique prefixes of the agents that share a listed row's
// first 8 characters but are not listed, so [renderLs] can show prefixes that resolve.
// A uuid prefix target is looked up among every row, ended ones included
// (docs/protocol.md §4.2): a prefix unique among the listed rows alone would often name
// an ended agent too (an `agent ask` finished a minute ago shares its first 8
// characters with an agent started now) and then resolve to nothing.
//
// Only rows sharing the first 8 characters can collide, so each such group is asked
// once with the group's prefix as agent.ls pattern: one row back means the group is that
// row, and an ambiguous prefix comes back as not_found whose candidates are the group's
// unique prefixes; the ones that are not a listed row's are returned. A complete listing
// asks nothing. A failed question leaves its group to the listed rows alone.
func (a *app) unlistedPrefixes(rows []api.AgentRow, complete bool) []string {
	if complete || len(rows) == 0 {
		return nil
	}
	home, err := a.resolveHome()
	if err != nil {
		return nil
	}
	cl := a.clientFor(home)
	var others []string
	asked := map[string]bool{}
	for _, r := range rows {
		group := r.UUID[:min(len(r.UUID), wire.MinUUIDPrefix+1)]
		if !strings.HasSuffix(group, "-") || asked[group] {
			continue // not a canonical uuid; or already asked
		}
		asked[group] = true
		_, err := cl.Ls(a.ctx, api.LsRequest{Pattern: group})
		pe, ok := wire.As(err)
		if !ok || pe.Code != wire.NotFound {
			continue
		}
		candidates, _ := pe.Details["candidates"].([]any)
		for _, c := range candidates {
			if p, ok := c.(string); ok && !prefixOfAny(rows, p) {
				others = append(others, p)
			}
		}
	}
	return others
}

// prefixOfAny reports whether p is a prefix of a listed row's uuid.
func prefixOfAny(rows []api.AgentRow, p string) bool {
	for _, r := range rows {
		if strings.HasPrefix(r.UUID, p) {
			return true
		}
	}
	return false
}
