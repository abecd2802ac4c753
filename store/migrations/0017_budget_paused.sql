-- Version 17: the agents a budget paused, found by the queue pass that lifts a quota
-- percent rule's pause once its window resets (docs/usage.md §8.1) without reading every
-- row of agents on each tick.
CREATE INDEX IF NOT EXISTS agents_budget_paused ON agents(budget_paused) WHERE budget_paused IS NOT NULL;
