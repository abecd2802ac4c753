-- Version 11: what each turn cost (docs/usage.md). The tokens by kind of version 9 gain
-- the reasoning part of the output, and the row keeps what a report or a budget groups
-- by, as it was when the turn completed: the model that answered (the transcript's, else
-- the agent's), the provider, the agent's path, the loop whose run started the agent
-- (its name; NULL outside a loop) and the cost in millionths of a US dollar from the
-- price table of that moment (NULL when the model has no price). usage_at is the
-- completion time of a turn that reported usage (NULL otherwise): the usage index
-- covers every column a report reads, so a report reads the index alone.
ALTER TABLE turns ADD COLUMN reasoning_tokens INTEGER;
ALTER TABLE turns ADD COLUMN model TEXT;
ALTER TABLE turns ADD COLUMN provider TEXT;
ALTER TABLE turns ADD COLUMN path TEXT;
ALTER TABLE turns ADD COLUMN loop TEXT;
ALTER TABLE turns ADD COLUMN cost_micros INTEGER;
ALTER TABLE turns ADD COLUMN usage_at INTEGER;
CREATE INDEX IF NOT EXISTS turns_usage ON turns(usage_at, agent_uuid, path, provider, model, loop, input_tokens,
  output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_micros) WHERE usage_at IS NOT NULL;
