package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// The loop verbs (docs/cli.md §5.9–§5.16, docs/loops.md §2). Caller identity is sent only
// by `loop rm` (docs/cli.md §2.1).

type loopCreateCmd struct {
	Name           string `arg:"" help:"Loop name (one segment; {rand} allowed)."`
	Cron           string `arg:"" optional:"" help:"Five-field cron expression (quote it)."`
	OnceAt         string `name:"once-at" help:"Fire once: a duration from now, RFC 3339 or local YYYY-MM-DD HH:MM[:SS]."`
	MaxConcurrency int    `name:"max-concurrency" default:"1" help:"Runs allowed at once."`
	Overlap        string `enum:"queue,skip" default:"queue" help:"When a fire finds no free slot: queue or skip."`
	Timeout        string `help:"Per-run timeout (at least 1s)."`
}

// Run implements `orcr loop create` (docs/cli.md §5.9); the command is everything after
// "--" (cut off argv before parsing, see splitLoopCreate).
func (c *loopCreateCmd) Run(a *app) error {
	if !a.hasDashDash || len(a.passthrough) == 0 {
		return wire.Invalid(wire.ReasonCLIParse, "expected -- <command> [args…] after the loop flags")
	}
	if (c.Cron == "") == (c.OnceAt == "") {
		return wire.Invalid(wire.ReasonCadenceRequired, "exactly one of a cron expression or --once-at is required")
	}
	cwd, err := a.absDir("")
	if err != nil {
		return err
	}
	req := api.LoopCreateRequest{Name: c.Name, Cron: c.Cron, OnceAt: c.OnceAt, Command: a.passthrough,
		MaxConcurrency: int64(c.MaxConcurrency), Overlap: c.Overlap, Timeout: c.Timeout, Cwd: cwd}
	return request(a, api.LoopCreate, req, func(r api.LoopResult) error {
		l := r.Loop
		a.stdout("loop %s created", l.Name)
		a.stdout("  command:  %s", strings.Join(l.Argv, " "))
		loc, err := time.LoadLocation(l.TZ)
		if err != nil {
			loc = time.UTC
		}
		if l.CadenceKind == "cron" {
			a.stdout("  cadence:  cron `%s` in %s", l.Cadence, l.TZ)
		} else if at := onceInstant(l.LoopRow); at != nil {
			a.stdout("  cadence:  once at %s (%s)", time.UnixMilli(*at).In(loc).Format("Mon 2006-01-02 15:04:05"), l.TZ)
		} else {
			a.stdout("  cadence:  once at %s (%s)", l.Cadence, l.TZ)
		}
		if l.NextFireAt != nil {
			at := time.UnixMilli(*l.NextFireAt)
			a.stdout("  next:     %s %s (%s UTC)", at.In(loc).Format("Mon 2006-01-02 15:04"), l.TZ,
				at.UTC().Format("Mon 2006-01-02 15:04"))
		} else {
			a.stdout("  next:     never")
		}
		a.stdout("  cancel:   %s", l.Cancel)
		return nil
	})
}

// onceInstant is the instant of a once loop: the fire still due, else the one that
// happened; nil when it ended without firing. The cadence keeps the --once-at text as
// typed ("15s"), which says nothing once the loop exists (docs/cli.md §5.9).
func onceInstant(l api.LoopRow) *int64 {
	if l.NextFireAt != nil {
		return l.NextFireAt
	}
	return l.LastFireAt
}

// printUpdates renders loop.pause / loop.resume results.
func (a *app) printUpdates(r api.LoopUpdateResult) error {
	for _, u := range r.Updated {
		a.stdout("%s %s", u.Name, u.Status)
	}
	for _, s := range r.Skipped {
		a.stdout("skipped %s (%s)", s.Name, s.Reason)
	}
	return nil
}

type loopPauseCmd struct {
	Names []string `arg:"" required:"" help:"Loop names."`
}

// Run implements `orcr loop pause` (docs/cli.md §5.10).
func (c *loopPauseCmd) Run(a *app) error {
	return request(a, api.LoopPause, api.LoopNamesRequest{Names: c.Names}, a.printUpdates)
}

type loopResumeCmd struct {
	Names []string `arg:"" required:"" help:"Loop names."`
}

// Run implements `orcr loop resume` (docs/cli.md §5.10).
func (c *loopResumeCmd) Run(a *app) error {
	return request(a, api.LoopResume, api.LoopNamesRequest{Names: c.Names}, a.printUpdates)
}

