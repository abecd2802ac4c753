package cli

import (
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/config/service"
	"github.com/orcr-go/orcr/socketapi/wire"
)

// The start-at-login verbs (docs/cli.md §5.21, docs/loops.md §12) run in the CLI alone:
// they write or remove a unit file and run the service manager, never the server.

type serverEnableCmd struct{}

// Run implements `orcr server enable`: after the ensure step (the config gives herdr.bin),
// it writes the unit that runs this binary as `server start --foreground` and asks the
// service manager to load it. Enabling again rewrites nothing when the unit is current.
func (c *serverEnableCmd) Run(a *app) error {
	m := a.serviceManager()
	if _, err := m.Unit(); err != nil { // an unsupported platform touches nothing
		return err
	}
	home, cfg, err := a.prepareHomeConfig()
	if err != nil {
		return err
	}
	// The launchd unit names files in logs/, which launchd does not create.
	if err := config.EnsureDataDirs(home); err != nil {
		return err
	}
	orcr, err := a.env.Executable()
	if err != nil {
		return wire.Env(config.CauseServerStartFailed, "cannot locate the orcr binary for the unit: "+err.Error()).Wrap(err)
	}
	res, err := m.Enable(a.ctx, service.Values{Orcr: orcr, Home: home, HerdrBin: service.HerdrBin(a.env.Getenv, cfg.Herdr.Bin)})
	if err != nil {
		return err
	}
	if a.json {
		a.printOKValue(struct {
			Status string `json:"status"`
			Unit   string `json:"unit"`
			Verify string `json:"verify"`
			Loaded bool   `json:"loaded"`
		}{"enabled", res.Path, res.Verify, res.Loaded})
		return nil
	}
	a.stdout("enabled: wrote %s", res.Path)
	a.stdout("  verify: %s", res.Verify)
	switch {
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
	return service.Manager{GOOS: a.env.GOOS, Getenv: a.env.Getenv, Runner: a.env.Services}
}
