package cli

import (
	"context"

	"github.com/orcr-go/orcr/cmd/orcr/mcp"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// mcpCmd is `orcr mcp`: serving (the default, so `orcr mcp [--http ADDR]` stays the
// verb) and `orcr mcp token`.
type mcpCmd struct {
	Serve mcpServeCmd `cmd:"" default:"withargs" help:"Serve orcr's verbs as MCP tools (stdio, or Streamable HTTP with --http)."`
	Token mcpTokenCmd `cmd:"" help:"Issue, rotate or revoke the bearer token of orcr mcp --http."`
}

type mcpServeCmd struct {
	HTTP string `name:"http" placeholder:"ADDR" help:"Serve MCP over Streamable HTTP at http://ADDR/mcp instead of stdio (loopback only; :PORT binds 127.0.0.1; every request needs a token from orcr mcp token)."`
}

type mcpTokenCmd struct {
	Rotate bool `help:"Issue a new token and revoke every older one."`
	Revoke bool `help:"Revoke every token; issue none."`
}

// Run implements `orcr mcp token` (docs/cli.md §5.31, docs/mcp.md §1.1): the token is
// printed once, on stdout alone, so it can be captured; how to use it goes to stderr.
func (c *mcpTokenCmd) Run(a *app) error {
	req := api.MCPTokenRequest{Rotate: c.Rotate, Revoke: c.Revoke}
	return request(a, api.MCPToken, req, func(r api.MCPTokenResult) error {
		if r.Token == nil {
			a.stdout("%d MCP token(s) revoked", r.Revoked)
			return nil
		}
		a.stdout("%s", *r.Token)
		a.stderr("bearer token for orcr mcp --http (Authorization: Bearer <token>); shown once%s", revokedNote(r.Revoked))
		return nil
	})
}

// Run implements `orcr mcp` (docs/cli.md §5.29, docs/mcp.md): the verbs of the MCP face
// served as tools on stdin/stdout (or Streamable HTTP with --http) until the client
// closes stdin, or SIGINT/SIGTERM. stdout carries only the protocol, so there is no
// --json; the home it serves (one line at start), config warnings and the --http
// address go to stderr. The server is
// auto-started by the first tool call that finds none, as by any verb; each call goes
// with this process's ORCR_ID / ORCR_PATH as its caller.
func (c *mcpServeCmd) Run(a *app) error {
	if a.json {
		return wire.Invalid(wire.ReasonJSONNotSupported, "orcr mcp speaks the Model Context Protocol on stdout and has no --json")
	}
	home, err := a.resolveHome()
	if err != nil {
		return err
	}
	// An MCP client that does not pass the environment would otherwise drive the
	// default home without a word (docs/mcp.md §1).
	if a.env.Getenv(config.EnvHome) != "" {
		a.stderr("orcr mcp: orcr home %s (from %s)", home, config.EnvHome)
	} else {
		a.stderr("orcr mcp: orcr home %s (%s is not set; pass it in the MCP client's config to serve another home)", home, config.EnvHome)
	}
	o := mcp.Options{
		Client: a.clientFor(home),
		Ensure: func(ctx context.Context) error {
			home, err := a.prepareHome()
			if err != nil {
				return err
			}
			_, _, _, err = a.ensureRunningCtx(ctx, home)
			return err
		},
		Getwd: a.env.Getwd,
	}
	// A signal is the normal way for an MCP client to stop its server.
	a.ownsSignals = true
	if c.HTTP == "" {
		return mcp.ServeStdio(a.ctx, o, a.env.Stdin, a.env.Stdout)
	}
	ln, err := mcp.Listen(c.HTTP)
	if err != nil {
		return err
	}
	a.stderr("orcr mcp: serving MCP (Streamable HTTP) at http://%s%s", ln.Addr(), mcp.HTTPPath)
	return mcp.ServeHTTP(a.ctx, o, ln)
}
