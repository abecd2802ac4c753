package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

type serverStartCmd struct {
	Foreground bool `help:"Become the server in this process and block until it stops."`
	// StartReportFD is set by [SpawnDetached] only: see [openStartReport].
	StartReportFD int `name:"start-report-fd" hidden:"" help:"Write a start failure to this descriptor (internal)."`
}

// Run implements `orcr server start` (docs/cli.md §5.17).
func (c *serverStartCmd) Run(a *app) error {
	if c.Foreground {
		report := openStartReport(c.StartReportFD)
		err := a.serveForeground()
		report(err)
		return err
	}
	home, err := a.prepareHome()
	if err != nil {
		return err
	}
	_, outcome, pid, err := a.ensureRunning(home)
	if err != nil {
		return err
	}
	if a.json {
		a.printStatusPID(outcome, pid)
		return nil
	}
	if outcome == socketapi.AlreadyRunning {
		// In a start race only one caller's server wins; the others name it.
		a.stdout("server already running (pid %d)", pid)
		return nil
	}
	a.serverStatusLine(outcome)
	return nil
}

// serveForeground makes this process the server via Env.Serve (socketapi/server.Run),
// which performs the ensure step and config load itself (docs/protocol.md §1.5).
func (a *app) serveForeground() error {
	if a.env.Serve == nil {
		return notImplemented("server start --foreground")
	}
	a.ownsSignals = true
	home, err := a.resolveHome()
	if err != nil {
		return err
	}
	outcome, err := a.env.Serve(a.ctx, ServeOptions{
		Home:   home,
		Getenv: a.env.Getenv,
		Warnf: func(format string, args ...any) {
			a.stderr("warning: "+format, args...)
		},
	})
	if err != nil {
		return err
	}
	a.serverStatusLine(outcome)
	return nil
}

// printStatusPID prints the envelope {status, pid} of `server start` and `server restart`.
func (a *app) printStatusPID(status string, pid int) {
	a.printOKValue(struct {
		Status string `json:"status"`
		PID    int    `json:"pid"`
	}{status, pid})
}

// serverStatusLine prints `server <status>` or {"status":<status>}.
func (a *app) serverStatusLine(status string) {
	if a.json {
		a.printOKValue(map[string]string{"status": status})
		return
	}
	a.stdout("server %s", status)
}

type serverStopCmd struct{}

// Run implements `orcr server stop` (docs/cli.md §5.18): handshake only, never auto-starts.
func (c *serverStopCmd) Run(a *app) error {
	home, err := a.resolveHome()
	if err != nil {
		return err
	}
	cl := a.clientFor(home)
	if _, err := cl.Handshake(a.ctx); err != nil {
		a.serverStatusLine("not_running")
		return nil
	}
	if _, err := cl.Stop(a.ctx); err != nil {
		return err
	}
	if !waitHomeFree(a.ctx, config.NewPaths(home).Lock, stopWaitBound) {
		a.stderr("orcr: the server acknowledged the stop but still holds %s after %s", home, stopWaitBound)
		a.serverStatusLine("stopping")
		return nil
	}
	a.serverStatusLine("stopped")
	return nil
}

// stopWaitBound bounds how long `server stop` waits for the server to let go of the
// home after it acknowledged the stop: its own shutdown bounds (in-flight requests 2 s,
// remote streams 3 s, herdr calls canceled) and then some (docs/cli.md §5.18).
const stopWaitBound = 15 * time.Second

