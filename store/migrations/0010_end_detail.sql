-- Version 10: why an agent ended, in words, and the last screen of its pane
-- (docs/lifecycle.md §4.1). exit_detail is a one-line reason a user can act on (a
-- provider that exited during its start, a readiness wait that ran out, a spawn error);
-- NULL when there is none. last_screen is the visible text of the pane orcr read last
-- before the row failed, and last_screen_at when it was read; NULL when none was kept.
-- last_screen is never part of the agent row: `agent logs --screen` reads it.
ALTER TABLE agents ADD COLUMN exit_detail TEXT;
ALTER TABLE agents ADD COLUMN last_screen TEXT;
ALTER TABLE agents ADD COLUMN last_screen_at INTEGER;
