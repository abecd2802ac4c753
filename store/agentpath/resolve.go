package agentpath

import (
	"context"
	"fmt"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Values of the "resolved" result field of exact-target methods (docs/protocol.md §5.11).
const (
	ResolvedActive      = "active"
	ResolvedLatestEnded = "latest_ended"
)

// Row conditions over "agents a".
const (
	condActive = `a.status <> 'ended'`
	condEnded  = `a.status = 'ended'`
)

// ResolveExact resolves the target of an exact-target method (agent.send, agent.logs,
// agent.attach.prepare; docs/protocol.md §4.2, docs/lifecycle.md §2.6) among all rows, any status:
//
//   - "" → invalid_request target_required; a "*" or "**" segment → wildcard_not_allowed;
//   - containing "-" → a uuid, or a uuid prefix of at least 8 hex digits, only;
//   - otherwise a path joined under the caller's scope: the active row at that path, else
//     the most recently created ended one; invalid selector grammar is invalid_request,
//     unless the target is ≥ 8 hex digits;
//   - only if no row has that path and the target is ≥ 8 hex digits → a uuid prefix.
//
// Uuid lookups try the exact uuid first, then the prefix. Nothing → not_found {target};
// an ambiguous prefix → not_found {target, candidates} with the [wire.ShortestUUIDPrefixes] of
// the matching uuids. resolved is [ResolvedLatestEnded] when the row is ended, else
// [ResolvedActive] (for uuid lookups too).
func ResolveExact(ctx context.Context, q store.Querier, caller Caller, target string) (row store.AgentRow, resolved string, err error) {
	if target == "" {
		return row, "", wire.Invalid(wire.ReasonTargetRequired, "a target is required")
	}
	if HasWildcardSegment(target) {
		return row, "", wire.Invalid(wire.ReasonWildcardNotAllowed,
			fmt.Sprintf("%q is a pattern; this method takes one path or uuid", target))
	}
	row, err = resolveOne(ctx, q, caller.scope(), target, "")
	if err != nil {
		return row, "", err
	}
	return row, resolvedOf(row), nil
}

func resolvedOf(r store.AgentRow) string {
	if r.Status == "ended" {
		return ResolvedLatestEnded
	}
	return ResolvedActive
}

// resolveOne resolves a wildcard-free target among the rows selected by cond ("" = all):
// uuid when it contains "-", else path then ≥ 8-hex uuid prefix. Nothing is not_found
// {target}; an ambiguous prefix is not_found {target, candidates}.
func resolveOne(ctx context.Context, q store.Querier, scope, target, cond string) (store.AgentRow, error) {
	if strings.Contains(target, "-") {
		return uniqueUUID(ctx, q, target, cond)
	}
	p, err := CompilePattern(scope, target)
	if err != nil {
		if isHexWord(target) {
			return uniqueUUID(ctx, q, target, cond)
		}
		return store.AgentRow{}, err
	}
	rows, err := store.QueryAgents(ctx, q, `WHERE `+where(`a.path = ?`, cond)+
		` ORDER BY a.status = 'ended', a.created_at DESC, a.uuid DESC LIMIT 1`, p.Literal())
	if err != nil {
		return store.AgentRow{}, err
	}
	if len(rows) == 1 {
		return rows[0], nil
	}
	if isHexWord(target) {
		return uniqueUUID(ctx, q, target, cond)
	}
	return store.AgentRow{}, notFound(target)
}

// uniqueUUID is [uuidMatches] narrowed to exactly one row.
func uniqueUUID(ctx context.Context, q store.Querier, target, cond string) (store.AgentRow, error) {
	rows, err := uuidMatches(ctx, q, target, cond)
	switch {
	case err != nil:
		return store.AgentRow{}, err
	case len(rows) == 1:
		return rows[0], nil
	case len(rows) == 0:
		return store.AgentRow{}, notFound(target)
	}
	uuids := make([]string, len(rows))
	for i, r := range rows {
		uuids[i] = r.UUID
	}
	return store.AgentRow{}, wire.New(wire.NotFound,
		fmt.Sprintf("uuid prefix %q is ambiguous (%d agents)", target, len(rows)),
		"target", target, "candidates", wire.ShortestUUIDPrefixes(uuids))
}

func notFound(target string) error {
	return wire.New(wire.NotFound, fmt.Sprintf("no agent matches %q", target), "target", target)
}

func isNotFound(err error) bool { return wire.Is(err, wire.NotFound, "") }

// where joins SQL conditions with AND, skipping empty ones.
func where(conds ...string) string {
	var b strings.Builder
	for _, c := range conds {
		if c == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(c)
	}
	if b.Len() == 0 {
		return "1"
	}
	return b.String()
}

// ResolveBulk resolves the targets of a bulk method (agent.wait, agent.kill; docs/protocol.md
// §4.2) to non-ended rows. Each target is
//   - a pattern (has a "*"/"**" segment, no "-"): every active row it matches, by path
//     then created_at;
//   - a uuid / uuid prefix (contains "-"), or a path / ≥ 8-hex prefix exactly as in
//     [ResolveExact]; a path that resolves to an ended row contributes nothing (the ended
//     row is not replaced by a uuid-prefix lookup).
//
// Ambiguous and unknown uuid prefixes contribute nothing. The union is de-duplicated by
// uuid in first-seen order and filtered to non-ended rows. No targets → target_required;
// a malformed selector → its invalid_request; an empty union → not_found with
// details.target = the targets array.
func ResolveBulk(ctx context.Context, q store.Querier, caller Caller, targets []string) ([]store.AgentRow, error) {
	return resolveMany(ctx, q, caller, targets, false)
}

// ResolveEnded is agent.kill's second step (docs/protocol.md §5.16): when [ResolveBulk] found
// nothing active, the exact (wildcard-free) targets are resolved again looking only at
// ended rows — a path to its most recently created ended row, a uuid or prefix among ended
// rows. Patterns are skipped; ambiguous or unknown targets contribute nothing. Rows are
// de-duplicated by uuid in first-seen order; none → not_found {target: targets}.
func ResolveEnded(ctx context.Context, q store.Querier, caller Caller, targets []string) ([]store.AgentRow, error) {
	return resolveMany(ctx, q, caller, targets, true)
}

func resolveMany(ctx context.Context, q store.Querier, caller Caller, targets []string, ended bool) ([]store.AgentRow, error) {
	if len(targets) == 0 {
		return nil, wire.Invalid(wire.ReasonTargetRequired, "at least one target is required")
	}
	scope := caller.scope()
	out := []store.AgentRow{}
	seen := map[string]bool{}
	add := func(r store.AgentRow) {
		if (r.Status == "ended") == ended && !seen[r.UUID] {
			seen[r.UUID] = true
			out = append(out, r)
		}
	}
	for _, t := range targets {
		if !strings.Contains(t, "-") && HasWildcardSegment(t) {
			p, err := CompilePattern(scope, t)
			if err != nil {
				return nil, err
			}
			if ended {
				continue
			}
			rows, err := matchRows(ctx, q, p, condActive)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				add(r)
			}
			continue
		}
		cond := ""
		if ended {
			cond = condEnded
		}
		r, err := resolveOne(ctx, q, scope, t, cond)
		switch {
		case isNotFound(err):
		case err != nil:
			return nil, err
		default:
			add(r)
		}
	}
	if len(out) == 0 {
		return nil, wire.New(wire.NotFound, "no agent matches the targets", "target", targets)
	}
	return out, nil
}

// matchRows returns the rows selected by conds that p matches, ordered by path, then
// created_at, then uuid. SQL only narrows by the pattern's literal prefix (equality, via
// substr); matching itself is [Pattern.Match].
func matchRows(ctx context.Context, q store.Querier, p *Pattern, cond string, args ...any) ([]store.AgentRow, error) {
	conds := []string{cond}
	switch lp := p.LiteralPrefix(); {
	case !p.HasWildcard():
		conds = append(conds, `a.path = ?`)
		args = append(args, lp)
	case lp != "":
		conds = append(conds, `substr(a.path, 1, ?) = ?`)
		args = append(args, len(lp), lp)
	}
	rows, err := store.QueryAgents(ctx, q, `WHERE `+where(conds...)+` ORDER BY a.path, a.created_at, a.uuid`, args...)
	if err != nil {
		return nil, err
	}
	out := rows[:0]
	for _, r := range rows {
		if p.Match(r.Path) {
			out = append(out, r)
		}
	}
	return out, nil
}
