-- Version 16: accounts (docs/usage.md §7.3). agents.account is the login the agent's
-- provider runs under, from its pane's environment when it was enqueued (the login's
-- email, else the provider's config directory; '' for an unmanaged agent or a provider
-- without one). A provider pause is kept per account: a pause with account '' holds every
-- account of its provider (a limit or window whose account orcr does not know), one with
-- an account holds only the agents of that account. The pauses stored before were the
-- provider's: they keep account ''.
ALTER TABLE agents ADD COLUMN account TEXT NOT NULL DEFAULT '';
CREATE TABLE provider_pauses_v16 (
  provider    TEXT NOT NULL,
  account     TEXT NOT NULL DEFAULT '',
  since       INTEGER NOT NULL,
  until       INTEGER NOT NULL,
  agent_uuid  TEXT,
  source      TEXT NOT NULL,
  message     TEXT,
  PRIMARY KEY (provider, account)
);
INSERT INTO provider_pauses_v16 (provider, account, since, until, agent_uuid, source, message)
  SELECT provider, '', since, until, agent_uuid, source, message FROM provider_pauses;
DROP TABLE provider_pauses;
ALTER TABLE provider_pauses_v16 RENAME TO provider_pauses;
