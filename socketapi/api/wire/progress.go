package wire

import (
	"context"
	"encoding/json"
)

// Progress is the body of a progress frame: how far a long call has come
// (docs/protocol.md §2.7). Done counts the targets finished, Total those it set out
// to do (it may grow, as a barrier kill finds more).
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// ProgressFrame is a frame the server writes before a call's response when the request
// asked for progress (`"progress": true` in its envelope): the request's id and a
// [Progress], and no `ok`.
type ProgressFrame struct {
	ID       json.RawMessage `json:"id"`
	Progress Progress        `json:"progress"`
}

type progressKey struct{}

// WithProgress returns ctx carrying report, which [ReportProgress] calls.
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ReportProgress tells the caller of ctx's request how far it has come; a no-op when
// the request did not ask for progress.
func ReportProgress(ctx context.Context, done, total int) {
	if report, ok := ctx.Value(progressKey{}).(func(Progress)); ok {
		report(Progress{Done: done, Total: total})
	}
}
