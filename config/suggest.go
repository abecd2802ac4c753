package config

// maxSuggestDistance is the largest edit distance at which an unknown key still gets a
// "did you mean" suggestion.
const maxSuggestDistance = 2

// Suggest returns the entry of known nearest to key by character-based Levenshtein
// distance, when that distance is at most 2. Ties go to the entry listed first in known.
// ok is false when nothing is near enough (or known is empty).
func Suggest(key string, known []string) (suggestion string, ok bool) {
	best := maxSuggestDistance + 1
	for _, k := range known {
		if d := levenshtein(key, k); d < best {
			best, suggestion = d, k
		}
	}
	return suggestion, best <= maxSuggestDistance
}

// levenshtein is the edit distance between a and b counted in runes (insertions,
// deletions and substitutions each cost 1).
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
