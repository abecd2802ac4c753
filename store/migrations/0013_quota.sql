-- Version 13: quota windows (docs/usage.md §7). The last report of each window of each
-- provider's account: the used percent, the window's length, its reset (unix ms; 0 =
-- not reported), when orcr read it and the agent whose turn reported it. Written in
-- the transaction that completes the turn; a later report replaces an earlier one.
CREATE TABLE IF NOT EXISTS quota_windows (
  provider       TEXT NOT NULL,
  account        TEXT NOT NULL DEFAULT '',
  window         TEXT NOT NULL,
  used_percent   REAL NOT NULL,
  window_minutes INTEGER NOT NULL,
  resets_at      INTEGER NOT NULL,
  observed_at    INTEGER NOT NULL,
  agent_uuid     TEXT,
  PRIMARY KEY (provider, account, window)
);
