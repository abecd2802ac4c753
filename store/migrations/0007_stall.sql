-- Version 5: the stall signal (docs/lifecycle.md §10.7). stalled_at is when the agent
-- actor marked the open turn stalled (no progress for the provider's stall_after); NULL
-- when the turn is not stalled. Any status change, a new turn, a completion or observed
-- progress clears it.
ALTER TABLE agents ADD COLUMN stalled_at INTEGER;
