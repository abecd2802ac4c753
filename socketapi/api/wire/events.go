package wire

import "strings"

// EventKinds lists every event kind registered in the schema, in a stable order: the 21
// kinds of the reference (docs/protocol.md §6.2) followed by the intent/applied pairs
// (docs/decisions.md D1). Control frames (server_stopping, cursor_expired) are listed
// separately in [ControlKinds]; cursor_expired is never registered.
var EventKinds = []string{
	"agent.created",
	"agent.status_changed",
	"agent.turn_completed",
	"agent.response_captured",
	"agent.location_changed",
	"agent.ended",
	"queue.promoted",
	"attach.started",
	"attach.ended",
	"loop.created",
	"loop.fired",
	"loop.coalesced",
	"loop.skipped",
	"loop.paused",
	"loop.resumed",
	"loop.removed",
	"loop.ended",
	"loop_run.started",
	"loop_run.ended",
	"loop_run.stopping",
	"server_stopping",
	// Beyond the reference: the stall signal (docs/lifecycle.md §10.7).
	"agent.stalled", "agent.stall_cleared",
	// Beyond the reference: rate-limit-aware admission (docs/lifecycle.md §7.6).
	"provider.paused", "provider.resumed", "agent.rerouted",
	// Intent/applied pairs (seed 000, docs/decisions.md D1).
	"agent.spawn_requested", "agent.spawn_applied",
	"agent.move_requested", "agent.move_applied",
	"agent.close_requested", "agent.close_applied",
	"agent.input_requested", "agent.input_applied",
	"loop_run.spawn_requested", "loop_run.spawn_applied",
	"loop_run.signal_requested", "loop_run.signal_applied",
	// An agent's git worktree (docs/lifecycle.md §8.4): made before its pane, removed
	// after its row ended.
	"agent.worktree_add_requested", "agent.worktree_add_applied",
	"agent.worktree_remove_requested", "agent.worktree_remove_applied",
}

// Control frame kinds: written with seq 0, never stored.
const (
	KindServerStopping = "server_stopping"
	KindCursorExpired  = "cursor_expired"
)

// IntentPairs maps each *_requested kind to its *_applied kind.
var IntentPairs = func() map[string]string {
	m := map[string]string{}
	for _, k := range EventKinds {
		if base, ok := strings.CutSuffix(k, "_requested"); ok {
			m[k] = base + "_applied"
		}
	}
	return m
}()

// KnownEventKind reports whether kind is registered in the schema.
func KnownEventKind(kind string) bool {
	for _, k := range EventKinds {
		if k == kind {
			return true
		}
	}
	return false
}
