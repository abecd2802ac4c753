-- Version 19: idle is O(changes) (docs/lifecycle.md §7.2, §13.5). The queue pass's
-- deadline sweep and discovery's reads of the unmanaged rows read these indexes alone
-- instead of every row of agents, so ended rows, however many, cost them nothing.
CREATE INDEX IF NOT EXISTS agents_deadline ON agents(deadline_at) WHERE deadline_at IS NOT NULL AND status NOT IN ('ended','lost');
CREATE INDEX IF NOT EXISTS agents_unmanaged ON agents(herdr_session) WHERE managed = 0 AND status != 'ended';
