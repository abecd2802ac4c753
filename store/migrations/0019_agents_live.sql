-- Version 19: idle is O(changes) (docs/lifecycle.md §7.2). The queue pass's deadline
-- sweep reads this index alone instead of every row of agents, so ended rows, however
-- many, cost a pass nothing.
CREATE INDEX IF NOT EXISTS agents_deadline ON agents(deadline_at) WHERE deadline_at IS NOT NULL AND status NOT IN ('ended','lost');
