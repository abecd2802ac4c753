-- Version 18: retention (docs/lifecycle.md §12.4). The gc's retention sweep reads the
-- ended agents oldest first, and the ended_at of the newest retention.ended_max-th, from
-- this index alone instead of every row of agents.
CREATE INDEX IF NOT EXISTS agents_ended ON agents(ended_at) WHERE status = 'ended';
