package sockettest

import (
	"log/slog"
	"os"
)

// Sandbox starts a server with the herdr stand-in and the mock provider (the setup of
// [WithHerdr]) in a fresh temporary home, for code that has no testing.TB: runnable
// examples. stop stops the server (it may have stopped already, e.g. by server.stop),
// ends the herdr session with every pane in it and removes the home.
func Sandbox(opts ...Option) (srv *Server, stop func(), err error) {
	env, stopHerdr, err := herdrEnv()
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "o")
	if err != nil {
		stopHerdr()
		return nil, nil, err
	}
	undo := func() {
		stopHerdr()
		os.RemoveAll(dir)
	}
	c := newConfig(append([]Option{withEnvMap(env)}, opts...))
	if c.home == "" {
		c.home = dir + "/h"
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	srv, err = c.start()
	if err != nil {
		undo()
		return nil, nil, err
	}
	return srv, func() {
		srv.Stop()
		srv.Wait()
		undo()
	}, nil
}
