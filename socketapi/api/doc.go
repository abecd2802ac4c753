// Package api is the contract of orcr's socket API (protocol 1), and the one place it is
// defined: what every side of the socket, and every layer of the server, agrees on. It
// imports nothing of orcr but its own [wire] package, so the store, the herdr driver,
// the actors and the config build on it without reaching up into the socket layer or
// the Go client (tests/graph_test.go checks the package graph).
//
// # The method table
//
// [Methods] lists every wire method of protocol 1 as a [Method] value ([AgentRun],
// [AgentLs], [ServerStatus], …) carrying its name, its request and result types and how
// the server serves it. The server (socketapi/server) dispatches from the table through
// the [Facade] that actors.System implements, [Schema] describes it, and the Go client
// (socketapi) calls through it, so a method added there is reachable everywhere at once.
// A method with no implementation yet answers invalid_request with reason
// not_implemented.
//
// # Types
//
// The params and result of each method ([RunRequest], [RunResult], …), the row shapes
// of docs/protocol.md §4.3 ([AgentRow], [LoopRow], [RunRow], [Snapshot]) that the store
// scans into and the events carry, and the agent statuses ([Status], [StatusQueued], …).
//
// # Events
//
// [Events] lists every event kind with its payload struct ([AgentStatusChanged],
// [LoopRunEnded], …; docs/protocol.md §6). The store emits those structs, the schema
// gives each kind its properties, and consumers decode a stored payload or a frame's
// event with [DecodeEvent] and switch on its type.
//
// # Errors
//
// A refused request is an *[Error] holding one of the nine codes ([CodeNotFound],
// [CodeInvalidRequest], …), a message and details such as the reason; [IsCode] matches
// one. The codes, their exit statuses, the reasons and causes details carry
// ([wire.Reasons]), the envelopes, the framing and the control frame kinds are in
// [wire].
//
// # The schema document
//
// [SchemaJSON] is the document `orcr api schema` prints (docs/protocol.md §10), reflected
// from the table's Go types with their doc comments (embedded as comments.json); the
// TypeScript SDK's generated layer is made from it. testdata/schema.golden.json holds it:
// any change of the wire shows up as that file's diff.
package api
