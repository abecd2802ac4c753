package agentpath_test

import (
	"testing"

	"github.com/orcr-go/orcr/store/agentpath"
)

func TestLooksLikeUUIDPrefix(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"0190abcd", true},
		{"0190ABCD", true},
		{"0190abc", false},
		{"01900000-0000-7000-8000-00000000000a", true},
		{"0190-abcd", true}, // 8 hex digits, dashes ignored
		{"0190-abc", false},
		{"deadbeefcafe", true},
		{"deadbeeg", false},
		{"review/x", false},
		{"", false},
		{"--------", false},
	}
	for _, tc := range tests {
		if got := agentpath.LooksLikeUUIDPrefix(tc.s); got != tc.want {
			t.Errorf("LooksLikeUUIDPrefix(%q): got %v, want %v", tc.s, got, tc.want)
		}
	}
}
