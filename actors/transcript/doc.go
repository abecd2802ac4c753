// Package transcript reads the native transcripts of the coding agents orcr runs
// (docs/providers.md §3.6, §4.6, §6, §8): it finds the one file that belongs to an agent
// (the identity gate, [Locate]), parses the claude and codex JSON Lines formats, and
// those of pi, qwen, gemini and opencode (§6.9, [Formats]), into the common [Entry]
// shape ([Parse], [Read]) and their tool calls and results into
// [ToolEvent] values ([Tools], [ReadTools], [PendingCalls]), extracts the final answer
// ([LastResponse]), and answers the two timing questions completion and last-response
// reads ask about the file: is it quiet ([Settled]) and has it caught up with the
// cursor recorded at completion ([Cursor], [Fresh], [WaitFresh]). It also holds the
// best-effort blocked classification ([ClassifyBlocked], docs/providers.md §7).
//
// The package is pure logic plus file reads; the one exception is [OpencodeExport],
// which runs `opencode export` because opencode keeps its sessions in a database
// (§6.9). It contains no actors and keeps no state; every function is safe for
// concurrent use.
//
// Errors meant for the wire are *wire.Error with code transcript_unavailable and
// details.cause one of the Cause… constants ([Unavailable]). The caller adds the
// agent's uuid and status to the details (docs/protocol.md §9.3).
//
// The formats are private to the providers and change without notice, so parsing is
// lenient: a line that is not JSON, has an unexpected shape or a type this package does
// not know is skipped, never an error. A half-written last line (the provider is still
// appending) is therefore simply not there yet.
package transcript
