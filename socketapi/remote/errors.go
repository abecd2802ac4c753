package remote

import (
	"errors"
	"fmt"
)

// Error is an error frame as a Go error ([ErrorFrame.Err]): what [Dialer.Dial] returns
// for an unauthorized answer, and what [Dialer.Stream] ends with on a code it does not
// recover from.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "remote: " + string(e.Code)
	}
	return "remote: " + string(e.Code) + ": " + e.Message
}

// IsCode reports whether err is, or wraps, an [*Error] with code c.
func IsCode(err error, c Code) bool {
	e, ok := errors.AsType[*Error](err)
	return ok && e.Code == c
}

// FrameError is [DecodeClient]'s refusal of a client frame: the server answers it with a
// bad_frame error frame carrying Message, which names the problem.
type FrameError struct {
	Message string
}

func (e *FrameError) Error() string { return "remote: bad_frame: " + e.Message }

// Frame returns the bad_frame error frame that answers the refused frame.
func (e *FrameError) Frame() ErrorFrame { return ErrorFrame{Code: BadFrame, Message: e.Message} }

func badFrame(format string, args ...any) *FrameError {
	return &FrameError{Message: fmt.Sprintf(format, args...)}
}
