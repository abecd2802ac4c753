-- Version 2: open intents (decisions.md D1). A *_requested event inserts a row here and
-- the matching *_applied deletes it, so recovery finds every side effect left in flight
-- even after event retention has trimmed the *_requested event itself.
CREATE TABLE IF NOT EXISTS intents (
  op_id         TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  ref_uuid      TEXT,
  requested_seq INTEGER NOT NULL,
  params_json   TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);