type loopRmCmd struct {
	Names      []string `arg:"" required:"" help:"Loop names."`
	KillActive bool     `name:"kill-active" help:"Also stop running runs (blocks for the grace period)."`
	Yes        bool     `short:"y" help:"Do not ask for confirmation."`
}

// Run implements `orcr loop rm` (docs/cli.md §5.11), confirming --kill-active on a TTY.
func (c *loopRmCmd) Run(a *app) error {
	if c.KillActive && a.confirms(c.Yes) {
		for _, name := range c.Names {
			runs, err := a.activeRuns(name)
			if err != nil {
				return err
			}
			a.stderr("Loop %s: %d active run(s)", name, len(runs))
			for _, r := range runs {
				a.stderr("  %s [%s]", r.RunID, r.Status)
			}
		}
		if !a.ask("Remove these loop(s) and kill their active runs?") {
			return nil
		}
	}
	return request(a, api.LoopRm, api.LoopRmRequest{Names: c.Names, KillActive: c.KillActive},
		func(r api.LoopRmResult) error {
			for _, x := range r.Removed {
				a.stdout("removed %s (%s)", x.Name, x.Reason)
			}
			for _, x := range r.Skipped {
				a.stdout("skipped %s (%s)", x.Name, x.Reason)
			}
			return nil
		})
}

// activeRuns lists the pending/running/stopping runs of a loop (loop.run.ls default).
func (a *app) activeRuns(name string) ([]api.RunRow, error) {
	r, _, err := invoke(a, api.LoopRunLs, api.LoopRunLsRequest{Name: name})
	return r.Runs, err
}

type loopLsCmd struct {
	Names  []string `arg:"" optional:"" help:"Only these loops."`
	Status string   `help:"Only this status (exact)."`
	All    bool     `help:"Include ended loops."`
}

// Run implements `orcr loop ls` (docs/cli.md §5.12).
func (c *loopLsCmd) Run(a *app) error {
	return request(a, api.LoopLs, api.LoopLsRequest{Names: nonNil(c.Names), Status: c.Status, All: c.All},
		func(r api.LoopLsResult) error {
			if len(r.Loops) == 0 {
				a.stdout("no loops")
			}
			for _, l := range r.Loops {
				next := "-"
				if l.NextFireAt != nil {
					next = time.UnixMilli(*l.NextFireAt).UTC().Format(time.RFC3339)
				}
				cadence := l.Cadence
				if at := onceInstant(l); l.CadenceKind != "cron" && at != nil {
					cadence = "once@" + time.UnixMilli(*at).UTC().Format(time.RFC3339)
				}
				a.stdout("%-20s %-8s %-16s next=%s", l.Name, l.Status, cadence, next)
			}
			return nil
		})
}

type loopLogsCmd struct {
	Name   string `arg:"" help:"Loop name."`
	RunSel string `name:"run" help:"Only this run (run id or uuid)."`
	Source string `enum:"orcr,command," default:"" help:"Only orcr events or only command output."`
	Tail   *uint  `help:"Only the last N lines."`
	Follow bool   `help:"Keep printing new lines until interrupted."`
}

// Run implements `orcr loop logs` (docs/cli.md §5.13). --follow re-sends the same request
// every 500 ms and prints the lines beyond the count already printed, until
// interrupted; as in the reference, follow output is human lines even with --json.
func (c *loopLogsCmd) Run(a *app) error {
	req := api.LoopLogsRequest{Name: c.Name, Run: c.RunSel, Source: c.Source}
	if c.Tail != nil {
		tail := int(*c.Tail)
		req.Tail = &tail
	}
	cl, err := a.connect()
	if err != nil {
		return err
	}
	r, raw, err := socketapi.InvokeRaw(a.ctx, cl, api.LoopLogs, req)
	if err != nil {
		return err
	}
	if a.json {
		a.printOK(raw)
	} else {
		a.printLoopLines(r.Lines)
	}
	if !c.Follow {
		return nil
	}
	printed := len(r.Lines)
	return a.poll(loopLogsPoll, func() (bool, error) {
		next, err := cl.LoopLogs(a.ctx, req)
		if socketapi.ServerGone(err) && a.ctx.Err() == nil {
			return false, cl.Reconnect(a.ctx, api.LoopLogs.Name, err)
		}
		if err != nil {
			return false, nil // transient errors are skipped
		}
		if len(next.Lines) > printed {
			a.printLoopLines(next.Lines[printed:])
			printed = len(next.Lines)
		}
		return false, nil
	})
}

