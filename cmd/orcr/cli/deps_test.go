package cli_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestClientDeps keeps the socket client thin: the package every client (this CLI,
// orcr top, tests) builds on must not pull in the store or the actor runtime. The orcr
// binary itself links the server; this check is on the client package only.
func TestClientDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/orcr-go/orcr/socketapi").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"modernc.org/sqlite", "github.com/asynkron/protoactor-go"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("github.com/orcr-go/orcr/socketapi depends on %s", dep)
			}
		}
	}
}
