-- Version 1: the reference schema (config.md §3), kept compatible with a store created by
-- the reference implementation. Every statement is idempotent.
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS agents (
  uuid                  TEXT PRIMARY KEY,
  path                  TEXT NOT NULL,
  managed               INTEGER NOT NULL,
  origin                TEXT NOT NULL,
  parent_id             TEXT,
  agent                 TEXT,
  model                 TEXT,
  effort                TEXT,
  gc_mode               TEXT,
  cwd                   TEXT,
  herdr_session         TEXT,
  terminal_id           TEXT,
  pane_id               TEXT,
  launch_token          TEXT,
  agent_session_kind    TEXT,
  agent_session_value   TEXT,
  status                TEXT NOT NULL,
  move_state            TEXT NOT NULL DEFAULT 'none',
  move_token            TEXT,
  blocked_kind          TEXT,
  input_seq             INTEGER NOT NULL DEFAULT 0,
  cancel_requested      INTEGER NOT NULL DEFAULT 0,
  exit_reason           TEXT,
  transcript_locator    TEXT,
  transcript_cursor     TEXT,
  queue_seq             INTEGER,
  enqueued_at           INTEGER,
  starting_at           INTEGER,
  deadline_at           INTEGER,
  idle_since            INTEGER,
  parked_at             INTEGER,
  last_status_change_at INTEGER,
  created_at            INTEGER NOT NULL,
  ended_at              INTEGER,
  updated_at            INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS agents_active_path ON agents(path) WHERE status NOT IN ('ended');
CREATE INDEX IF NOT EXISTS agents_status_queue ON agents(status, queue_seq);
CREATE INDEX IF NOT EXISTS agents_provider_status ON agents(agent, status);
CREATE INDEX IF NOT EXISTS agents_path ON agents(path);
CREATE INDEX IF NOT EXISTS agents_parent ON agents(parent_id);
CREATE INDEX IF NOT EXISTS agents_pane ON agents(pane_id);
CREATE INDEX IF NOT EXISTS agents_session_term ON agents(herdr_session, terminal_id);
CREATE INDEX IF NOT EXISTS agents_agent_session ON agents(agent_session_kind, agent_session_value);

CREATE TABLE IF NOT EXISTS turns (
  agent_uuid        TEXT NOT NULL,
  input_seq         INTEGER NOT NULL,
  source            TEXT NOT NULL,
  delivered_at      INTEGER,
  working_seen_at   INTEGER,
  completed_at      INTEGER,
  blocked_kind      TEXT,
  transcript_cursor TEXT,
  PRIMARY KEY (agent_uuid, input_seq)
);

CREATE TABLE IF NOT EXISTS attaches (
  agent_uuid   TEXT NOT NULL,
  lease_id     TEXT PRIMARY KEY,
  mode         TEXT NOT NULL,
  connection   TEXT,
  client_pid   INTEGER,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS attaches_agent ON attaches(agent_uuid);

CREATE TABLE IF NOT EXISTS loops (
  uuid            TEXT PRIMARY KEY,
  name            TEXT NOT NULL,
  cadence_kind    TEXT NOT NULL,
  cadence_value   TEXT NOT NULL,
  tz              TEXT NOT NULL,
  cwd             TEXT NOT NULL,
  max_concurrency INTEGER NOT NULL,
  overlap         TEXT NOT NULL,
  timeout_s       INTEGER,
  status          TEXT NOT NULL,
  next_fire_at    INTEGER,
  last_fire_at    INTEGER,
  ended_reason    TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS loops_active_name ON loops(name) WHERE status IN ('active','paused');
CREATE INDEX IF NOT EXISTS loops_status_fire ON loops(status, next_fire_at);

CREATE TABLE IF NOT EXISTS loop_runs (
  uuid            TEXT PRIMARY KEY,
  loop_uuid       TEXT NOT NULL,
  run_id          TEXT NOT NULL,
  kind            TEXT NOT NULL,
  due_at          INTEGER,
  status          TEXT NOT NULL,
  pid             INTEGER,
  pgid            INTEGER,
  pgid_start_time INTEGER,
  exit_code       INTEGER,
  signal          INTEGER,
  timeout_at      INTEGER,
  started_at      INTEGER,
  ended_at        INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS loop_runs_run_id ON loop_runs(loop_uuid, run_id);
CREATE INDEX IF NOT EXISTS loop_runs_loop_status ON loop_runs(loop_uuid, status);

CREATE TABLE IF NOT EXISTS events (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  ts           INTEGER NOT NULL,
  kind         TEXT NOT NULL,
  ref_uuid     TEXT,
  payload_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_ref ON events(ref_uuid, seq);