// loopLogsPoll is the `loop logs --follow` polling interval.
const loopLogsPoll = 500 * time.Millisecond

// printLoopLines renders loop.logs lines as `[<run>] <text>`.
func (a *app) printLoopLines(lines []api.LoopLogLine) {
	for _, l := range lines {
		a.stdout("[%s] %s", l.Run, l.Text)
	}
}

type loopRunStartCmd struct {
	Name string `arg:"" help:"Loop name."`
}

// Run implements `orcr loop run start` (docs/cli.md §5.14).
func (c *loopRunStartCmd) Run(a *app) error {
	return request(a, api.LoopRunStart, api.LoopRunRequest{Name: c.Name}, func(r api.LoopRunResult) error {
		a.stdout("%s %s", r.Run.Path, r.Run.UUID)
		return nil
	})
}

type loopRunStopCmd struct {
	Name   string `arg:"" help:"Loop name."`
	RunSel string `arg:"" optional:"" name:"run" help:"Run id or run uuid (default: every active run)."`
	Yes    bool   `short:"y" help:"Do not ask for confirmation."`
}

// Run implements `orcr loop run stop` (docs/cli.md §5.15), confirming on a TTY.
func (c *loopRunStopCmd) Run(a *app) error {
	if a.confirms(c.Yes) {
		runs, err := a.activeRuns(c.Name)
		if err != nil {
			return err
		}
		var matched []api.RunRow
		for _, r := range runs {
			if c.RunSel == "" || r.RunID == c.RunSel || r.UUID == c.RunSel {
				matched = append(matched, r)
			}
		}
		a.stderr("Matched %d run(s) of loop %s:", len(matched), c.Name)
		for _, r := range matched {
			a.stderr("  %s [%s]", r.RunID, r.Status)
		}
		if !a.ask(fmt.Sprintf("Stop these %d run(s)?", len(matched))) {
			return nil
		}
	}
	return request(a, api.LoopRunStop, api.LoopRunStopRequest{Name: c.Name, Run: c.RunSel},
		func(r api.LoopRunStopResult) error {
			for _, x := range r.Stopped {
				a.stdout("%s %s", x.Path, x.Status)
			}
			for _, x := range r.Skipped {
				a.stdout("skipped %s (%s)", x.RunID, x.Reason)
			}
			return nil
		})
}

type loopRunLsCmd struct {
	Name   string `arg:"" help:"Loop name."`
	Status string `help:"Only this status (exact)."`
	All    bool   `help:"Every run (default: the newest --limit)."`
	Limit  int    `default:"20" help:"Show the newest N runs, finished ones included (0: every run)."`
}

// Run implements `orcr loop run ls` (docs/cli.md §5.16): every run of the loop (or those
// with --status), finished ones included, of which the newest --limit are shown oldest
// first unless --all; a line on stderr says how many older ones were left out.
func (c *loopRunLsCmd) Run(a *app) error {
	if c.Limit < 0 {
		return wire.Invalid(wire.ReasonCLIParse, "--limit must be 0 or more")
	}
	r, _, err := invoke(a, api.LoopRunLs, api.LoopRunLsRequest{Name: c.Name, Status: c.Status, All: c.Status == ""})
	if err != nil {
		return err
	}
	left := 0
	if !c.All && c.Limit > 0 && len(r.Runs) > c.Limit {
		left = len(r.Runs) - c.Limit
		r.Runs = r.Runs[left:]
	}
	if a.json {
		a.printOKValue(r)
	} else {
		printRuns(a, r.Runs)
	}
	if left > 0 {
		a.stderr("(%d older run(s) not shown: --all lists them)", left)
	}
	return nil
}

// printRuns renders loop.run.ls rows under a header; times are RFC 3339 UTC.
func printRuns(a *app, runs []api.RunRow) {
	if len(runs) == 0 {
		a.stdout("no runs")
		return
	}
	at := func(ms *int64) string {
		if ms == nil {
			return "-"
		}
		return time.UnixMilli(*ms).UTC().Format(time.RFC3339)
	}
	const row = "%-10s %-10s %-10s %-6s %-20s %s"
	a.stdout(row, "RUN", "STATUS", "KIND", "AGENTS", "STARTED", "ENDED")
	for _, x := range runs {
		a.stdout(row, x.RunID, x.Status, x.Kind, fmt.Sprint(x.Agents), at(x.StartedAt), at(x.EndedAt))
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
