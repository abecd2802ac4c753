package wire

import (
	"slices"
	"strings"
)

// MinUUIDPrefix is the shortest uuid prefix, in characters, that orcr accepts as a
// target and that it shows or suggests (docs/protocol.md §4.2).
const MinUUIDPrefix = 8

// ShortestUUIDPrefixes returns, for each of uuids in order, its shortest prefix of at
// least [MinUUIDPrefix] characters that no other element starts with (uuidv7 values
// minted in the same millisecond share ~12 leading characters, so a fixed length is not
// enough). A prefix never ends in "-". An element that is itself a prefix of, or equal
// to, another is returned whole. The server names ambiguous-prefix candidates with it
// and the CLI's `agent ls` its UUID column, so what one shows the other resolves.
//
// The element sharing the longest prefix with u is one of u's neighbours in sorted
// order, so the cost is one sort, not a comparison of every pair (a listing may hold
// thousands of rows).
func ShortestUUIDPrefixes(uuids []string) []string {
	order := make([]int, len(uuids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(uuids[a], uuids[b]) })
	out := make([]string, len(uuids))
	for pos, i := range order {
		u := uuids[i]
		shared := 0
		if pos > 0 {
			shared = commonPrefix(u, uuids[order[pos-1]])
		}
		if pos+1 < len(order) {
			shared = max(shared, commonPrefix(u, uuids[order[pos+1]]))
		}
		k := max(shared+1, min(MinUUIDPrefix, len(u)))
		for k <= len(u) && u[k-1] == '-' {
			k++
		}
		out[i] = u
		if k <= len(u) {
			out[i] = u[:k]
		}
	}
	return out
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
