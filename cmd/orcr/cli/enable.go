package cli

import (
	"bytes"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/config/service"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// The start-at-login verbs (docs/cli.md §5.21, docs/loops.md §12) run in the CLI alone:
// they write or remove a unit file and run the service manager, never the server.

type serverEnableCmd struct {
	DryRun bool `name:"dry-run" help:"Print the unit and the service manager's commands; write and run nothing."`
}

// Run implements `orcr server enable`: after the ensure step (the config gives herdr.bin),
// it writes the unit that runs this binary as `server start --foreground` and asks the
// service manager to load it. Enabling again rewrites nothing when the unit is current.
// With --dry-run it creates nothing, not even the home.
func (c *serverEnableCmd) Run(a *app) error {
	m := a.serviceManager()
	if _, err := m.Unit(); err != nil { // an unsupported platform touches nothing
		return err
	}
	var home string
	var cfg *config.Config
	var err error
	if c.DryRun {
		if home, err = a.resolveHome(); err == nil {
			cfg, _, err = config.Load(home, a.env.Getenv)
		}
	} else {
		home, cfg, err = a.prepareHomeConfig()
	}
	if err != nil {
		return err
	}
	orcr, err := a.env.Executable()
	if err != nil {
		return wire.Env(wire.CauseServerStartFailed, "cannot locate the orcr binary for the unit: "+err.Error()).Wrap(err)
	}
	v := service.Values{Orcr: orcr, Home: home, HerdrBin: service.HerdrBin(a.env.Getenv, cfg.Herdr.Bin),
		Path: service.SearchPath(a.env.Getenv("PATH"))}
	if c.DryRun {
		return a.printEnablePlan(m, v)
	}
	// The launchd unit names files in logs/, which launchd does not create.
	if err := config.EnsureDataDirs(home); err != nil {
		return err
	}
	res, err := m.Enable(a.ctx, v)
	if err != nil {
		return err
	}
	if a.json {
		a.printOKValue(struct {
			Status        string `json:"status"`
			Unit          string `json:"unit"`
			Verify        string `json:"verify"`
			Loaded        bool   `json:"loaded"`
			FiringDurable bool   `json:"firing_durable"`
			NotRegistered string `json:"not_registered,omitempty"`
		}{"enabled", res.Path, res.Verify, res.Loaded, res.Registered, res.NotRegistered})
		return nil
	}
	a.stdout("enabled: wrote %s", res.Path)
	a.stdout("  verify: %s", res.Verify)
	switch {
	case !res.Registered:
		why := res.NotRegistered
		if res.LoadErr != nil {
			why += "; " + res.LoadErr.Error()
		}
		a.stderr("warning: the server will not start at login, so loops do not fire durably: %s", why)
	case res.Loaded:
	case res.AtLogin:
		a.stderr("note: not started now (%v); the service manager starts it at the next login", res.LoadErr)
	default:
		a.stderr("note: the service manager did not take the unit (%v)", res.LoadErr)
	}
	if res.Linger != "" {
		a.stderr("note: the unit starts when you log in; for loops to fire after a reboot before any login, run: %s", res.Linger)
	}
	return nil
}

// printEnablePlan prints what `server enable` would write and run (--dry-run).
func (a *app) printEnablePlan(m service.Manager, v service.Values) error {
	plan, err := m.Plan(v)
	if err != nil {
		return err
	}
	if a.json {
		a.printOKValue(struct {
			Status   string   `json:"status"`
			Unit     string   `json:"unit"`
			Content  string   `json:"content"`
			Commands []string `json:"commands"`
			Verify   string   `json:"verify"`
		}{"dry_run", plan.Path, string(plan.Content), plan.Commands, plan.Verify})
		return nil
	}
	a.stdout("dry run: would write %s:", plan.Path)
	if _, err := a.env.Stdout.Write(plan.Content); err != nil {
		return err
	}
	if !bytes.HasSuffix(plan.Content, []byte("\n")) {
		a.stdout("")
	}
	a.stdout("then run:")
	for _, cmd := range plan.Commands {
		a.stdout("  %s", cmd)
	}
	return nil
}

type serverDisableCmd struct{}

// Run implements `orcr server disable`: the service manager unloads the unit (which
// stops a server it started), then the file is removed. It reads nothing of the orcr
// home, so it works whatever state the home is in.
func (c *serverDisableCmd) Run(a *app) error {
	res, err := a.serviceManager().Disable(a.ctx)
	if err != nil {
		return err
	}
	if a.json {
		a.printOKValue(struct {
			Status   string `json:"status"`
			Unit     string `json:"unit"`
			Removed  bool   `json:"removed"`
			Unloaded bool   `json:"unloaded"`
		}{"disabled", res.Path, res.Removed, res.Unloaded})
		return nil
	}
	if res.Removed {
		a.stdout("disabled: removed %s", res.Path)
	} else {
		a.stdout("disabled: nothing was installed at %s", res.Path)
	}
	return nil
}

// serviceManager is the registration of this CLI's platform and environment.
func (a *app) serviceManager() service.Manager {
	return service.Manager{GOOS: a.env.GOOS, Getenv: a.env.Getenv, Runner: a.env.Services, SystemdRunDir: a.env.SystemdRunDir}
}
