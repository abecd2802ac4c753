package transcript

import (
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Unavailable returns a transcript_unavailable error with details.cause set to cause
// and further details from the key/value pairs kv (as [wire.New]). The caller adds uuid
// and status.
func Unavailable(cause, msg string, kv ...any) *wire.Error {
	return wire.New(wire.TranscriptUnavailable, msg, append([]any{"cause", cause}, kv...)...)
}

// mayBeRotated ends the message of a not_found from [Locate]: a file orcr read before
// that is gone now was rotated or deleted.
const mayBeRotated = "; it may have been rotated or deleted"

// NeverWritten rewrites a not_found error of [Locate] for an agent none of whose turns
// has completed: the file was never created (the provider has not written it yet),
// rather than rotated or deleted. Any other error is returned as it is.
func NeverWritten(err error) error {
	pe, ok := wire.As(err)
	if !ok || !wire.Is(err, wire.TranscriptUnavailable, wire.CauseNotFound) || !strings.HasSuffix(pe.Message, mayBeRotated) {
		return err
	}
	msg := strings.TrimSuffix(pe.Message, mayBeRotated) +
		": it was never created — the provider has not written it yet (no turn of this agent has completed)"
	return &wire.Error{Code: pe.Code, Message: msg, Details: pe.Details, Err: pe.Err}
}
