package api

import "github.com/orcr-go/orcr/socketapi/api/wire"

// Error is a protocol error: one of the nine codes, a message and details (reason,
// cause, the offending field, …). Every error the Go client (socketapi.Client) returns
// for a refused request is one; match it with errors.As or [IsCode].
type Error = wire.Error

// Code is a protocol error code.
type Code = wire.Code

// The nine error codes (docs/protocol.md §9).
const (
	CodeNotFound              = wire.NotFound
	CodeInvalidRequest        = wire.InvalidRequest
	CodeStateConflict         = wire.StateConflict
	CodeBlocked               = wire.Blocked
	CodeTimeout               = wire.Timeout
	CodeIntegrationMissing    = wire.IntegrationMissing
	CodeTranscriptUnavailable = wire.TranscriptUnavailable
	CodeEnvironmentError      = wire.EnvironmentError
	CodeServerError           = wire.ServerError
)

// IsCode reports whether err is a protocol error with code c.
func IsCode(err error, c Code) bool {
	e, ok := wire.As(err)
	return ok && e.Code == c
}
