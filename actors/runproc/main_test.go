package runproc_test

import (
	"encoding/json"
	"fmt"
	"go.uber.org/goleak"
	"os"
	"testing"

	"github.com/orcr-go/orcr/actors/runproc"
)

// role in the environment makes this test binary something else than the tests:
//   - "shim": the shim itself, as `orcr __run-shim` would be ([runproc.ShimMain]);
//   - "starter": a process that starts the Spec in specEnv (JSON), prints the
//     [runproc.Process] as JSON and exits at once, leaving the run without its parent.
const (
	role    = "RUNPROC_TEST_ROLE"
	specEnv = "RUNPROC_TEST_SPEC"
)

func TestMain(m *testing.M) {
	switch os.Getenv(role) {
	case "shim":
		os.Exit(runproc.ShimMain(os.Args[1:]))
	case "starter":
		var s runproc.Spec
		if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		p, err := runproc.Start(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		json.NewEncoder(os.Stdout).Encode(p)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
