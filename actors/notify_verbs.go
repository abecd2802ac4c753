package actors

import (
	"context"

	"github.com/orcr-go/orcr/actors/notify"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// startNotifier starts the notify actor when the config has notify rules
// (docs/notify.md §5). Its cursor starts at the stored one, or at the event tip for a
// notifier configured for the first time; without rules a stored cursor is forgotten,
// so rules added later do not notify what happened while they were off.
func (s *System) startNotifier() error {
	n := s.cfg.Config.Notify
	if !n.Enabled() {
		_, ok, err := s.cfg.DB.NotifyCursor(context.Background())
		if err == nil && ok {
			_, err = s.write(func(tx *store.Tx) (any, error) { return nil, tx.StopNotify() })
		}
		return err
	}
	rules, err := notify.Compile(n)
	if err != nil {
		return wire.Env(wire.CauseConfigInvalid, "notify: "+err.Error())
	}
	v, err := s.write(func(tx *store.Tx) (any, error) {
		latest, _, err := tx.Bounds()
		if err != nil {
			return nil, err
		}
		return tx.StartNotify(latest)
	})
	if err != nil {
		return err
	}
	senders := map[string]notify.Sender{}
	for _, t := range n.Targets {
		switch t.Type {
		case config.NotifyWebhook:
			senders[t.Name] = notify.NewWebhook(t, "orcr/"+s.cfg.Version)
		case config.NotifyCommand:
			senders[t.Name] = &notify.Command{Target: t, Env: s.serverEnv()}
		case config.NotifyHerdr:
			senders[t.Name] = &notify.Herdr{Notify: s.driver.Owned().Notify}
		}
	}
	s.notifier, err = s.sys.Root.SpawnNamed(NewNotifierProps(NotifierSpec{
		Env: s.env, Config: n, Rules: rules, Senders: senders, Cursor: v.(int64),
	}), "notify")
	if err != nil {
		return wire.Internal(wire.CauseActor, "cannot start the notifier: "+err.Error())
	}
	return nil
}

// notifyStatus is server.status's notify array: every configured target with its
// counters, by name (docs/protocol.md §5.2). Deliveries of targets no longer configured
// are not listed.
func (s *System) notifyStatus(ctx context.Context) []api.NotifyTargetStatus {
	out := []api.NotifyTargetStatus{}
	if len(s.cfg.Config.Notify.Targets) == 0 {
		return out
	}
	stats, err := s.cfg.DB.NotifyStats(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot read notify counters", "err", err)
	}
	byName := map[string]store.NotifyTargetStats{}
	for _, st := range stats {
		byName[st.Target] = st
	}
	for _, t := range s.cfg.Config.Notify.Targets {
		st := byName[t.Name]
		out = append(out, api.NotifyTargetStatus{
			Name: t.Name, Type: t.Type, Pending: st.Pending, Delivered: st.Delivered, Failed: st.Failed, Dropped: st.Dropped,
			LastError: st.LastError, LastErrorAt: st.LastErrorAt, LastDeliveredAt: st.LastDeliveredAt, NextAttemptAt: st.NextAttemptAt,
		})
	}
	return out
}
