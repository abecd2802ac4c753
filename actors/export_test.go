package actors

import (
	"time"

	"github.com/orcr-go/orcr/store"
)

func timeAfter(ms int) <-chan time.Time { return time.After(time.Duration(ms) * time.Millisecond) }

// OpsStarted is the number of op goroutines env's agent actors ever started.
func OpsStarted(env *AgentEnv) int64 { return env.opsStarted.Load() }

// OpsIdle reports whether no op goroutine of env is running.
func OpsIdle(env *AgentEnv) bool {
	done := make(chan struct{})
	go func() { env.Ops.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-timeAfter(10):
		return false
	}
}

// KillOne is System.killOne: one row's kill, by the status the caller saw it in.
func KillOne(s *System, r store.AgentRow) (bool, error) { return s.killOne(r) }
