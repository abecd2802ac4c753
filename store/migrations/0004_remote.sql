-- Version 4: the remote stream (docs/remote.md). Each agent has a durable session log,
-- written in the same transaction as the change it describes: per-agent seq from 0,
-- gapless, never reused, and not trimmed by event retention.
CREATE TABLE IF NOT EXISTS session_log (
  agent_uuid   TEXT NOT NULL,
  seq          INTEGER NOT NULL,
  id           TEXT NOT NULL,
  at_us        INTEGER NOT NULL,
  type         TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  PRIMARY KEY (agent_uuid, seq)
) WITHOUT ROWID;
-- One row per agent with a log: the tip and what appending needs without scanning the
-- log (the last status logged, the open log turn, the approvals row, a model switch
-- set_model asked for that the pane has not had yet).
CREATE TABLE IF NOT EXISTS sessions (
  agent_uuid      TEXT PRIMARY KEY,
  tip             INTEGER NOT NULL,
  status          TEXT,
  blocked_kind    TEXT,
  turn_start_seq  INTEGER,
  turn_input_seq  INTEGER,
  approvals       INTEGER NOT NULL DEFAULT 0,
  pending_model   TEXT,
  created_at      INTEGER NOT NULL
);
-- Bearer tokens of the stream: only the SHA-256 of the secret is kept.
CREATE TABLE IF NOT EXISTS remote_tokens (
  hash        TEXT PRIMARY KEY,
  agent_uuid  TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
);
CREATE INDEX IF NOT EXISTS remote_tokens_agent ON remote_tokens(agent_uuid);
-- The durable inbox of injected text waiting for a turn (docs/remote.md §6, inject).
CREATE TABLE IF NOT EXISTS inbox (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  agent_uuid  TEXT NOT NULL,
  text        TEXT NOT NULL,
  wake        INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS inbox_agent ON inbox(agent_uuid, id);
