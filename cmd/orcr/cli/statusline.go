package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// statuslineMaxInput bounds what `orcr statusline` reads from stdin (claude's status
// JSON is a few kB).
const statuslineMaxInput = 1 << 20

// statuslineTimeout bounds the call to the server: claude waits on its status line.
const statuslineTimeout = 2 * time.Second

// statuslineCmd is `orcr statusline` (docs/usage.md §7.1, docs/providers.md §3.8): the
// status-line command orcr gives its claude panes. It reads the JSON claude passes a
// status line on stdin, records its quota windows (rate_limits.five_hour / .seven_day)
// for claude's account through the server's socket (quota.record; the server is never
// started for it) and prints one short line. It always exits 0: a failing status line
// must not get in claude's way; what went wrong goes to stderr.
type statuslineCmd struct {
	Provider string `default:"claude" enum:"claude" help:"The provider whose status-line JSON stdin holds."`
}

func (c *statuslineCmd) Run(a *app) error {
	data, err := io.ReadAll(io.LimitReader(a.env.Stdin, statuslineMaxInput))
	if err != nil {
		a.stderr("statusline: %v", err)
	}
	ws := transcript.ClaudeStatusQuota(data)
	res := statuslineResult{Windows: []api.QuotaWindow{}}
	if len(ws) > 0 {
		// The pane's own account key (docs/usage.md §7.3): the server keeps the one it
		// recorded for ORCR_ID's agent, and takes this one for a pane it does not know.
		req := api.QuotaRecordRequest{Provider: c.Provider, Agent: a.env.Getenv("ORCR_ID"),
			Account: transcript.AccountKey(c.Provider, a.env.Getenv)}
		for _, w := range ws {
			req.Windows = append(req.Windows, api.QuotaWindow{Window: w.Window, UsedPercent: w.UsedPercent,
				WindowMinutes: w.WindowMinutes, ResetsAt: w.ResetsAt})
		}
		ctx, cancel := context.WithTimeout(a.ctx, statuslineTimeout)
		defer cancel()
		res.Windows = req.Windows
		if _, err := socketapi.FromGetenv(a.env.Getenv).QuotaRecord(ctx, req); err != nil {
			a.stderr("statusline: quota not recorded: %v", err)
		} else {
			res.Recorded = true
		}
	}
	res.Line = statusLine(a.env.Getenv("ORCR_PATH"), ws, time.Now())
	if a.json {
		a.printOKValue(res)
		return nil
	}
	_, err = io.WriteString(a.env.Stdout, res.Line+"\n")
	return err
}

// statuslineResult is `orcr --json statusline`'s result: the line, the windows read and
// whether the server recorded them.
type statuslineResult struct {
	Line     string            `json:"line"`
	Windows  []api.QuotaWindow `json:"windows"`
	Recorded bool              `json:"recorded"`
}

// statusLine is the line `orcr statusline` prints: "orcr <path>" and each window's used
// percent with the time left to its reset ("orcr default/x · 5h 42% (2h10m) · 7d 12%").
func statusLine(path string, ws []transcript.QuotaWindow, now time.Time) string {
	parts := []string{"orcr"}
	if path != "" {
		parts[0] += " " + path
	}
	for _, w := range ws {
		name := map[string]string{transcript.WindowFiveHour: "5h", transcript.WindowSevenDay: "7d"}[w.Window]
		if name == "" {
			name = w.Window
		}
		s := fmt.Sprintf("%s %.0f%%", name, w.UsedPercent)
		if left := time.UnixMilli(w.ResetsAt).Sub(now); w.ResetsAt > 0 && left > 0 {
			s += " (" + strings.TrimSuffix(left.Truncate(time.Minute).String(), "0s") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}
