package cli

import "time"

// poll calls tick every interval until tick reports done or fails, or a.ctx ends
// (an interrupt): the shape of every --follow. An ended context is not an error.
func (a *app) poll(every time.Duration, tick func() (done bool, err error)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-a.ctx.Done():
			return nil
		case <-t.C:
		}
		if done, err := tick(); done || err != nil {
			return err
		}
	}
}
