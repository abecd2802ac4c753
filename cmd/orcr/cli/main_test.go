package cli_test

import (
	"context"
	"os"
	"testing"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/server"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// asOrcr in the environment makes this test binary act as orcr itself: the server a
// test auto-starts through [cli.SpawnDetached] is a re-execution of os.Executable, which
// is this binary.
const asOrcr = "ORCR_CLI_TEST_AS_ORCR"

// asMain makes this test binary orcr exactly as cmd/orcr/main.go runs it, signal
// handling included, without a server.
const asMain = "ORCR_CLI_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		ctx, stop := cli.NotifyContext(context.Background())
		code := cli.Run(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
		stop()
		os.Exit(code)
	}
	if os.Getenv(asOrcr) == "1" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], cli.Env{
			Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
			Serve: func(ctx context.Context, o cli.ServeOptions) (string, error) {
				return server.Run(ctx, server.Options{Home: o.Home, Getenv: o.Getenv, Warnf: o.Warnf})
			},
		}))
	}
	sockettest.VerifyTestMain(m)
}
