package cli_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestClientDeps keeps the client packages thin: the socket SDK every client (this CLI,
// orcr top, tests) builds on, and the remote stream's frames and client, which the
// remote server imports too, and the MCP face, which is a client of the socket like orcr
// top, must not pull in the store or the actor runtime. The orcr
// binary itself links the server; this check is on the client packages only.
func TestClientDeps(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go list")
	}
	banned := []string{"modernc.org/sqlite", "github.com/asynkron/protoactor-go",
		"github.com/orcr-go/orcr/store", "github.com/orcr-go/orcr/actors"}
	for _, pkg := range []string{"github.com/orcr-go/orcr/socketapi", "github.com/orcr-go/orcr/socketapi/remote",
		"github.com/orcr-go/orcr/cmd/orcr/mcp"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range banned {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
