package transcript_test

import (
	"testing"

	"github.com/orcr-go/orcr/actors/transcript"
)

func TestClassifyBlocked(t *testing.T) {
	for _, tc := range []struct {
		title, name, want string
	}{
		{"Please LOG IN", "", "unknown"}, // "log in" is not "login"
		{"Login required", "", "login"},
		{"Sign in to continue", "", "login"},
		{"OAuth token expired", "", "login"},
		{"", "/team/auth-service", "login"}, // the path bias §7 warns about
		{"Usage limit reached", "", "limit"},
		{"Weekly quota exhausted", "", "limit"},
		{"Rate LIMIT", "", "limit"},
		{"Allow edit to main.go?", "", "question"},
		{"Needs permission", "", "question"},
		{"A question for you", "", "question"},
		{"Login limit?", "", "login"}, // first rule wins
		{"limit?", "", "limit"},
		{"claude", "/team/worker", "unknown"},
		{"", "", "unknown"},
		{"sign", "in", "login"}, // joined with a space
	} {
		if got := transcript.ClassifyBlocked(tc.title, tc.name); got != tc.want {
			t.Errorf("ClassifyBlocked(%q, %q): got %q, want %q", tc.title, tc.name, got, tc.want)
		}
	}
	if got := transcript.ClassifyBlocked("Do you want to proceed?"); got != transcript.BlockedQuestion {
		t.Errorf("ClassifyBlocked(one part): got %q, want question", got)
	}
	if got := transcript.ClassifyBlocked(); got != transcript.BlockedUnknown {
		t.Errorf("ClassifyBlocked(): got %q, want unknown", got)
	}
}
