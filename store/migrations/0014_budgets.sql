-- Version 12: budgets (docs/usage.md §7). A run budget (agent run --budget) is a row of
-- run_budgets keyed by the agent it was given to; the agents it spawns inherit it through
-- agents.run_budget (the uuid of the budget's agent, copied from the parent at enqueue),
-- so the budget counts the turns of its lineage. budget_scopes holds what a budget has
-- been told and done per scope (a rule's agent, day or total; a run budget's single
-- scope ''): the amount budget extend added (in the limit's unit) and the state it
-- reached (ok, warned, exceeded). agents.budget_paused names the budget that paused the
-- agent at a turn boundary (NULL = not paused); its sends wait in the inbox.
CREATE TABLE IF NOT EXISTS run_budgets (
  agent_uuid TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  cost_micros INTEGER NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS budget_scopes (
  budget TEXT NOT NULL,
  scope TEXT NOT NULL,
  extra INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'ok',
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (budget, scope)
);
ALTER TABLE agents ADD COLUMN run_budget TEXT;
ALTER TABLE agents ADD COLUMN budget_paused TEXT;
CREATE INDEX IF NOT EXISTS agents_run_budget ON agents(run_budget) WHERE run_budget IS NOT NULL;
