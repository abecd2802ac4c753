// Package wire holds the pieces of orcr's socket protocol that every side shares:
// the error table and typed protocol errors, the request/response/event envelopes, and
// the newline-delimited frame reader. It imports nothing of orcr, so config, store,
// herdr, the server and the CLI can all use it.
package wire

import (
	"errors"
	"fmt"
	"strings"
)

// Code is one of the nine stable protocol error codes.
type Code string

// The nine error codes, in the schema's stable order (docs/protocol.md §9.2).
const (
	NotFound              Code = "not_found"
	InvalidRequest        Code = "invalid_request"
	StateConflict         Code = "state_conflict"
	Blocked               Code = "blocked"
	Timeout               Code = "timeout"
	IntegrationMissing    Code = "integration_missing"
	TranscriptUnavailable Code = "transcript_unavailable"
	EnvironmentError      Code = "environment_error"
	ServerError           Code = "server_error"
)

// CodeInfo is one row of the error table published by api.schema.
type CodeInfo struct {
	Code        Code   `json:"code"`
	Exit        int    `json:"exit"`
	Description string `json:"description"`
}

// Codes is the error table: the single source for the Go constants' exit mapping, the
// schema's errorCodes/ERROR_CODES arrays and the docs.
var Codes = []CodeInfo{
	{NotFound, 6, "target, loop or run resolved to nothing; ambiguous uuid prefix"},
	{InvalidRequest, 1, "bad envelope, params, names, paths, durations, cron or flags"},
	{StateConflict, 7, "wrong state for the operation; uniqueness collisions"},
	{Blocked, 4, "agent.ask target needs a human"},
	{Timeout, 3, "agent.ask deadline (the agent's own or the ask's wait)"},
	{IntegrationMissing, 2, "provider lacks the orcr or the herdr integration"},
	{TranscriptUnavailable, 1, "final response or transcript not identifiable"},
	{EnvironmentError, 2, "home, config, store, lock, server start, herdr, platform, version"},
	{ServerError, 1, "internal failure, cursor expiry"},
}

// Exit returns the CLI exit code for c. Unknown codes map like server_error.
func (c Code) Exit() int {
	for _, ci := range Codes {
		if ci.Code == c {
			return ci.Exit
		}
	}
	return 1
}

// Known reports whether c is one of the nine codes.
func (c Code) Known() bool {
	for _, ci := range Codes {
		if ci.Code == c {
			return true
		}
	}
	return false
}

// Error is a protocol error: what a response envelope carries under "error". Details is
// omitted from the wire when empty. Reason and cause live in Details ("reason" for
// invalid_request/state_conflict, "cause" for environment_error/server_error/
// transcript_unavailable).
type Error struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	// Err is the underlying Go error, if any; never serialised.
	Err error `json:"-"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Reason returns details.reason, or "".
func (e *Error) Reason() string { s, _ := e.Details["reason"].(string); return s }

// Cause returns details.cause, or "".
func (e *Error) Cause() string { s, _ := e.Details["cause"].(string); return s }

// New returns an *Error with code, message and details built from key/value pairs.
func New(code Code, msg string, kv ...any) *Error {
	e := &Error{Code: code, Message: msg}
	if len(kv) > 0 {
		e.Details = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			k, ok := kv[i].(string)
			if !ok {
				panic(fmt.Sprintf("wire.New: detail key %v is not a string", kv[i]))
			}
			e.Details[k] = kv[i+1]
		}
	}
	return e
}

// Invalid returns an invalid_request error with details.reason set.
func Invalid(reason, msg string, kv ...any) *Error {
	return New(InvalidRequest, msg, append([]any{"reason", reason}, kv...)...)
}

// Conflict returns a state_conflict error with the given details (reason optional).
func Conflict(msg string, kv ...any) *Error { return New(StateConflict, msg, kv...) }

// Env returns an environment_error with details.cause set.
func Env(cause, msg string, kv ...any) *Error {
	return New(EnvironmentError, msg, append([]any{"cause", cause}, kv...)...)
}

// Internal returns a server_error with details.cause set.
func Internal(cause, msg string, kv ...any) *Error {
	return New(ServerError, msg, append([]any{"cause", cause}, kv...)...)
}

// Wrap attaches err as the underlying error of e and returns e.
func (e *Error) Wrap(err error) *Error { e.Err = err; return e }

// As returns err as an *Error when it is or wraps one.
func As(err error) (*Error, bool) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}

// From converts any error to a protocol error: an *Error passes through, anything else
// becomes server_error with the given cause.
func From(err error, cause string) *Error {
	if err == nil {
		return nil
	}
	if pe, ok := As(err); ok {
		return pe
	}
	return Internal(cause, err.Error()).Wrap(err)
}

// Is reports whether err is a protocol error with code c and, when reasonOrCause is not
// empty, that details.reason or details.cause.
func Is(err error, c Code, reasonOrCause string) bool {
	pe, ok := As(err)
	if !ok || pe.Code != c {
		return false
	}
	return reasonOrCause == "" || pe.Reason() == reasonOrCause || pe.Cause() == reasonOrCause
}

// HumanLine renders e as the CLI's stderr line: "error: <code>: <message> (<details>)".
func (e *Error) HumanLine(detailsJSON string) string {
	var b strings.Builder
	b.WriteString("error: ")
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	b.WriteString(e.Message)
	if detailsJSON != "" {
		b.WriteString(" (")
		b.WriteString(detailsJSON)
		b.WriteString(")")
	}
	return b.String()
}
