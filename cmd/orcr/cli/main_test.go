package cli_test

import (
	"context"
	"os"
	"testing"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/server"
)

// asOrcr in the environment makes this test binary act as orcr itself: the server a
// test auto-starts through [cli.SpawnDetached] is a re-execution of os.Executable, which
// is this binary.
const asOrcr = "ORCR_CLI_TEST_AS_ORCR"

func TestMain(m *testing.M) {
	if os.Getenv(asOrcr) == "1" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], cli.Env{
			Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
			Serve: func(ctx context.Context, o cli.ServeOptions) (string, error) {
				return server.Run(ctx, server.Options{Home: o.Home, Getenv: o.Getenv, Warnf: o.Warnf})
			},
		}))
	}
	os.Exit(m.Run())
}
