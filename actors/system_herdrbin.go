package actors

import "github.com/orcr-go/orcr/herdr"

// findHerdr runs herdr discovery again (config herdr.bin, then ORCR_HERDR_BIN, then
// herdr on PATH: docs/config.md §1.4) and returns its herdr_missing error, if any.
// agent.run, agent.ask and server.status call it every time instead of trusting what
// Start found: herdr may have been installed, removed or replaced since, and a look-up
// costs a few stat calls. A changed result is handed to the driver, the cached herdr
// integration state is dropped and the contract check runs again at the next spawn.
func (s *System) findHerdr() error {
	bin, err := herdr.FindBinary(s.cfg.Config.Herdr.Bin, s.getenv)
	if bin != s.driver.Bin() {
		s.cfg.Log.Info("herdr binary changed", "bin", bin, "was", s.driver.Bin())
		s.driver.SetBin(bin)
		s.integ.mu.Lock()
		s.integ.present = nil
		s.integ.mu.Unlock()
		s.gateMu.Lock()
		s.gateOK = false
		s.gateMu.Unlock()
	}
	return err
}
