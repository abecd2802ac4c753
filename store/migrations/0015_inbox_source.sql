-- Version 15: the source of an inbox item (docs/usage.md §8.3): the session log's source
-- of its sender — remote for a stream's inject, orcr for a send through the socket that
-- waited out a budget pause — logged with its turn when the inbox delivers it. Items
-- stored before were logged as remote.
ALTER TABLE inbox ADD COLUMN source TEXT NOT NULL DEFAULT 'remote';
