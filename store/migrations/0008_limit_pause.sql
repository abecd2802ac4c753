-- Version 6: rate-limit-aware admission (docs/lifecycle.md §7.6). One row per provider
-- whose agents stopped at a usage limit: the queue promotes none of its agents until
-- `until` (unix ms) passes. Durable, so a restart keeps the pause. routed_from is the
-- provider an agent was queued for when routing.fallback promoted it as another.
CREATE TABLE IF NOT EXISTS provider_pauses (
  provider    TEXT PRIMARY KEY,
  since       INTEGER NOT NULL,
  until       INTEGER NOT NULL,
  agent_uuid  TEXT,
  source      TEXT NOT NULL,
  message     TEXT
);
ALTER TABLE agents ADD COLUMN routed_from TEXT;
