-- Version 5: notifications (docs/notify.md). One row per (target, event) to deliver,
-- inserted in the same transaction that advances the notifier's cursor (meta key
-- notify_cursor), so the durable table is the queue: a delivery is never lost and
-- never enqueued twice. A delivered row is deleted; a failed one (attempts exhausted,
-- a permanent error, or dropped at notify.queue_limit) stays as the record, the newest
-- 1000 per target.
CREATE TABLE IF NOT EXISTS notify_deliveries (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id     TEXT NOT NULL UNIQUE,
  target          TEXT NOT NULL,
  event_seq       INTEGER NOT NULL,
  event           TEXT NOT NULL,
  body            TEXT NOT NULL,
  state           TEXT NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  last_error      TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS notify_deliveries_event ON notify_deliveries(target, event_seq);
CREATE INDEX IF NOT EXISTS notify_deliveries_due ON notify_deliveries(target, state, next_attempt_at);
-- Per-target counters for server.status, updated with each delivery's outcome.
CREATE TABLE IF NOT EXISTS notify_targets (
  target            TEXT PRIMARY KEY,
  delivered         INTEGER NOT NULL DEFAULT 0,
  failed            INTEGER NOT NULL DEFAULT 0,
  dropped           INTEGER NOT NULL DEFAULT 0,
  last_error        TEXT,
  last_error_at     INTEGER,
  last_delivered_at INTEGER
);
