// Package agentpath is the one definition of agent identity shared by every surface: the
// path grammar and its limits, {rand} expansion, the caller context (scope and lineage),
// creation enforcement, whole-segment patterns, uuid prefixes, and target resolution over
// the store (docs/lifecycle.md §2, docs/cli.md §2–§3, docs/protocol.md §4.1–§4.2 and §5.17).
//
// The pure half ([Creation], [CompilePattern], [CallerContext.Scope], [ValidatePath],
// [LooksLikeUUIDPrefix]) needs no store. The resolution half
// ([ResolveCaller], [CheckLoopNamespace], [ResolveExact], [ResolveBulk], [ResolveEnded],
// [List]) reads through a [store.Querier], so it works on the read pool and inside a write
// [store.Tx] alike; [CheckLoopNamespace] is meant to run inside the insert transaction.
//
// Pattern matching is segment-wise in Go. SQL is only used to narrow candidates by
// equality on a literal path prefix (never LIKE, whose "_" wildcard is a name character).
//
// Every validation failure is a *[wire.Error]: invalid_request with details.reason one of
// the Reason constants, not_found with details.target (and candidates for an ambiguous
// uuid prefix), or state_conflict reason run_stopping.
package agentpath
