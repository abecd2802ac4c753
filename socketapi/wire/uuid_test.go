package wire_test

import (
	"slices"
	"testing"

	"github.com/orcr-go/orcr/socketapi/wire"
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
