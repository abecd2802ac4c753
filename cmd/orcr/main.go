// Command orcr is the orcr server and CLI: `orcr server start --foreground` runs the
// server, every other verb is a thin client of its socket API (see package cli).
package main

import (
	"context"
	"os"

	// The pane launcher: `orcr __pane-exec …` runs from its init and exits there,
	// before the rest of the binary is initialized (docs/lifecycle.md §8.2).
	_ "github.com/orcr-go/orcr/actors/paneexec/launcher"
	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/server"
)

func main() {
	ctx, stop := cli.NotifyContext(context.Background())
	code := cli.Run(ctx, os.Args[1:], cli.Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Serve:  serve,
	})
	stop()
	os.Exit(code)
}

// serve runs the real server for `orcr server start --foreground`.
func serve(ctx context.Context, o cli.ServeOptions) (string, error) {
	return server.Run(ctx, server.Options{Home: o.Home, Getenv: o.Getenv, Warnf: o.Warnf})
}
