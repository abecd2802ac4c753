package wire_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestShortestUUIDPrefixes(t *testing.T) {
	tests := []struct {
		name  string
		uuids []string
		want  []string
	}{
		{"empty", nil, []string{}},
		{"single", []string{"01900000-0000-7000-8000-000000000001"}, []string{"01900000"}},
		{"differ early", []string{"01900001-aaaa", "01900002-aaaa"}, []string{"01900001", "01900002"}},
		{"same millisecond", []string{
			"01900000-1234-7000-8000-000000000001",
			"01900000-1235-7000-8000-000000000001",
			"01900000-1234-7abc-8000-000000000001",
		}, []string{"01900000-1234-70", "01900000-1235", "01900000-1234-7a"}},
		{"differ at last char", []string{
			"01900000-0000-7000-8000-00000000000a",
			"01900000-0000-7000-8000-00000000000b",
		}, []string{"01900000-0000-7000-8000-00000000000a", "01900000-0000-7000-8000-00000000000b"}},
		{"never past a dash only", []string{"01900000-1", "01900000-2"}, []string{"01900000-1", "01900000-2"}},
		{"prefix of another", []string{"01900000", "01900000-1"}, []string{"01900000", "01900000-1"}},
		{"short input", []string{"abc", "abd"}, []string{"abc", "abd"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wire.ShortestUUIDPrefixes(tc.uuids)
			if !slices.Equal(got, tc.want) {
				t.Errorf("ShortestUUIDPrefixes(%q): got %q, want %q", tc.uuids, got, tc.want)
			}
		})
	}
}

// TestShortestUUIDPrefixesMatchesDefinition checks the sorted-neighbour computation
// against the definition, by brute force over every pair, on random uuid-like strings
// that share long prefixes.
func TestShortestUUIDPrefixesMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		uuids := make([]string, rng.IntN(12))
		for i := range uuids {
			b := []byte("01900000-0000-7000-8000-000000000000")
			for j := rng.IntN(len(b)); j < len(b); j++ {
				if b[j] != '-' {
					b[j] = "01ab"[rng.IntN(4)]
				}
			}
			if rng.IntN(4) == 0 { // now and then a short one, a prefix of others
				b = b[:1+rng.IntN(len(b)-1)]
			}
			uuids[i] = string(b)
		}
		want := make([]string, len(uuids))
		for i, u := range uuids {
			want[i] = u
			for k := min(wire.MinUUIDPrefix, len(u)); k <= len(u); k++ {
				shared := false
				for j, v := range uuids {
					shared = shared || j != i && strings.HasPrefix(v, u[:k])
				}
				if u[k-1] != '-' && !shared {
					want[i] = u[:k]
					break
				}
			}
		}
		if got := wire.ShortestUUIDPrefixes(uuids); !slices.Equal(got, want) {
			t.Fatalf("ShortestUUIDPrefixes(%q):\n got %q\nwant %q", uuids, got, want)
		}
	}
}
