-- Version 9: the tokens each turn used, as the provider reported them in its transcript
-- (docs/providers.md §6.8), read at completion; NULL when the transcript reported none.
ALTER TABLE turns ADD COLUMN input_tokens INTEGER;
ALTER TABLE turns ADD COLUMN output_tokens INTEGER;
ALTER TABLE turns ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE turns ADD COLUMN cache_write_tokens INTEGER;
