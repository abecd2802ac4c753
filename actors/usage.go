package actors

import (
	"github.com/orcr-go/orcr/store"
)

// turnUsage is the usage of the last turn of st's transcript at path, priced
// (docs/usage.md §2): the transcript's model, else the agent's, at the price table's
// price; no cost when the model has none. nil when the transcript reported no usage.
func (env *AgentEnv) turnUsage(st store.Agent, path string) *store.TurnUsage {
	if env.Transcripts == nil || path == "" {
		return nil
	}
	u, ok := env.Transcripts.Usage(st.Provider, path)
	if !ok {
		return nil
	}
	if u.Model == "" {
		u.Model = st.Model
	}
	if env.Prices != nil {
		if p, ok := env.Prices(u.Model); ok {
			c := p.CostMicros(u.Input, u.Output, u.CacheRead, u.CacheWrite)
			u.CostMicros = &c
		}
	}
	return &u
}
