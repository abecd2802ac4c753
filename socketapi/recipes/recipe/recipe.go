// Package recipe is the little the workflow recipes under socketapi/recipes share: which
// providers they run, the mock provider's directives, kill-on-error scopes and parallel
// calls. Each recipe is a main package of its own (docs/clients.md, "Workflow patterns").
package recipe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// Author is the provider that does the work: $ORCR_RECIPE_AGENT, or "" for the server's
// defaults.agent.
func Author() string { return os.Getenv("ORCR_RECIPE_AGENT") }

// Checker is the provider that verifies and judges: $ORCR_RECIPE_VERIFIER, or "" for the
// server's defaults.agent. Point it at another provider than [Author].
func Checker() string { return os.Getenv("ORCR_RECIPE_VERIFIER") }

// Prompt is prompt for provider. For the test-only mock provider it appends directives
// (docs/providers.md §8: say=<word> makes the answer <word>, write=<file> also writes the
// answer to that file in the agent's data dir), so a test drives every branch; a real
// provider gets the prompt alone.
func Prompt(provider, prompt string, directives ...string) string {
	if provider != "mock" || len(directives) == 0 {
		return prompt
	}
	return prompt + " " + strings.Join(directives, " ")
}

// FirstLine is the first non-blank line of an answer, trimmed: what a recipe matches
// against its fixed vocabulary (the mock, like many agents, ends with a line DONE).
func FirstLine(answer string) string {
	for line := range strings.Lines(answer) {
		if s := strings.TrimSpace(line); s != "" {
			return s
		}
	}
	return ""
}

// Scoped runs fn with a client whose paths live under root (composed onto the caller's
// scope: inside a loop run, under the run). When fn fails or panics, every agent under
// root is killed first (force): the Go form of the TypeScript SDK's killOnThrow.
func Scoped(ctx context.Context, root string, fn func(s *socketapi.Client) error) (err error) {
	s, err := socketapi.FromEnv().Scope(root)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			s.Kill(context.WithoutCancel(ctx), api.KillRequest{Targets: []string{"**"}, Force: true})
		}
	}()
	err = fn(s)
	done = err == nil
	return err
}

// Settle waits until targets settle (a turn complete, or ended completed) and fails when
// one settles otherwise or timeout passes first. A wait sees only agents that have not
// ended, so not_found means every target ended already (gc immediate agents do).
func Settle(ctx context.Context, c *socketapi.Client, timeout string, targets ...string) error {
	res, err := c.Wait(ctx, api.WaitRequest{Targets: targets, Timeout: timeout})
	switch {
	case api.IsCode(err, api.CodeNotFound):
		return nil
	case err != nil:
		return err
	case res.TimedOut:
		return fmt.Errorf("%s: not settled after %s", strings.Join(targets, " "), timeout)
	}
	for _, t := range res.Targets {
		if !t.OK {
			return fmt.Errorf("%s settled %s", t.Path, t.Reason)
		}
	}
	return nil
}

// Each runs f(0) … f(n-1) concurrently and returns their results in order, with the
// errors joined.
func Each[T any](n int, f func(i int) (T, error)) ([]T, error) {
	out, errs := make([]T, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i], errs[i] = f(i) })
	}
	wg.Wait()
	return out, errors.Join(errs...)
}
