package agentpath

import (
	"crypto/rand"
	"strings"
)

// RandPlaceholder is the creation-only placeholder replaced by [RandLen] random
// characters of [a-z0-9] (docs/lifecycle.md §2.2). It is never expanded in selectors.
const RandPlaceholder = "{rand}"

// RandLen is the number of characters a [RandPlaceholder] expands to.
const RandLen = 5

const randAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// RandToken returns [RandLen] characters drawn uniformly from [a-z0-9] with crypto/rand.
// It is the default source for [ExpandRand] and [Creation].
func RandToken() string {
	var out [RandLen]byte
	var buf [16]byte
	n := 0
	for n < RandLen {
		rand.Read(buf[:]) // never returns an error (crypto/rand, Go ≥ 1.24)
		for _, b := range buf {
			// Rejection sampling keeps the distribution uniform: 252 = 7 × 36.
			if b >= 252 {
				continue
			}
			out[n] = randAlphabet[int(b)%len(randAlphabet)]
			if n++; n == RandLen {
				break
			}
		}
	}
	return string(out[:])
}

// ExpandRand replaces every occurrence of [RandPlaceholder] in s with its own call of rnd
// (so two placeholders get independent values). A nil rnd means [RandToken]. It applies
// to --name/--path values and loop names, never to selectors.
func ExpandRand(s string, rnd func() string) string {
	if !strings.Contains(s, RandPlaceholder) {
		return s
	}
	if rnd == nil {
		rnd = RandToken
	}
	var b strings.Builder
	for {
		before, after, found := strings.Cut(s, RandPlaceholder)
		b.WriteString(before)
		if !found {
			return b.String()
		}
		b.WriteString(rnd())
		s = after
	}
}
