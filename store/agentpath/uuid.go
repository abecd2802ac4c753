package agentpath

import (
	"context"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// MinUUIDPrefix is the shortest uuid prefix (in hex characters) accepted for addressing.
const MinUUIDPrefix = wire.MinUUIDPrefix

// LooksLikeUUIDPrefix reports whether s could address an agent by uuid: only hex digits
// (either case) and dashes, with at least [MinUUIDPrefix] hex digits.
func LooksLikeUUIDPrefix(s string) bool {
	hex := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '-':
		case isHex(c):
			hex++
		default:
			return false
		}
	}
	return hex >= MinUUIDPrefix
}

// isHexWord reports whether s is at least [MinUUIDPrefix] hex digits and nothing else
// (the "≥ 8 hex characters" fallback for dash-free targets).
func isHexWord(s string) bool {
	return !strings.Contains(s, "-") && LooksLikeUUIDPrefix(s)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// uuidMatches looks s up as a uuid among the rows selected by cond (a condition over
// "agents a", "" = all rows): the exact uuid first, otherwise — when s looks like a
// prefix — every row whose uuid, dashes ignored, starts with s's hex digits. Case is
// ignored (uuids are stored lowercase). Rows are ordered by uuid.
func uuidMatches(ctx context.Context, q store.Querier, s, cond string) ([]store.AgentRow, error) {
	and := ""
	if cond != "" {
		and = " AND " + cond
	}
	s = strings.ToLower(s)
	rows, err := store.QueryAgents(ctx, q, `WHERE a.uuid = ?`+and, s)
	if err != nil || len(rows) > 0 || !LooksLikeUUIDPrefix(s) {
		return rows, err
	}
	hex := strings.ReplaceAll(s, "-", "")
	return store.QueryAgents(ctx, q,
		`WHERE substr(replace(a.uuid, '-', ''), 1, ?) = ?`+and+` ORDER BY a.uuid`, len(hex), hex)
}
