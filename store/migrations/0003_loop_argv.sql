-- Version 3: a loop's argv is kept in the store, the source of truth for its runs
-- (docs/loops.md, decision L1): a rejected `loop create` can never change what a live
-- definition runs. loop.json is still written beside it for tools that read it. Rows a
-- reference binary created have NULL here and are read from their loop.json.
ALTER TABLE loops ADD COLUMN argv_json TEXT;
-- The scheduler's timeout sweep reads running runs by timeout_at: indexed, so a tick
-- costs what has timed out, not the run history.
CREATE INDEX IF NOT EXISTS loop_runs_status_timeout ON loop_runs(status, timeout_at);
