// Package actorkit is the thin layer every orcr package uses to build protoactor-go
// actors: a system whose own log lines go to our logger, and Props that log a panic's
// stack before the supervisor sees it. It imports nothing of orcr.
package actorkit

import (
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// NewSystem returns an actor system whose library logger (including its "actor system
// started" line) writes to log with lib=protoactor. A nil log discards everything.
func NewSystem(log *slog.Logger, deadLetterThrottle time.Duration) *actor.ActorSystem {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if deadLetterThrottle <= 0 {
		deadLetterThrottle = time.Second
	}
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(s *actor.ActorSystem) *slog.Logger {
			return log.With("lib", "protoactor")
		}),
		actor.WithDeadLetterThrottleInterval(deadLetterThrottle),
		actor.WithDeadLetterRequestLogging(false),
	)
}

// Props wraps producer with orcr's standard middleware (panic stacks logged, then
// re-panicked so supervision still applies) plus any extra options.
func Props(log *slog.Logger, producer actor.Producer, opts ...actor.PropsOption) *actor.Props {
	all := append([]actor.PropsOption{actor.WithReceiverMiddleware(panicLogging(log))}, opts...)
	return actor.PropsFromProducer(producer, all...)
}

// PropsFunc is Props for a plain receive function.
func PropsFunc(log *slog.Logger, fn actor.ReceiveFunc, opts ...actor.PropsOption) *actor.Props {
	all := append([]actor.PropsOption{actor.WithReceiverMiddleware(panicLogging(log))}, opts...)
	return actor.PropsFromFunc(fn, all...)
}

func panicLogging(log *slog.Logger) actor.ReceiverMiddleware {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("actor panicked", "actor", c.Self().Id, "reason", r, "stack", string(debug.Stack()))
					panic(r)
				}
			}()
			next(c, env)
		}
	}
}
