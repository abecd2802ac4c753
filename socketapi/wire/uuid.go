package wire

import "strings"

// MinUUIDPrefix is the shortest uuid prefix, in characters, that orcr accepts as a
// target and that it shows or suggests (docs/protocol.md §4.2).
const MinUUIDPrefix = 8

// ShortestUUIDPrefixes returns, for each of uuids in order, its shortest prefix of at
// least [MinUUIDPrefix] characters that no other element starts with (uuidv7 values
// minted in the same millisecond share ~12 leading characters, so a fixed length is not
// enough). A prefix never ends in "-". An element that is itself a prefix of, or equal
// to, another is returned whole. The server names ambiguous-prefix candidates with it
// and the CLI's `agent ls` its UUID column, so what one shows the other resolves.
func ShortestUUIDPrefixes(uuids []string) []string {
	out := make([]string, len(uuids))
	for i, u := range uuids {
		out[i] = u
		for k := min(MinUUIDPrefix, len(u)); k <= len(u); k++ {
			if u[k-1] != '-' && !sharedPrefix(uuids, i, u[:k]) {
				out[i] = u[:k]
				break
			}
		}
	}
	return out
}

func sharedPrefix(uuids []string, self int, prefix string) bool {
	for j, v := range uuids {
		if j != self && strings.HasPrefix(v, prefix) {
			return true
		}
	}
	return false
}
