-- Version 12: a daily rollup of usage and each agent's totals (docs/usage.md §6). The
-- rollup has one row per local day (the server's, as SQLite's 'localtime' reads it when
-- the turn completes) and per what a report groups by: the agent, its path, the
-- provider, the model and the loop ('' for none). The transaction that records a turn's
-- usage adds it to its row, so a report reads one row per agent and day instead of one
-- per turn; only the part of the first day after a --since that is not a local midnight
-- is read from the turns themselves. The turns already recorded are summed into it here.
CREATE TABLE usage_days (
  day                TEXT    NOT NULL,
  agent_uuid         TEXT    NOT NULL,
  path               TEXT    NOT NULL,
  provider           TEXT    NOT NULL,
  model              TEXT    NOT NULL,
  loop               TEXT    NOT NULL,
  turns              INTEGER NOT NULL,
  input_tokens       INTEGER NOT NULL,
  output_tokens      INTEGER NOT NULL,
  cache_read_tokens  INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  reasoning_tokens   INTEGER NOT NULL,
  cost_micros        INTEGER NOT NULL,
  unpriced           INTEGER NOT NULL,
  PRIMARY KEY (day, agent_uuid, path, provider, model, loop)
) WITHOUT ROWID;
INSERT INTO usage_days
  SELECT date(usage_at / 1000, 'unixepoch', 'localtime'), agent_uuid, COALESCE(path, ''), COALESCE(provider, ''),
    COALESCE(model, ''), COALESCE(loop, ''), count(*), SUM(COALESCE(input_tokens, 0)), SUM(COALESCE(output_tokens, 0)),
    SUM(COALESCE(cache_read_tokens, 0)), SUM(COALESCE(cache_write_tokens, 0)), SUM(COALESCE(reasoning_tokens, 0)),
    SUM(COALESCE(cost_micros, 0)), SUM(cost_micros IS NULL)
  FROM turns WHERE usage_at IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6;
-- Each agent's own totals, on its row: agent.ls and every event's agent row carry them
-- (the row's usage) without reading a turn, so `orcr top` and the dashboard show what each
-- agent spent as it changes. The same transaction adds each turn to them.
ALTER TABLE agents ADD COLUMN usage_turns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN usage_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN usage_cost_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN usage_unpriced INTEGER NOT NULL DEFAULT 0;
UPDATE agents SET (usage_turns, usage_tokens, usage_cost_micros, usage_unpriced) = (
  SELECT count(*), COALESCE(SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens), 0),
    COALESCE(SUM(cost_micros), 0), COALESCE(SUM(cost_micros IS NULL), 0)
  FROM turns t WHERE t.agent_uuid = agents.uuid AND t.usage_at IS NOT NULL);
