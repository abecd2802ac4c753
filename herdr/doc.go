// Package herdr is orcr's herdr driver: a client of herdr's per-session socket API
// (docs/herdr.md), the pinned contract of the operations orcr uses, discovery
// through the herdr CLI, and the actors that keep one connection per herdr session.
//
// # Layers
//
//   - [Client]: one call = dial unix → deadline (15 s) → one request line → one
//     response line → close. Connect failures are retried (4 tries, 100 ms doubling)
//     and then reported as environment_error cause herdr_unreachable; herdr error
//     answers are [*Error] (id "" accepted); requests over 1 MiB are refused before
//     dialing; cancelling the ctx closes the socket (herdr's long waits end on EOF;
//     nothing is written after the request line).
//   - [Contract] and [CheckContract]: every method, param, result tag and result field
//     orcr uses, checked against a schema document (the live `herdr api schema
//     --json`); any difference is environment_error cause herdr_version_skew naming
//     the method and field.
//   - [Remote]: the typed, stateless operations on one socket ([Remote.Handshake]
//     enforces protocol ≥ 16).
//   - Discovery: [FindBinary], [ListSessions], [EnsureSession], [IntegrationStatus],
//     [LiveSchema], [AttachCommand], [DirSessions].
//   - [Driver] and [Session]: the actor-backed API for the server.
//
// # Actor tree
//
//	root
//	└── herdr                        supervisor (one per Driver)
//	    ├── herdr-session-orcr-<n>   sessionActor: the owned session
//	    └── herdr-session-<s>-<n>    sessionActor: one per user session in use
//
// A sessionActor is spawned lazily on a session's first request. On *actor.Started
// it resolves the session's socket (session list) and pings it on a goroutine; the
// result comes back as handshakeDone. While connecting it queues requests; once up
// it runs each operation on a goroutine of its own (the blocking herdr socket I/O)
// which pipes the result back as opDone; the actor then answers the caller. Nothing
// blocks inside Receive. Structural operations (EnsureWorkspace, a Spawn whose
// workspace must be looked up, Move, CloseRootShells) run one at a time per session,
// because they read-then-create workspaces and own the "root shells still to close"
// map, which is handed to the op goroutine with the op and handed back with opDone.
// Reads, lists, input, notifications, the close of a pane and a Spawn into a workspace
// the connection found less than placeFresh before run concurrently.
//
// Failure: the first herdr_unreachable result (connect refused or socket gone, no
// answer within the deadline, or a request herdr left unread for TakenWithin: a frozen
// herdr) or a failed handshake turns the actor to failed: it
// answers herdr_unreachable at once and Sends sessionFailed to the supervisor. The
// supervisor poisons it (requests already forwarded sit ahead of the pill and are
// answered), marks the session down and arms time.AfterFunc(backoff) sending a
// generation-tagged respawnTick to itself (200 ms doubling to 10 s, ±25 % jitter; a
// stale tick is ignored). While down the supervisor answers every request itself
// with herdr_unreachable (or the version skew that caused it), so callers never hang.
// The respawned actor re-resolves the socket, so a session whose socket comes back
// is found again without restarting orcr. A panicking sessionActor is stopped by the
// supervisor's OneForOne strategy (StopDirective) and takes the same respawn path via
// *actor.Terminated. A sessionAnswered (sent by [Driver.Status] when its own ping of
// the owned session succeeded) respawns a down session at once instead of at its
// timer. [SessionHealth].Restarts counts respawns (for tests and server.status). protoactor's ExponentialBackoff strategy and SetReceiveTimeout are
// not used.
//
// # Messages and Request directions (acyclic)
//
//   - edge ([Session] methods, [Driver.Health]) → supervisor: RequestFuture
//     (opRequest, healthQuery); the only place that blocks on Result().
//   - supervisor → sessionActor: Forward of opRequest (the edge future stays the
//     sender, and the sessionActor answers it with opReply).
//   - sessionActor → supervisor: Send only (sessionUp, sessionFailed).
//   - op and handshake goroutines → their sessionActor: Send only (opDone,
//     handshakeDone); timers → supervisor: Send only (respawnTick); [Driver.Status]
//     → supervisor: Send only (sessionAnswered).
//
// No actor Requests another actor, so there is no cycle to deadlock.
//
// # Shutdown order
//
// [Driver.Close]: PoisonFuture(supervisor).Wait() — the supervisor stops its respawn
// timers in Stopping; protoactor stops the sessionActors, whose Stopping cancels
// their base context (closing in-flight sockets) and answers in-flight and queued
// callers with herdr_unreachable; the supervisor terminates after its children. Then
// Close waits for the op goroutines. Calls made after Close starts fail at once with
// herdr_unreachable. Callers of the driver (socket handlers,
// reconciler) stop before it; the actor system is shut down after it. A request that
// is still in a stopping sessionActor's mailbox is dropped by protoactor and its
// caller gets the future's timeout, so callers stop first.
package herdr