// waitHomeFree polls the instance lock at lockPath until it can be taken (then lets
// it go at once) or bound passes; it reports whether it was free. A server starting
// meanwhile that finds the lock held for a moment retries it (socketapi/server).
func waitHomeFree(ctx context.Context, lockPath string, bound time.Duration) bool {
	lock := flock.New(lockPath)
	deadline := time.Now().Add(bound)
	for {
		ok, err := lock.TryLock()
		if ok {
			lock.Unlock()
			return true
		}
		if err != nil || ctx.Err() != nil || time.Now().After(deadline) {
			return false
		}
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

type serverStatusCmd struct {
	All bool `help:"List every integration herdr reports, not only the providers orcr supports."`
}

// Run implements `orcr server status` (docs/cli.md §5.19).
func (c *serverStatusCmd) Run(a *app) error {
	_, raw, err := invoke(a, api.ServerStatus, api.NoParams{})
	if err != nil {
		return err
	}
	if a.json {
		a.printOK(raw)
		return nil
	}
	text, err := renderServerStatus(raw, c.All)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(a.env.Stdout, text)
	return err
}

// literal renders a JSON value compactly, "null" when absent.
func literal(v json.RawMessage) string {
	if len(bytes.TrimSpace(v)) == 0 {
		return "null"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

// renderServerStatus is the human summary of server.status (docs/cli.md §5.19); values are
// printed as JSON literals. Integrations without orcr support are listed only with all.
func renderServerStatus(raw json.RawMessage, all bool) (string, error) {
	var st struct {
		Version      json.RawMessage            `json:"version"`
		Protocol     json.RawMessage            `json:"protocol"`
		Socket       json.RawMessage            `json:"socket"`
		Store        json.RawMessage            `json:"store"`
		Herdr        map[string]json.RawMessage `json:"herdr"`
		Counts       map[string]json.RawMessage `json:"counts"`
		Drift        map[string]json.RawMessage `json:"drift"`
		Remote       map[string]json.RawMessage `json:"remote"`
		Integrations map[string]struct {
			Orcr      bool `json:"orcr"`
			Herdr     bool `json:"herdr"`
			Supported bool `json:"supported"`
		} `json:"integrations"`
		Stalled []struct {
			Path      string          `json:"path"`
			StalledAt json.RawMessage `json:"stalled_at"`
		} `json:"stalled"`
		Paused []struct {
			Provider  string `json:"provider"`
			Account   string `json:"account"`
			Until     int64  `json:"until"`
			Source    string `json:"source"`
			AgentUUID string `json:"agent_uuid"`
		} `json:"paused"`
		LoopsFiring json.RawMessage              `json:"loops_firing"`
		Notify      []map[string]json.RawMessage `json:"notify"`
		Loops       []struct {
			Name       string          `json:"name"`
			Status     string          `json:"status"`
			NextFireAt json.RawMessage `json:"next_fire_at"`
		} `json:"loops"`
		Config    api.ConfigStatus     `json:"config"`
		Today     *api.UsageSum        `json:"today"`
		Quota     []api.QuotaWindow    `json:"quota"`
		Retention *api.RetentionStatus `json:"retention"`
		Fleet     *api.FleetStatus     `json:"fleet"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return "", fmt.Errorf("cannot decode server.status: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "orcr server\n")
	fmt.Fprintf(&b, "  version   %s\n", literal(st.Version))
	fmt.Fprintf(&b, "  protocol  %s\n", literal(st.Protocol))
	fmt.Fprintf(&b, "  socket    %s\n", literal(st.Socket))
	fmt.Fprintf(&b, "  store     %s\n", literal(st.Store))
	writeConfig(&b, st.Config)
	fmt.Fprintf(&b, "  herdr     reachable=%s session=%s running=%s\n",
		literal(st.Herdr["reachable"]), literal(st.Herdr["session"]), literal(st.Herdr["session_running"]))
	writeHerdrError(&b, st.Herdr)
	fmt.Fprintf(&b, "  counts    live=%s queued=%s starting=%s blocked=%s stalled=%s unmanaged=%s unmarked_panes=%s unknown_marked_panes=%s\n",
		literal(st.Counts["live"]), literal(st.Counts["queued"]), literal(st.Counts["starting"]), literal(st.Counts["blocked"]), literal(st.Counts["stalled"]),
		literal(st.Counts["unmanaged"]), literal(st.Counts["unmarked_panes"]), literal(st.Counts["unknown_marked_panes"]))
	for _, a := range st.Stalled {
		fmt.Fprintf(&b, "    stalled %s stalled_at=%s\n", a.Path, literal(a.StalledAt))
	}
	for _, p := range st.Paused {
		name := p.Provider // with the account the pause holds, when it names one (docs/usage.md §7.3)
		if p.Account != "" {
			name += "/" + p.Account
		}
		fmt.Fprintf(&b, "  paused    %s until=%s (%s) source=%s agent=%s\n", name, strconv.FormatInt(p.Until, 10),
			time.UnixMilli(p.Until).UTC().Format(time.RFC3339), p.Source, p.AgentUUID)
	}
	if t := st.Today; t != nil {
		fmt.Fprintf(&b, "  today     turns=%d input=%d output=%d cache_read=%d cache_write=%d cost=%s\n", t.Turns, t.InputTokens,
			t.OutputTokens, t.CacheReadTokens, t.CacheWriteTokens, cost(*t))
	}
	for _, q := range st.Quota {
		fmt.Fprintf(&b, "  quota     %s %s used=%s state=%s resets=%s\n", quotaName(q), q.Window, usedPercent(q.UsedPercent), q.State,
			resetsAt(q.ResetsAt))
	}
	fmt.Fprintf(&b, "  drift     lost=%s repaired=%s\n", literal(st.Drift["lost"]), literal(st.Drift["repaired"]))
	if r := st.Retention; r != nil {
		last := "-"
		if r.LastTrimAt != nil {
			last = strconv.FormatInt(*r.LastTrimAt, 10)
		}
		max := "off"
		if r.EndedMax != nil {
			max = strconv.FormatInt(*r.EndedMax, 10)
		}
		fmt.Fprintf(&b, "  retention ended_for=%s ended_max=%s trimmed_total=%d last_trim_at=%s\n", retentionFor(r.EndedForMS), max,
			r.TrimmedTotal, last)
	}
	if string(st.Remote["listening"]) == "true" {
		fmt.Fprintf(&b, "  remote    listening=%s tls=%s connections=%s replays=%s waiting=%s\n", literal(st.Remote["address"]),
			literal(st.Remote["tls"]), literal(st.Remote["connections"]), literal(st.Remote["replays_active"]),
			literal(st.Remote["replays_waiting"]))
	} else if slices.Contains(st.Config.ChangedKeys, "remote") || slices.Contains(st.Config.ChangedKeys, "remote.listen") {
		b.WriteString("  remote    off (remote.listen was not set when the server started)\n")
	} else {
		b.WriteString("  remote    off (remote.listen is not set)\n")
	}
	writeFleet(&b, st.Fleet)
	if len(st.Integrations) == 0 {
		b.WriteString("  integrations (none)\n")
	} else {
		b.WriteString("  integrations\n")
		providers := make([]string, 0, len(st.Integrations))
		for p := range st.Integrations {
			providers = append(providers, p)
		}
		sort.Strings(providers)
		hidden := 0
		for _, p := range providers {
			in := st.Integrations[p]
			if !all && !in.Orcr {
				hidden++
				continue
			}
			herdr := okMissing(in.Herdr)
			if in.Orcr && !in.Herdr && in.Supported {
				herdr = "not needed" // gemini, pi: no herdr integration to install (docs/providers.md §11.2)
			}
			fmt.Fprintf(&b, "    %-8s orcr=%s herdr=%s\n", p, okMissing(in.Orcr), herdr)
		}
		if hidden > 0 {
			fmt.Fprintf(&b, "    (%d more that orcr does not support: --all lists them)\n", hidden)
		}
	}
	fmt.Fprintf(&b, "  loops     firing_durable=%s\n", literal(st.LoopsFiring))
	for _, l := range st.Loops {
		next := "-"
		if s := literal(l.NextFireAt); s != "null" {
			next = s
		}
		fmt.Fprintf(&b, "    %-16s status=%s next_fire_at=%s\n", l.Name, l.Status, next)
	}
	writeNotify(&b, st.Notify)
	return b.String(), nil
}

// retentionFor is retention.ended_for in the config's duration grammar, in its largest
// whole unit (7d, 36h, 1s), or off.
func retentionFor(ms *int64) string {
	if ms == nil {
		return "off"
	}
	for _, u := range []struct {
		ms   int64
		unit string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}} {
		if *ms%u.ms == 0 {
			return strconv.FormatInt(*ms/u.ms, 10) + u.unit
		}
	}
	return strconv.FormatInt(*ms, 10) + "ms"
}

// writeConfig adds whether config.json changed since the server started (docs/cli.md
// §5.19): the keys that differ and that a restart applies them, or why a start would
// refuse the file now.
func writeConfig(b *strings.Builder, c api.ConfigStatus) {
	switch {
	case c.Path == "":
		return
	case !c.Changed:
		fmt.Fprintf(b, "  config    %s (as the server started with it)\n", c.Path)
		return
	case len(c.ChangedKeys) > 0:
		fmt.Fprintf(b, "  config    %s changed since the server started: %s\n", c.Path, strings.Join(c.ChangedKeys, ", "))
	default:
		fmt.Fprintf(b, "  config    %s changed since the server started\n", c.Path)
	}
	if c.Error != nil {
		fmt.Fprintf(b, "    a start would refuse it: %s\n", *c.Error)
		return
	}
	b.WriteString("    restart the server to apply: orcr server restart\n")
}

// writeHerdrError adds the reason the herdr object stops short (its "error", docs/
// protocol.md §5.2): `herdr unreachable: <message>` when no binary was found, else
// `herdr error: <message>`. Nothing when there is none.
func writeHerdrError(b *strings.Builder, h map[string]json.RawMessage) {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(h["error"], &e) != nil || e.Message == "" {
		return
	}
	what := "error"
	if literal(h["reachable"]) != "true" {
		what = "unreachable"
	}
	fmt.Fprintf(b, "    herdr %s: %s\n", what, e.Message)
}

// writeNotify adds the notify targets of server.status (docs/cli.md §5.19): one line per
// target with its counters and next attempt, and its last error when it has one.
func writeNotify(b *strings.Builder, targets []map[string]json.RawMessage) {
	if len(targets) == 0 {
		b.WriteString("  notify    (none)\n")
		return
	}
	b.WriteString("  notify\n")
	for _, t := range targets {
		var name, typ string
		json.Unmarshal(t["name"], &name)
		json.Unmarshal(t["type"], &typ)
		next := "-"
		if s := literal(t["next_attempt_at"]); s != "null" {
			next = s
		}
		fmt.Fprintf(b, "    %-16s %-7s pending=%s delivered=%s failed=%s dropped=%s next_attempt_at=%s\n", name, typ,
			literal(t["pending"]), literal(t["delivered"]), literal(t["failed"]), literal(t["dropped"]), next)
		if s := literal(t["last_error"]); s != "null" {
			fmt.Fprintf(b, "      last_error=%s\n", s)
		}
	}
}

func okMissing(ok bool) string {
	if ok {
		return "ok"
	}
	return "missing"
}

type apiSchemaCmd struct {
	Output string `help:"Write the pretty schema to this file instead of stdout."`
}

// Run implements `orcr api schema` (docs/cli.md §5.22): generated locally, no server, no home.
func (c *apiSchemaCmd) Run(a *app) error {
	doc := api.SchemaJSON()
	if c.Output != "" {
		if err := writeFile(c.Output, doc); err != nil {
			return err
		}
		if a.json {
			a.printOKValue(map[string]string{"written": c.Output})
		} else {
			a.stderr("wrote schema to %s", c.Output)
		}
		return nil
	}
	if a.json {
		a.printOK(doc)
		return nil
	}
	_, err := a.env.Stdout.Write(doc)
	return err
}

type apiSnapshotCmd struct{}

// Run implements `orcr api snapshot` (docs/cli.md §5.23).
func (c *apiSnapshotCmd) Run(a *app) error {
	return request(a, api.APISnapshot, api.NoParams{}, nil)
}

// releaseDeadline bounds how long `server restart` waits for the stopped server to let
// go of the home (its instance lock).
const releaseDeadline = 30 * time.Second

type serverRestartCmd struct{}

// Run implements `orcr server restart` (docs/cli.md §5.18a): the config on disk is
// checked first (one a start would refuse stops nothing), then a stop as `server stop`
// does it (agents keep running), a wait until the old server released the home's
// instance lock, and a start that reads config.json again.
func (c *serverRestartCmd) Run(a *app) error {
	home, cfg, err := a.prepareHomeConfig()
	if err != nil {
		return err
	}
	if err := cfg.Remote.CheckListen(); err != nil {
		return err
	}
	cl := a.clientFor(home)
	status := "started" // none was running
	if _, err := cl.Handshake(a.ctx); err == nil {
		if _, err := cl.Stop(a.ctx); err != nil {
			return err
		}
		if err := a.waitReleased(config.NewPaths(home).Lock); err != nil {
			return err
		}
		status = "restarted"
	}
	_, _, pid, err := a.ensureRunning(home)
	if err != nil {
		return err
	}
	if a.json {
		a.printStatusPID(status, pid)
		return nil
	}
	a.stdout("server %s (pid %d)", status, pid)
	return nil
}

// waitReleased polls the instance lock at path until it can be taken (then lets it go at
// once): the stopped server has closed its store and left the home.
func (a *app) waitReleased(path string) error {
	lock := flock.New(path)
	deadline := time.Now().Add(releaseDeadline)
	for {
		ok, err := lock.TryLock()
		if err != nil {
			return wire.Env(wire.CauseStoreLocked, "cannot take the instance lock "+path+": "+err.Error()).Wrap(err)
		}
		if ok {
			return lock.Unlock()
		}
		if a.ctx.Err() != nil || time.Now().After(deadline) {
			return wire.Env(wire.CauseStoreLocked, "the stopped server did not release "+path+" within "+releaseDeadline.String())
		}
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-a.ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// writeFleet is server status's fleet line (docs/fleet.md §5.1); nothing when the fleet
// is off.
func writeFleet(b *strings.Builder, f *api.FleetStatus) {
	if f == nil {
		return
	}
	opt := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	url := "-"
	if f.URL != nil {
		url = strconv.Quote(*f.URL)
	}
	fmt.Fprintf(b, "  fleet     host=%q hub=%t connection=%s url=%s published=%d lag=%d last_publish_at=%s\n", f.Host, f.Hub,
		f.Connection, url, f.Published, f.Lag, opt(f.LastPublishAt))
	if f.Error != nil {
		fmt.Fprintf(b, "      error=%q\n", *f.Error)
	}
	if l := f.Leases; l != nil {
		fmt.Fprintf(b, "  leases    state=%s", l.State)
		for _, p := range l.Providers {
			fmt.Fprintf(b, " %s=%d/%d", p.Provider, p.Held, p.Cap)
		}
		b.WriteString("\n")
		if l.Error != nil {
			fmt.Fprintf(b, "      error=%q\n", *l.Error)
		}
	}
}
