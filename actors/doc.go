// Package actors holds orcr's actors and the concurrency invariants of the server.
// Keep this comment true: every change to the tree, a Request direction or the
// shutdown order is written down here in the same commit.
//
// # Actor tree
//
// All actors live in one protoactor-go system built by [actorkit.NewSystem], whose
// library logger (including its "actor system started" line) writes to the server log,
// never to stdout. Every Props is built by actorkit.Props, which logs a panic's stack and
// re-panics so supervision still applies.
//
//	root (the system's root context; no actor of ours)
//	├── store                      the store actor: the only writer of the SQLite store
//	├── conn/<n>                   one per accepted client connection (socketapi/server)
//	│   └── <subscription>         one per events.subscribe / watch.open on that connection
//	└── herdr supervisor           (herdr driver; see herdr/doc.go)
//	    └── herdr/<session>        one session-connection actor per herdr session
//
// Each connection also has two goroutines of edge code beside its actor: the reader,
// which decodes frames in arrival order, negotiates the protocol version and dispatches
// (inline handlers such as handshake, schema and stop answer right there; handlers that
// may block — api.snapshot, server.status, later the agent verbs — run on a request
// goroutine, which may block on a future's Result(); streaming methods are sent to the
// connection actor as openStream and become its children), and the writer, which
// writes queued frames whole. Responses are written by the edge goroutines; actors only
// ever enqueue (Enqueue never blocks), so a slow client cannot stall an actor.
//
// # Messages and who may Request whom
//
// Requests (a reply is expected) only ever go down this list, so no cycle can form:
//
//	request goroutines  → store            Write → WriteResult
//	subscription        → store            Bounds → BoundsResult, WatchOpen → WatchOpenResult
//	request goroutines  → herdr/<session>  driver operations (herdr/doc.go)
//
// Plain sends (no reply): subscription → store (Subscribe, Unsubscribe, Pin, Unpin);
// store → subscription (EventsCommitted after every commit, PinDropped); connection
// writer callbacks → subscription (credit for written frames); server → conn (stopConn).
// The store actor never sends a Request to anyone. Nothing blocks on Result() inside a
// Receive; an actor that needs an answer uses Request (the reply arrives as a message)
// or RequestFuture with ReenterAfter.
//
// # Writes and events
//
// Every state change is a store.Op run by the store actor. Ops that queue up are
// applied in one transaction (the actor appends each Write to a batch and sends itself
// a flush message, so every Write already in the mailbox joins the batch), each op under
// its own savepoint so a failing op rolls back alone. Event rows are written inside the
// op that makes the change, so events.seq is gapless and a committed change always has
// its events. After a commit the store actor sends EventsCommitted to every subscriber
// and trims retention, never past the lowest pin held by an open watch.open.
//
// # Shutdown order (server.stop, SIGTERM, SIGINT)
//
//  1. The listener closes; the accept loop ends (no new connections).
//  2. Every connection actor writes a final server_stopping frame for each of its open
//     subscriptions, marks its writer closing (later frames are dropped) and stops;
//     stopping a connection stops its subscription children first.
//  3. Up to 150 ms for those frames to flush, then every connection is closed.
//  4. Reader goroutines end with their sockets; request goroutines see their context
//     canceled and are waited for.
//  5. The herdr supervisor and its session actors stop (they write nothing to the store
//     during shutdown).
//  6. The store actor is poisoned last, so every Write queued before it is applied,
//     and waited for; then the system shuts down, the database closes, the socket is
//     unlinked and the instance lock released.
//
// Agent panes are never touched by a stop.
package actors

import _ "github.com/orcr-go/orcr/actors/actorkit" // for the doc links
