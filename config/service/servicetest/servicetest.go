// Package servicetest records the service-manager commands of package service instead
// of running them.
package servicetest

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// Recorder is a service.Runner that records every command. Fail, when set, decides
// each command's error (nil: it succeeded); a nil Fail lets every command succeed.
// Fail must not change while commands run.
type Recorder struct {
	Fail func(argv []string) error

	mu    sync.Mutex
	calls [][]string
}

// Run implements service.Runner.
func (r *Recorder) Run(_ context.Context, argv []string) error {
	r.mu.Lock()
	r.calls = append(r.calls, slices.Clone(argv))
	r.mu.Unlock()
	if r.Fail != nil {
		return r.Fail(argv)
	}
	return nil
}

// Calls returns the commands run so far, each joined with spaces, and forgets them.
func (r *Recorder) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, argv := range r.calls {
		out[i] = strings.Join(argv, " ")
	}
	r.calls = nil
	return out
}
