package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/orcr-go/orcr/socketapi/wire"
)

// Loop verbs send their requests now; their human renderings land with the loop issue
// (until then the result is shown as JSON). Caller identity is sent only by `loop rm`
// (docs/cli.md §2.1).

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
		return wire.Invalid("cli_parse", "expected -- <command> [args…] after the loop flags")
	}
	if (c.Cron == "") == (c.OnceAt == "") {
		return wire.Invalid("cadence_required", "exactly one of a cron expression or --once-at is required")
	}
	cwd, err := a.absDir("")
	if err != nil {
		return err
	}
	p := map[string]any{
		"name":            c.Name,
		"command":         a.passthrough,
		"max_concurrency": c.MaxConcurrency,
		"overlap":         c.Overlap,
		"cwd":             cwd,
	}
	if c.Cron != "" {
		p["cron"] = c.Cron
	} else {
		p["once_at"] = c.OnceAt
	}
	if c.Timeout != "" {
		p["timeout"] = c.Timeout
	}
	return a.request("loop.create", p, nil)
}

type loopPauseCmd struct {
	Names []string `arg:"" required:"" help:"Loop names."`
}

// Run implements `orcr loop pause` (docs/cli.md §5.10).
func (c *loopPauseCmd) Run(a *app) error {
	return a.request("loop.pause", map[string]any{"names": c.Names}, nil)
}

type loopResumeCmd struct {
	Names []string `arg:"" required:"" help:"Loop names."`
}

// Run implements `orcr loop resume` (docs/cli.md §5.10).
func (c *loopResumeCmd) Run(a *app) error {
	return a.request("loop.resume", map[string]any{"names": c.Names}, nil)
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
	p := a.withCaller(map[string]any{"names": c.Names, "kill_active": c.KillActive})
	return a.request("loop.rm", p, nil)
}

type runRow struct {
	UUID   string `json:"uuid"`
	RunID  string `json:"run_id"`
	Status string `json:"status"`
}

// activeRuns lists the pending/running/stopping runs of a loop (loop.run.ls default).
func (a *app) activeRuns(name string) ([]runRow, error) {
	raw, err := a.call("loop.run.ls", map[string]any{"name": name})
	if err != nil {
		return nil, err
	}
	var r struct {
		Runs []runRow `json:"runs"`
	}
	if err := decodeResult("loop.run.ls", raw, &r); err != nil {
		return nil, err
	}
	return r.Runs, nil
}

type loopLsCmd struct {
	Names  []string `arg:"" optional:"" help:"Only these loops."`
	Status string   `help:"Only this status (exact)."`
	All    bool     `help:"Include ended loops."`
}

// Run implements `orcr loop ls` (docs/cli.md §5.12).
func (c *loopLsCmd) Run(a *app) error {
	p := map[string]any{"names": nonNil(c.Names), "all": c.All}
	if c.Status != "" {
		p["status"] = c.Status
	}
	return a.request("loop.ls", p, nil)
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
	p := map[string]any{"name": c.Name}
	if c.RunSel != "" {
		p["run"] = c.RunSel
	}
	if c.Source != "" {
		p["source"] = c.Source
	}
	if c.Tail != nil {
		p["tail"] = *c.Tail
	}
	cl, err := a.connect()
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := cl.Call(a.ctx, "loop.logs", p, &raw); err != nil {
		return err
	}
	var r loopLines
	if err := decodeResult("loop.logs", raw, &r); err != nil {
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
		var next loopLines
		if err := cl.Call(a.ctx, "loop.logs", p, &next); err != nil {
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

type loopLines struct {
	Lines []loopLine `json:"lines"`
}

type loopLine struct {
	Run  string `json:"run"`
	Text string `json:"text"`
}

// printLoopLines renders loop.logs lines as `[<run>] <text>`.
func (a *app) printLoopLines(lines []loopLine) {
	for _, l := range lines {
		a.stdout("[%s] %s", l.Run, l.Text)
	}
}

type loopRunStartCmd struct {
	Name string `arg:"" help:"Loop name."`
}

// Run implements `orcr loop run start` (docs/cli.md §5.14).
func (c *loopRunStartCmd) Run(a *app) error {
	return a.request("loop.run.start", map[string]any{"name": c.Name}, nil)
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
		var matched []runRow
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
	p := map[string]any{"name": c.Name}
	if c.RunSel != "" {
		p["run"] = c.RunSel
	}
	return a.request("loop.run.stop", p, nil)
}

type loopRunLsCmd struct {
	Name   string `arg:"" help:"Loop name."`
	Status string `help:"Only this status (exact)."`
	All    bool   `help:"Include finished runs."`
}

// Run implements `orcr loop run ls` (docs/cli.md §5.16).
func (c *loopRunLsCmd) Run(a *app) error {
	p := map[string]any{"name": c.Name, "all": c.All}
	if c.Status != "" {
		p["status"] = c.Status
	}
	return a.request("loop.run.ls", p, nil)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
